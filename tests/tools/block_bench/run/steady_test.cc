// fio's steady state detection (ss=, ss_dur=, ss_ramp=, ss_interval=): the
// criterion's arithmetic, and jobs on the null driver that reach steady
// state and end early, or do not and run their whole runtime, read back
// from the JSON report.
#include "tools/block_bench/run/steady.h"

#include <gtest/gtest.h>

#include "tests/tools/block_bench/run/bench_test_util.h"
#include "tools/block_bench/jobfile/render.h"
#include "tools/block_bench/report/report.h"
#include "tools/block_bench/run/runner.h"

namespace blk::bench {
namespace {

using testing::ParseJob;
using testing::ParseJobs;

SteadyState Ss(SteadyMetric m, bool slope, double limit, bool pct) {
  SteadyState s;
  s.metric = m;
  s.slope = slope;
  s.limit = limit;
  s.pct = pct;
  return s;
}

TEST(SteadyTest, DeviationCriterion) {
  const std::vector<double> v = {100, 102, 98, 100};
  SteadyEvaluation e = SteadyCriterion(v, 1, Ss(SteadyMetric::kIops, false, 3, true));
  EXPECT_DOUBLE_EQ(e.mean, 100);
  EXPECT_DOUBLE_EQ(e.max_deviation, 2);
  EXPECT_DOUBLE_EQ(e.criterion, 2);  // 2 % of the mean
  EXPECT_TRUE(e.attained);
  e = SteadyCriterion(v, 1, Ss(SteadyMetric::kIops, false, 2, true));
  EXPECT_FALSE(e.attained);  // strictly below the limit, as fio
  e = SteadyCriterion(v, 1, Ss(SteadyMetric::kIops, false, 2.5, false));
  EXPECT_DOUBLE_EQ(e.criterion, 2);  // absolute: 2 IOPS
  EXPECT_TRUE(e.attained);
}

TEST(SteadyTest, SlopeCriterionIsPerSecond) {
  // +10 per interval of 2 s: 5 per second, 5 % of the mean 100.
  const std::vector<double> v = {85, 95, 105, 115};
  SteadyEvaluation e = SteadyCriterion(v, 2, Ss(SteadyMetric::kBw, true, 6, true));
  EXPECT_DOUBLE_EQ(e.mean, 100);
  EXPECT_NEAR(e.slope, 5, 1e-9);
  EXPECT_NEAR(e.criterion, 5, 1e-9);
  EXPECT_TRUE(e.attained);
  // A falling series has the same |slope|.
  const std::vector<double> down = {115, 105, 95, 85};
  EXPECT_NEAR(SteadyCriterion(down, 2, Ss(SteadyMetric::kBw, true, 6, true)).slope, -5, 1e-9);
  // A mean of 0 never attains a relative criterion.
  EXPECT_FALSE(SteadyCriterion({0, 0}, 1, Ss(SteadyMetric::kIops, true, 50, true)).attained);
}

nlohmann::ordered_json RunJson(const std::vector<std::string>& args) {
  static std::vector<JobOptions> jobs;
  jobs = ParseJobs(args);
  RunResult rr = RunJobs(jobs, RunOptions{});
  EXPECT_FALSE(rr.failed());
  return JsonReport(rr, false);
}

// A paced job (2000 IOPS) is steady at once: with a 2 s window after a 1 s
// ramp it ends after about 3 s of its 30 s runtime.
TEST(SteadyTest, PacedJobReachesSteadyStateAndEndsEarly) {
  auto j = RunJson({"--name=s", "--ioengine=null", "--size=64m", "--rw=randread",
                    "--rate_iops=2000", "--time_based", "--runtime=30", "--ss=iops:5%",
                    "--ss_dur=2", "--ss_ramp=1"});
  const auto& job = j["jobs"][0];
  ASSERT_TRUE(job.contains("steadystate")) << job.dump();
  const auto& ss = job["steadystate"];
  EXPECT_EQ(ss["ss"], "iops:5.000000%");  // fio's: the kind and its limit
  EXPECT_EQ(ss["duration"], 2);
  EXPECT_EQ(ss["attained"], 1);
  EXPECT_EQ(ss["data"]["iops"].size(), 2u);
  EXPECT_NEAR(double(ss["data"]["iops_mean"]), 2000, 100);
  EXPECT_NEAR(double(ss["data"]["bw_mean"]), 2000 * 4, 400);  // KiB/s
  const std::string crit = ss["criterion"];
  EXPECT_EQ(crit.back(), '%');
  EXPECT_LT(std::stod(crit), 5);
  const int64_t runtime_ms = job["read"]["runtime"];
  EXPECT_GE(runtime_ms, 1900);   // the 2 s window (after the ramp, which is measured too)
  EXPECT_LT(runtime_ms, 10000);  // not the 30 s runtime
  EXPECT_FALSE(job["blkstack"]["interrupted"].get<bool>());
}

// A limit of 0 is never met: the job runs its whole runtime, and the report
// says so with the last window's numbers.
TEST(SteadyTest, UnreachableCriterionRunsTheWholeRuntime) {
  auto j = RunJson({"--name=s", "--ioengine=null", "--size=64m", "--rw=randread",
                    "--rate_iops=1000", "--time_based", "--runtime=3", "--ss=iops_slope:0",
                    "--ss_dur=2"});
  const auto& job = j["jobs"][0];
  const auto& ss = job["steadystate"];
  EXPECT_EQ(ss["ss"], "iops_slope:0.000000");
  EXPECT_EQ(ss["attained"], 0);
  EXPECT_EQ(ss["data"]["iops"].size(), 2u);
  EXPECT_GE(int64_t(job["read"]["runtime"]), 2900);
}

// A ramp longer than the runtime: no interval is sampled, and the window's
// data are ss_dur zeros with zero means, as fio's ring of samples (fio's
// t/steadystate_tests.py divides by the window's length).
TEST(SteadyTest, WindowNotSampledYetIsZeros) {
  auto j = RunJson({"--name=s", "--ioengine=null", "--size=64m", "--rw=randread",
                    "--time_based", "--runtime=1", "--ss=bw_slope:0.1%", "--ss_dur=3",
                    "--ss_ramp=500"});
  const auto& ss = j["jobs"][0]["steadystate"];
  EXPECT_EQ(ss["ss"], "bw_slope:0.100000%");
  EXPECT_EQ(ss["attained"], 0);
  EXPECT_EQ(ss["criterion"], "0.000000%");
  for (const char* k : {"iops", "bw", "lat_ns"}) {
    ASSERT_EQ(ss["data"][k].size(), 3u) << k;
    for (const auto& v : ss["data"][k]) EXPECT_EQ(v, 0) << k;
  }
  EXPECT_EQ(ss["data"]["bw_mean"], 0);
  EXPECT_EQ(ss["data"]["iops_mean"], 0);
}

// With group_reporting the group's clones together are one unit: one
// steadystate object, and both clones end.
TEST(SteadyTest, GroupReportingJudgesTheGroup) {
  auto j = RunJson({"--name=s", "--ioengine=null", "--size=64m", "--rw=randread",
                    "--numjobs=2", "--group_reporting", "--rate_iops=1000", "--time_based",
                    "--runtime=30", "--ss=bw:5%", "--ss_dur=2"});
  ASSERT_EQ(j["jobs"].size(), 1u);
  const auto& job = j["jobs"][0];
  EXPECT_EQ(job["steadystate"]["attained"], 1);
  EXPECT_NEAR(double(job["steadystate"]["data"]["iops_mean"]), 2000, 200);  // both clones
  EXPECT_LT(int64_t(job["read"]["runtime"]), 10000);
}

TEST(SteadyTest, OptionErrorsAndRendering) {
  auto bad = [](const std::vector<std::string>& args) {
    auto cl = ParseCommandLine(args, ParseEnvironment::FromSystem());
    EXPECT_FALSE(cl.ok());
    return cl.ok() ? std::string() : cl.error().message;
  };
  EXPECT_NE(bad({"--name=s", "--ss=iops"}).find("expected iops, iops_slope, bw, bw_slope, lat or "
                                                "lat_slope, a ':' and a limit"),
            std::string::npos);
  EXPECT_NE(bad({"--name=s", "--ss_dur=3", "--ss_interval=2"})
                .find("steadystate_duration (3s) is not a multiple of steadystate_check_interval "
                      "(2s)"),
            std::string::npos);
  const JobOptions job = ParseJob({"--name=s", "--ss=lat_slope:2.5%", "--ss_dur=10"});
  EXPECT_EQ(job.ss.metric, SteadyMetric::kLat);
  EXPECT_TRUE(job.ss.slope);
  EXPECT_TRUE(job.ss.pct);
  EXPECT_DOUBLE_EQ(job.ss.limit, 2.5);
  EXPECT_EQ(ShowCommand({job}), "block-bench --name=s --steadystate=lat_slope:2.5% "
                                "--steadystate_duration=10s");
}

}  // namespace
}  // namespace blk::bench
