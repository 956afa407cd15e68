// Tests of the event loop: bottom halves, posting from other threads, fd
// handlers, timers, the adaptive polling window, embedding via fd().
#include <blkstack/util/aio_context.h>

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <blkstack/util/clock.h>
#include <blkstack/util/iothread.h>

namespace blk {
namespace {

TEST(AioContextTest, BottomHalvesRunInScheduleOrder) {
  AioContext ctx;
  std::vector<int> order;
  BottomHalf a(ctx, [&] { order.push_back(1); });
  BottomHalf b(ctx, [&] { order.push_back(2); });
  BottomHalf c(ctx, [&] { order.push_back(3); });
  c.schedule();
  a.schedule();
  b.schedule();
  a.schedule();  // already pending: no second run
  while (ctx.run_once(false)) {
  }
  EXPECT_EQ(order, (std::vector<int>{3, 1, 2}));
}

TEST(AioContextTest, BottomHalfIsReusableAndCancelable) {
  AioContext ctx;
  int runs = 0;
  BottomHalf bh(ctx, [&] { runs++; });
  bh.schedule();
  ctx.run_once(false);
  bh.schedule();
  ctx.run_once(false);
  EXPECT_EQ(runs, 2);
  bh.schedule();
  EXPECT_TRUE(bh.scheduled());
  bh.cancel();
  EXPECT_FALSE(bh.scheduled());
  ctx.run_once(false);
  EXPECT_EQ(runs, 2);
}

TEST(AioContextTest, SelfReschedulingBottomHalfRunsOncePerIteration) {
  AioContext ctx;
  int runs = 0;
  BottomHalf* self = nullptr;
  BottomHalf bh(ctx, [&] {
    runs++;
    self->schedule();
  });
  self = &bh;
  bh.schedule();
  ctx.run_once(false);
  EXPECT_EQ(runs, 1);
  ctx.run_once(false);
  EXPECT_EQ(runs, 2);
  bh.cancel();
}

TEST(AioContextTest, PostFromManyThreadsKeepsPerThreadOrder) {
  AioContext ctx;
  constexpr int kThreads = 4, kPerThread = 2000;
  std::vector<std::vector<int>> seen(kThreads);
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; i++) {
        ctx.post([&, t, i] {
          seen[t].push_back(i);
          done.fetch_add(1);
        });
      }
    });
  }
  int64_t deadline = NowNs() + 10'000'000'000;
  while (done.load() < kThreads * kPerThread && NowNs() < deadline) ctx.run_once(true);
  for (auto& th : threads) th.join();
  ASSERT_EQ(done.load(), kThreads * kPerThread);
  for (int t = 0; t < kThreads; t++) {
    ASSERT_EQ(int(seen[t].size()), kPerThread);
    for (int i = 0; i < kPerThread; i++) ASSERT_EQ(seen[t][i], i);
  }
}

TEST(AioContextTest, BottomHalfScheduledFromAnotherThreadWakesBlockedLoop) {
  AioContext ctx;
  std::atomic<bool> ran{false};
  BottomHalf bh(ctx, [&] { ran = true; });
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    bh.schedule();
  });
  int64_t start = NowNs();
  while (!ran.load() && NowNs() - start < 5'000'000'000) ctx.run_once(true);
  t.join();
  EXPECT_TRUE(ran.load());
}

TEST(AioContextTest, StopFromAnotherThreadEndsRun) {
  AioContext ctx;
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ctx.stop();
  });
  int64_t start = NowNs();
  ctx.run();
  t.join();
  EXPECT_LT(NowNs() - start, 5'000'000'000);
}

TEST(AioContextTest, FdHandlerSeesReadableFdAndCanBeRemoved) {
  AioContext ctx;
  int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  ASSERT_GE(efd, 0);
  int reads = 0;
  ASSERT_EQ(ctx.set_fd_handler(efd, [&] {
    uint64_t v;
    ASSERT_EQ(read(efd, &v, sizeof(v)), ssize_t(sizeof(v)));
    reads++;
  }), 0);
  uint64_t one = 1;
  ASSERT_EQ(write(efd, &one, sizeof(one)), ssize_t(sizeof(one)));
  ctx.run_once(true);
  EXPECT_EQ(reads, 1);
  ctx.remove_fd_handler(efd);
  ASSERT_EQ(write(efd, &one, sizeof(one)), ssize_t(sizeof(one)));
  ctx.run_once(false);
  EXPECT_EQ(reads, 1);
  close(efd);
}

// An edge-triggered eventfd handler that never reads the counter runs once
// per write, not on every pass while the counter is non-zero (what a level-
// triggered registration would do), and a later write wakes it again.
TEST(AioContextTest, EdgeTriggeredHandlerRunsOncePerEventWithoutDraining) {
  AioContext ctx;
  int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  ASSERT_GE(efd, 0);
  int calls = 0;
  ASSERT_EQ(ctx.set_fd_handler(efd, [&] { calls++; }, {}, AioContext::FdTrigger::kEdge), 0);
  uint64_t one = 1;
  ASSERT_EQ(write(efd, &one, sizeof(one)), ssize_t(sizeof(one)));
  ctx.run_once(true);
  EXPECT_EQ(calls, 1);
  for (int i = 0; i < 3; i++) ctx.run_once(false);
  EXPECT_EQ(calls, 1) << "the counter is still non-zero, but there was no new event";
  ASSERT_EQ(write(efd, &one, sizeof(one)), ssize_t(sizeof(one)));
  ctx.run_once(true);  // would block forever if the new write made no edge
  EXPECT_EQ(calls, 2);
  // Switching the same fd to level-triggered: the undrained counter is seen
  // on every pass.
  ASSERT_EQ(ctx.set_fd_handler(efd, [&] { calls++; }), 0);
  ctx.run_once(false);
  ctx.run_once(false);
  EXPECT_EQ(calls, 4);
  ctx.remove_fd_handler(efd);
  close(efd);
}

TEST(AioContextTest, HandlerRemovingAnotherHandlerInSameBatchIsSafe) {
  AioContext ctx;
  int a = eventfd(1, EFD_NONBLOCK), b = eventfd(1, EFD_NONBLOCK);
  int calls = 0;
  ctx.set_fd_handler(a, [&] { calls++; ctx.remove_fd_handler(b); ctx.remove_fd_handler(a); });
  ctx.set_fd_handler(b, [&] { calls++; ctx.remove_fd_handler(a); ctx.remove_fd_handler(b); });
  ctx.run_once(false);
  EXPECT_EQ(calls, 1);  // whichever ran first removed the other
  close(a);
  close(b);
}

TEST(AioContextTest, TimersFireInDeadlineOrderAndNotEarly) {
  AioContext ctx;
  std::vector<int> order;
  std::vector<int64_t> fired_at(3);
  int64_t base = NowNs();
  Timer t1(ctx, [&] { order.push_back(1); fired_at[0] = NowNs(); });
  Timer t2(ctx, [&] { order.push_back(2); fired_at[1] = NowNs(); });
  Timer t3(ctx, [&] { order.push_back(3); fired_at[2] = NowNs(); });
  t2.arm_at(base + 20'000'000);
  t1.arm_at(base + 5'000'000);
  t3.arm_at(base + 10'000'000);
  while (order.size() < 3 && NowNs() - base < 5'000'000'000) ctx.run_once(true);
  EXPECT_EQ(order, (std::vector<int>{1, 3, 2}));
  EXPECT_GE(fired_at[0], base + 5'000'000);
  EXPECT_GE(fired_at[2], base + 10'000'000);
  EXPECT_GE(fired_at[1], base + 20'000'000);
}

TEST(AioContextTest, CancelledAndRearmedTimers) {
  AioContext ctx;
  int a = 0, b = 0;
  Timer ta(ctx, [&] { a++; });
  Timer tb(ctx, [&] { b++; });
  ta.arm_in(1'000'000);
  tb.arm_in(1'000'000);
  ta.cancel();
  EXPECT_FALSE(ta.pending());
  tb.arm_in(3'000'000);  // moves it
  int64_t start = NowNs();
  while (b == 0 && NowNs() - start < 5'000'000'000) ctx.run_once(true);
  EXPECT_EQ(a, 0);
  EXPECT_EQ(b, 1);
  EXPECT_GE(NowNs() - start, 3'000'000);
}

TEST(AioContextTest, NextTimeoutReflectsTimersAndPendingWork) {
  AioContext ctx;
  ctx.run_once(false);
  EXPECT_EQ(ctx.next_timeout_ns(), -1);
  Timer t(ctx, [] {});
  t.arm_in(1'000'000'000);
  int64_t ns = ctx.next_timeout_ns();
  EXPECT_GT(ns, 900'000'000);
  EXPECT_LE(ns, 1'000'000'000);
  ctx.post([] {});
  EXPECT_EQ(ctx.next_timeout_ns(), 0);
}

// A poll handler that reports progress on chosen calls.
class FakeRing : public PollHandler {
 public:
  bool poll() override {
    calls++;
    if (ready > 0) {
      ready--;
      handled++;
      return true;
    }
    return false;
  }
  void poll_begin() override { begins++; }
  void poll_end() override { ends++; }
  bool poll_worthwhile() override {
    asked++;
    return worthwhile;
  }
  int calls = 0, handled = 0, ready = 0, begins = 0, ends = 0, asked = 0;
  bool worthwhile = true;
};

TEST(AioContextTest, PollWindowGrowsWhenEventsComeSoonAndShrinksWhenLate) {
  AioContext ctx;
  FakeRing ring;
  ctx.add_poll_handler(&ring);
  PollParams p;
  p.max_ns = 2'000'000;  // 2 ms
  p.grow = 2;
  p.shrink = 2;
  ctx.set_poll_params(p);
  EXPECT_EQ(ctx.poll_ns(), 0);
  // Events arrive quickly (a timer 100 us away): the window grows.
  Timer t(ctx, [] {});
  for (int i = 0; i < 6; i++) {
    t.arm_in(100'000);
    while (t.pending()) ctx.run_once(true);
  }
  int64_t grown = ctx.poll_ns();
  EXPECT_GT(grown, 0);
  EXPECT_LE(grown, p.max_ns);
  EXPECT_GT(ctx.stats().poll_ns_grows, 0u);
  // Events arrive late (20 ms > max): the window shrinks.  (Arming the timer
  // outside a dispatch notifies the loop; consume that first so the only
  // blocking wait is the late one.)
  t.arm_in(20'000'000);
  ctx.run_once(false);
  grown = ctx.poll_ns();
  while (t.pending()) ctx.run_once(true);
  EXPECT_LT(ctx.poll_ns(), grown);
  EXPECT_GT(ctx.stats().poll_ns_shrinks, 0u);
  EXPECT_EQ(ring.begins, ring.ends);
  ctx.remove_poll_handler(&ring);
}

TEST(AioContextTest, PollingProgressSkipsEpollWait) {
  AioContext ctx;
  FakeRing ring;
  ctx.add_poll_handler(&ring);
  ring.ready = 1000;
  uint64_t waits_before = ctx.stats().epoll_waits;
  for (int i = 0; i < 1000; i++) ctx.run_once(true);
  EXPECT_EQ(ring.handled, 1000);
  // One epoll_wait per 64 spinning iterations at most.
  EXPECT_LE(ctx.stats().epoll_waits - waits_before, 1000u / 64 + 2);
  ctx.remove_poll_handler(&ring);
}

TEST(AioContextTest, ZeroPollMaxDisablesPolling) {
  AioContext ctx;
  FakeRing ring;
  ctx.add_poll_handler(&ring);
  PollParams p;
  p.max_ns = 0;
  ctx.set_poll_params(p);
  Timer t(ctx, [] {});
  for (int i = 0; i < 5; i++) {
    t.arm_in(50'000);
    while (t.pending()) ctx.run_once(true);
  }
  EXPECT_EQ(ctx.poll_ns(), 0);
  EXPECT_EQ(ctx.stats().poll_phases, 0u);
  ctx.remove_poll_handler(&ring);
}

// A handler that finds polling not worthwhile: the loop asks it before every
// wait, does not spin (no phase, the window stays 0), still calls poll() once
// per iteration, and sleeps until the timer.  Another handler that wants to
// poll makes the loop spin for both.
TEST(AioContextTest, DeclinedPollingSleepsInsteadOfSpinning) {
  AioContext ctx;
  FakeRing ring;
  ring.worthwhile = false;
  ctx.add_poll_handler(&ring);
  Timer t(ctx, [] {});
  for (int i = 0; i < 5; i++) {
    t.arm_in(2'000'000);  // long enough that a sanitizer build still waits
    ctx.run_once(false);  // consume the arm's own notification
    while (t.pending()) ctx.run_once(true);
  }
  EXPECT_EQ(ctx.stats().poll_phases, 0u);
  EXPECT_EQ(ring.begins, 0);
  EXPECT_EQ(ctx.poll_ns(), 0);
  EXPECT_GE(ring.asked, 5);
  EXPECT_EQ(ctx.stats().poll_declined, uint64_t(ring.asked));
  EXPECT_GE(ring.calls, 5);  // the one cheap check before each sleep

  FakeRing eager;
  ctx.add_poll_handler(&eager);
  const uint64_t declined = ctx.stats().poll_declined;
  for (int i = 0; i < 5; i++) {
    t.arm_in(2'000'000);  // long enough that a sanitizer build still waits
    ctx.run_once(false);
    while (t.pending()) ctx.run_once(true);
  }
  EXPECT_GT(ctx.stats().poll_phases, 0u);
  EXPECT_EQ(ctx.stats().poll_declined, declined);
  EXPECT_EQ(ring.begins, eager.begins);  // spins include every handler
  ctx.remove_poll_handler(&eager);
  ctx.remove_poll_handler(&ring);
}

// A long poll window (a spinning benchmark: 1 s) never makes a timer late:
// the spin stops at the next timer's deadline.
TEST(AioContextTest, PollWindowStopsAtTheNextTimer) {
  AioContext ctx;
  FakeRing ring;
  ctx.add_poll_handler(&ring);
  ctx.set_poll_params({.max_ns = 1'000'000'000, .grow = 1000, .shrink = 0});
  Timer t(ctx, [] {});
  // Waits of 5 ms, longer than the window and inside the maximum: it grows
  // (4 us, 4 ms, then the 1 s maximum).
  for (int i = 0; i < 10 && ctx.poll_ns() < 1'000'000'000; i++) {
    t.arm_in(5'000'000);
    ctx.run_once(false);
    while (t.pending()) ctx.run_once(true);
  }
  ASSERT_EQ(ctx.poll_ns(), 1'000'000'000);
  const int64_t t0 = NowNs();
  t.arm_in(2'000'000);
  ctx.run_once(false);
  while (t.pending()) ctx.run_once(true);
  const int64_t late = NowNs() - t0 - 2'000'000;
  EXPECT_LT(late, 100'000'000) << "the timer fired " << late << " ns late";
  EXPECT_GT(ring.calls, 0);
  ctx.remove_poll_handler(&ring);
}

TEST(AioContextTest, EmbeddingFdBecomesReadableForPostedWork) {
  AioContext ctx;
  ctx.run_once(false);
  struct pollfd pfd = {ctx.fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&pfd, 1, 0), 0);  // nothing to do
  std::atomic<bool> ran{false};
  std::thread t([&] { ctx.post([&] { ran = true; }); });
  t.join();
  EXPECT_EQ(::poll(&pfd, 1, 1000), 1);
  EXPECT_TRUE(ctx.dispatch());
  EXPECT_TRUE(ran.load());
  ctx.dispatch();  // consumes any leftover notification
  EXPECT_EQ(::poll(&pfd, 1, 0), 0);
}

TEST(AioContextTest, EmbeddingFdBecomesReadableForTimerArmedOutsideDispatch) {
  AioContext ctx;
  ctx.run_once(false);
  bool fired = false;
  Timer t(ctx, [&] { fired = true; });
  t.arm_in(1'000'000);
  // The host learns about the new deadline: fd readable, then it re-reads
  // next_timeout_ns() after dispatching.
  struct pollfd pfd = {ctx.fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&pfd, 1, 0), 1);
  ctx.dispatch();
  int64_t to = ctx.next_timeout_ns();
  EXPECT_GE(to, 0);
  EXPECT_LE(to, 1'000'000);
  ::poll(nullptr, 0, int(to / 1000000) + 1);
  ctx.dispatch();
  EXPECT_TRUE(fired);
}

TEST(IOThreadTest, RunSyncExecutesOnTheThreadAndPostedWorkIsNotLost) {
  std::thread::id io_id;
  std::atomic<int> count{0};
  {
    IOThread t("test-io");
    t.run_sync([&] { io_id = std::this_thread::get_id(); });
    EXPECT_NE(io_id, std::this_thread::get_id());
    for (int i = 0; i < 1000; i++) t.ctx().post([&] { count++; });
  }  // destructor stops after posted work ran
  EXPECT_EQ(count.load(), 1000);
}

// A loop service that logs its destruction and what it still finds.
struct LoggingService : LoopService {
  LoggingService(AioContext* c, std::string n, std::vector<std::string>* l)
      : ctx(c), name(std::move(n)), log(l) {}
  ~LoggingService() override {
    // Already out of the registry while it is destroyed.
    log->push_back(name + (ctx->find_service(name) ? ":still-listed" : ""));
  }
  AioContext* ctx;
  std::string name;
  std::vector<std::string>* log;
};

TEST(AioContextTest, ServicesAreFoundByKeyAndRemoved) {
  std::vector<std::string> log;
  AioContext ctx;
  EXPECT_EQ(ctx.find_service("a"), nullptr);
  LoopService* a = ctx.add_service("a", std::make_unique<LoggingService>(&ctx, "a", &log));
  LoopService* b = ctx.add_service("b", std::make_unique<LoggingService>(&ctx, "b", &log));
  EXPECT_EQ(ctx.find_service("a"), a);
  EXPECT_EQ(ctx.find_service("b"), b);
  EXPECT_NE(a, b);
  ctx.remove_service("a");
  EXPECT_EQ(log, std::vector<std::string>{"a"});
  EXPECT_EQ(ctx.find_service("a"), nullptr);
  EXPECT_EQ(ctx.find_service("b"), b);
  ctx.remove_service("a");  // absent: nothing happens
  EXPECT_EQ(log.size(), 1u);
}

TEST(AioContextTest, LoopDestroysItsServicesNewestFirst) {
  std::vector<std::string> log;
  {
    AioContext ctx;
    for (const char* n : {"first", "second", "third"}) {
      ctx.add_service(n, std::make_unique<LoggingService>(&ctx, n, &log));
    }
  }
  EXPECT_EQ(log, (std::vector<std::string>{"third", "second", "first"}));
}

}  // namespace
}  // namespace blk
