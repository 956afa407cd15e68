// JobTarget: fio target options to a driver-graph spec (pure; no I/O).
#include "tools/block_bench/run/target.h"

#include <gtest/gtest.h>

#include "bench_test_util.h"

namespace blk::bench {
namespace {

using testing::ParseJob;

Target Of(const std::vector<std::string>& args) {
  std::vector<std::string> a = {"--name=j"};
  a.insert(a.end(), args.begin(), args.end());
  auto t = JobTarget(ParseJob(a), 0);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? *t : Target{};
}

// posixaio: glibc's AIO runs a file descriptor's requests one at a time on
// one of at most 20 threads, so the pool has a worker per file of the clone.
TEST(JobTarget, PosixaioIsThreadsWithAWorkerPerFile) {
  Target t = Of({"--ioengine=posixaio", "--direct=1", "--filename=/dev/x"});
  EXPECT_EQ(t.spec, "driver=file,filename=/dev/x,aio=threads,cache.direct=on,thread-pool-size=1,"
                    "fadvise=sequential");
  EXPECT_FALSE(SyncEngine(ParseJob({"--name=j", "--ioengine=posixaio"})));
  EXPECT_FALSE(SubstitutedEngine(ParseJob({"--name=j", "--ioengine=posixaio"})));
  const JobOptions j = ParseJob({"--name=j", "--ioengine=posixaio", "--filename=/f"});
  auto four = JobTarget(j, 0, 4);
  ASSERT_TRUE(four.ok());
  EXPECT_NE(four->spec.find(",thread-pool-size=4,"), std::string::npos) << four->spec;
  auto many = JobTarget(j, 0, 64);
  ASSERT_TRUE(many.ok());
  EXPECT_NE(many->spec.find(",thread-pool-size=20,"), std::string::npos) << many->spec;
}

// A trim job's trims reach the device or the file (the driver's default
// drops discards): discard=unmap, as fio's trims are real.
TEST(JobTarget, TrimJobsDiscard) {
  for (const char* rw : {"--rw=trim", "--rw=randtrim"}) {
    Target t = Of({rw, "--filename=/dev/x"});
    EXPECT_NE(t.spec.find(",discard=unmap"), std::string::npos) << rw << ": " << t.spec;
  }
  for (const char* rw : {"--rw=read", "--rw=randwrite", "--rw=randrw"}) {
    Target t = Of({rw, "--filename=/dev/x"});
    EXPECT_EQ(t.spec.find("discard="), std::string::npos) << rw << ": " << t.spec;
  }
}

TEST(JobTarget, LibaioThreadsAndSync) {
  Target t = Of({"--ioengine=libaio", "--direct=1", "--filename=/dev/x"});
  EXPECT_EQ(t.spec, "driver=file,filename=/dev/x,aio=native,cache.direct=on,fadvise=sequential");
  // Buffered libaio would block in io_submit: the thread pool runs it.
  t = Of({"--ioengine=libaio", "--filename=/dev/x"});
  EXPECT_EQ(t.spec, "driver=file,filename=/dev/x,aio=threads,cache.direct=off,fadvise=sequential");
  EXPECT_FALSE(t.spin);
  // fio's synchronous engines (psync, the default): in the clone's thread.
  t = Of({"--filename=/tmp/a,b"});
  EXPECT_EQ(t.spec, "driver=file,filename=/tmp/a,,b,aio=sync,cache.direct=off,fadvise=sequential");
  EXPECT_FALSE(t.spin);
  for (const char* e : {"sync", "pvsync", "pvsync2"}) {
    t = Of({std::string("--ioengine=") + e, "--direct=1", "--filename=/dev/x"});
    EXPECT_EQ(t.spec, "driver=file,filename=/dev/x,aio=sync,cache.direct=on,fadvise=sequential") << e;
  }
  EXPECT_TRUE(SyncEngine(ParseJob({"--name=j", "--ioengine=psync"})));
  // fio's fadvise_hint: 1 (default) follows rw=, 0 none, or as named.
  t = Of({"--rw=randread", "--filename=/f"});
  EXPECT_EQ(t.spec, "driver=file,filename=/f,aio=sync,cache.direct=off,fadvise=random");
  t = Of({"--rw=randread", "--fadvise_hint=0", "--filename=/f"});
  EXPECT_EQ(t.spec, "driver=file,filename=/f,aio=sync,cache.direct=off");
  t = Of({"--rw=read", "--fadvise_hint=random", "--filename=/f"});
  EXPECT_EQ(t.spec, "driver=file,filename=/f,aio=sync,cache.direct=off,fadvise=random");
  EXPECT_FALSE(SyncEngine(ParseJob({"--name=j", "--ioengine=libaio"})));
  EXPECT_FALSE(SyncEngine(ParseJob({"--name=j", "--ioengine=psync", "--blockdev=driver=null"})));
}

// fio spins on the ring only with userspace_reap and
// iodepth_batch_complete_min=0; block-bench then spins too.
TEST(JobTarget, UserspaceReapSpinsOnlyWithBatchCompleteMinZero) {
  Target t = Of({"--ioengine=libaio", "--direct=1", "--filename=/dev/x", "--userspace_reap=1",
                 "--iodepth_batch_complete_min=0"});
  EXPECT_EQ(t.spec,
            "driver=file,filename=/dev/x,aio=native,cache.direct=on,fadvise=sequential,aio-poll=on");
  EXPECT_TRUE(t.spin);
  t = Of({"--ioengine=libaio", "--direct=1", "--filename=/dev/x", "--userspace_reap=1"});
  EXPECT_EQ(t.spec.find("aio-poll"), std::string::npos) << t.spec;
  EXPECT_FALSE(t.spin);
}

// fio's rbd busy_poll spins without sleeping: completion=poll, and the loop
// spins for the job.
TEST(JobTarget, RbdBusyPollSpins) {
  Target t = Of({"--ioengine=rbd", "--rbdname=img", "--busy_poll=1"});
  EXPECT_EQ(t.spec, "driver=rbd,pool=rbd,image=img,completion=poll");
  EXPECT_TRUE(t.spin);
  t = Of({"--ioengine=rbd", "--rbdname=img"});
  EXPECT_EQ(t.spec, "driver=rbd,pool=rbd,image=img");
  EXPECT_FALSE(t.spin);
}

}  // namespace
}  // namespace blk::bench
