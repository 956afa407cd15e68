// Tests of util/join.h: WhenAll, JoinAll and TaskScope (join, first error,
// cancellation, cancel from another thread).  Devices: tests/block/
// task_scope_test.cc cancels requests of a real null driver in flight.
#include <blkstack/util/join.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <memory>
#include <thread>
#include <vector>

#include <blkstack/util/clock.h>
#include <blkstack/util/iothread.h>
#include <blkstack/util/result.h>

namespace blk {
namespace {

constexpr int64_t kHour = 3600'000'000'000;

// Counts how many of a group run at once.
struct Concurrency {
  int now = 0;
  int max = 0;
  void enter() { max = std::max(max, ++now); }
  void leave() { now--; }
};

// Yields `turns` times through the loop, then returns `value`.
Task<int> AfterTurns(AioContext& ctx, int turns, int value, Concurrency* c) {
  c->enter();
  for (int i = 0; i < turns; i++) co_await ctx.yield();
  c->leave();
  co_return value;
}

Task<Status> FailAfterTurns(AioContext& ctx, int turns, int err, std::vector<int>* order) {
  for (int i = 0; i < turns; i++) co_await ctx.yield();
  order->push_back(err);
  co_return Status(err);
}

// Results come back in the order of the input, not of completion (the
// first task finishes last), and all ran at the same time.
TEST(JoinTest, WhenAllYieldsEveryResultInInputOrder) {
  AioContext ctx;
  Concurrency c;
  std::vector<Task<int>> tasks;
  for (int i = 0; i < 8; i++) tasks.push_back(AfterTurns(ctx, 8 - i, 100 + i, &c));
  std::vector<int> out = RunSync(ctx, WhenAll(ctx, std::move(tasks)));
  ASSERT_EQ(out.size(), 8u);
  for (int i = 0; i < 8; i++) EXPECT_EQ(out[i], 100 + i);
  EXPECT_EQ(c.max, 8);
  EXPECT_EQ(c.now, 0);
  EXPECT_TRUE(RunSync(ctx, WhenAll(ctx, std::vector<Task<int>>{})).empty());
}

Task<void> Bump(AioContext& ctx, int turns, int* n) {
  for (int i = 0; i < turns; i++) co_await ctx.yield();
  (*n)++;
}

TEST(JoinTest, WhenAllOfVoidTasksWaitsForTheLast) {
  AioContext ctx;
  int n = 0;
  std::vector<Task<void>> tasks;
  for (int i = 0; i < 5; i++) tasks.push_back(Bump(ctx, i * 3, &n));
  RunSync(ctx, WhenAll(ctx, std::move(tasks)));
  EXPECT_EQ(n, 5);
}

// The first error in completion order wins; every task still finished.
TEST(JoinTest, JoinAllYieldsTheFirstErrorAfterAllFinished) {
  AioContext ctx;
  std::vector<int> order;
  std::vector<Task<Status>> tasks;
  tasks.push_back(FailAfterTurns(ctx, 6, -EIO, &order));
  tasks.push_back(FailAfterTurns(ctx, 2, -ENOSPC, &order));
  tasks.push_back(FailAfterTurns(ctx, 9, 0, &order));
  Status s = RunSync(ctx, JoinAll(ctx, std::move(tasks)));
  EXPECT_EQ(s.error(), -ENOSPC);
  EXPECT_EQ(order, (std::vector<int>{-ENOSPC, -EIO, 0}));
  std::vector<Task<Status>> fine;
  fine.push_back(FailAfterTurns(ctx, 1, 0, &order));
  EXPECT_TRUE(RunSync(ctx, JoinAll(ctx, std::move(fine))).ok());
}

Task<Result<int>> ResultAfter(AioContext& ctx, int turns, int err) {
  for (int i = 0; i < turns; i++) co_await ctx.yield();
  if (err < 0) co_return Result<int>::Err(err);
  co_return 7;
}

// 16 workers, no counter of our own: join() waits for all of them, also for
// one spawned by a worker while the scope was joining; Result<U> errors
// count as errors.
TEST(JoinTest, ScopeJoinWaitsForEveryTaskItStarted) {
  AioContext ctx;
  Concurrency c;
  int late = 0;
  auto body = [](AioContext& ctx, Concurrency* c, int* late) -> Task<Status> {
    TaskScope scope(ctx);
    for (int i = 0; i < 16; i++) scope.spawn(AfterTurns(ctx, 1 + i % 4, i, c));
    EXPECT_EQ(scope.active(), 16);
    auto spawner = [](TaskScope* s, int* late) -> Task<void> {
      co_await s->ctx().yield();
      s->spawn(Bump(s->ctx(), 20, late));
    };
    scope.spawn(spawner(&scope, late));
    scope.spawn(ResultAfter(ctx, 3, -ETIMEDOUT));
    scope.spawn(ResultAfter(ctx, 1, 0));
    Status s = co_await scope.join();
    EXPECT_EQ(scope.active(), 0);
    co_return s;
  };
  Status s = RunSync(ctx, body(ctx, &c, &late));
  EXPECT_EQ(s.error(), -ETIMEDOUT);
  EXPECT_EQ(c.max, 16);
  EXPECT_EQ(c.now, 0);
  EXPECT_EQ(late, 1);
}

// A worker that sleeps between "requests" until cancelled.
Task<Status> Sleeper(TaskScope* scope, int* rounds) {
  while (!scope->cancelled()) {
    const bool slept = co_await scope->sleep_for(kHour);
    if (slept) (*rounds)++;
  }
  co_return Status(-ECANCELED);
}

// cancel() ends the hour-long sleeps at once (through the loop), runs the
// hooks, and a sleep that starts afterwards does not sleep at all.
TEST(JoinTest, CancelEndsTheScopesSleepsAndRunsItsHooks) {
  AioContext ctx;
  int rounds = 0, hooks = 0;
  struct Dev {
    int cancels = 0;
    void cancel_waits() { cancels++; }
  } dev;
  auto body = [](AioContext& ctx, int* rounds, int* hooks, Dev* dev) -> Task<Status> {
    TaskScope scope(ctx);
    scope.on_cancel([hooks] { (*hooks)++; });
    scope.cancel_waits_of(*dev);
    for (int i = 0; i < 4; i++) scope.spawn(Sleeper(&scope, rounds));
    for (int i = 0; i < 3; i++) co_await ctx.yield();
    EXPECT_EQ(scope.active(), 4);
    scope.cancel();
    Status s = co_await scope.join();
    bool slept = co_await scope.sleep_for(kHour);  // already cancelled
    EXPECT_FALSE(slept);
    scope.on_cancel([hooks] { (*hooks) += 10; });  // runs at once
    co_return s;
  };
  const int64_t t0 = NowNs();
  Status s = RunSync(ctx, body(ctx, &rounds, &hooks, &dev));
  EXPECT_LT(NowNs() - t0, 60'000'000'000);  // far from the hour
  EXPECT_EQ(s.error(), -ECANCELED);
  EXPECT_EQ(rounds, 0);
  EXPECT_EQ(hooks, 11);
  EXPECT_EQ(dev.cancels, 1);
}

// cancel_on_error: the first failure winds the other workers down.
TEST(JoinTest, CancelOnErrorStopsTheOthers) {
  AioContext ctx;
  int rounds = 0;
  std::vector<int> order;
  auto body = [](AioContext& ctx, int* rounds, std::vector<int>* order) -> Task<Status> {
    TaskScope scope(ctx);
    scope.cancel_on_error(true);
    for (int i = 0; i < 3; i++) scope.spawn(Sleeper(&scope, rounds));
    scope.spawn(FailAfterTurns(ctx, 4, -EIO, order));
    Status s = co_await scope.join();
    EXPECT_TRUE(scope.cancelled());
    co_return s;
  };
  Status s = RunSync(ctx, body(ctx, &rounds, &order));
  EXPECT_EQ(s.error(), -EIO);  // the first error, not the workers' -ECANCELED
  EXPECT_EQ(rounds, 0);
}

// request_cancel() from a foreign thread reaches workers on an IOThread's
// loop (TSan: the flag and the sleeps are touched on the loop thread only).
TEST(JoinTest, RequestCancelFromAnotherThread) {
  IOThread io("join-test");
  std::atomic<TaskScope*> scope{nullptr};
  std::atomic<int> result{1};
  std::atomic<bool> done{false};
  int rounds = 0;
  auto body = [](AioContext& ctx, std::atomic<TaskScope*>* out, int* rounds,
                 std::atomic<int>* result, std::atomic<bool>* done) -> Task<void> {
    TaskScope scope(ctx);
    for (int i = 0; i < 16; i++) scope.spawn(Sleeper(&scope, rounds));
    out->store(&scope);
    Status s = co_await scope.join();
    out->store(nullptr);
    result->store(s.error());
    done->store(true);
  };
  Spawn(io.ctx(), body(io.ctx(), &scope, &rounds, &result, &done));
  while (!scope.load()) std::this_thread::yield();
  scope.load()->request_cancel();
  const int64_t t0 = NowNs();
  while (!done.load() && NowNs() - t0 < 60'000'000'000) std::this_thread::yield();
  ASSERT_TRUE(done.load());
  EXPECT_EQ(result.load(), -ECANCELED);
  io.run_sync([&] { EXPECT_EQ(rounds, 0); });
}

}  // namespace
}  // namespace blk
