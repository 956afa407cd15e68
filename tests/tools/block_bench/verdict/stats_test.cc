// The statistics behind the verdicts.
#include "tools/block_bench/verdict/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace blk::bench::verdict {
namespace {

TEST(StatsTest, Median) {
  EXPECT_DOUBLE_EQ(Median(std::vector<double>{3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(Median(std::vector<double>{7}), 7);
  EXPECT_DOUBLE_EQ(Median(std::vector<double>{1.7e308, 1.7e308}), 1.7e308);  // no overflow
}

// IQR / median, quartiles linear between neighbours.
TEST(StatsTest, Spread) {
  EXPECT_DOUBLE_EQ(Spread(std::vector<double>{5, 1, 4, 2, 3}), (4.0 - 2.0) / 3.0);
  EXPECT_DOUBLE_EQ(Spread(std::vector<double>{10, 10, 10, 10}), 0);
  // One wild run of nine barely moves it: the middle half decides.
  EXPECT_NEAR(Spread(std::vector<double>{100, 101, 99, 100, 102, 98, 100, 101, 5000}), 0.01, 1e-9);
  EXPECT_TRUE(std::isnan(Spread(std::vector<double>{1})));
  EXPECT_TRUE(std::isnan(Spread(std::vector<double>{-1, 0, 1})));  // median 0
}

TEST(StatsTest, IdenticalSidesGiveAZeroInterval) {
  const std::vector<double> a = {5, 5, 5, 5};
  const Interval ci = BootstrapChange(a, a, 0.95, 1000, 1);
  EXPECT_DOUBLE_EQ(ci.lo, 0);
  EXPECT_DOUBLE_EQ(ci.hi, 0);
}

// Samples of 10 runs with 3 % noise: the interval of a 20 % shift lies
// around 0.2 and excludes 0; the interval of no shift contains 0.
TEST(StatsTest, IntervalFollowsTheShift) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(1.0, 0.03);
  std::vector<double> a, b, c;
  for (int i = 0; i < 10; i++) {
    a.push_back(100 * noise(rng));
    b.push_back(120 * noise(rng));
    c.push_back(100 * noise(rng));
  }
  const Interval up = BootstrapChange(a, b, 0.95, 4000, 1);
  EXPECT_GT(up.lo, 0.1);
  EXPECT_LT(up.hi, 0.3);
  const double point = Median(b) / Median(a) - 1;
  EXPECT_LT(up.lo, point);
  EXPECT_GT(up.hi, point);
  const Interval none = BootstrapChange(a, c, 0.95, 4000, 1);
  EXPECT_LT(none.lo, 0);
  EXPECT_GT(none.hi, 0);
  // A wider confidence gives a wider interval; the same seed the same one.
  const Interval wide = BootstrapChange(a, b, 0.99, 4000, 1);
  EXPECT_LE(wide.lo, up.lo);
  EXPECT_GE(wide.hi, up.hi);
  const Interval again = BootstrapChange(a, b, 0.95, 4000, 1);
  EXPECT_EQ(again.lo, up.lo);
  EXPECT_EQ(again.hi, up.hi);
}

TEST(StatsTest, MannWhitney) {
  // Fully separated samples of 3: U = 0, normal approximation with
  // continuity correction z = (4.5 - 0.5) / sqrt(5.25), p = 0.0809.
  const std::vector<double> a = {1, 2, 3}, b = {4, 5, 6};
  EXPECT_NEAR(MannWhitneyP(a, b), 0.0809, 0.001);
  EXPECT_NEAR(MannWhitneyP(b, a), 0.0809, 0.001);
  // Interleaved samples: no evidence of a shift.
  EXPECT_GT(MannWhitneyP(std::vector<double>{1, 3, 5, 7}, std::vector<double>{2, 4, 6, 8}), 0.5);
  // All tied, or too few values: 1.
  EXPECT_EQ(MannWhitneyP(std::vector<double>{2, 2}, std::vector<double>{2, 2}), 1);
  EXPECT_EQ(MannWhitneyP(std::vector<double>{1}, std::vector<double>{2, 3}), 1);
  // Ten against ten, separated: far below 0.01.
  std::vector<double> x, y;
  for (int i = 0; i < 10; i++) x.push_back(i), y.push_back(100 + i);
  EXPECT_LT(MannWhitneyP(x, y), 0.001);
}

}  // namespace
}  // namespace blk::bench::verdict
