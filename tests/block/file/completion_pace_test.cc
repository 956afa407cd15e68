// CompletionPace: the mean time between completions over busy time only.
#include <blkstack/block/file/completion_pace.h>

#include <gtest/gtest.h>

namespace blk {
namespace {

constexpr uint64_t kW = CompletionPace::kWindow;

TEST(CompletionPaceTest, UnknownUntilAWindowOfCompletions) {
  CompletionPace p;
  EXPECT_EQ(p.interval_ns(), 0);
  p.busy(1000, 0);
  p.busy(1000 + 5000 * (kW - 1), kW - 1);
  EXPECT_EQ(p.interval_ns(), 0);  // one short of a window
  p.busy(1000 + 5000 * kW, kW);
  EXPECT_EQ(p.interval_ns(), 5000);
}

TEST(CompletionPaceTest, IdleGapsDoNotCount) {
  CompletionPace p;
  int64_t t = 0;
  uint64_t done = 0;
  // Busy spans of 10 completions 3 us apart, each followed by 1 ms with
  // nothing in flight (think time).
  while (p.interval_ns() == 0) {
    p.busy(t, done);
    t += 30'000;
    done += 10;
    p.busy(t, done);
    p.idle();
    t += 1'000'000;
  }
  EXPECT_EQ(p.interval_ns(), 3000);
}

TEST(CompletionPaceTest, FollowsAChangeOfSpeedWindowByWindow) {
  CompletionPace p;
  int64_t t = 0;
  uint64_t done = 0;
  p.busy(t, done);
  for (uint64_t i = 0; i < kW; i += 8) p.busy(t += 8 * 2000, done += 8);
  EXPECT_EQ(p.interval_ns(), 2000);
  for (uint64_t i = 0; i < kW; i += 8) p.busy(t += 8 * 9000, done += 8);
  EXPECT_EQ(p.interval_ns(), 9000);
}

TEST(CompletionPaceTest, SpansWithoutCompletionsStillCountAsBusyTime) {
  CompletionPace p;
  // Samples with nothing completed in between (a wake-up for other work):
  // the time still belongs to the device's busy time.
  p.busy(0, 0);
  p.busy(400'000, 0);
  p.busy(600'000, kW);
  EXPECT_EQ(p.interval_ns(), int64_t(600'000 / kW));
}

TEST(CompletionPaceTest, ClockOrCountGoingBackwardsIsIgnored) {
  CompletionPace p;
  p.busy(1'000'000, 100);
  p.busy(500'000, 200);  // time went back: not a span
  p.busy(500'000 + 1000 * kW, 200 + kW);
  EXPECT_EQ(p.interval_ns(), 1000);
}

}  // namespace
}  // namespace blk
