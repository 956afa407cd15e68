// Options controlling how I/O flows: iodepth*, numjobs, rate, rate_iops,
// rate_process, thinktime*, fsync, fdatasync, end_fsync, runtime,
// time_based, ramp_time, startdelay, stonewall, new_group, group_reporting.
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/tools/block_bench/jobfile/test_util.h"

namespace blk::bench {
namespace {

using std::chrono::microseconds;
using testing::Cmd;
using testing::OneError;
using testing::ParseOne;

// flow= is at most 1000; a negative weight is fio 3.33's unsigned
// wrap-around (2^32 + N), rendered back as written.
TEST(FlowOption, NegativeWrapsAsFio) {
  EXPECT_EQ(ParseOne("flow=3").flow, 3u);
  EXPECT_EQ(ParseOne("flow=-2").flow, 4294967294u);
  EXPECT_NE(OneError("flow=1001").find("option 'flow'"), std::string::npos);
  EXPECT_NE(OneError("flow=x").find("option 'flow'"), std::string::npos);
}

TEST(IodepthOption, AtLeastOne) {
  EXPECT_EQ(ParseOne("").iodepth, 1u);
  EXPECT_EQ(ParseOne("iodepth=32").iodepth, 32u);
  EXPECT_EQ(OneError("iodepth=abc"), "job.fio:2: option 'iodepth': expected an integer >= 1, got 'abc'");
  EXPECT_OPTION_ERROR("iodepth=0", 2, "iodepth", "expected an integer >= 1, got '0'");
  EXPECT_OPTION_ERROR("iodepth=5000000000", 2, "iodepth", "got '5000000000' (at most 4294967295)");
  EXPECT_OPTION_ERROR("iodepth", 2, "iodepth", "requires a value");
}

TEST(IodepthBatchOptions, DefaultsAndAliases) {
  const JobOptions d = ParseOne("");
  EXPECT_EQ(d.iodepth_batch_submit, 1u);
  EXPECT_EQ(d.iodepth_batch_complete_min, 1u);
  EXPECT_FALSE(d.iodepth_batch_complete_max);
  EXPECT_FALSE(d.iodepth_low);
  EXPECT_EQ(ParseOne("iodepth_batch_submit=8").iodepth_batch_submit, 8u);
  EXPECT_EQ(ParseOne("iodepth_batch=0").iodepth_batch_submit, 0u);
  EXPECT_EQ(ParseOne("iodepth_batch_complete_min=0").iodepth_batch_complete_min, 0u);
  EXPECT_EQ(ParseOne("iodepth_batch_complete=4").iodepth_batch_complete_min, 4u);
  EXPECT_EQ(ParseOne("iodepth_batch_complete_max=16").iodepth_batch_complete_max, std::optional<uint32_t>(16));
  EXPECT_FALSE(ParseOne("iodepth_batch_complete_max=0").iodepth_batch_complete_max);
  EXPECT_EQ(ParseOne("iodepth_low=4").iodepth_low, std::optional<uint32_t>(4));
  EXPECT_FALSE(ParseOne("iodepth_low=0").iodepth_low);
  EXPECT_OPTION_ERROR("iodepth_batch=x", 2, "iodepth_batch", "non-negative");
  EXPECT_OPTION_ERROR("iodepth_batch_submit=-1", 2, "iodepth_batch_submit", "got '-1'");
  EXPECT_OPTION_ERROR("iodepth_batch_complete_min=x", 2, "iodepth_batch_complete_min", "got 'x'");
  EXPECT_OPTION_ERROR("iodepth_batch_complete=x", 2, "iodepth_batch_complete", "got 'x'");
  EXPECT_OPTION_ERROR("iodepth_batch_complete_max=x", 2, "iodepth_batch_complete_max", "got 'x'");
  EXPECT_OPTION_ERROR("iodepth_low=x", 2, "iodepth_low", "got 'x'");
}

TEST(IodepthBatchOptions, MaxBelowMinIsAJobError) {
  EXPECT_EQ(OneError("iodepth_batch_complete_min=8\niodepth_batch_complete_max=4"),
            "job.fio:1: job 'job': iodepth_batch_complete_max (4) is less than "
            "iodepth_batch_complete_min (8)");
}

TEST(NumjobsOption, StaysAField) {
  EXPECT_EQ(ParseOne("").numjobs, 1u);
  EXPECT_EQ(ParseOne("numjobs=4").numjobs, 4u);
  EXPECT_OPTION_ERROR("numjobs=0", 2, "numjobs", "expected an integer >= 1");
}

TEST(RateOptions, PerDirection) {
  EXPECT_EQ(ParseOne("").rate, (PerDir<uint64_t>{0, 0, 0}));
  EXPECT_EQ(ParseOne("rate=1m,500k").rate, (PerDir<uint64_t>{1 << 20, 500 * 1024, 500 * 1024}));
  EXPECT_EQ(ParseOne("rate=,500k").rate, (PerDir<uint64_t>{0, 500 * 1024, 500 * 1024}));
  EXPECT_EQ(ParseOne("rate=500k,").rate, (PerDir<uint64_t>{500 * 1024, 0, 0}));
  EXPECT_EQ(ParseOne("rate_iops=100").rate_iops, (PerDir<uint64_t>{100, 100, 100}));
  EXPECT_EQ(ParseOne("rate_iops=100,200,300").rate_iops, (PerDir<uint64_t>{100, 200, 300}));
  EXPECT_OPTION_ERROR("rate=fast", 2, "rate", "got 'fast'");
  EXPECT_OPTION_ERROR("rate_iops=1,x", 2, "rate_iops", "got 'x'");
}

TEST(RateProcessOption, LinearOrPoisson) {
  EXPECT_EQ(ParseOne("").rate_process, RateProcess::kLinear);
  EXPECT_EQ(ParseOne("rate_process=poisson").rate_process, RateProcess::kPoisson);
  EXPECT_EQ(ParseOne("rate_process=poisson\nrate_process=linear").rate_process, RateProcess::kLinear);
  EXPECT_OPTION_ERROR("rate_process=uniform", 2, "rate_process", "expected linear or poisson, got 'uniform'");
}

TEST(ThinktimeOptions, MicrosecondsByDefault) {
  EXPECT_EQ(ParseOne("").thinktime, microseconds(0));
  EXPECT_EQ(ParseOne("thinktime=100").thinktime, microseconds(100));
  EXPECT_EQ(ParseOne("thinktime=2ms").thinktime, microseconds(2000));
  EXPECT_EQ(ParseOne("thinktime=1s").thinktime, microseconds(1'000'000));
  EXPECT_EQ(ParseOne("").thinktime_blocks, 0u);  // not set: pauses count 1
  EXPECT_EQ(ParseOne("thinktime_blocks=16").thinktime_blocks, 16u);
  EXPECT_OPTION_ERROR("thinktime=1x", 2, "thinktime", "default unit us");
  EXPECT_OPTION_ERROR("thinktime_blocks=0", 2, "thinktime_blocks", ">= 1");
}

TEST(SyncOptions, Counts) {
  const JobOptions d = ParseOne("");
  EXPECT_EQ(d.fsync, 0u);
  EXPECT_EQ(d.fdatasync, 0u);
  EXPECT_FALSE(d.end_fsync);
  EXPECT_EQ(ParseOne("fsync=32").fsync, 32u);
  EXPECT_EQ(ParseOne("fdatasync=8").fdatasync, 8u);
  EXPECT_TRUE(ParseOne("end_fsync=1").end_fsync);
  EXPECT_OPTION_ERROR("fsync=x", 2, "fsync", "got 'x'");
  EXPECT_OPTION_ERROR("fdatasync=-2", 2, "fdatasync", "got '-2'");
  EXPECT_OPTION_ERROR("end_fsync=2", 2, "end_fsync", "expected 0 or 1");
}

TEST(RuntimeOptions, SecondsByDefault) {
  EXPECT_EQ(ParseOne("").runtime, microseconds(0));
  EXPECT_EQ(ParseOne("runtime=10").runtime, microseconds(10'000'000));
  EXPECT_EQ(ParseOne("runtime=10s").runtime, microseconds(10'000'000));
  EXPECT_EQ(ParseOne("runtime=2m").runtime, microseconds(120'000'000));
  EXPECT_EQ(ParseOne("runtime=1h").runtime, microseconds(3'600'000'000));
  EXPECT_EQ(ParseOne("runtime=500ms").runtime, microseconds(500'000));
  EXPECT_EQ(ParseOne("runtime=100us").runtime, microseconds(100));
  EXPECT_EQ(ParseOne("ramp_time=5").ramp_time, microseconds(5'000'000));
  EXPECT_EQ(ParseOne("").ramp_time, microseconds(0));
  EXPECT_OPTION_ERROR("runtime=10x", 2, "runtime", "expected a time");
  EXPECT_OPTION_ERROR("ramp_time=soon", 2, "ramp_time", "default unit s");
}

TEST(TimeBasedOption, BareOrValue) {
  EXPECT_FALSE(ParseOne("").time_based);
  EXPECT_TRUE(ParseOne("time_based").time_based);
  EXPECT_TRUE(ParseOne("time_based=1").time_based);
  EXPECT_FALSE(ParseOne("time_based=0").time_based);
  EXPECT_OPTION_ERROR("time_based=maybe", 2, "time_based", "got 'maybe'");
}

// fio 3.33's "threads" is an alias of "thread" (fio's examples
// steadystate.fio and waitfor.fio write threads=1).
TEST(ThreadOption, ThreadsIsItsAlias) {
  EXPECT_FALSE(ParseOne("").thread);
  EXPECT_TRUE(ParseOne("thread").thread);
  EXPECT_TRUE(ParseOne("threads=1").thread);
  EXPECT_TRUE(ParseOne("threads").thread);
  EXPECT_FALSE(ParseOne("threads=0").thread);
  ASSERT_TRUE(Cmd({"--name=x", "--ioengine=null", "--threads=1"}).ok());
  EXPECT_TRUE(Cmd({"--name=x", "--ioengine=null", "--threads=1"})->jobs[0].thread);
}

TEST(StartDelayOption, ValueOrRange) {
  EXPECT_EQ(ParseOne("").startdelay, (TimeRange{}));
  EXPECT_EQ(ParseOne("startdelay=5").startdelay, (TimeRange{microseconds(5'000'000), microseconds(5'000'000)}));
  EXPECT_EQ(ParseOne("startdelay=5-10").startdelay,
            (TimeRange{microseconds(5'000'000), microseconds(10'000'000)}));
  EXPECT_EQ(ParseOne("startdelay=500ms:2s").startdelay,
            (TimeRange{microseconds(500'000), microseconds(2'000'000)}));
  EXPECT_EQ(ParseOne("startdelay=10-5").startdelay,
            (TimeRange{microseconds(5'000'000), microseconds(10'000'000)}));
  EXPECT_OPTION_ERROR("startdelay=5-x", 2, "startdelay", "got 'x'");
}

TEST(GroupOptions, Flags) {
  const JobOptions d = ParseOne("");
  EXPECT_FALSE(d.stonewall);
  EXPECT_FALSE(d.new_group);
  EXPECT_FALSE(d.group_reporting);
  EXPECT_TRUE(ParseOne("stonewall").stonewall);
  EXPECT_TRUE(ParseOne("wait_for_previous").stonewall);
  EXPECT_TRUE(ParseOne("new_group").new_group);
  EXPECT_TRUE(ParseOne("group_reporting").group_reporting);
  EXPECT_TRUE(ParseOne("group_reporting=1").group_reporting);
  EXPECT_OPTION_ERROR("stonewall=x", 2, "stonewall", "got 'x'");
  EXPECT_OPTION_ERROR("new_group=x", 2, "new_group", "got 'x'");
  EXPECT_OPTION_ERROR("group_reporting=x", 2, "group_reporting", "got 'x'");
}

}  // namespace
}  // namespace blk::bench

namespace blk::bench {
namespace {

TEST(IoSubmitMode, InlineAndOffload) {
  using Mode = JobOptions::SubmitMode;
  EXPECT_EQ(testing::ParseOne("io_submit_mode=inline").io_submit_mode, Mode::kInline);
  EXPECT_EQ(testing::ParseOne("").io_submit_mode, Mode::kUnset);
  EXPECT_FALSE(testing::ParseOne("io_submit_mode=inline").offload());
  EXPECT_EQ(testing::ParseOne("io_submit_mode=offload").io_submit_mode, Mode::kOffload);
  EXPECT_TRUE(testing::ParseOne("io_submit_mode=offload").offload());
  EXPECT_OPTION_ERROR("io_submit_mode=async", 2, "io_submit_mode", "expected inline or offload");
}

TEST(Thinktime, SpinTypeIotimeAndRateIgnore) {
  JobOptions j = testing::ParseOne("thinktime=2ms\nthinktime_spin=500\nthinktime_blocks_type=issue\n"
                                   "thinktime_iotime=2\nrate_ignore_thinktime=1");
  EXPECT_EQ(j.thinktime.count(), 2000);
  EXPECT_EQ(j.thinktime_spin.count(), 500);  // default unit us
  EXPECT_TRUE(j.thinktime_issue);
  EXPECT_EQ(j.thinktime_iotime.count(), 2'000'000);  // default unit s
  EXPECT_TRUE(j.rate_ignore_thinktime);
  EXPECT_EQ(j.thinktime_blocks, 0u);  // not set
  EXPECT_FALSE(testing::ParseOne("thinktime_blocks_type=complete").thinktime_issue);
  EXPECT_EQ(testing::ParseOne("thinktime_blocks=1").thinktime_blocks, 1u);
  EXPECT_OPTION_ERROR("thinktime_blocks_type=both", 2, "thinktime_blocks_type",
                      "expected complete or issue, got 'both'");
  EXPECT_OPTION_ERROR("thinktime_blocks=0", 2, "thinktime_blocks", "");
  EXPECT_OPTION_ERROR("thinktime_spin=abc", 2, "thinktime_spin", "");
}

TEST(SyncFileRangeOption, FlagsAndEveryN) {
  JobOptions d = ParseOne("");
  EXPECT_EQ(d.sync_file_range, 0u);
  EXPECT_EQ(d.sync_file_range_flags, 0u);
  JobOptions j = ParseOne("sync_file_range=write");
  EXPECT_EQ(j.sync_file_range, 1u) << "N defaults to 1, as fio";
  EXPECT_EQ(j.sync_file_range_flags, 2u);  // SYNC_FILE_RANGE_WRITE
  j = ParseOne("sync_file_range=wait_before,write:8");
  EXPECT_EQ(j.sync_file_range, 8u);
  EXPECT_EQ(j.sync_file_range_flags, 3u);
  j = ParseOne("sync_file_range=wait_after,wait_before,write:4");
  EXPECT_EQ(j.sync_file_range_flags, 7u);
  EXPECT_EQ(ParseOne("sync_file_range=write:0").sync_file_range, 0u) << "0: never, as fio";
  EXPECT_OPTION_ERROR("sync_file_range=bogus:4", 2, "sync_file_range", "wait_before, write or wait_after");
  EXPECT_OPTION_ERROR("sync_file_range=write,:4", 2, "sync_file_range", "got 'write,:4'");
  EXPECT_OPTION_ERROR("sync_file_range=write:abc", 2, "sync_file_range", "");
  EXPECT_OPTION_ERROR("sync_file_range=write:", 2, "sync_file_range", "");
}

// log_compression_cpus: cpus_allowed's list; a CPU the machine does not
// have is refused, as fio ("CPU N too large").
TEST(LogCompressionCpusOption, CpuListOfThisMachine) {
  EXPECT_TRUE(ParseOne("").log_compression_cpus.empty());
  EXPECT_EQ(ParseOne("log_compression_cpus=0").log_compression_cpus, std::vector<uint32_t>{0});
  const long n = sysconf(_SC_NPROCESSORS_CONF);
  ASSERT_GT(n, 0);
  const std::string big = std::to_string(n + 2);
  EXPECT_OPTION_ERROR("log_compression_cpus=0," + big, 2, "log_compression_cpus",
                      "CPU " + big + " too large (max=" + std::to_string(n - 1) + ")");
  EXPECT_OPTION_ERROR("log_compression_cpus=3-1", 2, "log_compression_cpus", "goes backwards");
}

}  // namespace
}  // namespace blk::bench
