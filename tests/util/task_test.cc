// Tests of Task<T>: laziness, nesting, values, lifetimes, detached tasks,
// many concurrent tasks, sleeping, moving between threads.
#include <blkstack/util/task.h>

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>
#include <string>
#include <thread>

#include <blkstack/util/clock.h>
#include <blkstack/util/iothread.h>
#include <blkstack/util/result.h>
#include "tests/util/sanitizer.h"

namespace blk {
namespace {

Task<int> Answer(int* runs) {
  (*runs)++;
  co_return 42;
}

TEST(TaskTest, IsLazyAndReturnsItsValue) {
  AioContext ctx;
  int runs = 0;
  Task<int> t = Answer(&runs);
  EXPECT_EQ(runs, 0);  // nothing ran yet
  EXPECT_EQ(RunSync(ctx, std::move(t)), 42);
  EXPECT_EQ(runs, 1);
}

TEST(TaskTest, UnstartedTaskIsDestroyedWithoutRunning) {
  int runs = 0;
  { Task<int> t = Answer(&runs); }
  EXPECT_EQ(runs, 0);
}

Task<int> Depth(AioContext& ctx, int n) {
  if (n == 0) co_return 0;
  if (n % 100 == 0) co_await ctx.yield();
  int below = co_await Depth(ctx, n - 1);
  co_return below + 1;
}

// The compilers make the symmetric-transfer resume a tail call in optimised
// builds, but not under AddressSanitizer (its stack poisoning needs an
// epilogue), so there the chain of synchronous completions does use stack.
#if defined(BLK_TEST_ASAN)
constexpr int kDepth = 1000;
#else
constexpr int kDepth = 20000;
#endif

TEST(TaskTest, DeepNestingUsesSymmetricTransfer) {
  AioContext ctx;
  // 20000 nested synchronous completions would overflow the stack without
  // symmetric transfer.
  EXPECT_EQ(RunSync(ctx, Depth(ctx, kDepth)), kDepth);
}

Task<Status> Fails() { co_return Status(-EIO); }
Task<Result<std::string>> Named() { co_return std::string("blk"); }

TEST(TaskTest, CarriesStatusAndResultValues) {
  AioContext ctx;
  EXPECT_EQ(RunSync(ctx, Fails()).error(), -EIO);
  Result<std::string> r = RunSync(ctx, Named());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value(), "blk");
}

// Counts live instances so frames are checked for leaks and double frees.
struct Tracker {
  static inline int live = 0;
  Tracker() { live++; }
  Tracker(const Tracker&) { live++; }
  ~Tracker() { live--; }
};

Task<void> HoldsTracker(AioContext& ctx, int* done) {
  Tracker t;
  co_await ctx.yield();
  co_await ctx.yield();
  (*done)++;
}

TEST(TaskTest, DetachedTasksFreeTheirFrames) {
  AioContext ctx;
  int done = 0;
  for (int i = 0; i < 100; i++) Spawn(ctx, HoldsTracker(ctx, &done));
  EXPECT_EQ(Tracker::live, 0);  // spawned tasks have not started yet
  ctx.run_until([&] { return done == 100; });
  EXPECT_EQ(done, 100);
  EXPECT_EQ(Tracker::live, 0);
}

TEST(TaskTest, SpawnNeverRunsInsideTheCaller) {
  AioContext ctx;
  int done = 0;
  Spawn(ctx, HoldsTracker(ctx, &done));
  EXPECT_EQ(Tracker::live, 0);
  ctx.run_until([&] { return done == 1; });
}

Task<void> Worker(AioContext& ctx, WaitGroup* wg, int64_t* sum, int id) {
  for (int i = 0; i < 10; i++) {
    co_await ctx.yield();
    *sum += id;
  }
  wg->done();
}

Task<int64_t> FanOut(AioContext& ctx, int n) {
  WaitGroup wg(ctx);
  int64_t sum = 0;
  wg.add(n);
  for (int i = 0; i < n; i++) Spawn(ctx, Worker(ctx, &wg, &sum, i));
  co_await wg.wait();
  co_return sum;
}

TEST(TaskTest, ManyConcurrentTasksInterleave) {
  AioContext ctx;
  constexpr int kN = 10000;
  int64_t expect = 10 * int64_t(kN) * (kN - 1) / 2;
  EXPECT_EQ(RunSync(ctx, FanOut(ctx, kN)), expect);
}

Task<int64_t> Sleeper(AioContext& ctx, int64_t ns) {
  int64_t start = NowNs();
  co_await SleepFor(ctx, ns);
  co_return NowNs() - start;
}

TEST(TaskTest, SleepForWaitsAtLeastTheDuration) {
  AioContext ctx;
  EXPECT_GE(RunSync(ctx, Sleeper(ctx, 3'000'000)), 3'000'000);
  EXPECT_LT(RunSync(ctx, Sleeper(ctx, 0)), 1'000'000'000);
}

Task<void> WaitEvent(Event* e, int* stage) {
  *stage = 1;
  co_await *e;
  *stage = 2;
}

Task<void> SleepIn(SleepGroup& g, AioContext& ctx, int64_t ns, int* result) {
  const bool slept = co_await g.sleep_for(ctx, ns);
  *result = slept ? 1 : 0;
}

// cancel_all() ends every sleep of the group at once (through the loop, not
// inside the call), the sleeps yield false; sleeps of another group and
// sleeps that start later run to their deadline and yield true.
TEST(TaskTest, SleepGroupCancelAllEndsItsSleepsEarly) {
  AioContext ctx;
  SleepGroup g, other;
  int a = -1, b = -1, c = -1, d = -1;
  Spawn(ctx, SleepIn(g, ctx, 3600'000'000'000, &a));
  Spawn(ctx, SleepIn(g, ctx, 3600'000'000'000, &b));
  Spawn(ctx, SleepIn(other, ctx, 2'000'000, &c));
  for (int i = 0; i < 3; i++) ctx.run_once(false);
  EXPECT_FALSE(g.empty());
  const int64_t t0 = NowNs();
  g.cancel_all();
  EXPECT_EQ(a, -1);  // not resumed inside cancel_all()
  EXPECT_TRUE(g.empty());
  ctx.run_until([&] { return a >= 0 && b >= 0 && c >= 0; });
  EXPECT_LT(NowNs() - t0, 1'000'000'000);
  EXPECT_EQ(a, 0);
  EXPECT_EQ(b, 0);
  EXPECT_EQ(c, 1);
  Spawn(ctx, SleepIn(g, ctx, 1'000'000, &d));
  ctx.run_until([&] { return d >= 0; });
  EXPECT_EQ(d, 1);
}

TEST(TaskTest, EventResumesWaiterThroughTheLoop) {
  AioContext ctx;
  Event e(ctx);
  int stage = 0;
  SpawnNow(WaitEvent(&e, &stage));
  EXPECT_EQ(stage, 1);
  e.set();
  EXPECT_EQ(stage, 1);  // resumed by the loop, not inside set()
  ctx.run_once(false);
  EXPECT_EQ(stage, 2);
}

Task<std::thread::id> HopTo(AioContext& other) {
  co_await other.schedule();
  co_return std::this_thread::get_id();
}

TEST(TaskTest, ScheduleMovesACoroutineToAnotherLoop) {
  IOThread io("task-test");
  AioContext ctx;
  std::atomic<bool> done{false};
  std::thread::id where;
  auto body = [](AioContext& other, std::thread::id* w, std::atomic<bool>* d) -> Task<void> {
    *w = co_await HopTo(other);
    d->store(true);
  };
  SpawnNow(body(io.ctx(), &where, &done));
  int64_t start = NowNs();
  while (!done.load() && NowNs() - start < 5'000'000'000) std::this_thread::yield();
  ASSERT_TRUE(done.load());
  EXPECT_NE(where, std::this_thread::get_id());
}

// Completions arriving on foreign threads (as librbd's do) reach their
// coroutine on the loop thread through post_resume().
struct ForeignCompleter {
  std::mutex mu;
  std::vector<std::coroutine_handle<>> queue;
  std::atomic<bool> quit{false};
  void worker(AioContext* ctx) {
    while (!quit.load()) {
      std::coroutine_handle<> h;
      {
        std::lock_guard<std::mutex> g(mu);
        if (!queue.empty()) {
          h = queue.back();
          queue.pop_back();
        }
      }
      if (h) ctx->post_resume(h); else std::this_thread::yield();
    }
  }
};

Task<void> CompletedElsewhere(ForeignCompleter* fc, std::atomic<int>* bad, int* done) {
  struct Foreign {
    ForeignCompleter* fc;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) const {
      std::lock_guard<std::mutex> g(fc->mu);
      fc->queue.push_back(h);
    }
    void await_resume() const noexcept {}
  };
  std::thread::id loop = std::this_thread::get_id();
  co_await Foreign{fc};
  if (std::this_thread::get_id() != loop) bad->fetch_add(1);
  (*done)++;
}

TEST(TaskTest, PostResumeFromForeignThreadsResumesOnTheLoop) {
  AioContext ctx;
  constexpr int kN = 5000;
  std::atomic<int> resumed_elsewhere{0};
  int done = 0;
  ForeignCompleter fc;
  std::thread t1([&] { fc.worker(&ctx); }), t2([&] { fc.worker(&ctx); });
  for (int i = 0; i < kN; i++) Spawn(ctx, CompletedElsewhere(&fc, &resumed_elsewhere, &done));
  int64_t start = NowNs();
  while (done < kN && NowNs() - start < 20'000'000'000) ctx.run_once(true);
  fc.quit = true;
  t1.join();
  t2.join();
  EXPECT_EQ(done, kN);
  EXPECT_EQ(resumed_elsewhere.load(), 0);
}

// ---- submission stamps ----

// An awaiter that reads the awaiting coroutine's stamp, as a driver does,
// and marks it with `at`; it does not suspend.
struct MarkStamp {
  int64_t at;
  SubmitStamp* seen = nullptr;
  bool await_ready() const noexcept { return false; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) noexcept {
    seen = SubmitStampOf(h);
    if (seen) seen->mark(at);
    return false;
  }
  SubmitStamp* await_resume() const noexcept { return seen; }
};

Task<SubmitStamp*> Leaf(int64_t at) { co_return co_await MarkStamp{at}; }
Task<SubmitStamp*> Middle(AioContext& ctx, int64_t at) {
  co_await ctx.yield();  // a layer that suspends before reaching the driver
  SubmitStamp* first = co_await Leaf(at);
  SubmitStamp* second = co_await Leaf(at + 100);  // a second piece of the request
  EXPECT_EQ(first, second);
  co_return first;
}

TEST(TaskTest, SubmitStampReachesEveryAwaitedTaskAndKeepsTheFirstMark) {
  AioContext ctx;
  SubmitStamp stamp;
  Task<SubmitStamp*> t = Middle(ctx, 5000);
  t.set_submit_stamp(&stamp);
  EXPECT_EQ(RunSync(ctx, std::move(t)), &stamp);
  EXPECT_EQ(stamp.ns, 5000);  // the second piece did not move it
}

TEST(TaskTest, TasksWithoutAStampSeeNone) {
  AioContext ctx;
  EXPECT_EQ(RunSync(ctx, Middle(ctx, 7)), nullptr);
  // Two requests in flight on one loop keep their own stamps.
  SubmitStamp a, b;
  SubmitStamp* got_a = nullptr;
  SubmitStamp* got_b = nullptr;
  bool done_a = false, done_b = false;
  auto run = [](AioContext& c, int64_t at, SubmitStamp** got, bool* done) -> Task<void> {
    *got = co_await Middle(c, at);
    *done = true;
  };
  Task<void> ta = run(ctx, 10, &got_a, &done_a);
  ta.set_submit_stamp(&a);
  Task<void> tb = run(ctx, 20, &got_b, &done_b);
  tb.set_submit_stamp(&b);
  Spawn(ctx, std::move(ta));
  Spawn(ctx, std::move(tb));
  ctx.run_until([&] { return done_a && done_b; });
  EXPECT_EQ(got_a, &a);
  EXPECT_EQ(got_b, &b);
  EXPECT_EQ(a.ns, 10);
  EXPECT_EQ(b.ns, 20);
}

}  // namespace
}  // namespace blk
