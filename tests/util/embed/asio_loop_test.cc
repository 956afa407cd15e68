// The Boost.Asio adapter drives AioContexts from an io_context.
#include <blkstack/util/embed/asio_loop.h>

#include <map>

#include "tests/util/embed/host_loop_tests.h"

namespace blk {
namespace {

struct AsioHost {
  boost::asio::io_context io;
  std::map<AioContext*, std::unique_ptr<AsioAttachment>> attached;
  ~AsioHost() {
    attached.clear();
    io.poll();  // let cancelled handlers finish
  }
  void attach(AioContext& ctx) { attached[&ctx] = std::make_unique<AsioAttachment>(ctx, io); }
  void detach(AioContext& ctx) {
    attached.erase(&ctx);
    io.poll();
  }
  void run_once() {
    if (io.stopped()) io.restart();
    io.run_one();
  }
};

TEST(AsioLoopTest, IoCompletes) { embed_test::IoCompletesUnderHost<AsioHost>(); }
TEST(AsioLoopTest, FileDriverNativeAioRoundTrip) { embed_test::FileDriverIoUnderHost<AsioHost>("native"); }
TEST(AsioLoopTest, FileDriverThreadPoolRoundTrip) { embed_test::FileDriverIoUnderHost<AsioHost>("threads"); }
TEST(AsioLoopTest, TimersFire) { embed_test::TimersFireUnderHost<AsioHost>(); }
TEST(AsioLoopTest, ManyContextsOnOneIoContext) { embed_test::ManyContextsOnOneHost<AsioHost>(); }
TEST(AsioLoopTest, DetachWithIoInFlight) {
  embed_test::DetachWithIoInFlightThenDriveNatively<AsioHost>();
}

}  // namespace
}  // namespace blk
