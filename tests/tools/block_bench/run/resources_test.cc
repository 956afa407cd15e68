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
  auto jobs = ParseJobs({"--name=m", "--ioengine=null", "--bs=16m", "--iodepth=128"});
  auto r = CheckResources(jobs, l);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -ENOMEM);
  EXPECT_NE(r.error().message.find("2048 MiB"), std::string::npos) << r.error().message;
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
