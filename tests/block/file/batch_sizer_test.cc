// BatchSizer (block/file/batch_sizer.h): the submission batch limit, driven
// by scripted reports (requests sent, requests the peeks found done, ends of
// submission passes); no device, no clock.
#include <blkstack/block/file/batch_sizer.h>

#include <gtest/gtest.h>

namespace blk {
namespace {

constexpr int kW = int(BatchSizer::kWindow);  // 512

// One submission pass: `sent` requests out, `done` of them found by the
// peeks right after.
void Pass(BatchSizer& b, int sent, int done) {
  b.submitted(sent);
  b.found(done);
  b.end_of_pass();
}

TEST(BatchSizerTest, ChooseRule) {
  // At least half found done inside the submission: full batches.
  EXPECT_EQ(BatchSizer::Choose(256, 512, 4, 32, 4), 32);
  EXPECT_EQ(BatchSizer::Choose(512, 512, 32, 32, 4), 32);
  // Fewer than a quarter: small batches (never above max_batch).
  EXPECT_EQ(BatchSizer::Choose(127, 512, 32, 32, 4), 4);
  EXPECT_EQ(BatchSizer::Choose(0, 512, 32, 2, 4), 2);
  // In between: unchanged, whichever it was.
  EXPECT_EQ(BatchSizer::Choose(128, 512, 32, 32, 4), 32);
  EXPECT_EQ(BatchSizer::Choose(255, 512, 4, 32, 4), 4);
}

TEST(BatchSizerTest, StartsAtMaxAndDecidesOnlyAtAFullWindow) {
  BatchSizer b(32, 4, true);
  EXPECT_EQ(b.limit(), 32);
  // An asynchronous device: nothing found done.  One request short of a
  // window, the limit stays, however many passes.
  for (int i = 0; i < kW - 1; i++) Pass(b, 1, 0);
  EXPECT_EQ(b.limit(), 32);
  EXPECT_EQ(b.changes(), 0u);
  Pass(b, 1, 0);
  EXPECT_EQ(b.limit(), 4);
  EXPECT_EQ(b.changes(), 1u);
}

TEST(BatchSizerTest, DecidesAtTheEndOfAPassNotInsideIt) {
  BatchSizer b(32, 4, true);
  b.submitted(kW);  // a full window, but the pass's peeks are still to come
  EXPECT_EQ(b.limit(), 32);
  b.found(kW);      // ... and they find everything done
  b.end_of_pass();
  EXPECT_EQ(b.limit(), 32);
  EXPECT_EQ(b.changes(), 0u);
}

TEST(BatchSizerTest, FollowsTheDeviceBothWays) {
  BatchSizer b(32, 4, true);
  Pass(b, kW, kW / 4 - 1);  // fewer than a quarter done: asynchronous
  EXPECT_EQ(b.limit(), 4);
  Pass(b, kW, kW / 2);      // half done inside the submission: synchronous
  EXPECT_EQ(b.limit(), 32);
  EXPECT_EQ(b.changes(), 2u);
}

TEST(BatchSizerTest, BetweenAQuarterAndAHalfTheLimitStays) {
  BatchSizer b(32, 4, true);
  Pass(b, kW, kW / 4);  // exactly a quarter: not fewer
  EXPECT_EQ(b.limit(), 32);
  Pass(b, kW, 0);
  ASSERT_EQ(b.limit(), 4);
  Pass(b, kW, kW / 2 - 1);  // just under a half: stays small
  EXPECT_EQ(b.limit(), 4);
  EXPECT_EQ(b.changes(), 1u);
}

TEST(BatchSizerTest, EachWindowStartsFromZero) {
  BatchSizer b(32, 4, true);
  Pass(b, kW, 300);  // more than half: stays 32, window closed
  ASSERT_EQ(b.limit(), 32);
  // Alone, this window is below a quarter.  Had the last one's counts been
  // kept, 400 of 1024 would sit between a quarter and a half: no change.
  Pass(b, kW, 100);
  EXPECT_EQ(b.limit(), 4);
}

TEST(BatchSizerTest, AWindowIncludesTheWholePassThatFilledIt) {
  BatchSizer b(32, 4, true);
  Pass(b, kW - 1, 0);
  // The pass that fills the window sends 100 more, all found done: decided
  // on 611 requests with 100 done (below a quarter).
  Pass(b, 100, 100);
  EXPECT_EQ(b.limit(), 4);
}

TEST(BatchSizerTest, AsyncBatchNeverAboveMaxBatch) {
  BatchSizer b(2, 4, true);
  EXPECT_EQ(b.limit(), 2);
  Pass(b, kW, 0);
  EXPECT_EQ(b.limit(), 2);
  EXPECT_EQ(b.changes(), 0u);
}

TEST(BatchSizerTest, WithoutAdaptingTheLimitIsMaxBatch) {
  BatchSizer b(32, 4, false);
  for (int i = 0; i < 8; i++) Pass(b, kW, 0);
  EXPECT_EQ(b.limit(), 32);
  EXPECT_EQ(b.changes(), 0u);
}

}  // namespace
}  // namespace blk
