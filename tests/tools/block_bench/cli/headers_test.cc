// The lines before a run: each job's header (fio's), the clones' "...", the
// version and "Starting" lines.
#include "tools/block_bench/cli/headers.h"

#include <gtest/gtest.h>

#include "cli_test_util.h"

namespace blk::bench::cli {
namespace {

using testing::Jobs;

TEST(JobHeader, FioLayout) {
  const auto jobs = Jobs({"--name=j", "--ioengine=null", "--rw=randread", "--bs=4k", "--size=1m"});
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(JobHeader(jobs[0], 3),
            "j: (g=3): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, "
            "ioengine=null, iodepth=1\n");
}

TEST(JobHeader, BlockSizesPerDirectionAndDepth) {
  const auto jobs = Jobs({"--name=m", "--ioengine=null", "--rw=randrw", "--bsrange=512-64k",
                          "--bs=,8k", "--iodepth=16", "--size=1m"});
  ASSERT_EQ(jobs.size(), 1u);
  const std::string h = JobHeader(jobs[0], 0);
  EXPECT_NE(h.find("rw=randrw"), std::string::npos) << h;
  EXPECT_NE(h.find("(W) 8192B-8192B"), std::string::npos) << h;
  EXPECT_TRUE(h.ends_with("ioengine=null, iodepth=16\n")) << h;
}

TEST(JobHeader, SaysWhichEngineReallyRuns) {
  const auto jobs = Jobs({"--name=l", "--ioengine=libaio", "--direct=0", "--filename=/tmp/x",
                          "--rw=read", "--size=1m"});
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_TRUE(JobHeader(jobs[0], 0).ends_with(
      "ioengine=threads (libaio asked, direct=0), iodepth=1\n"))
      << JobHeader(jobs[0], 0);
}

TEST(RunHeaders, OneHeaderPerNameThenTheStartingLine) {
  const auto jobs = Jobs({"--name=a", "--ioengine=null", "--size=1m", "--numjobs=2", "--name=b",
                          "--ioengine=null", "--size=1m", "--stonewall"});
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(RunHeaders(jobs, 1), JobHeader(jobs[0], 0) + "...\n" + JobHeader(jobs[1], 1) +
                                     "block-bench-0.1\nStarting 3 threads\n");
}

TEST(RunHeaders, ConsecutiveJobsOfOneNameShareAHeader) {
  const auto jobs = Jobs({"--name=a", "--ioengine=null", "--size=1m", "--name=a",
                          "--ioengine=null", "--size=2m"});
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(RunHeaders(jobs, 1), JobHeader(jobs[0], 0) + "block-bench-0.1\nStarting 2 threads\n");
}

TEST(RunHeaders, OneThreadAndMpiRanks) {
  const auto jobs = Jobs({"--name=a", "--ioengine=null", "--size=1m"});
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_TRUE(RunHeaders(jobs, 1).ends_with("\nStarting 1 thread\n"));
  EXPECT_TRUE(RunHeaders(jobs, 4).ends_with("\nStarting 1 thread on each of 4 ranks\n"));
}

}  // namespace
}  // namespace blk::bench::cli
