// The lines before a run: each job's header (fio's), the clones' "...", the
// version and "Starting" lines.
#include "tools/block_bench/cli/headers.h"

#include <gtest/gtest.h>

#include "cli_test_util.h"
#include "tools/block_bench/cli/warnings.h"

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

// The block sizes as fio 3.33 prints them for the same options (`fio
// --name=x --ioengine=null --size=4m OPTS`, first line).
TEST(JobHeader, BlockSizesAsFioPrintsThem) {
  struct Case {
    std::vector<std::string> opts;
    std::string bs;  // fio's "bs=(R) ..., (T) ..." part
  };
  const Case cases[] = {
      {{"--bs=128k"}, "(R) 128KiB-128KiB, (W) 128KiB-128KiB, (T) 128KiB-128KiB"},
      {{"--bsrange=4k-64k"}, "(R) 4096B-64.0KiB, (W) 4096B-64.0KiB, (T) 4096B-64.0KiB"},
      {{"--bssplit=4k/50:64k/50"}, "(R) 4096B-64.0KiB, (W) 4096B-64.0KiB, (T) 4096B-64.0KiB"},
      {{"--bssplit=4k/50:64k/50,8k/100"}, "(R) 4096B-64.0KiB, (W) 8192B-8192B, (T) 8192B-8192B"},
      {{"--bssplit=8k/50:4k/50"}, "(R) 4096B-8192B, (W) 4096B-8192B, (T) 4096B-8192B"},
      {{"--bssplit=4k/100:64k/0"}, "(R) 4096B-64.0KiB, (W) 4096B-64.0KiB, (T) 4096B-64.0KiB"},
      {{"--bssplit=4k/50:1m/50"}, "(R) 4096B-1024KiB, (W) 4096B-1024KiB, (T) 4096B-1024KiB"},
      {{"--bs=8k", "--bssplit=,4k/100"}, "(R) 8192B-8192B, (W) 4096B-4096B, (T) 4096B-4096B"},
      {{"--bs=4k,64k,8k"}, "(R) 4096B-4096B, (W) 64.0KiB-64.0KiB, (T) 8192B-8192B"},
      {{"--bs=3m"}, "(R) 3072KiB-3072KiB, (W) 3072KiB-3072KiB, (T) 3072KiB-3072KiB"},
      {{"--bsrange=512-1m"}, "(R) 512B-1024KiB, (W) 512B-1024KiB, (T) 512B-1024KiB"},
      {{"--blocksize_range=1k-10000"}, "(R) 1024B-9.77KiB, (W) 1024B-9.77KiB, (T) 1024B-9.77KiB"},
      {{"--bs=100000"}, "(R) 97.7KiB-97.7KiB, (W) 97.7KiB-97.7KiB, (T) 97.7KiB-97.7KiB"},
      {{"--bs=100000", "--significant_figures=6"},
       "(R) 100000B-100000B, (W) 100000B-100000B, (T) 100000B-100000B"},
      {{"--bs=100000", "--significant_figures=2"}, "(R) 98KiB-98KiB, (W) 98KiB-98KiB, (T) 98KiB-98KiB"},
      {{"--kb_base=1000", "--bs=128k"}, "(R) 128kB-128kB, (W) 128kB-128kB, (T) 128kB-128kB"},
      {{"--kb_base=1000", "--bs=128KiB"}, "(R) 131kB-131kB, (W) 131kB-131kB, (T) 131kB-131kB"},
      {{"--kb_base=1000", "--bs=4k"}, "(R) 4000B-4000B, (W) 4000B-4000B, (T) 4000B-4000B"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"--name=x", "--ioengine=null", "--size=4m"};
    args.insert(args.end(), c.opts.begin(), c.opts.end());
    const auto jobs = Jobs(args);
    ASSERT_EQ(jobs.size(), 1u) << c.opts[0];
    EXPECT_EQ(JobHeader(jobs[0], 0), "x: (g=0): rw=read, bs=" + c.bs + ", ioengine=null, iodepth=1\n")
        << c.opts[0];
  }
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

TEST(RunHeaders, NotesFollowTheirJobsHeader) {
  const auto jobs = Jobs({"--name=l", "--ioengine=libaio", "--direct=0", "--filename=/tmp/x",
                          "--size=1m", "--name=n", "--ioengine=null", "--size=1m"});
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(RunHeaders(jobs, 1),
            JobHeader(jobs[0], 0) + "l: note: " + JobNotes(jobs[0]).at(0) + "\n" +
                JobHeader(jobs[1], 0) + "block-bench-0.1\nStarting 2 threads\n");
}

TEST(RunHeaders, OneThreadAndMpiRanks) {
  const auto jobs = Jobs({"--name=a", "--ioengine=null", "--size=1m"});
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_TRUE(RunHeaders(jobs, 1).ends_with("\nStarting 1 thread\n"));
  EXPECT_TRUE(RunHeaders(jobs, 4).ends_with("\nStarting 1 thread on each of 4 ranks\n"));
}

}  // namespace
}  // namespace blk::bench::cli
