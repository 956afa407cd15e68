// The libevent adapter drives AioContexts from an event_base.
#include <blkstack/util/embed/libevent_loop.h>

#include <map>

#include "tests/util/embed/host_loop_tests.h"

namespace blk {
namespace {

struct LibeventHost {
  struct event_base* base = event_base_new();
  std::map<AioContext*, std::unique_ptr<LibeventAttachment>> attached;
  ~LibeventHost() {
    attached.clear();
    event_base_free(base);
  }
  void attach(AioContext& ctx) {
    auto a = LibeventAttachment::Attach(ctx, base);
    ASSERT_TRUE(a.ok());
    attached[&ctx] = std::move(a.value());
  }
  void detach(AioContext& ctx) { attached.erase(&ctx); }
  void run_once() { event_base_loop(base, EVLOOP_ONCE); }
};

TEST(LibeventLoopTest, IoCompletes) { embed_test::IoCompletesUnderHost<LibeventHost>(); }
TEST(LibeventLoopTest, FileDriverNativeAioRoundTrip) { embed_test::FileDriverIoUnderHost<LibeventHost>("native"); }
TEST(LibeventLoopTest, FileDriverThreadPoolRoundTrip) { embed_test::FileDriverIoUnderHost<LibeventHost>("threads"); }
TEST(LibeventLoopTest, TimersFire) { embed_test::TimersFireUnderHost<LibeventHost>(); }
TEST(LibeventLoopTest, ManyContextsOnOneBase) { embed_test::ManyContextsOnOneHost<LibeventHost>(); }
TEST(LibeventLoopTest, DetachWithIoInFlight) {
  embed_test::DetachWithIoInFlightThenDriveNatively<LibeventHost>();
}

TEST(LibeventLoopTest, HostEventsStillRunBetweenDispatches) {
  LibeventHost host;
  AioContext ctx;
  host.attach(ctx);
  auto blk = OpenBackend(ctx, "driver=null");
  ASSERT_TRUE(blk.ok());
  // A busy context (always-ready coroutines) must not starve the host.
  bool stop = false;
  auto spin = [](BlockBackend& b, bool* s) -> Task<void> {
    std::vector<uint8_t> buf(512);
    IoVec iov(buf.data(), buf.size());
    while (!*s) (void)co_await b.read(0, iov);
  };
  Spawn(ctx, spin(**blk, &stop));
  int host_ticks = 0;
  struct event* tick = event_new(
      host.base, -1, EV_PERSIST,
      [](evutil_socket_t, short, void* p) { (*static_cast<int*>(p))++; }, &host_ticks);
  struct timeval ms = {0, 1000};
  event_add(tick, &ms);
  ASSERT_TRUE(embed_test::RunHostUntil(host, [&] { return host_ticks >= 10; }));
  stop = true;
  ASSERT_TRUE(embed_test::RunHostUntil(host, [&] { return (*blk)->root().in_flight() == 0; }));
  event_free(tick);
  EXPECT_GT(host.attached[&ctx]->dispatches(), 10u);
}

}  // namespace
}  // namespace blk
