// The resource check before a run: per-clone estimates and limits.
#include "tools/block_bench/run/resources.h"

#include <gtest/gtest.h>

#include "bench_test_util.h"

namespace blk::bench {
namespace {

using testing::ParseJobs;

TEST(Resources, EstimatesFollowTheEngine) {
  CloneNeeds null = EstimateClone(ParseJobs({"--name=a", "--ioengine=null", "--iodepth=4"})[0]);
  EXPECT_EQ(null.threads, 1u);
  EXPECT_EQ(null.fds, 2u);
  EXPECT_EQ(null.memory, 4u * 4096);
  // psync runs in the clone's thread (aio=sync): the file and an eventfd.
  CloneNeeds psync = EstimateClone(ParseJobs({"--name=a", "--ioengine=psync"})[0]);
  EXPECT_EQ(psync.threads, 1u);
  EXPECT_EQ(psync.fds, 4u);
  // Buffered libaio runs on the worker pool (aio=threads): 16 workers more.
  CloneNeeds pool = EstimateClone(ParseJobs({"--name=a", "--ioengine=libaio", "--direct=0"})[0]);
  EXPECT_EQ(pool.threads, 17u);
  EXPECT_EQ(pool.fds, 4u);
  // posixaio: aio=threads with a worker per file.
  EXPECT_EQ(EstimateClone(ParseJobs({"--name=a", "--ioengine=posixaio"})[0]).threads, 2u);
  EXPECT_EQ(EstimateClone(ParseJobs({"--name=a", "--ioengine=posixaio", "--nrfiles=4"})[0]).threads, 5u);
  CloneNeeds aio =
      EstimateClone(ParseJobs({"--name=a", "--ioengine=libaio", "--direct=1", "--bs=64k"})[0]);
  EXPECT_EQ(aio.threads, 1u);
  EXPECT_EQ(aio.fds, 4u);
  EXPECT_EQ(aio.memory, 65536u);
  CloneNeeds spec = EstimateClone(ParseJobs(
      {"--name=a", "--blockdev=driver=throttle,file.driver=file,file.filename=x,file.aio=native"})[0]);
  EXPECT_EQ(spec.threads, 1u);
  EXPECT_EQ(spec.fds, 4u);
}

TEST(Resources, TooManyClonesForTheFdLimitNamesJobAndLimit) {
  ResourceLimits l;
  l.fds = 1014;
  l.fd_limit = 1024;
  auto jobs = ParseJobs({"--name=t", "--ioengine=null", "--size=64k", "--numjobs=600"});
  auto r = CheckResources(jobs, l);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -EMFILE);
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("'t'"), std::string::npos) << m;
  EXPECT_NE(m.find("600 clones"), std::string::npos) << m;
  EXPECT_NE(m.find("1200 file descriptors"), std::string::npos) << m;
  EXPECT_NE(m.find("ulimit -n 1024"), std::string::npos) << m;
  l.fds = 1200;
  EXPECT_TRUE(CheckResources(jobs, l).ok());
}

// Stonewalled jobs do not run together: each segment is checked alone.
TEST(Resources, SegmentsAreCheckedSeparately) {
  ResourceLimits l;
  l.threads = 10;
  auto jobs = ParseJobs({"--name=a", "--ioengine=null", "--numjobs=8", "--name=b",
                         "--ioengine=null", "--numjobs=8", "--stonewall"});
  EXPECT_TRUE(CheckResources(jobs, l).ok());
  jobs[1].stonewall = false;
  auto r = CheckResources(jobs, l);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -EAGAIN);
  EXPECT_NE(r.error().message.find("16 threads"), std::string::npos) << r.error().message;
}

TEST(Resources, BuffersBeyondAvailableMemory) {
  ResourceLimits l;
  l.memory = uint64_t(1) << 30;
  l.memory_source = "50% of MemAvailable, 2048 MiB; --blkstack-max-memory=SIZE sets it";
  auto jobs = ParseJobs({"--name=m", "--ioengine=null", "--bs=16m", "--iodepth=128"});
  auto r = CheckResources(jobs, l);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -ENOMEM);
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("2048 MiB of I/O buffers"), std::string::npos) << m;
  EXPECT_NE(m.find("the limit is 1024 MiB"), std::string::npos) << m;
  EXPECT_NE(m.find("raise --blkstack-max-memory"), std::string::npos) << m;
}

// The jobs: bs=2g or 1g x iodepth=4 are within a limit of 8 GiB,
// and refused at once under a small one; the estimate counts the depth the
// queue really has (1 for the synchronous engines) and verify's state.
TEST(Resources, MemoryEstimateIsDepthTimesLargestBlockPlusVerifyState) {
  auto one = [](std::vector<std::string> args) { return EstimateClone(ParseJobs(args)[0]).memory; };
  EXPECT_EQ(one({"--name=a", "--ioengine=null", "--bs=1g", "--iodepth=4"}), uint64_t(4) << 30);
  EXPECT_EQ(one({"--name=a", "--ioengine=null", "--bs=512", "--iodepth=100000"}), 100000u * 4096);
  // psync issues one at a time: iodepth does not multiply its buffers.
  EXPECT_EQ(one({"--name=a", "--ioengine=psync", "--bs=1m", "--iodepth=100000"}), uint64_t(1) << 20);
  // verify= keeps an entry per block of the size written.
  EXPECT_EQ(one({"--name=a", "--ioengine=null", "--rw=write", "--bs=4k", "--size=8g",
                 "--verify=crc32c"}),
            4096 + (uint64_t(8) << 30) / 4096 * kVerifyEntryBytes);
  // A random job's map: a bit per smallest block of its size (none with
  // norandommap, nor for a sequential job).
  EXPECT_EQ(one({"--name=a", "--ioengine=null", "--rw=randread", "--bsrange=4k-64k",
                 "--size=64g"}),
            65536 + (uint64_t(64) << 30) / 4096 / 8 + 8);
  EXPECT_EQ(one({"--name=a", "--ioengine=null", "--rw=randread", "--size=64g", "--norandommap"}),
            4096u);
  EXPECT_EQ(one({"--name=a", "--ioengine=null", "--rw=read", "--size=64g"}), 4096u);
  // Nor when fio keeps none: a blockalign other than the block size turns
  // it off, and so does a skewed distribution.
  EXPECT_EQ(one({"--name=a", "--ioengine=null", "--rw=randread", "--size=64g",
                 "--blockalign=8k"}),
            4096u);
  EXPECT_EQ(one({"--name=a", "--ioengine=null", "--rw=randread", "--size=64g",
                 "--random_distribution=zipf:1.2"}),
            4096u);
  ResourceLimits l;
  l.memory = uint64_t(8) << 30;
  l.memory_source = "--blkstack-max-memory";
  EXPECT_TRUE(CheckResources(ParseJobs({"--name=j", "--ioengine=null", "--bs=1g", "--iodepth=4",
                                        "--size=8g"}),
                             l)
                  .ok());
  l.memory = 64 << 20;
  auto r = CheckResources(
      ParseJobs({"--name=j", "--ioengine=null", "--bs=2g", "--iodepth=4", "--numjobs=2"}), l);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -ENOMEM);
  EXPECT_NE(r.error().message.find("16384 MiB"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("64 MiB (--blkstack-max-memory)"), std::string::npos)
      << r.error().message;
}

// The limit: --blkstack-max-memory when given, else a share of
// MemAvailable (never all of it).
TEST(Resources, MemoryLimitIsTheOptionElseAShareOfMemAvailable) {
  const ResourceLimits given = ResourceLimits::FromSystem(12345);
  EXPECT_EQ(given.memory, 12345u);
  EXPECT_EQ(given.memory_source, "--blkstack-max-memory");
  const ResourceLimits dflt = ResourceLimits::FromSystem();
  if (dflt.memory == UINT64_MAX) GTEST_SKIP() << "no MemAvailable in /proc/meminfo";
  EXPECT_NE(dflt.memory_source.find("of MemAvailable"), std::string::npos) << dflt.memory_source;
  EXPECT_NE(dflt.memory_source.find("--blkstack-max-memory"), std::string::npos);
}

// The run's budget, charged by clones from their threads.
TEST(Resources, MemoryBudgetChargesUpToTheLimitAndReleases) {
  MemoryBudget b(100, "--blkstack-max-memory");
  EXPECT_TRUE(b.charge(60, "a").ok());
  auto r = b.charge(41, "clone 1's I/O buffers");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -ENOMEM);
  EXPECT_EQ(r.error().message.find("clone 1's I/O buffers need"), 0u) << r.error().message;
  EXPECT_EQ(b.used(), 60u);
  EXPECT_TRUE(b.charge(40, "b").ok());
  b.release(60);
  EXPECT_EQ(b.used(), 40u);
  EXPECT_FALSE(b.charge(UINT64_MAX, "huge").ok());  // no wrap-around
  EXPECT_EQ(b.used(), 40u);
}

// Huge products saturate instead of wrapping around to small numbers.
TEST(Resources, HugeNumjobsDoesNotOverflow) {
  ResourceLimits l;
  l.threads = 100000;
  auto jobs = ParseJobs({"--name=h", "--ioengine=psync", "--numjobs=4294967295", "--bs=16m",
                         "--iodepth=65535"});
  EXPECT_FALSE(CheckResources(jobs, l).ok());
}

}  // namespace
}  // namespace blk::bench
