// Reports: fio's JSON layout and text sections from a real short null run.
#include "tools/block_bench/report/report.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>

#include "bench_test_util.h"
#include "tools/block_bench/format/format.h"

namespace blk::bench {
namespace {

using testing::ParseJobs;

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    jobs_ = ParseJobs({"--name=g", "--ioengine=null", "--rw=randrw", "--bs=4k", "--size=64m",
                       "--runtime=1", "--time_based", "--numjobs=2", "--group_reporting",
                       "--percentile_list=50:99:99.9", "--lat_percentiles=1"});
    run_ = RunJobs(jobs_);
  }
  std::vector<JobOptions> jobs_;
  RunResult run_;
};

TEST_F(ReportTest, JsonHasFioLayout) {
  auto j = JsonReport(run_, /*plus=*/true);
  EXPECT_TRUE(j["blkstack-bench version"].is_string());
  // fio's key, for its consumers: the fio release whose layout this is,
  // then block-bench's version.
  EXPECT_EQ(j["fio version"].get<std::string>(),
            "fio-3.33-" + j["blkstack-bench version"].get<std::string>());
  EXPECT_EQ(j["blkstack-bench version"].get<std::string>().rfind("block-bench-", 0), 0u);
  EXPECT_TRUE(j["timestamp"].is_number_integer());
  ASSERT_EQ(j["jobs"].size(), 1u);  // group_reporting merged the clones
  auto& job = j["jobs"][0];
  EXPECT_EQ(job["jobname"], "g");
  EXPECT_EQ(job["groupid"], 0);
  EXPECT_EQ(job["error"], 0);
  EXPECT_EQ(job["job options"]["rw"], "randrw");
  EXPECT_EQ(job["blkstack"]["jobs"], 2);
  for (const char* d : {"read", "write"}) {
    auto& x = job[d];
    EXPECT_GT(x["io_bytes"].get<uint64_t>(), 0u) << d;
    EXPECT_EQ(x["io_kbytes"].get<uint64_t>(), x["io_bytes"].get<uint64_t>() / 1024);
    EXPECT_TRUE(x["iops"].is_number_float());
    // runtime=1: the whole second, plus the last I/O's completion (a stall
    // of a loaded run may add to it).
    EXPECT_GE(x["runtime"].get<double>(), 990);
    EXPECT_LT(x["runtime"].get<double>(), 1500);
    EXPECT_EQ(x["slat_ns"]["N"], 0);
    EXPECT_EQ(x["clat_ns"]["N"], x["total_ios"]);
    EXPECT_TRUE(x["clat_ns"]["percentile"].contains("99.000000"));
    EXPECT_TRUE(x["lat_ns"]["percentile"].contains("99.900000"));
    EXPECT_TRUE(x["clat_ns"]["bins"].is_object());
    uint64_t bins = 0;
    for (auto& [k, v] : x["clat_ns"]["bins"].items()) bins += v.get<uint64_t>();
    EXPECT_EQ(bins, x["total_ios"].get<uint64_t>());
    EXPECT_GT(x["bw_samples"].get<uint64_t>(), 0u);
  }
  double read = job["read"]["total_ios"].get<double>(), write = job["write"]["total_ios"].get<double>();
  EXPECT_NEAR(read / (read + write), 0.5, 0.01);
  double lat_pct = 0;
  for (const char* k : {"latency_ns", "latency_us", "latency_ms"})
    for (auto& [key, v] : job[k].items()) lat_pct += v.get<double>();
  EXPECT_NEAR(lat_pct, 100.0, 0.01);
  EXPECT_TRUE(job["iodepth_level"].contains(">=64"));
  EXPECT_TRUE(job["usr_cpu"].is_number());
  EXPECT_TRUE(job["blkstack"]["counters"].is_object());
  auto plain = JsonReport(run_, false);
  EXPECT_FALSE(plain["jobs"][0]["read"]["clat_ns"].contains("bins"));
}

// fio's json+ carries "bins" wherever it prints percentiles: lat_ns with
// lat_percentiles=1 (this fixture), clat_ns by default; slat_ns has none
// here (slat_percentiles=0, and the null driver has no submission step).
TEST_F(ReportTest, JsonPlusBinsWhereverPercentilesAre) {
  auto j = JsonReport(run_, /*plus=*/true);
  for (const char* d : {"read", "write"}) {
    auto& x = j["jobs"][0][d];
    ASSERT_TRUE(x["lat_ns"].contains("bins")) << d << " " << x["lat_ns"].dump();
    uint64_t n = 0;
    for (auto& [k, v] : x["lat_ns"]["bins"].items()) n += v.get<uint64_t>();
    EXPECT_EQ(n, x["total_ios"].get<uint64_t>()) << d;
    EXPECT_FALSE(x["slat_ns"].contains("bins")) << d;
    EXPECT_FALSE(x["slat_ns"].contains("percentile")) << d;
  }
  EXPECT_FALSE(JsonReport(run_, false)["jobs"][0]["read"]["lat_ns"].contains("bins"));
}

// Percentiles turned off: no bins either (fio: clat_percentiles=0 drops
// clat's), and the sync latencies get both with clat or lat percentiles.
TEST(ReportJsonPlus, BinsFollowThePercentileOptions) {
  auto run = [](std::vector<std::string> extra) {
    std::vector<std::string> args = {"--name=s", "--ioengine=null", "--rw=write", "--bs=4k",
                                     "--size=1m", "--fsync=4"};
    args.insert(args.end(), extra.begin(), extra.end());
    const std::vector<JobOptions> jobs = ParseJobs(args);  // the results point into them
    return JsonReport(RunJobs(jobs), /*plus=*/true)["jobs"][0];
  };
  auto on = run({});
  EXPECT_TRUE(on["write"]["clat_ns"].contains("bins"));
  EXPECT_FALSE(on["write"]["lat_ns"].contains("bins"));
  ASSERT_GT(on["sync"]["total_ios"].get<uint64_t>(), 0u);
  EXPECT_TRUE(on["sync"]["lat_ns"].contains("percentile")) << on["sync"].dump();
  EXPECT_TRUE(on["sync"]["lat_ns"].contains("bins")) << on["sync"].dump();
  auto off = run({"--clat_percentiles=0"});
  EXPECT_FALSE(off["write"]["clat_ns"].contains("bins"));
  EXPECT_FALSE(off["write"]["clat_ns"].contains("percentile"));
  EXPECT_FALSE(off["sync"]["lat_ns"].contains("bins"));
  auto lat = run({"--clat_percentiles=0", "--lat_percentiles=1"});
  EXPECT_TRUE(lat["write"]["lat_ns"].contains("bins"));
  EXPECT_TRUE(lat["sync"]["lat_ns"].contains("bins"));
}

TEST_F(ReportTest, TextHasFioSections) {
  std::string t = TextReport(run_);
  for (const char* s : {"g: (groupid=0, jobs=2): err= 0", "  read: IOPS=", "  write: IOPS=",
                        "clat percentiles (", " 50.0th=[", "lat (", "cpu          : usr=",
                        "IO depths    : 1=", "issued rwts: total=",
                        "Run status group 0 (all jobs):", "   READ: bw=", "  WRITE: bw="})
    EXPECT_NE(t.find(s), std::string::npos) << s << "\n" << t;
  // Driver counters only when asked for (--blkstack-counters).
  EXPECT_EQ(t.find("counters  :"), std::string::npos) << t;
  RunResult with = run_;
  for (CloneResult& c : with.clones) c.counters.push_back(DriverCounter{"null.reads", 7});
  EXPECT_EQ(TextReport(with).find("counters  :"), std::string::npos);
  EXPECT_NE(TextReport(with, /*counters=*/true).find("     counters  : null.reads=14"),
            std::string::npos)
      << TextReport(with, true);
}

// With group_reporting the group is one unit in "Run status group" too, as
// fio prints it: one bandwidth, so min == max, and one runtime.
TEST_F(ReportTest, RunStatusOfAReportingGroupIsOneUnit) {
  const std::string t = TextReport(run_);
  const size_t at = t.find("   READ: bw=");
  ASSERT_NE(at, std::string::npos) << t;
  const std::string line = t.substr(at, t.find('\n', at) - at);
  const size_t comma = line.find(", ");
  const size_t dash = line.find('-', comma);
  const std::string lo = line.substr(comma + 2, dash - comma - 2);
  const std::string hi = line.substr(dash + 1, line.find(' ', dash) - dash - 1);
  EXPECT_EQ(lo, hi) << line;
  const size_t run = line.find("run=");
  const std::string rt = line.substr(run + 4);
  EXPECT_EQ(rt.substr(0, rt.find('-')), rt.substr(rt.find('-') + 1, rt.find("msec") - rt.find('-') - 1))
      << line;
}

// fio's runtime: whole microseconds rounded up to milliseconds (a job of
// 0.3 ms ran 1 ms; 2.499 ms is 3).
TEST(Report, RuntimeRoundsMicrosecondsUpToMilliseconds) {
  const std::vector<JobOptions> jobs = ParseJobs({"--name=r", "--ioengine=null", "--size=64k"});
  RunResult run = RunJobs(jobs);  // its clones point into `jobs`
  const std::pair<int64_t, uint64_t> cases[] = {
      {300'000, 1}, {1'000'000, 1}, {1'000'999, 1}, {1'001'000, 2}, {2'499'000, 3}};
  for (const auto& [ns, ms] : cases) {
    run.clones[0].runtime_ns = ns;
    EXPECT_EQ(JsonReport(run, false)["jobs"][0]["read"]["runtime"], ms) << ns;
    EXPECT_NE(TextReport(run).find("run=" + std::to_string(ms) + "-" + std::to_string(ms) + "msec"),
              std::string::npos) << ns;
  }
}

// unified_rw_reporting: "mixed" sums the directions (only it with mixed,
// beside them with both), in text and JSON as fio names it.
TEST(Report, UnifiedRwReporting) {
  for (const char* mode : {"mixed", "both"}) {
    std::vector<JobOptions> jobs = ParseJobs({"--name=u", "--ioengine=null", "--rw=randrw",
                                              "--size=4m", std::string("--unified_rw_reporting=") + mode});
    RunResult run = RunJobs(jobs);
    const CloneResult& c = run.clones[0];
    auto j = JsonReport(run, false)["jobs"][0];
    ASSERT_TRUE(j.contains("mixed")) << mode;
    EXPECT_EQ(j["mixed"]["total_ios"], c.dir[0].ios + c.dir[1].ios) << mode;
    EXPECT_EQ(j["mixed"]["io_bytes"], c.dir[0].bytes + c.dir[1].bytes) << mode;
    EXPECT_EQ(j.contains("read"), std::string(mode) == "both") << mode;
    const std::string t = TextReport(run);
    EXPECT_NE(t.find("  mixed: IOPS="), std::string::npos) << t;
    EXPECT_EQ(t.find("  read: IOPS=") != std::string::npos, std::string(mode) == "both") << t;
  }
}

TEST(Report, PercentilesPrintWithTheListsPrecision) {
  // fio 3.33's lines for each list (its own runs on the null engine): the
  // most decimals written, in that plus 3 columns, four a line, three when
  // over 3 decimals.
  struct Case {
    const char* list;
    std::vector<std::string> lines;  // the starts of the percentile lines
  };
  const Case cases[] = {
      {"1:2:3:4:5:6", {"     |   1th=[", "     |   5th=[", "    lat"}},
      {"1.5:2:3:4:5:6", {"     |  1.5th=[", "     |  5.0th=[", "    lat"}},
      {"1.25:2:3:4:5:6", {"     |  1.25th=[", "     |  5.00th=[", "    lat"}},
      {"1.125:2:3:4:5:6", {"     |  1.125th=[", "     |  5.000th=[", "    lat"}},
      {"50:99:99.999:99.9999", {"     | 50.0000th=[", "     | 99.9999th=[", "    lat"}},
  };
  for (const Case& c : cases) {
    std::vector<JobOptions> jobs = ParseJobs({"--name=p", "--ioengine=null", "--size=1m",
                                              std::string("--percentile_list=") + c.list});
    const std::string t = TextReport(RunJobs(jobs));
    const size_t at = t.find("clat percentiles (");
    ASSERT_NE(at, std::string::npos) << t;
    size_t line = t.find('\n', at) + 1;
    for (const std::string& want : c.lines) {
      if (want == "    lat") {
        // No third line of percentiles: the next line is something else.
        EXPECT_NE(t.compare(line, 6, "     |"), 0) << c.list << "\n" << t;
        break;
      }
      EXPECT_EQ(t.compare(line, want.size(), want), 0)
          << c.list << ": want a line starting '" << want << "'\n" << t;
      line = t.find('\n', line) + 1;
    }
  }
}

// fsync=/fdatasync= get fio's block of their own after the latency
// distribution: the sync latency and its percentiles (even with
// clat_percentiles=0), one sample per sync.
TEST(Report, SyncLatencyBlockAsFio) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string file = std::string(tmp ? tmp : "/tmp") + "/sync." + std::to_string(getpid());
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=s", "--filename=" + file, "--size=64k", "--bs=4k",
                 "--rw=write", "--fdatasync=4", "--clat_percentiles=0"});
  RunResult run = RunJobs(jobs);
  ASSERT_EQ(run.clones.size(), 1u);
  // 16 writes, a sync after each 4th but the last (fio 3.33 has 3 too).
  EXPECT_EQ(run.clones[0].sync_lat.count(), 3u);
  const std::string t = TextReport(run);
  const size_t block = t.find("\n  fsync/fdatasync/sync_file_range:\n    sync (");
  ASSERT_NE(block, std::string::npos) << t;
  EXPECT_NE(t.find("    sync percentiles (", block), std::string::npos) << t;
  EXPECT_LT(t.find("\n  lat ("), block) << t;
  EXPECT_GT(t.find("\n  cpu          :"), block) << t;
  unlink(file.c_str());
  // Without syncs, no such block.
  std::vector<JobOptions> plain = ParseJobs({"--name=p", "--ioengine=null", "--size=64k"});
  EXPECT_EQ(TextReport(RunJobs(plain)).find("fsync/fdatasync"), std::string::npos);
}

// significant_figures and kb_base set the digits and units of the job's
// IOPS/BW/io figures and of its run status group, as fio's num2str: 10 MB
// (10^7 bytes) prints as 9766KiB with 4 figures, 9765.6KiB with 6, and
// 10000kB first with kb_base=1000.
TEST(Report, SignificantFiguresAndKbBase) {
  struct Case {
    std::vector<std::string> opts;
    const char* io;      // in the job's read line
    const char* status;  // in the run status group
  } cases[] = {
      {{}, "(9766KiB/", "io=9766KiB (10.0MB)"},
      {{"--significant_figures=6"}, "(9765.6KiB/", "io=9765.6KiB (10000kB)"},
      {{"--significant_figures=2"}, "(10MiB/", "io=10MiB (10MB)"},
      {{"--kb_base=1000"}, "(10.0MB/", "io=10.0MB (9766KiB)"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"--name=s", "--ioengine=null", "--rw=read", "--bs=1000",
                                     "--size=10000000"};
    args.insert(args.end(), c.opts.begin(), c.opts.end());
    const std::vector<JobOptions> jobs = ParseJobs(args);  // the result points into them
    RunResult run = RunJobs(jobs);
    const std::string t = TextReport(run);
    EXPECT_NE(t.find(c.io), std::string::npos) << c.io << "\n" << t;
    EXPECT_NE(t.find(c.status), std::string::npos) << c.status << "\n" << t;
    // The IOPS figure as num2str prints the whole IOPS.
    const double iops = JsonReport(run, false)["jobs"][0]["read"]["iops"].get<double>();
    const int sig = int(run.clones[0].job->sig_figs);
    EXPECT_NE(t.find("IOPS=" + NumToStr(uint64_t(iops), sig, false) + ","), std::string::npos)
        << t;
  }
}

// unit_base=1: the bandwidths in bits (times 8), the io= figures still in
// bytes; JSON unchanged.
TEST(Report, UnitBaseBits) {
  const std::vector<JobOptions> jobs = ParseJobs({"--name=b", "--ioengine=null", "--rw=read",
                                                  "--bs=1000", "--size=10000000", "--unit_base=1"});
  RunResult run = RunJobs(jobs);
  const std::string t = TextReport(run);
  const uint64_t bw = JsonReport(run, false)["jobs"][0]["read"]["bw_bytes"].get<uint64_t>();
  EXPECT_NE(t.find("BW=" + NumToStr(bw * 8, 4, true, "bit/s") + " (" +
                   NumToStr(bw * 8, 4, false, "bit/s") + ")(9766KiB/"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("   READ: bw=" + NumToStr(bw * 8, 4, true, "bit/s")), std::string::npos) << t;
  EXPECT_NE(t.find("io=9766KiB (10.0MB)"), std::string::npos) << t;
  EXPECT_EQ(t.find("B/s"), std::string::npos) << t;
}

// The bandwidth samples' line scales as fio's: KiB/s, MiB/s above 1 GiB/s,
// in bits with unit_base=1.
TEST(Report, BandwidthSampleUnitsScale) {
  struct Case {
    std::vector<std::string> opts;
    const char* line;
  } cases[] = {
      {{"--bs=1m"}, "   bw (  MiB/s): min="},
      {{"--bs=1m", "--unit_base=1"}, "   bw (Mibit/s): min="},
      {{"--bs=4k", "--rate=2m"}, "   bw (  KiB/s): min="},
      {{"--bs=4k", "--rate=2m", "--unit_base=1"}, "   bw (Kibit/s): min="},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"--name=w", "--ioengine=null", "--rw=read", "--size=64m",
                                     "--time_based", "--runtime=1100ms", "--bwavgtime=250"};
    args.insert(args.end(), c.opts.begin(), c.opts.end());
    const std::vector<JobOptions> jobs = ParseJobs(args);
    RunResult run = RunJobs(jobs);
    const std::string t = TextReport(run);
    EXPECT_NE(t.find(c.line), std::string::npos) << c.line << "\n" << t;
  }
}

TEST(Report, WithoutGroupReportingEachCloneIsAJob) {
  auto jobs = ParseJobs({"--name=n", "--ioengine=null", "--rw=read", "--size=1m", "--numjobs=3"});
  RunResult r = RunJobs(jobs);
  auto j = JsonReport(r, false);
  EXPECT_EQ(j["jobs"].size(), 3u);
  EXPECT_EQ(j["jobs"][2]["read"]["io_bytes"], 1 << 20);
}

// stats=0 (fio): the job runs but is left out of the report and of its
// group's run status; a group with only such jobs keeps its heading, and
// with group_reporting the group is named after its first job with stats.
TEST(Report, StatsZeroLeavesTheJobOut) {
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=a", "--ioengine=null", "--rw=read", "--size=1m", "--stats=0",
                 "--name=b", "--ioengine=null", "--rw=read", "--size=2m",
                 "--name=c", "--ioengine=null", "--rw=write", "--size=1m", "--stats=0",
                 "--new_group"});
  RunResult run = RunJobs(jobs);
  ASSERT_EQ(run.clones.size(), 3u);
  EXPECT_EQ(run.clones[0].dir[0].bytes, 1u << 20);  // it ran
  const auto j = JsonReport(run, false);
  ASSERT_EQ(j["jobs"].size(), 1u) << j.dump();
  EXPECT_EQ(j["jobs"][0]["jobname"], "b");
  const std::string t = TextReport(run);
  EXPECT_EQ(t.find("a: (groupid"), std::string::npos) << t;
  EXPECT_EQ(t.find("c: (groupid"), std::string::npos) << t;
  EXPECT_NE(t.find("b: (groupid=0, jobs=1)"), std::string::npos) << t;
  // Group 0's figures are b's alone: 2 MiB.
  EXPECT_NE(t.find("io=2048KiB"), std::string::npos) << t;
  EXPECT_EQ(t.find("io=3072KiB"), std::string::npos) << t;
  // Group 1 had only c: its heading and no direction line.
  const size_t g1 = t.find("Run status group 1 (all jobs):\n");
  ASSERT_NE(g1, std::string::npos) << t;
  EXPECT_EQ(t.find("WRITE: bw=", g1), std::string::npos) << t;

  std::vector<JobOptions> grouped =
      ParseJobs({"--group_reporting", "--name=x", "--ioengine=null", "--rw=read", "--size=1m",
                 "--stats=0", "--name=y", "--ioengine=null", "--rw=write", "--size=1m",
                 "--numjobs=2"});
  const auto g = JsonReport(RunJobs(grouped), false);
  ASSERT_EQ(g["jobs"].size(), 1u) << g.dump();
  EXPECT_EQ(g["jobs"][0]["jobname"], "y");
  EXPECT_EQ(g["jobs"][0]["read"]["io_bytes"], 0);
  EXPECT_EQ(g["jobs"][0]["write"]["io_bytes"], 2 << 20);
}

// log_compression_cpus: the compression runs pinned to the CPUs, and the
// thread gets its CPUs back after; a CPU outside the thread's set is an
// error naming the option, and the work does not run.
TEST(Report, WithCpuAffinityPinsThenRestores) {
  cpu_set_t before;
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof before, &before), 0);
  uint32_t first = 0;
  while (!CPU_ISSET(first, &before)) first++;
  bool ran = false;
  Expected<void> r = WithCpuAffinity({first}, [&]() -> Expected<void> {
    cpu_set_t now;
    EXPECT_EQ(pthread_getaffinity_np(pthread_self(), sizeof now, &now), 0);
    EXPECT_EQ(CPU_COUNT(&now), 1);
    EXPECT_TRUE(CPU_ISSET(first, &now));
    ran = true;
    return {};
  });
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(ran);
  cpu_set_t after;
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof after, &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
  // No pin asked for: runs as it is.
  ran = false;
  EXPECT_TRUE(WithCpuAffinity({}, [&]() -> Expected<void> { ran = true; return {}; }).ok());
  EXPECT_TRUE(ran);
  ran = false;
  r = WithCpuAffinity({CPU_SETSIZE - 1}, [&]() -> Expected<void> { ran = true; return {}; });
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("log_compression_cpus"), std::string::npos) << r.error().message;
  EXPECT_FALSE(ran);
}

// Clones an interrupt kept from starting are counted per job: the report
// after a SIGINT that came before any clone started is not empty.
TEST(Report, NotStartedClonesAreCounted) {
  std::vector<JobOptions> jobs = ParseJobs({"--name=a", "--ioengine=null", "--size=1m",
                                            "--numjobs=3", "--name=b", "--ioengine=null",
                                            "--size=1m", "--stonewall"});
  RunResult run = RunJobs(jobs);
  ASSERT_EQ(run.clones.size(), 4u);
  run.clones[1].not_run = run.clones[2].not_run = run.clones[3].not_run = true;
  run.interrupted_by = 2;
  const std::string t = TextReport(run);
  EXPECT_NE(t.find("Not started: job 'a': 2 of 3 clones"), std::string::npos) << t;
  EXPECT_NE(t.find("Not started: job 'b': 1 of 1 clone "), std::string::npos) << t;
  const auto j = JsonReport(run, false);
  ASSERT_TRUE(j.contains("not_started")) << j.dump();
  EXPECT_EQ(j["jobs"].size(), 1u);
  EXPECT_EQ(j["not_started"][0]["jobname"], "a");
  EXPECT_EQ(j["not_started"][0]["clones"], 2);
  EXPECT_EQ(j["not_started"][0]["numjobs"], 3);
  EXPECT_EQ(j["not_started"][1]["jobname"], "b");
  // A run that started every clone has no such key.
  EXPECT_FALSE(JsonReport(RunJobs(jobs), false).contains("not_started"));
}

// The terse line's 20 percentile fields (17-36, after version;fio;name;
// group;error and the read direction's 12 numbers) are the total latency's
// when lat_percentiles gave lat_ns some, also beside clat_ns's (fio's
// show_ddir_status_terse asks lat_percentiles first), else clat_ns's.
TEST(ReportTerse, PercentilesOfTotalLatencyFirst) {
  auto field = [](const std::string& line, size_t i) {
    size_t at = 0;
    for (size_t k = 0; k < i; k++) at = line.find(';', at) + 1;
    return line.substr(at, line.find(';', at) - at);
  };
  nlohmann::json doc;
  nlohmann::json read;
  read["clat_ns"] = {{"N", 1}, {"min", 5000}, {"max", 5000}, {"mean", 5000.0},
                     {"percentile", {{"50.000000", 5000}}}};
  read["lat_ns"] = {{"N", 1}, {"min", 9000}, {"max", 9000}, {"mean", 9000.0},
                    {"percentile", {{"50.000000", 9000}}}};
  doc["jobs"] = nlohmann::json::array({{{"jobname", "t"}, {"read", read}}});
  EXPECT_EQ(field(TerseReport(doc, 3), 17), "50.000000%=9");
  doc["jobs"][0]["read"]["lat_ns"].erase("percentile");
  EXPECT_EQ(field(TerseReport(doc, 3), 17), "50.000000%=5");
}

}  // namespace
}  // namespace blk::bench
