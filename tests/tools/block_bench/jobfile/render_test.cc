// Rendering jobs as command lines (--showcmd) and the round trip
// parse(render(job)) == job.
#include "tools/block_bench/jobfile/render.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "tests/tools/block_bench/jobfile/test_util.h"
#include "tools/block_bench/jobfile/option_table.h"

namespace blk::bench {
namespace {

using testing::FakeEnv;
using testing::ParseOne;

std::string Join(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) out += (out.empty() ? "" : " ") + a;
  return out;
}

void ExpectRoundTrip(const JobOptions& job) {
  const std::vector<std::string> args = RenderJobArgs(job);
  auto parsed = ParseCommandLine(args, FakeEnv{}.Env());
  ASSERT_TRUE(parsed.ok()) << Join(args) << "\n" << parsed.error().message;
  ASSERT_EQ(parsed.value().jobs.size(), 1u) << Join(args);
  EXPECT_EQ(parsed.value().jobs[0], job) << Join(args);
}

TEST(Render, DefaultJobIsJustItsName) {
  JobOptions job;
  job.name = "plain";
  EXPECT_EQ(RenderJobArgs(job), std::vector<std::string>{"--name=plain"});
  EXPECT_EQ(RenderJobArgs(ParseOne("bs=4k\niodepth=1\nrw=read\nrandrepeat=1\ntime_based=0")),
            std::vector<std::string>{"--name=job"})
      << "options set to their defaults are not rendered";
}

TEST(Render, OnlyNonDefaultOptionsInTableOrder) {
  const JobOptions job = ParseOne(
      "rw=randread\nbs=8k\niodepth=32\ntime_based\nruntime=2m\nioengine=libaio\ndirect=1\n"
      "filename=/dev/sda:/dev/sdb\nwrite_bw_log\nrate=1m,500k\n");
  EXPECT_EQ(RenderJobArgs(job),
            (std::vector<std::string>{"--name=job", "--ioengine=libaio", "--filename=/dev/sda:/dev/sdb",
                                      "--direct=1", "--rw=randread", "--bs=8k", "--iodepth=32",
                                      "--rate=1m,500k", "--runtime=2m", "--time_based",
                                      "--write_bw_log"}));
}

// The rendered options of a job file body, without the leading --name.
std::string OptionsOf(const std::string& body) {
  std::vector<std::string> a = RenderJobArgs(ParseOne(body));
  a.erase(a.begin());
  return Join(a);
}

// Choice options (ChoiceOption): an alias reads as its value and renders as
// the value's first name; a value's error lists every accepted name.
TEST(Render, ChoiceAliasesRenderAsTheirFirstName) {
  EXPECT_EQ(OptionsOf("continue_on_error=1"), "--continue_on_error=all");
  EXPECT_EQ(OptionsOf("unified_rw_reporting=2"), "--unified_rw_reporting=both");
  EXPECT_EQ(OptionsOf("fallocate=1"), "--fallocate=posix");
  EXPECT_EQ(OptionsOf("fallocate=0"), "--fallocate=none");
  EXPECT_EQ(OptionsOf("fadvise_hint=random"), "--fadvise_hint=random");
  EXPECT_EQ(OptionsOf("unit_base=0"), "") << "0 (auto) is the default";
  EXPECT_EQ(OptionsOf("unit_base=8"), "--unit_base=8") << "bytes even for ioengine=net";
  EXPECT_EQ(OptionsOf("io_submit_mode=inline"), "--io_submit_mode=inline");
  EXPECT_EQ(OptionsOf("cpus_allowed_policy=shared"), "");
  EXPECT_OPTION_ERROR("fallocate=yes", 2, "fallocate",
                      "expected none, native, posix, keep, truncate, 0 or 1, got 'yes'");
  EXPECT_OPTION_ERROR("fadvise_hint=2", 2, "fadvise_hint",
                      "expected 0, 1, random or sequential, got '2'");
  EXPECT_OPTION_ERROR("continue_on_error=trim", 2, "continue_on_error",
                      "expected none, read, write, io, verify, all, 0 or 1, got 'trim'");
}

TEST(Render, SpecialForms) {
  EXPECT_EQ(OptionsOf("kb_base=1000\nbs=4k\nsize=4KiB"), "--kb_base=1000 --bs=4k --size=4ki");
  EXPECT_EQ(OptionsOf("bsrange=4k-64k,8k-8k"), "--bsrange=4k-64k,8k-8k");
  EXPECT_EQ(OptionsOf("bs=,8k,"), "--bs=4k,8k,4k");
  EXPECT_EQ(OptionsOf("ba=,8k,"), "--blockalign=,8k,");
  EXPECT_EQ(OptionsOf("bssplit=4k/50:1k/:32k/"), "--bssplit=4k/50:1k/25:32k/25");
  EXPECT_EQ(OptionsOf("rw=randread:8"), "--rw=randread:8");
  EXPECT_EQ(OptionsOf("rw=write:64k"), "--rw=write:64k");
  EXPECT_EQ(OptionsOf("rw=read:-8k"), "--rw=read:-8k");
  EXPECT_EQ(OptionsOf("readwrite=readwrite"), "--rw=rw");
  EXPECT_EQ(OptionsOf("rwmixwrite=30"), "--rwmixread=70");
  EXPECT_EQ(OptionsOf("buffered=0"), "--direct=1");
  EXPECT_EQ(OptionsOf("size=50%\noffset=10%"), "--offset=10% --size=50%");
  EXPECT_EQ(OptionsOf("random_distribution=zipf:1.2:0.25"), "--random_distribution=zipf:1.2:0.25");
  EXPECT_EQ(OptionsOf("random_distribution=zoned:60/10:40/90"), "--random_distribution=zoned:60/10:40/90");
  EXPECT_EQ(OptionsOf("startdelay=5-10"), "--startdelay=5s-10s");
  EXPECT_EQ(OptionsOf("thinktime=1500"), "--thinktime=1500us");
  EXPECT_EQ(OptionsOf("ioengine=rbd\npool=p\nbusy_poll=1"), "--ioengine=rbd --pool=p --busy_poll=1");
  EXPECT_EQ(OptionsOf("norandommap=0\ngroup_reporting=1"), "--group_reporting");
  EXPECT_EQ(OptionsOf("write_lat_log=lat"), "--write_lat_log=lat");
  EXPECT_EQ(OptionsOf("verify=crc32c-intel"), "--verify=crc32c");
  EXPECT_EQ(OptionsOf("percentile_list=99.5:99.9"), "--percentile_list=99.5:99.9");
  EXPECT_EQ(OptionsOf("iodepth_low=0\niodepth_batch_complete_max=4"), "--iodepth_batch_complete_max=4");
}

TEST(Render, ShowCommandQuotesForTheShell) {
  EXPECT_EQ(ShellQuote("--bs=4k"), "--bs=4k");
  EXPECT_EQ(ShellQuote("--description=two words"), "'--description=two words'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("--filename=a\\:b"), "'--filename=a\\:b'");
  auto jobs = ParseJobText("[a]\nrw=randread\n[b b]\nstonewall\n", "job.fio", FakeEnv{}.Env());
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ(ShowCommand(jobs.value()), "block-bench --name=a --rw=randread '--name=b b' --stonewall");
  EXPECT_EQ(ShowCommand(jobs.value(), "fio"), "fio --name=a --rw=randread '--name=b b' --stonewall");
}

// One non-default setting for every option of the table.  The coverage test
// below fails when an option is added without a sample here.
// opendir='s sample: a directory holding two regular files (made once).
std::string OpendirSample() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string d = std::string(tmp ? tmp : "/tmp") + "/render_opendir";
  std::filesystem::create_directories(d + "/sub");
  std::ofstream(d + "/a") << "a";
  std::ofstream(d + "/sub/b") << "b";
  return "opendir=" + d;
}

const std::vector<std::pair<std::string, std::string>>& Samples() {
  static const std::vector<std::pair<std::string, std::string>> kSamples = {
      {"opendir", OpendirSample()},
      {"file_append", "file_append=1"},
      {"unlink_each_loop", "unlink_each_loop=1"},
      {"lockfile", "lockfile=readwrite"},
      {"write_hint", "write_hint=medium"},
      {"sync_file_range", "sync_file_range=wait_before,write:8"},
      {"name", "name=other"},
      {"description", "description=Mixed: 70% reads, a=b"},
      {"kb_base", "kb_base=1000\nbs=4096\nsize=1000000\nrate=1234"},
      {"ioengine", "ioengine=io_uring"},
      {"pool", "ioengine=rbd\npool=rbd"},
      {"rbdname", "ioengine=rbd\nrbdname=img"},
      {"clientname", "ioengine=rbd\nclientname=admin"},
      {"clustername", "ioengine=rbd\nclustername=ceph"},
      {"busy_poll", "ioengine=rbd\nbusy_poll=1"},
      {"conf", "ioengine=rados\nconf=/etc/ceph/ceph.conf"},
      {"touch_objects", "ioengine=rados\ntouch_objects=0"},
      {"uri", "ioengine=nbd\nuri=nbd+unix:///?socket=/run/s"},
      {"userspace_reap", "ioengine=libaio\nuserspace_reap=1"},
      {"cpuload", "ioengine=cpuio\ncpuload=150"},
      {"cpuchunks", "ioengine=cpuio\ncpuload=5\ncpuchunks=1000"},
      {"cpumode", "ioengine=cpuio\ncpuload=5\ncpumode=qsort"},
      {"exit_on_io_done", "ioengine=cpuio\ncpuload=5\nexit_on_io_done=1"},
      {"program", "ioengine=exec\nprogram=/bin/sleep"},
      {"arguments", "ioengine=exec\nprogram=/bin/sleep\narguments=%r  --x=%n"},
      {"grace_time", "ioengine=exec\nprogram=p\ngrace_time=0"},
      {"std_redirect", "ioengine=exec\nprogram=p\nstd_redirect=0"},
      {"stat_type", "ioengine=filestat\nstat_type=statx"},
      {"stat_type", "ioengine=filestat\nstat_type=lstat"},
      {"donorname", "ioengine=e4defrag\ndonorname=donor.def"},
      {"inplace", "ioengine=e4defrag\ndonorname=d\ninplace=1"},
      {"hostname", "ioengine=net\nport=9\nhostname=127.0.0.1\nrw=write\nsize=1m"},
      {"port", "ioengine=net\nport=9000\nlisten\nsize=1m"},
      {"protocol", "ioengine=net\nprotocol=unix\nfilename=/tmp/s\nsize=1m"},
      {"protocol", "ioengine=net\nproto=udpv6\nport=9\nsize=1m"},
      {"listen", "ioengine=net\nport=9\nlisten\nsize=1m"},
      {"pingpong", "ioengine=net\nport=9\nlisten\npingpong\nsize=1m"},
      {"nodelay", "ioengine=net\nport=9\nlisten\nnodelay=1\nsize=1m"},
      {"interface", "ioengine=net\nprotocol=udp\nport=9\nfilename=239.0.0.1\ninterface=127.0.0.1\nsize=1m"},
      {"ttl", "ioengine=net\nprotocol=udp\nport=9\nhostname=239.0.0.1\nrw=write\nttl=4\nsize=1m"},
      {"window_size", "ioengine=net\nport=9\nlisten\nwindow_size=65536\nsize=1m"},
      {"mss", "ioengine=net\nport=9\nlisten\nmss=1400\nsize=1m"},
      {"nowait", "ioengine=pvsync2\nnowait=1"},
      {"sqthread_poll", "ioengine=io_uring\nsqthread_poll=1"},
      {"sqthread_poll_cpu", "ioengine=io_uring\nsqthread_poll=1\nsqthread_poll_cpu=1"},
      {"registerfiles", "ioengine=io_uring\nregisterfiles=1"},
      {"force_async", "ioengine=io_uring\nforce_async=1"},
      {"fixedbufs", "ioengine=io_uring\nfixedbufs=1"},
      {"nonvectored", "ioengine=io_uring\nnonvectored=1"},
      {"filename", "filename=/dev/a:b\\:c"},
      {"nrfiles", "nrfiles=3"},
      {"offset_increment", "offset_increment=1m"},
      {"offset_align", "offset_align=64k"},
      {"unlink", "unlink=1"},
      {"sync", "sync=dsync"},
      {"fsync_on_close", "fsync_on_close=1"},
      {"write_barrier", "write_barrier=8"},
      {"allow_mounted_write", "allow_mounted_write=1"},
      {"unique_filename", "unique_filename=0"},
      {"openfiles", "openfiles=4\nnrfiles=2"},
      {"filesize", "filesize=64k\nnrfiles=2"},
      {"filename_format", "filename_format=f$jobnum.$filenum\nnrfiles=2"},
      {"serialize_overlap", "serialize_overlap=1\niodepth=4"},
      {"file_service_type", "file_service_type=random:4"},
      {"directory", "directory=/mnt/x:/mnt/y"},
      {"blockdev", "blockdev=driver=file,filename=/tmp/x,aio=native,cache.direct=on"},
      {"direct", "direct=1"},
      {"steadystate", "ss=iops_slope:0.3%\nss_dur=6"},
      {"steadystate_duration", "steadystate_duration=1m\nss=bw:1024"},
      {"steadystate_ramp_time", "ss_ramp=5s\nss_dur=10\nss=lat:2.5%"},
      {"steadystate_check_interval", "ss_interval=2s\nss_dur=10s"},
      {"buffered", "buffered=0"},
      {"invalidate", "invalidate=0"},
      {"fadvise_hint", "fadvise_hint=random"},
      {"rw", "rw=randrw:16"},
      {"rwmixread", "rwmixread=0"},
      {"rwmixwrite", "rwmixwrite=35"},
      {"bs", "bs=8k,16k,512"},
      {"bsrange", "bsrange=1k-4k,2k-8k,3000-3000"},
      {"bssplit", "bssplit=4k/10:64k/50:32k/40,,1m/"},
      {"blockalign", "blockalign=512,,4k"},
      {"offset", "offset=4g"},
      {"size", "size=1t"},
      {"io_size", "io_size=150%"},
      {"number_ios", "number_ios=123456"},
      {"random_distribution", "random_distribution=zoned_abs:60/20G:30/100G:10/500g,100/1m"},
      {"randrepeat", "randrepeat=0"},
      {"allrandrepeat", "allrandrepeat=1"},
      {"bs_unaligned", "bsrange=1k-16k\nbs_unaligned"},
      {"bs_is_seq_rand", "bs_is_seq_rand=1"},
      {"randseed", "randseed=18446744073709551615"},
      {"norandommap", "norandommap"},
      {"softrandommap", "softrandommap=1"},
      {"zero_buffers", "zero_buffers"},
      {"refill_buffers", "refill_buffers"},
      {"scramble_buffers", "scramble_buffers=0"},
      {"buffer_compress_percentage", "buffer_compress_percentage=30"},
      {"buffer_compress_chunk", "buffer_compress_chunk=4k"},
      {"buffer_pattern", "buffer_pattern=0xdeadbeef\"ab\"-12"},
      {"dedupe_percentage", "dedupe_percentage=25"},
      {"dedupe_mode", "dedupe_mode=repeat"},
      {"dedupe_working_set_percentage", "dedupe_working_set_percentage=10"},
      {"dedupe_global", "dedupe_global=1"},
      {"iodepth", "iodepth=128"},
      {"iodepth_batch_submit", "iodepth_batch_submit=0"},
      {"fio_defaults", "fio_defaults"},
      {"iodepth_batch_complete_min", "iodepth_batch_complete_min=0"},
      {"iodepth_batch_complete_max", "iodepth_batch_complete_max=64"},
      {"iodepth_low", "iodepth_low=3"},
      {"numjobs", "numjobs=7"},
      {"rate", "rate=,500k"},
      {"rate_iops", "rate_iops=100,200,300"},
      {"rate_process", "rate_process=poisson"},
      {"thinktime", "thinktime=1500"},
      {"thinktime_blocks", "thinktime_blocks=9"},
      {"thinktime_spin", "thinktime=2ms\nthinktime_spin=700"},
      {"thinktime_blocks_type", "thinktime_blocks_type=issue"},
      {"thinktime_iotime", "thinktime_iotime=9s"},
      {"rate_ignore_thinktime", "rate_ignore_thinktime=1"},
      {"fsync", "fsync=32"},
      {"fdatasync", "fdatasync=5"},
      {"end_fsync", "end_fsync=1"},
      {"runtime", "runtime=90"},
      {"time_based", "time_based"},
      {"ramp_time", "ramp_time=1500ms"},
      {"startdelay", "startdelay=1m:30"},
      {"stonewall", "stonewall"},
      {"new_group", "new_group"},
      {"group_reporting", "group_reporting"},
      {"verify", "verify=crc32c"},
      {"do_verify", "do_verify=0"},
      {"verify_fatal", "verify_fatal=1"},
      {"verify_dump", "verify_dump=1"},
      {"experimental_verify", "experimental_verify=1"},
      {"continue_on_error", "continue_on_error=verify"},
      {"ignore_error", "ignore_error=EAGAIN,ENOSPC:122"},
      {"error_dump", "error_dump=1"},
      {"stats", "stats=0"},
      {"percentile_list", "percentile_list=0.1:50:99.999:100"},
      {"clat_percentiles", "clat_percentiles=0"},
      {"lat_percentiles", "lat_percentiles=1"},
      {"slat_percentiles", "slat_percentiles=1"},
      {"disable_lat", "disable_lat=1"},
      {"disable_clat", "disable_clat=1"},
      {"disable_slat", "disable_slat=1"},
      {"disable_bw_measurement", "disable_bw=1"},
      {"gtod_reduce", "gtod_reduce=1"},
      {"write_lat_log", "write_lat_log"},
      {"write_bw_log", "write_bw_log=bw-prefix"},
      {"write_iops_log", "write_iops_log=iops"},
      {"log_avg_msec", "log_avg_msec=250"},
      {"log_offset", "log_offset=1"},
      {"log_prio", "log_prio=1"},
      {"write_hist_log", "write_hist_log=h\nlog_hist_msec=100"},
      {"log_hist_msec", "log_hist_msec=250"},
      {"log_hist_coarseness", "log_hist_coarseness=3"},
      {"log_max_value", "log_max_value=1"},
      {"log_unix_epoch", "log_unix_epoch=1"},
      {"log_alternate_epoch", "log_alternate_epoch=1"},
      {"log_alternate_epoch_clock_id", "log_alternate_epoch_clock_id=1"},
      {"per_job_logs", "per_job_logs=0"},
      {"log_entries", "log_entries=4096"},
      {"significant_figures", "significant_figures=6"},
      {"unit_base", "unit_base=1"},
      {"log_compression", "log_compression=64k"},
      {"log_store_compressed", "log_store_compressed=1"},
      {"log_compression_cpus", "log_compression_cpus=0"},
      {"bwavgtime", "bwavgtime=100"},
      {"iopsavgtime", "iopsavgtime=250"},
      {"disk_util", "disk_util=0"},
      {"create_on_open", "create_on_open=1"},
      {"thread", "thread"},
      {"io_submit_mode", "io_submit_mode=inline"},
      {"io_submit_mode", "io_submit_mode=offload"},
      {"loops", "loops=3"},
      {"unified_rw_reporting", "unified_rw_reporting=both"},
      {"random_generator", "random_generator=lfsr"},
      {"exitall", "exitall"},
      {"exit_what", "exit_what=stonewall"},
      {"exitall_on_error", "exitall_on_error"},
      {"cpus_allowed", "cpus_allowed=0-3,6,8-9"},
      {"cpumask", "cpumask=0x5\ncpus_allowed=0,2"},
      {"cpus_allowed_policy", "cpus_allowed_policy=split"},
      {"create_only", "create_only=1"},
      {"allow_file_create", "allow_file_create=0"},
      {"overwrite", "overwrite=1"},
      {"pre_read", "pre_read=1"},
      {"create_fsync", "create_fsync=0"},
      {"create_serialize", "create_serialize=0"},
      {"flow", "flow=3"},
      {"flow", "flow=-2"},
      {"verify_backlog", "verify=crc32c\nverify_backlog=16"},
      {"verify_backlog_batch", "verify=crc32c\nverify_backlog=16\nverify_backlog_batch=4"},
      {"verify_async", "verify=crc32c\nverify_async=2"},
      {"verify_async_cpus", "verify_async_cpus=0-1,3"},
      {"trim_percentage", "verify=crc32c\ntrim_percentage=50"},
      {"trim_verify_zero", "verify=crc32c\ntrim_percentage=50\ntrim_verify_zero=0"},
      {"trim_backlog", "verify=crc32c\ntrim_percentage=50\ntrim_backlog=8"},
      {"trim_backlog_batch", "verify=crc32c\ntrim_percentage=50\ntrim_backlog=8\ntrim_backlog_batch=2"},
      {"verify", "verify=pattern\nverify_pattern=0x1"},
      {"verify_pattern", "verify=pattern\nverify_pattern=0xff%o\"abcd\"-12"},
      {"verify_pattern", "verify_pattern=%o"},
      {"verify_interval", "verify=md5\nverify_interval=1k"},
      {"verify_offset", "verify=md5\nverify_offset=128"},
      {"verify_only", "verify=md5\nverify_only"},
      {"verify_state_save", "verify_state_save=0"},
      {"verify_state_load", "verify_state_load=1"},
      {"rate_min", "rate_min=1m"},
      {"rate_min", "rate_min=1m,2m"},
      {"rate_iops_min", "rate_iops_min=100"},
      {"rate_cycle", "rate_cycle=500"},
      {"rw_sequencer", "rw=randread:8\nrw_sequencer=identical"},
      {"zonemode", "zonemode=strided\nzonesize=256k"},
      {"zonesize", "zonemode=strided\nzonesize=1m"},
      {"zonerange", "zonemode=strided\nzonesize=256k\nzonerange=1m"},
      {"zoneskip", "zonemode=strided\nzonesize=256k\nzoneskip=768k"},
      {"percentage_random", "percentage_random=50"},
      {"percentage_random", "percentage_random=10,90"},
      {"latency_target", "latency_target=2ms"},
      {"latency_run", "latency_run=1\nlatency_target=500"},
      {"max_latency", "max_latency=10ms"},
      {"max_latency", "max_latency=1ms,20ms"},
      {"latency_window", "latency_window=100ms\nlatency_target=500"},
      {"latency_percentile", "latency_percentile=99.5\nlatency_target=500"},
      {"flow_id", "flow_id=2\nflow=1"},
      {"flow_sleep", "flow_sleep=100\nflow=1"},
      {"fill_device", "fill_fs=1"},
      {"fallocate", "fallocate=keep"},
      {"read_iolog", "read_iolog=a.log:b\\:c.log"},
      {"trace_format", "trace_format=blktrace\nread_iolog=t"},
      {"read_iolog_chunked", "read_iolog_chunked=1\nread_iolog=t"},
      {"trace_device", "trace_device=8,16\nread_iolog=t"},
      {"trace_skip_bad", "trace_skip_bad=1"},
      {"trace_max_size", "trace_max_size=64m"},
      {"replay_no_stall", "replay_no_stall=1"},
      {"replay_time_scale", "replay_time_scale=200"},
      {"replay_redirect", "replay_redirect=/dev/null"},
      {"replay_align", "replay_align=4k"},
      {"replay_scale", "replay_scale=8"},
      {"replay_skip", "replay_skip=write,sync"},
      {"write_iolog", "write_iolog=out.log"},
      {"iodepth", "iodepth=1\nread_iolog=t"},
      {"prio", "prio=3"},
      {"prioclass", "prioclass=3"},
      {"cmdprio_percentage", "ioengine=libaio\ncmdprio_percentage=30,40"},
      {"cmdprio_class", "ioengine=io_uring\ncmdprio_class=2\ncmdprio_percentage=10"},
      {"cmdprio", "ioengine=libaio\ncmdprio=3,5\ncmdprio_percentage=5"},
      {"cmdprio_bssplit", "ioengine=libaio\ncmdprio_bssplit=4k/10/1/2:8k/20,64k/50"},
      {"exec_prerun", "exec_prerun=echo a && echo b >&2"},
      {"exec_postrun", "exec_postrun=date +%s"},
      {"wait_for", "wait_for=first"},
      {"nice", "nice=-3"},
      {"clocksource", "clocksource=cpu"},
      {"gtod_cpu", "gtod_cpu=1"},
      {"lockmem", "lockmem=16m"},
      {"atomic", "atomic=1"},
      {"mem", "mem=mmapshared:/dev/shm/bb-buf"},
      {"iomem_align", "mem_align=512"},
      {"hugepage-size", "hugepage-size=1g"},
      {"ioscheduler", "ioscheduler=mq-deadline"},
      {"numa_cpu_nodes", "numa_cpu_nodes=0"},
      {"numa_mem_policy", "numa_mem_policy=bind:0"},
      {"cgroup", "cgroup=bench/a"},
      {"cgroup_weight", "cgroup_weight=500"},
      {"cgroup_nodelete", "cgroup_nodelete=1"},
      {"merge_blktrace_file", "merge_blktrace_file=merged.bin"},
      {"merge_blktrace_scalars", "merge_blktrace_scalars=50:100"},
      {"merge_blktrace_iters", "merge_blktrace_iters=2:1"},
  };
  return kSamples;
}

TEST(RoundTrip, EveryOptionHasASample) {
  std::set<std::string> sampled;
  for (const auto& [name, body] : Samples()) sampled.insert(name);
  for (const FioOptionSpec& spec : OptionTable()) {
    EXPECT_TRUE(sampled.count(std::string(spec.name))) << "no round-trip sample for " << spec.name;
  }
}

TEST(RoundTrip, EachOptionAlone) {
  for (const auto& [name, body] : Samples()) {
    SCOPED_TRACE(name);
    const JobOptions job = ParseOne(body);
    EXPECT_NE(job, ParseOne("")) << "sample for " << name << " must change something";
    ExpectRoundTrip(job);
  }
}

TEST(RoundTrip, AllOptionsTogether) {
  std::string body;
  for (const auto& [name, sample] : Samples()) {
    // Overlap others (userspace_reap needs ioengine=libaio, the io_uring
    // options io_uring, the rbd samples rbd, the rados ones rados, uri nbd, cpuio's, exec's and
    // stat_type their engines; verify_only refuses
    // time_based; zones refuse the zipf and nrfiles samples).
    if (name == "kb_base" || name == "uri" || name == "verify_only" || name == "buffered" || name == "atomic" || name == "rwmixwrite" || name == "userspace_reap" || name == "nowait" ||
        name == "sqthread_poll" || name == "sqthread_poll_cpu" || name == "registerfiles" ||
        name == "force_async" || name == "nonvectored" || name == "fixedbufs" ||
        name.starts_with("zone") || name.starts_with("cmdprio") ||
        // The cpuio, exec and filestat samples switch engines too.
        name == "cpuload" || name == "cpuchunks" || name == "cpumode" || name == "exit_on_io_done" || name == "program" ||
        name == "arguments" || name == "grace_time" || name == "std_redirect" ||
        name == "stat_type" || name == "hostname" || name == "port" || name == "protocol" ||
        name == "listen" || name == "pingpong" || name == "nodelay" || name == "interface" ||
        name == "ttl" || name == "window_size" || name == "mss" || name == "donorname" ||
        name == "inplace" || name == "conf" || name == "touch_objects") {
      continue;
    }
    body += sample + "\n";
  }
  ExpectRoundTrip(ParseOne(body));
}

TEST(RoundTrip, KbBase1000Sizes) {
  ExpectRoundTrip(ParseOne(
      "kb_base=1000\nbs=4k,4KiB\nbsrange=1000-4096\nsize=1mi\noffset=1000001\nrate=1k\n"
      "rw=write:4ki\nbssplit=4k/50:4ki/50\nrandom_distribution=zoned_abs:50/1g:50/1gi\nba=1024"));
}

TEST(RoundTrip, TrickyValues) {
  for (const char* body : {
           "rw=read:1",
           "rw=randwrite:1",
           "bs=,8k",
           "bs=8k,",
           "bs=,,8k",
           "rate=1,2",
           "rate_iops=0,0,7",
           "bssplit=4k/100:8k/",
           "bssplit=4k/:8k/:16k/",
           "ba=1,,",
           "random_distribution=zipf",
           "random_distribution=normal:0",
           "random_distribution=pareto:0.999:1",
           "random_distribution=zoned:100/100,,50/50:50/50",
           "startdelay=1-1",
           "thinktime=(3*7)",
           "runtime=1d",
           "percentile_list=33.333333333333336",
           "filename=a\\:b:c",
           "description=quote ' and \" and \\",
           "write_bw_log=",
           "size=100%\nio_size=1%\noffset=0%",
           "size=100%%",
           "filesize=4m-1m\nnrfiles=3",
       }) {
    SCOPED_TRACE(body);
    ExpectRoundTrip(ParseOne(body));
  }
}

TEST(RoundTrip, SeveralJobsOnOneCommandLine) {
  FakeEnv fake;
  fake.files["a.fio"] = "[global]\nbs=8k\n[x]\nrw=randread\n[y]\nstonewall\niodepth=4\n";
  fake.files["b.fio"] = "[z]\nioengine=null\n";
  auto first = ParseCommandLine({"--numjobs=2", "a.fio", "b.fio"}, fake.Env());
  ASSERT_TRUE(first.ok()) << first.error().message;
  std::vector<std::string> args;
  for (const JobOptions& job : first.value().jobs) {
    for (std::string& a : RenderJobArgs(job)) args.push_back(std::move(a));
  }
  auto second = ParseCommandLine(args, fake.Env());
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second.value().jobs, first.value().jobs);
  ASSERT_EQ(second.value().jobs.size(), 3u);
  EXPECT_TRUE(second.value().jobs[2].stonewall);
}

}  // namespace
}  // namespace blk::bench
