// FioRand, FioSeeds and RwMix: fio's random numbers and its read/write
// mix rule.  That they equal fio 3.33's output is checked end to end by
// fio_sequence_e2e_test; these tests pin the rules themselves.
#include "tools/block_bench/run/fio_rand.h"

#include <gtest/gtest.h>

#include <vector>

#include "tools/block_bench/run/rwmix.h"

namespace blk::bench {
namespace {

std::vector<uint32_t> Draws(FioRand& r, int n) {
  std::vector<uint32_t> v;
  for (int i = 0; i < n; i++) v.push_back(r.next());
  return v;
}

TEST(FioRand, SameSeedSameSequenceAndReseedStartsOver) {
  FioRand a(1234), b(1234), c(1235);
  const auto va = Draws(a, 64);
  EXPECT_EQ(va, Draws(b, 64));
  EXPECT_NE(va, Draws(c, 64));
  a.seed_with(1234);
  EXPECT_EQ(va, Draws(a, 64));
}

// `n` draws of r.between(1, hi) stay in [1, hi] and hit each end more than
// `min_end` times.
void ExpectBetweenReachesBothEnds(FioRand& r, uint64_t hi, int n, int min_end) {
  int lo_hits = 0, hi_hits = 0;
  for (int i = 0; i < n; i++) {
    const uint64_t x = r.between(1, hi);
    ASSERT_GE(x, 1u);
    ASSERT_LE(x, hi);
    lo_hits += x == 1;
    hi_hits += x == hi;
  }
  EXPECT_GT(lo_hits, min_end);
  EXPECT_GT(hi_hits, min_end);
}

TEST(FioRand, BetweenStaysInRangeAndReachesBothEnds) {
  // Each end is 1 % of the draws: 1000 expected.
  FioRand r(0x89);
  ExpectBetweenReachesBothEnds(r, 100, 100000, 800);
}

TEST(FioRand, Tausworthe64IsFiosAndUsesAll64SeedBits) {
  // fio 3.33's first blocks of --rw=randread --size=1m --norandommap
  // --random_generator=tausworthe64 on null (seed FIO_RANDSEED x 1):
  // 256 x r / 2^64.
  FioRand r(kFioRandSeedConst, true);
  std::vector<uint64_t> blocks;
  for (int i = 0; i < 8; i++) blocks.push_back(uint64_t(256.0 * (double(r.next()) / r.max_plus_one())));
  EXPECT_EQ(blocks, (std::vector<uint64_t>{240, 6, 20, 25, 135, 6, 112, 85}));
  // A 64-bit state takes the seed's high bits, a 32-bit one drops them.
  FioRand a(1, true), b(1 | (uint64_t(1) << 40), true), c(1), d(1 | (uint64_t(1) << 40));
  EXPECT_NE(a.next(), b.next());
  EXPECT_EQ(c.next(), d.next());
  // between() over the 64-bit range reaches both ends of a small one.
  FioRand e(0x89, true);
  ExpectBetweenReachesBothEnds(e, 4, 10000, 2000);
  EXPECT_EQ(e.max(), UINT64_MAX);
  EXPECT_EQ(c.max(), 0xffffffffu);
}

TEST(FioSeeds, ThreadNumberScalesEverySlot) {
  const auto t1 = FioSeeds(0x89, 1);
  const auto t3 = FioSeeds(0x89, 3);
  for (int i = 0; i < kFioRandNrOffs; i++) {
    const uint64_t s = t1[size_t(i)] - uint64_t(i);
    EXPECT_EQ(t3[size_t(i)], s * 3 + uint64_t(i)) << i;
    if (i > 0) EXPECT_EQ(s, (t1[size_t(i - 1)] - uint64_t(i - 1)) * 0x9e370001ull) << i;
  }
  EXPECT_NE(FioSeeds(0x8a, 1), t1);
  const auto all = FioAllRepeatSeeds(2);
  EXPECT_EQ(all[kFioRandMixOff], kFioRandSeedConst * 2 + kFioRandMixOff);
}

TEST(RwMixSeed, WhichSeedAppliesAsFio) {
  const uint64_t seed = 42;
  const uint64_t from_default = FioSeeds(kFioDefaultRandSeed, 2)[kFioRandMixOff];
  EXPECT_EQ(RwMixSeed(true, false, nullptr, 2, 777), from_default);
  // randseed= applies with or without randrepeat.
  EXPECT_EQ(RwMixSeed(false, false, &seed, 2, 777), FioSeeds(42, 2)[kFioRandMixOff]);
  EXPECT_EQ(RwMixSeed(true, false, &seed, 2, 777), FioSeeds(42, 2)[kFioRandMixOff]);
  // allrandrepeat wins over randseed.
  EXPECT_EQ(RwMixSeed(true, true, &seed, 2, 777), FioAllRepeatSeeds(2)[kFioRandMixOff]);
  // Neither: the clone's own random seed.  (Seeds are fio's 64-bit
  // values; a 32-bit generator takes their low half.)
  EXPECT_EQ(RwMixSeed(false, false, nullptr, 2, 777), 777u);
}

std::vector<Dir> Mix(RwMix& m, int n) {
  std::vector<Dir> v;
  for (int i = 0; i < n; i++) {
    const Dir d = m.next();
    m.issued(d);
    v.push_back(d);
  }
  return v;
}

TEST(RwMix, AllReadsOrAllWrites) {
  RwMix reads(100, 5, true), writes(0, 5, true);
  for (Dir d : Mix(reads, 1000)) ASSERT_EQ(d, Dir::kRead);
  for (Dir d : Mix(writes, 1000)) ASSERT_EQ(d, Dir::kWrite);
}

// After a switch from A to B, the mix stays on B until B's total reaches
// issues(A) * pct(B) / 100, counted when it switched; and it switches only
// at that point or later.
TEST(RwMix, StaysUntilTheDirectionHasItsShare) {
  for (uint32_t pct : {10u, 30u, 50u, 70u, 95u}) {
    RwMix m(pct, 99, true);
    const auto v = Mix(m, 20000);
    uint64_t n[2] = {0, 0};
    uint64_t until = 0;  // the switched-to direction's total to reach
    int switches = 0;
    for (size_t i = 0; i < v.size(); i++) {
      const int d = v[i] == Dir::kRead ? 0 : 1;
      if (i > 0 && v[i] != v[i - 1]) {
        switches++;
        const int a = 1 - d;
        ASSERT_GE(n[a], until) << "left direction " << a << " early at I/O " << i << ", pct " << pct;
        until = n[a] * (d == 0 ? pct : 100 - pct) / 100;
      }
      n[d]++;
    }
    EXPECT_GT(switches, 10) << pct;
    // The rule keeps the totals at the share: within 1 % of 20000.
    EXPECT_NEAR(double(n[0]), 20000.0 * pct / 100, 200.0) << pct;
  }
}

TEST(RwMix, NewLoopRepeatsWithRandrepeatOnly) {
  RwMix a(50, 7, true), fresh(50, 7, true), b(50, 7, false);
  const auto first = Mix(fresh, 500);
  Mix(a, 500);
  a.ramp_end();  // counts forgotten, as a fresh mix
  a.new_loop();
  EXPECT_EQ(Mix(a, 500), first);
  Mix(b, 500);
  b.ramp_end();
  b.new_loop();
  EXPECT_NE(Mix(b, 500), first);
}

TEST(RwMix, AnOverrideIsCountedAndKept) {
  RwMix m(100, 1, true);
  EXPECT_EQ(m.next(), Dir::kRead);
  m.issued(Dir::kWrite);  // the caller issued a write instead (rate pacing)
  // The mix stays on writes until writes have issued rwmix_issues (0): a
  // new draw is due, and at 100 % reads it picks reads.
  EXPECT_EQ(m.next(), Dir::kRead);
}

}  // namespace
}  // namespace blk::bench
