#include <blkstack/util/saturating.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace blk {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// Run under --config=asan (UBSan, -fno-sanitize-recover): any signed
// overflow or out-of-range double conversion inside the helpers aborts.

TEST(SaturatingTest, InRangeResultsAreExact) {
  EXPECT_EQ(SatAdd(1'000, -3), 997);
  EXPECT_EQ(SatSub(-5, 7), -12);
  EXPECT_EQ(SatMul(-4, 1'000'000'000), -4'000'000'000);
  EXPECT_EQ(SatAdd(kMax - 1, 1), kMax);
  EXPECT_EQ(SatSub(kMin + 1, 1), kMin);
  EXPECT_EQ(SatMulDiv(kMax, 100, 100), kMax);  // the product is not rounded first
  EXPECT_EQ(SatMulDiv(7, 100, 3), 233);        // toward zero
  EXPECT_EQ(SatMulDiv(-7, 100, 3), -233);
}

TEST(SaturatingTest, OverflowClampsToTheNearestEnd) {
  EXPECT_EQ(SatAdd(kMax, 1), kMax);
  EXPECT_EQ(SatAdd(kMax, kMax), kMax);
  EXPECT_EQ(SatAdd(kMin, -1), kMin);
  EXPECT_EQ(SatAdd(kMin, kMin), kMin);
  EXPECT_EQ(SatSub(kMax, -1), kMax);
  EXPECT_EQ(SatSub(kMin, 1), kMin);
  EXPECT_EQ(SatSub(0, kMin), kMax);
  EXPECT_EQ(SatMul(kMax, 2), kMax);
  EXPECT_EQ(SatMul(kMin, -1), kMax);
  EXPECT_EQ(SatMul(kMin, kMin), kMax);
  EXPECT_EQ(SatMul(kMin, 2), kMin);
  EXPECT_EQ(SatMul(kMax, kMin), kMin);
  // replay_time_scale=1: a time 100 times longer.
  EXPECT_EQ(SatMulDiv(kMax, 100, 1), kMax);
  EXPECT_EQ(SatMulDiv(kMax / 50, 100, 1), kMax);
  EXPECT_EQ(SatMulDiv(kMin, 100, 1), kMin);
  EXPECT_EQ(SatMulDiv(kMin, -1, 1), kMax);
}

TEST(SaturatingTest, ADueTimeThatOverflowsIsNeverNotAtOnce) {
  // The pacer's due = start + at: a record at INT64_MAX ns must stay
  // later than any "now", never wrap to a time in the past.
  const int64_t start = 1'000'000'000;
  EXPECT_EQ(SatAdd(start, kMax), kNeverNs);
  EXPECT_GT(SatAdd(start, kMax - start + 1), start);
}

TEST(SaturatingTest, CheckedReportsOverflow) {
  int64_t out = 0;
  EXPECT_TRUE(CheckedAdd(2, 3, &out));
  EXPECT_EQ(out, 5);
  EXPECT_FALSE(CheckedAdd(kMax, 1, &out));
  EXPECT_TRUE(CheckedSub(kMin + 1, 1, &out));
  EXPECT_EQ(out, kMin);
  EXPECT_FALSE(CheckedSub(kMin, 1, &out));
  EXPECT_FALSE(CheckedSub(0, kMin, &out));
  EXPECT_TRUE(CheckedMul(kMax / 1000, 1000, &out));
  EXPECT_EQ(out, kMax / 1000 * 1000);
  EXPECT_FALSE(CheckedMul(kMax / 1000 + 1, 1000, &out));
  EXPECT_FALSE(CheckedMul(kMin, -1, &out));
}

TEST(SaturatingTest, DoublesOutsideInt64Clamp) {
  EXPECT_EQ(SatFromDouble(1.9), 1);
  EXPECT_EQ(SatFromDouble(-1.9), -1);
  EXPECT_EQ(SatFromDouble(1e19), kMax);
  EXPECT_EQ(SatFromDouble(9223372036854775808.0), kMax);  // 2^63
  EXPECT_EQ(SatFromDouble(-1e19), kMin);
  EXPECT_EQ(SatFromDouble(-9223372036854775808.0), kMin);
  EXPECT_EQ(SatFromDouble(HUGE_VAL), kMax);
  EXPECT_EQ(SatFromDouble(-HUGE_VAL), kMin);
  EXPECT_EQ(SatFromDouble(std::nan("")), 0);
  // The largest double below 2^63 converts exactly.
  EXPECT_EQ(SatFromDouble(std::nextafter(9223372036854775808.0, 0.0)), kMax - 1023);
}

TEST(SaturatingTest, UsableInConstantExpressions) {
  static_assert(SatAdd(kMax, 1) == kMax);
  static_assert(SatMulDiv(3, 1000, 1) == 3000);
}

}  // namespace
}  // namespace blk
