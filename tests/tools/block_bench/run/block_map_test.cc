#include "tools/block_bench/run/block_map.h"

#include <gtest/gtest.h>

namespace blk::bench {
namespace {

TEST(BlockMap, NextFreeSkipsVisitedAndWraps) {
  BlockMap m(130);  // three words, the last partial
  EXPECT_EQ(m.next_free(5), 5u);
  EXPECT_EQ(m.claim(5, 1), 1u);
  EXPECT_EQ(m.next_free(5), 6u);
  // Visited to the end: wraps to the first unvisited from the start.
  EXPECT_EQ(m.claim(100, 100), 30u);  // stops at the map's end
  EXPECT_EQ(m.next_free(120), 0u);
  EXPECT_EQ(m.claim(0, 5), 5u);       // stops before 5 (visited)
  EXPECT_EQ(m.next_free(120), 6u);
  EXPECT_EQ(m.visited(), 36u);
}

TEST(BlockMap, ClaimStopsAtTheFirstVisitedBlock) {
  BlockMap m(256);
  EXPECT_EQ(m.claim(10, 1), 1u);
  EXPECT_EQ(m.claim(0, 16), 10u);  // 0..9, then 10 was visited
  EXPECT_EQ(m.claim(10, 4), 0u);
  EXPECT_EQ(m.claim(63, 3), 3u);   // across a word boundary
  EXPECT_TRUE(m.is_visited(64));
  EXPECT_FALSE(m.is_visited(66));
  EXPECT_EQ(m.visited(), 14u);
}

TEST(BlockMap, FullAndReset) {
  BlockMap m(70);
  EXPECT_EQ(m.claim(0, 70), 70u);
  EXPECT_TRUE(m.full());
  EXPECT_EQ(m.next_free(33), BlockMap::kNone);
  m.reset();
  EXPECT_FALSE(m.full());
  EXPECT_EQ(m.visited(), 0u);
  EXPECT_EQ(m.next_free(33), 33u);
}

// Random claims of random lengths cover every block exactly once before
// the map is full (what the generator relies on).
TEST(BlockMap, RandomClaimsCoverEachBlockOnce) {
  BlockMap m(1000);
  std::vector<int> seen(1000);
  uint64_t x = 12345;
  while (!m.full()) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t b = m.next_free((x >> 33) % 1000);
    ASSERT_NE(b, BlockMap::kNone);
    const uint64_t n = m.claim(b, 1 + (x >> 20) % 16);
    ASSERT_GE(n, 1u);
    for (uint64_t i = b; i < b + n; i++) seen[i]++;
  }
  for (int s : seen) EXPECT_EQ(s, 1);
}

}  // namespace
}  // namespace blk::bench
