// OverlapGuard (run/features/overlap_guard.h): fio's serialize_overlap.
// Unit-level on the ranges it tracks, then on a real submit loop over
// HoldDriver (scripted completions): an I/O overlapping one in flight is
// not issued until that one completed, and the I/O behind it waits too.
#include "tools/block_bench/run/features/overlap_guard.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/tools/block_bench/run/loop_fixture.h"

namespace blk::bench {
namespace {

using testing::LoopFixture;
using testing::Read;
using testing::Settle;
using testing::Write;

TEST(OverlapGuard, TracksTheRangesInFlightBySlot) {
  OverlapGuard g(4);
  EXPECT_EQ(g.points(), unsigned(SubmitHook::kBeforeIssue | SubmitHook::kOnIssue |
                                 SubmitHook::kOnRetire));
  const IoUnit a = Write(8192, 8192);
  g.on_issue(IssuedIo{2, a, 0});
  EXPECT_TRUE(g.overlaps(Read(8192)));
  EXPECT_TRUE(g.overlaps(Read(12288)));
  EXPECT_TRUE(g.overlaps(Write(4096, 8192))) << "straddles the start";
  EXPECT_FALSE(g.overlaps(Read(4096))) << "ends where it starts";
  EXPECT_FALSE(g.overlaps(Read(16384))) << "starts where it ends";
  EXPECT_FALSE(g.overlaps(Read(8192, 4096, /*file=*/1))) << "another file";
  IoUnit empty = Read(8192);
  empty.len = 0;
  EXPECT_FALSE(g.overlaps(empty));
  g.on_retire(2);
  EXPECT_FALSE(g.overlaps(Read(8192)));
}

JobOptions Job(bool serialize) {
  JobOptions j;
  j.name = "o";
  j.ioengine = IoEngine::kNull;
  j.iodepth = 4;
  j.serialize_overlap = serialize;
  return j;
}

// Depth 4, four I/Os: the third reads the block the first writes.  With
// the guard the first two go out, the read and the write behind it wait
// until the first write completed; without it all four are in flight.
TEST(OverlapGuard, OnALoopTheOverlappingIoWaitsForTheOneInFlight) {
  const std::vector<IoUnit> ios = {Write(0), Write(4096), Read(0), Write(8192)};
  {
    LoopFixture fx(Job(true), ios);
    fx.open_hold();
    OverlapGuard g(4);
    fx.make_loop().add_hook(&g);
    fx.start();
    EXPECT_EQ(fx.hold->arrived(), 2u);
    EXPECT_EQ(g.waits(), 1u);
    ASSERT_TRUE(fx.hold->complete_oldest());  // the write of block 0
    Settle(fx.ctx);
    ASSERT_EQ(fx.hold->arrived(), 4u);
    EXPECT_EQ(fx.hold->request(2).kind, 'r');
    EXPECT_EQ(fx.hold->request(2).offset, 0u);
    EXPECT_EQ(fx.hold->held(), 3u);
    EXPECT_TRUE(fx.complete_in_order());
    EXPECT_EQ(fx.res.dir[int(Dir::kRead)].ios, 1u);
    EXPECT_EQ(fx.res.dir[int(Dir::kWrite)].ios, 3u);
  }
  {
    LoopFixture fx(Job(false), ios);
    fx.open_hold();
    fx.make_loop();
    fx.start();
    EXPECT_EQ(fx.hold->arrived(), 4u) << "without the guard, nothing waits";
    EXPECT_TRUE(fx.complete_in_order());
  }
}

}  // namespace
}  // namespace blk::bench
