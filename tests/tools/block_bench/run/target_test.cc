// JobTarget: fio target options to a driver-graph spec (pure; no I/O).
#include "tools/block_bench/run/target.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

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
  EXPECT_EQ(t.spec, "driver=file,filename=/dev/x,aio=threads,cache.direct=on,aio-threads-handover=on,thread-pool-size=1,"
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
  EXPECT_EQ(t.spec,
            "driver=file,filename=/dev/x,aio=native,cache.direct=on,fadvise=sequential,"
            "aio-max-batch=1,aio-batch-adapt=on");
  // Buffered libaio would block in io_submit: the thread pool runs it.
  t = Of({"--ioengine=libaio", "--filename=/dev/x"});
  EXPECT_EQ(t.spec, "driver=file,filename=/dev/x,aio=threads,cache.direct=off,aio-threads-handover=on,fadvise=sequential");
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
  // fio's mmap, falloc and ftruncate: the driver's modes of those names, one
  // I/O at a time in the clone's thread.
  for (const char* e : {"mmap", "falloc", "ftruncate"}) {
    t = Of({std::string("--ioengine=") + e, "--filename=/dev/x"});
    EXPECT_EQ(t.spec, std::string("driver=file,filename=/dev/x,aio=") + e +
                          ",cache.direct=off,fadvise=sequential");
    EXPECT_TRUE(SyncEngine(ParseJob({"--name=j", std::string("--ioengine=") + e}))) << e;
  }
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
            "driver=file,filename=/dev/x,aio=native,cache.direct=on,fadvise=sequential,aio-poll=on,"
            "aio-max-batch=1,aio-batch-adapt=on");
  EXPECT_TRUE(t.spin);
  t = Of({"--ioengine=libaio", "--direct=1", "--filename=/dev/x", "--userspace_reap=1"});
  EXPECT_EQ(t.spec.find("aio-poll"), std::string::npos) << t.spec;
  EXPECT_FALSE(t.spin);
}

// Submission batching: fio's meaning when iodepth_batch_submit= or
// fio_defaults=1 is written (fixed, at most N per call, 0: iodepth),
// block-bench's adaptive batching up to iodepth otherwise, with a note;
// only the kernel queues get the options.
TEST(JobTarget, SubmitBatchingFollowsTheJob) {
  struct Case {
    std::vector<std::string> args;
    uint32_t max_batch;
    bool adaptive;
  };
  const Case cases[] = {
      {{"--iodepth=32"}, 32, true},
      {{"--iodepth=32", "--iodepth_batch_submit=1"}, 1, false},
      {{"--iodepth=32", "--iodepth_batch=8"}, 8, false},
      {{"--iodepth=32", "--iodepth_batch_submit=0"}, 32, false},
      {{"--iodepth=32", "--fio_defaults"}, 1, false},
      {{"--iodepth=32", "--fio_defaults", "--iodepth_batch_submit=4"}, 4, false},
      {{"--iodepth=5000"}, 1024, true},
      {{"--iodepth=5000", "--iodepth_batch_submit=0"}, 1024, false},
  };
  for (const Case& c : cases) {
    std::vector<std::string> a = {"--name=j", "--ioengine=io_uring", "--filename=/f"};
    a.insert(a.end(), c.args.begin(), c.args.end());
    const JobOptions job = ParseJob(a);
    const SubmitBatching b = SubmitBatchingOf(job);
    EXPECT_EQ(b.max_batch, c.max_batch) << c.args.back();
    EXPECT_EQ(b.adaptive, c.adaptive) << c.args.back();
    Expected<Target> t = JobTarget(job, 0);
    ASSERT_TRUE(t.ok());
    const std::string want = ",aio-max-batch=" + std::to_string(c.max_batch) +
                             ",aio-batch-adapt=" + (c.adaptive ? "on" : "off");
    EXPECT_NE(t->spec.find(want), std::string::npos) << t->spec;
    EXPECT_EQ(FioDifference(job).empty(), !c.adaptive) << c.args.back();
  }
  // fio_defaults: no busy polling either, unless fio's own spin asked for it.
  EXPECT_NE(Of({"--ioengine=libaio", "--direct=1", "--filename=/f", "--fio_defaults"})
                .spec.find(",aio-poll=off"),
            std::string::npos);
  Target spin = Of({"--ioengine=libaio", "--direct=1", "--filename=/f", "--fio_defaults",
                    "--userspace_reap=1", "--iodepth_batch_complete_min=0"});
  EXPECT_EQ(spin.spec.find(",aio-poll=off"), std::string::npos) << spin.spec;
  // No submission call to batch: no options, no note.
  for (std::vector<std::string> a : {std::vector<std::string>{"--ioengine=psync"},
                                     {"--ioengine=libaio"},  // direct=0: the thread pool
                                     {"--ioengine=posixaio"},
                                     {"--ioengine=null"},
                                     {"--ioengine=io_uring", "--blockdev=driver=null"}}) {
    a.insert(a.begin(), {"--name=j", "--filename=/f", "--iodepth=8"});
    const JobOptions job = ParseJob(a);
    Expected<Target> t = JobTarget(job, 0);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->spec.find("aio-max-batch"), std::string::npos) << t->spec;
    EXPECT_EQ(FioDifference(job), "") << a[3];
  }
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

// file_append: a regular file's size, 0 for a missing one, nothing for
// other files (a block device, a directory).
TEST(AppendOffset, RegularFilesSizeElseNothing) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string base = std::string(dir ? dir : "/tmp") + "/append_offset";
  const std::string path = base + ".dat";
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("12345", f);
  std::fclose(f);
  EXPECT_EQ(AppendOffset(path), std::optional<uint64_t>(5));
  EXPECT_EQ(AppendOffset(base + ".missing"), std::optional<uint64_t>(0));
  EXPECT_EQ(AppendOffset("/dev/null"), std::nullopt);
  EXPECT_EQ(AppendOffset(dir ? dir : "/tmp"), std::nullopt);
  EXPECT_EQ(AppendOffset(""), std::nullopt);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace blk::bench
