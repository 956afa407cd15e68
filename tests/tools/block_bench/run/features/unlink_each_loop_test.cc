// UnlinkEachLoop (run/features/unlink_each_loop.h): between two passes of
// a loops=N job, once every request completed, `between` runs; not after
// the last pass; its failure ends the clone.  On a real submit loop over
// the null driver.
#include "tools/block_bench/run/features/unlink_each_loop.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <vector>

#include "tests/tools/block_bench/run/loop_fixture.h"

namespace blk::bench {
namespace {

using testing::LoopFixture;
using testing::Write;

JobOptions Job(uint32_t depth) {
  JobOptions j;
  j.name = "u";
  j.ioengine = IoEngine::kNull;
  j.iodepth = depth;
  return j;
}

TEST(UnlinkEachLoop, BetweenPassesWithNothingInFlightNotAfterTheLast) {
  // Three passes of two 4 KiB writes, depth 2.
  std::vector<IoUnit> ios;
  for (uint32_t pass = 0; pass < 3; pass++)
    for (uint64_t off : {0, 4096}) {
      IoUnit u = Write(off);
      u.pass = pass;
      ios.push_back(u);
    }
  LoopFixture fx(Job(2), ios);
  fx.open_null();
  SubmitLoop& loop = fx.make_loop();
  std::vector<uint64_t> seen;  // the writes done when `between` ran
  std::vector<uint32_t> inflight;
  UnlinkEachLoop u([&]() -> Task<Expected<void>> {
    seen.push_back(fx.res.dir[int(Dir::kWrite)].ios);
    inflight.push_back(loop.inflight());
    co_return Expected<void>{};
  }, fx.errors);
  loop.add_hook(&u);
  fx.run();
  EXPECT_EQ(seen, (std::vector<uint64_t>{2, 4}));
  EXPECT_EQ(inflight, (std::vector<uint32_t>{0, 0}));
  EXPECT_EQ(u.restarts(), 2u);
  EXPECT_EQ(fx.res.dir[int(Dir::kWrite)].ios, 6u);
}

TEST(UnlinkEachLoop, AFailureEndsTheClone) {
  std::vector<IoUnit> ios = {Write(0), Write(0), Write(0)};
  for (uint32_t i = 0; i < ios.size(); i++) ios[i].pass = i;
  LoopFixture fx(Job(1), ios);
  fx.open_null();
  SubmitLoop& loop = fx.make_loop();
  UnlinkEachLoop u([]() -> Task<Expected<void>> {
    co_return Error{-EACCES, "unlink_each_loop: unlink 'f': Permission denied"};
  }, fx.errors);
  loop.add_hook(&u);
  fx.run();
  EXPECT_EQ(fx.res.dir[int(Dir::kWrite)].ios, 1u);
  EXPECT_EQ(fx.res.error, EACCES);
  EXPECT_NE(fx.res.error_message.find("unlink_each_loop"), std::string::npos);
}

}  // namespace
}  // namespace blk::bench
