// TaskScope (util/join.h) with real devices: cancel() reaches requests in
// flight through BlockBackend::cancel_waits(), and join() waits for them.
#include <gtest/gtest.h>

#include <cerrno>
#include <vector>

#include <blkstack/block/registry.h>
#include <blkstack/util/aligned_buffer.h>
#include <blkstack/util/clock.h>
#include <blkstack/util/join.h>

namespace blk {
namespace {

// Reads until the scope is cancelled; yields the status of its last read.
Task<Status> Reader(TaskScope* scope, BlockBackend* b, int* reads) {
  AlignedBuffer buf(4096);
  Status s;
  while (!scope->cancelled()) {
    s = co_await b->read(0, buf.iov());
    (*reads)++;
    if (!s.ok()) break;
  }
  co_return s;
}

// Every read waits an hour in the null driver: cancel() completes all 16
// with -ECANCELED at once, and join() returns only after they completed.
TEST(TaskScopeTest, CancelReachesRequestsInFlight) {
  AioContext ctx;
  auto b = OpenBackend(ctx, "driver=null,size=1M,latency-ns=3600000000000");
  ASSERT_TRUE(b.ok()) << b.error().message;
  BlockBackend& blk = **b;
  int reads = 0;
  auto body = [](BlockBackend* b, int* reads) -> Task<Status> {
    TaskScope scope(b->ctx());
    scope.cancel_waits_of(*b);
    for (int i = 0; i < 16; i++) scope.spawn(Reader(&scope, b, reads));
    for (int i = 0; i < 4; i++) co_await b->ctx().yield();
    EXPECT_EQ(scope.active(), 16);
    scope.cancel();
    Status s = co_await scope.join();
    co_return s;
  };
  const int64_t t0 = NowNs();
  Status s = RunSync(ctx, body(&blk, &reads));
  EXPECT_LT(NowNs() - t0, 60'000'000'000);
  EXPECT_EQ(s.error(), -ECANCELED);
  EXPECT_EQ(reads, 16);
  EXPECT_EQ(blk.stats()[IoOp::kRead].errors, 16u);
}

// Without cancel_waits_of() the requests in flight are not reached: the
// workers stop only after their (short) reads completed normally.
TEST(TaskScopeTest, WithoutTheDeviceHookRequestsCompleteNormally) {
  AioContext ctx;
  auto b = OpenBackend(ctx, "driver=null,size=1M,latency-ns=20000000");
  ASSERT_TRUE(b.ok()) << b.error().message;
  int reads = 0;
  auto body = [](BlockBackend* b, int* reads) -> Task<Status> {
    TaskScope scope(b->ctx());
    for (int i = 0; i < 4; i++) scope.spawn(Reader(&scope, b, reads));
    for (int i = 0; i < 4; i++) co_await b->ctx().yield();
    scope.cancel();
    Status s = co_await scope.join();
    co_return s;
  };
  Status s = RunSync(ctx, body(b->get(), &reads));
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(reads, 4);
  EXPECT_EQ((*b)->stats()[IoOp::kRead].errors, 0u);
}

}  // namespace
}  // namespace blk
