// StopSource, Broadcast, OnceReadable, WhenReadable (run/stop.h): one write
// reaches every loop that watches the descriptor, each handler runs once.
#include "tools/block_bench/run/stop.h"

#include <poll.h>

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <memory>
#include <vector>

#include <blkstack/util/clock.h>
#include <blkstack/util/iothread.h>
#include <blkstack/util/task.h>

namespace blk::bench {
namespace {

bool Readable(int fd) {
  struct pollfd p = {fd, POLLIN, 0};
  return poll(&p, 1, 0) == 1;
}

TEST(Broadcast, FiresOnceAndStaysReadable) {
  Broadcast b;
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b.fired());
  EXPECT_FALSE(Readable(b.fd()));
  const int64_t t0 = NowNs();
  b.fire();
  EXPECT_TRUE(b.fired());
  EXPECT_GE(b.fired_ns(), t0);
  EXPECT_LE(b.fired_ns(), NowNs());
  const int64_t first = b.fired_ns();
  b.fire();
  EXPECT_EQ(b.fired_ns(), first);
  EXPECT_TRUE(Readable(b.fd()));
  EXPECT_TRUE(Readable(b.fd()));  // never read: readable for every watcher
}

TEST(StopSource, KeepsTheFirstSignalAndCounts) {
  StopSource s;
  EXPECT_FALSE(s.requested());
  EXPECT_EQ(s.request(SIGTERM), 1);
  EXPECT_EQ(s.request(SIGINT), 2);
  EXPECT_EQ(s.signal(), SIGTERM);
  EXPECT_TRUE(Readable(s.fd()));
}

TEST(OnceReadable, CallsOnceThenStopsWatching) {
  auto ctx = AioContext::Create();
  ASSERT_TRUE(ctx.ok());
  Broadcast b;
  int calls = 0;
  OnceReadable w(**ctx, b.fd(), [&] { calls++; });
  (*ctx)->run_once(false);
  EXPECT_EQ(calls, 0);
  EXPECT_FALSE(w.fired());
  b.fire();
  for (int i = 0; i < 10; i++) (*ctx)->run_once(false);
  EXPECT_EQ(calls, 1);  // level-triggered, still readable: yet once
  EXPECT_TRUE(w.fired());
}

TEST(OnceReadable, CancelledNeverCalls) {
  auto ctx = AioContext::Create();
  ASSERT_TRUE(ctx.ok());
  Broadcast b;
  int calls = 0;
  {
    OnceReadable w(**ctx, b.fd(), [&] { calls++; });
    w.cancel();
    b.fire();
    for (int i = 0; i < 5; i++) (*ctx)->run_once(false);
  }
  OnceReadable never(**ctx, -1, [&] { calls++; });
  for (int i = 0; i < 5; i++) (*ctx)->run_once(false);
  EXPECT_EQ(calls, 0);
}

// The way the runner releases its clones: many loops wait on one
// descriptor; one fire() resumes every waiter.
Task<void> WaitThenCount(AioContext& ctx, int fd, std::atomic<int>* waiting,
                         std::atomic<int>* resumed) {
  waiting->fetch_add(1);
  co_await WhenReadable(ctx, fd);
  resumed->fetch_add(1);
}

TEST(WhenReadable, OneFireResumesEveryLoop) {
  constexpr int kLoops = 64;
  Broadcast b;
  std::vector<std::unique_ptr<IOThread>> threads;
  std::atomic<int> waiting{0}, resumed{0};
  for (int i = 0; i < kLoops; i++) {
    threads.push_back(std::make_unique<IOThread>("stop-test"));
    Spawn(threads.back()->ctx(), WaitThenCount(threads.back()->ctx(), b.fd(), &waiting, &resumed));
  }
  const int64_t end = NowNs() + 10'000'000'000;
  while (waiting.load() < kLoops && NowNs() < end) usleep(1000);
  usleep(20000);
  EXPECT_EQ(resumed.load(), 0);
  b.fire();
  while (resumed.load() < kLoops && NowNs() < end) usleep(1000);
  EXPECT_EQ(resumed.load(), kLoops);
}

}  // namespace
}  // namespace blk::bench
