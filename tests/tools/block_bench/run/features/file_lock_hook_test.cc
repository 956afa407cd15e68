// FileLockHook (run/features/file_lock_hook.h): a clone takes its file's
// lock before each I/O and holds it until the request is retired; another
// clone's I/O to the file waits (without blocking its loop) until then;
// its own requests do not wait for each other.  Two submit loops over
// HoldDriver (scripted completions) on one thread, sharing FileLocks.
#include "tools/block_bench/run/features/file_lock_hook.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <vector>

#include "tests/tools/block_bench/run/loop_fixture.h"

namespace blk::bench {
namespace {

using testing::LoopFixture;
using testing::Read;
using testing::Settle;
using testing::Write;

JobOptions Job(uint32_t depth, JobOptions::FileLock mode) {
  JobOptions j;
  j.name = "l";
  j.ioengine = IoEngine::kNull;
  j.iodepth = depth;
  j.lockfile = mode;
  return j;
}

// Long enough that Settle() ends with the retry's timer pending; the
// tests let it expire (Retry) to see a retry.
constexpr int64_t kPoll = 5'000'000;

// The retry's timer expires, and the loop runs what is ready.
void Retry(AioContext& ctx) {
  usleep(2 * kPoll / 1000);
  Settle(ctx);
}

struct Clone {
  Clone(FileLocks& locks, uint32_t depth, JobOptions::FileLock mode, std::vector<IoUnit> ios)
      : fx(Job(depth, mode), std::move(ios)), hook(mode, {locks.get("f")}, depth, kPoll) {
    fx.open_hold();
    fx.make_loop().add_hook(&hook);
  }
  // Runs until done: completes what it holds, waits for its timers.
  void finish() {
    for (int i = 0; i < 1000 && !fx.done; i++) {
      while (fx.hold->complete_oldest()) {
      }
      if (!fx.done) Retry(fx.ctx);
    }
  }
  LoopFixture fx;
  FileLockHook hook;
};

TEST(FileLockHook, ExclusiveAnotherClonesIoWaitsForTheHoldersRequests) {
  FileLocks locks;
  Clone a(locks, 2, JobOptions::FileLock::kExclusive, {Write(0), Write(4096), Write(8192)});
  Clone b(locks, 1, JobOptions::FileLock::kExclusive, {Read(0), Read(4096)});
  a.fx.start();
  ASSERT_EQ(a.fx.hold->arrived(), 2u) << "A's own two requests do not wait for each other";
  b.fx.start();
  EXPECT_EQ(b.fx.hold->arrived(), 0u) << "B waits: A holds the file";
  EXPECT_GE(b.hook.waits(), 1u);
  // A's first completes: A goes on with its third; B still waits.
  a.fx.hold->complete(0);
  Settle(a.fx.ctx);
  EXPECT_EQ(a.fx.hold->arrived(), 3u);
  Retry(b.fx.ctx);
  EXPECT_EQ(b.fx.hold->arrived(), 0u);
  ASSERT_TRUE(a.fx.complete_in_order());
  EXPECT_EQ(a.hook.waits(), 0u);
  b.finish();
  ASSERT_TRUE(b.fx.done);
  EXPECT_EQ(b.fx.hold->arrived(), 2u);
  EXPECT_EQ(b.fx.res.dir[int(Dir::kRead)].ios, 2u);
  // Everything released: a new owner gets it at once.
  EXPECT_TRUE(locks.get("f")->try_acquire(99, true));
}

TEST(FileLockHook, ReadWriteReadersTogetherAWriterAlone) {
  FileLocks locks;
  Clone a(locks, 2, JobOptions::FileLock::kReadWrite, {Read(0), Read(4096)});
  Clone b(locks, 1, JobOptions::FileLock::kReadWrite, {Read(8192)});
  Clone w(locks, 1, JobOptions::FileLock::kReadWrite, {Write(0)});
  a.fx.start();
  b.fx.start();
  EXPECT_EQ(a.fx.hold->arrived(), 2u);
  EXPECT_EQ(b.fx.hold->arrived(), 1u) << "readers share";
  w.fx.start();
  EXPECT_EQ(w.fx.hold->arrived(), 0u) << "the writer waits for both readers";
  ASSERT_TRUE(a.fx.complete_in_order());
  Retry(w.fx.ctx);
  EXPECT_EQ(w.fx.hold->arrived(), 0u) << "B still reads";
  ASSERT_TRUE(b.fx.complete_in_order());
  w.finish();
  EXPECT_TRUE(w.fx.done);
  EXPECT_EQ(w.fx.res.dir[int(Dir::kWrite)].ios, 1u);
}

TEST(FileLockHook, ExclusiveOnAReadingJobToo) {
  FileLocks locks;
  Clone a(locks, 1, JobOptions::FileLock::kExclusive, {Read(0)});
  Clone b(locks, 1, JobOptions::FileLock::kExclusive, {Read(0)});
  a.fx.start();
  b.fx.start();
  EXPECT_EQ(b.fx.hold->arrived(), 0u) << "exclusive: readers alone too";
  ASSERT_TRUE(a.fx.complete_in_order());
  b.finish();
  EXPECT_TRUE(b.fx.done);
}

}  // namespace
}  // namespace blk::bench
