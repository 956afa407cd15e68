// FileLocks (run/file_locks.h): one lock per name; exclusive and shared
// holds by owner, counted per request; an owner never waits for itself.
#include "tools/block_bench/run/file_locks.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace blk::bench {
namespace {

constexpr uintptr_t kA = 1, kB = 2, kC = 3;

TEST(FileLocks, OneLockPerName) {
  FileLocks locks;
  FileLock* a = locks.get("/data/a");
  EXPECT_EQ(locks.get("/data/a"), a);
  EXPECT_NE(locks.get("/data/b"), a);
}

TEST(FileLock, ExclusiveOneOwnerAtATimeCountingItsRequests) {
  FileLock l;
  ASSERT_TRUE(l.try_acquire(kA, true));
  EXPECT_TRUE(l.try_acquire(kA, true)) << "an owner's second request in flight";
  EXPECT_TRUE(l.try_acquire(kA, false));
  EXPECT_FALSE(l.try_acquire(kB, true));
  EXPECT_FALSE(l.try_acquire(kB, false)) << "a read waits for an exclusive hold";
  l.release(kA);
  l.release(kA);
  EXPECT_FALSE(l.try_acquire(kB, true)) << "A still has one request";
  l.release(kA);
  EXPECT_TRUE(l.try_acquire(kB, true));
  EXPECT_FALSE(l.try_acquire(kA, false));
  l.release(kB);
  EXPECT_TRUE(l.try_acquire(kA, false)) << "free again";
}

TEST(FileLock, ReadersShareAWriterIsAlone) {
  FileLock l;
  ASSERT_TRUE(l.try_acquire(kA, false));
  EXPECT_TRUE(l.try_acquire(kB, false));
  EXPECT_TRUE(l.try_acquire(kC, false));
  EXPECT_FALSE(l.try_acquire(kC, true)) << "others read";
  l.release(kA);
  l.release(kB);
  EXPECT_TRUE(l.try_acquire(kC, true)) << "the only reader may write";
  EXPECT_FALSE(l.try_acquire(kA, false)) << "now exclusive";
  l.release(kC);
  EXPECT_FALSE(l.try_acquire(kA, false)) << "C's read still held, exclusive";
  l.release(kC);
  EXPECT_TRUE(l.try_acquire(kA, false));
  l.release(kB);  // not a holder: ignored
  EXPECT_TRUE(l.try_acquire(kB, false));
}

// Threads as clones: inside an exclusive hold no other owner is ever in.
TEST(FileLock, ExclusiveAcrossThreads) {
  FileLock l;
  std::atomic<int> inside{0};
  std::atomic<bool> overlap{false};
  std::vector<std::thread> ts;
  for (uintptr_t owner = 1; owner <= 4; owner++) {
    ts.emplace_back([&, owner] {
      for (int i = 0; i < 2000; i++) {
        while (!l.try_acquire(owner, true)) std::this_thread::yield();
        if (inside.fetch_add(1) != 0) overlap = true;
        inside.fetch_sub(1);
        l.release(owner);
      }
    });
  }
  for (std::thread& t : ts) t.join();
  EXPECT_FALSE(overlap);
}

}  // namespace
}  // namespace blk::bench
