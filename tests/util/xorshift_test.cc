#include <blkstack/util/xorshift.h>

#include <gtest/gtest.h>

#include <set>

namespace blk {
namespace {

// Marsaglia's xorshift64 (13, 7, 17) from state 1; values computed outside
// this code (Python, 64-bit masks).
TEST(XorShift64, KnownSequence) {
  XorShift64 r(1);
  EXPECT_EQ(r.next(), 1082269761ull);
  EXPECT_EQ(r.next(), 1152992998833853505ull);
  EXPECT_EQ(r.next(), 11177516664432764457ull);
}

TEST(XorShift64, WorkerSeedsAreNonZeroDistinctAndRepeatable) {
  std::set<uint64_t> firsts;
  for (uint64_t w = 0; w < 64; w++) {
    XorShift64 a = XorShift64::ForWorker(w), b = XorShift64::ForWorker(w);
    const uint64_t v = a.next();
    EXPECT_NE(v, 0u) << w;
    EXPECT_EQ(v, b.next()) << w;
    firsts.insert(v);
  }
  EXPECT_EQ(firsts.size(), 64u);
  // No short cycle: 100k draws, all distinct.
  XorShift64 r = XorShift64::ForWorker(3);
  std::set<uint64_t> seen;
  for (int i = 0; i < 100000; i++) seen.insert(r.next());
  EXPECT_EQ(seen.size(), 100000u);
}

}  // namespace
}  // namespace blk
