// The example job files under tools/block_bench/examples parse to what they
// say, and survive the --showcmd round trip.
#include <gtest/gtest.h>

#include "tests/tools/block_bench/jobfile/test_util.h"
#include "tools/block_bench/jobfile/render.h"

namespace blk::bench {
namespace {

using std::chrono::microseconds;

constexpr const char* kDir = "tools/block_bench/examples/";

// Real files (Bazel runs tests in the workspace root of the runfiles tree),
// real environment except for the variables the examples use.
ParseEnvironment Env() {
  ParseEnvironment env = ParseEnvironment::FromSystem();
  env.getenv = [](const std::string& name) -> std::optional<std::string> {
    if (name == "FILE") return std::string("/tmp/bb.dat");
    return std::nullopt;
  };
  return env;
}

std::vector<JobOptions> Load(const std::string& name) {
  auto jobs = ParseJobFile(kDir + name, Env());
  EXPECT_TRUE(jobs.ok()) << (jobs.ok() ? "" : jobs.error().message);
  return jobs.ok() ? jobs.value() : std::vector<JobOptions>{};
}

void ExpectRoundTrip(const std::vector<JobOptions>& jobs) {
  std::vector<std::string> args;
  for (const JobOptions& job : jobs) {
    for (std::string& a : RenderJobArgs(job)) args.push_back(std::move(a));
  }
  auto again = ParseCommandLine(args, Env());
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again.value().jobs, jobs);
}

TEST(Examples, NullRandRead) {
  const auto jobs = Load("null-randread.fio");
  ASSERT_EQ(jobs.size(), 1u);
  const JobOptions& j = jobs[0];
  EXPECT_EQ(j.name, "null-randread");
  EXPECT_EQ(j.blockdev, "driver=null,size=8G");
  EXPECT_EQ(j.rw, RwMode::kRandRead);
  EXPECT_EQ(j.bs[0].min, 4096u);
  EXPECT_EQ(j.iodepth, 32u);
  EXPECT_TRUE(j.norandommap);
  EXPECT_FALSE(j.randrepeat);
  EXPECT_EQ(j.runtime, microseconds(30'000'000));
  EXPECT_TRUE(j.time_based);
  EXPECT_EQ(j.ramp_time, microseconds(2'000'000));
  EXPECT_TRUE(j.group_reporting);
  EXPECT_EQ(j.numjobs, 2u);
  ExpectRoundTrip(jobs);
}

TEST(Examples, LibaioRandRead) {
  const auto jobs = Load("libaio-randread.fio");
  ASSERT_EQ(jobs.size(), 2u);
  for (const JobOptions& j : jobs) {
    EXPECT_EQ(j.ioengine, IoEngine::kLibaio);
    EXPECT_TRUE(j.direct);
    EXPECT_EQ(j.filenames, std::vector<std::string>{"/tmp/block-bench-randread.dat"});
    EXPECT_EQ(j.size, (SizeSpec{1ull << 30, false}));
    EXPECT_EQ(j.runtime, microseconds(60'000'000));
    EXPECT_EQ(j.percentile_list, (std::vector<double>{50, 90, 99, 99.9, 99.99}));
  }
  EXPECT_EQ(jobs[0].rw, RwMode::kRandRead);
  EXPECT_EQ(jobs[0].iodepth, 32u);
  EXPECT_EQ(jobs[0].iodepth_batch_submit, 8u);
  EXPECT_FALSE(jobs[0].stonewall);
  EXPECT_EQ(jobs[1].rw, RwMode::kRead) << "the second job does not inherit the first's rw";
  EXPECT_EQ(jobs[1].iodepth, 1u);
  EXPECT_TRUE(jobs[1].stonewall);
  ExpectRoundTrip(jobs);
}

TEST(Examples, MixedRandRw) {
  const auto jobs = Load("mixed-randrw.fio");
  ASSERT_EQ(jobs.size(), 2u);
  const JobOptions& oltp = jobs[0];
  EXPECT_EQ(oltp.filenames, std::vector<std::string>{"/tmp/bb.dat"});
  EXPECT_EQ(oltp.rw, RwMode::kRandReadWrite);
  EXPECT_EQ(oltp.rwmixread, 70u);
  EXPECT_EQ(oltp.bssplit[0].size(), 3u);
  EXPECT_EQ(oltp.bssplit[1], (std::vector<BsSplitEntry>{{4096, 80}, {16384, 20}}));
  EXPECT_EQ(oltp.random_distribution.kind, Distribution::kZipf);
  EXPECT_EQ(oltp.rate_iops, (PerDir<uint64_t>{0, 2000, 2000}));
  EXPECT_EQ(oltp.fdatasync, 32u);
  EXPECT_EQ(oltp.write_lat_log, std::optional<std::string>("oltp"));
  EXPECT_EQ(oltp.runtime, microseconds(120'000'000));
  const JobOptions& backup = jobs[1];
  EXPECT_EQ(backup.rw, RwMode::kRead);
  EXPECT_EQ(backup.rw_offset_skip, 65536);
  EXPECT_EQ(backup.bs[0].min, 1u << 20);
  EXPECT_TRUE(backup.stonewall);
  ExpectRoundTrip(jobs);
}

}  // namespace
}  // namespace blk::bench
