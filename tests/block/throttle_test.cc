// Tests of the throttle filter, alone and stacked with error-inject on null.
#include <blkstack/block/throttle/throttle.h>

#include <gtest/gtest.h>

#include <vector>

#include <blkstack/block/registry.h>
#include <blkstack/util/clock.h>

namespace blk {
namespace {

Task<void> Reader(BlockBackend& b, int n, int* ok, WaitGroup* wg) {
  std::vector<uint8_t> buf(4096);
  IoVec iov(buf.data(), buf.size());
  for (int i = 0; i < n; i++) {
    Status s = co_await b.read(uint64_t(i) * 4096, iov);
    if (s.ok()) (*ok)++;
  }
  wg->done();
}

Task<int64_t> Drive(AioContext& ctx, BlockBackend& b, int workers, int each, int* ok) {
  WaitGroup wg(ctx);
  wg.add(workers);
  int64_t t0 = NowNs();
  for (int i = 0; i < workers; i++) Spawn(ctx, Reader(b, each, ok, &wg));
  co_await wg.wait();
  co_return NowNs() - t0;
}

TEST(ThrottleTest, IopsLimitPacesRequests) {
  AioContext ctx;
  auto b = OpenBackend(ctx, "driver=throttle,iops-read=2000,file.driver=null");
  ASSERT_TRUE(b.ok()) << b.error().message;
  int ok = 0;
  // 400 reads at 2000/s: at least ~200 ms, however many are in flight.
  int64_t ns = RunSync(ctx, Drive(ctx, **b, 8, 50, &ok));
  EXPECT_EQ(ok, 400);
  EXPECT_GE(ns, 195'000'000);
  EXPECT_LT(ns, 2'000'000'000);
  double iops = 400 / (double(ns) / 1e9);
  EXPECT_LE(iops, 2000 * 1.03);
}

TEST(ThrottleTest, BandwidthLimitPacesBytesAndWritesAreSeparate) {
  AioContext ctx;
  auto b = OpenBackend(ctx, "driver=throttle,bps-read=4M,iops-write=10,file.driver=null");
  ASSERT_TRUE(b.ok()) << b.error().message;
  int ok = 0;
  // 256 x 4 KiB = 1 MiB at 4 MiB/s: about 250 ms.  The write limit does not
  // apply to reads.
  int64_t ns = RunSync(ctx, Drive(ctx, **b, 4, 64, &ok));
  EXPECT_EQ(ok, 256);
  EXPECT_GE(ns, 240'000'000);
  EXPECT_LT(ns, 2'000'000'000);
}

TEST(ThrottleTest, StackedWithErrorInjectionOverNull) {
  AioContext ctx;
  auto b = OpenBackend(ctx,
                       "driver=throttle,iops-total=1000,"
                       "file.driver=error-inject,file.event=read,file.after=10,file.count=5,"
                       "file.file.driver=null,file.file.size=64M");
  ASSERT_TRUE(b.ok()) << b.error().message;
  int ok = 0;
  int64_t ns = RunSync(ctx, Drive(ctx, **b, 2, 50, &ok));
  EXPECT_EQ(ok, 95);  // 5 injected errors pass up through the throttle
  EXPECT_GE(ns, 95'000'000);
  std::vector<DriverCounter> cs;
  (*b)->root().driver().counters(&cs);
  bool found = false;
  for (auto& c : cs) {
    if (c.name == "file.error_inject.injected") {
      found = true;
      EXPECT_EQ(c.value, 5u);
    }
  }
  EXPECT_TRUE(found);
}

// cancel_waits() on the graph ends the throttle's delays (the requests never
// reach the child) and forwards to the child, whose own latency also ends.
TEST(ThrottleTest, CancelWaitsEndsThrottleAndChildDelays) {
  AioContext ctx;
  auto b = OpenBackend(ctx,
                       "driver=throttle,iops-total=1,file.driver=null,"
                       "file.latency-ns=3600000000000");
  ASSERT_TRUE(b.ok()) << b.error().message;
  int ok = 0;
  WaitGroup wg(ctx);
  wg.add(4);
  for (int i = 0; i < 4; i++) Spawn(ctx, Reader(**b, 1, &ok, &wg));
  for (int i = 0; i < 5; i++) ctx.run_once(false);
  // One request reached the null device (its hour-long latency), three wait
  // for their throttle slot (1 per second).
  EXPECT_EQ((*b)->root().in_flight(), 4);
  const int64_t t0 = NowNs();
  (*b)->cancel_waits();
  auto wait = [](WaitGroup& w) -> Task<void> { co_await w.wait(); };
  RunSync(ctx, wait(wg));
  // Not the 3 s the throttle would take for the last of them (nor the hour).
  EXPECT_LT(NowNs() - t0, 2'000'000'000);
  EXPECT_EQ(ok, 0);
  EXPECT_EQ((*b)->root().in_flight(), 0);
}

TEST(ThrottleTest, BadOptions) {
  AioContext ctx;
  auto b = OpenBackend(ctx, "driver=throttle,iops-total=-1,file.driver=null");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("iops-total"), std::string::npos) << b.error().message;
  b = OpenBackend(ctx, "driver=throttle,iops-total=10");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("file"), std::string::npos) << b.error().message;
}

}  // namespace
}  // namespace blk
