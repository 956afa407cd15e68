// FioLfsr is fio 3.33's LFSR: its values for fio's seeds (taken from fio's
// write_iolog of random_generator=lfsr jobs on the null engine, offsets /
// 4k), every value once per reset, the end, and where init fails.
#include "tools/block_bench/run/fio_lfsr.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "tools/block_bench/run/fio_rand.h"

namespace blk::bench {
namespace {

std::vector<uint64_t> Drain(FioLfsr* l) {
  std::vector<uint64_t> v;
  while (std::optional<uint64_t> x = l->next()) v.push_back(*x);
  return v;
}

// fio --name=j --ioengine=null --rw=randread --bs=4k --size=256k
// --random_generator=lfsr: 64 blocks, thread 1's FIO_RAND_BLOCK_OFF seed.
TEST(FioLfsr, SixtyFourBlocksAsFio) {
  FioLfsr l;
  ASSERT_TRUE(l.init(64, kFioRandSeedConst));
  const std::vector<uint64_t> fio = {
      27, 19, 18, 41, 10, 37, 9,  2,  33, 8,  36, 50, 57, 14, 39, 26, 45, 11, 17, 4,  34, 49,
      12, 38, 51, 22, 43, 21, 5,  1,  0,  32, 48, 56, 60, 62, 63, 31, 30, 47, 29, 7,  24, 44,
      54, 59, 23, 25, 6,  35, 20, 42, 53, 13, 3,  16, 40, 52, 58, 61, 15, 28, 46, 55};
  EXPECT_EQ(Drain(&l), fio);
}

// --size=100k --time_based: 25 blocks; the second pass (fio_file_reset's
// lfsr_reset) starts from the seed with single steps, so it is the first
// pass turned by one.
TEST(FioLfsr, ResetStepsOnceAsFio) {
  FioLfsr l;
  ASSERT_TRUE(l.init(25, kFioRandSeedConst));
  const std::vector<uint64_t> first = {15, 23, 11, 21, 9,  20, 14, 3,  17, 24, 8,  0, 4,
                                       6,  7,  19, 10, 1,  16, 12, 2,  5,  18, 13, 22};
  const std::vector<uint64_t> second = {22, 15, 23, 11, 21, 9,  20, 14, 3,  17, 24, 8, 0,
                                        4,  6,  7,  19, 10, 1,  16, 12, 2,  5,  18, 13};
  EXPECT_EQ(Drain(&l), first);
  ASSERT_TRUE(l.reset(kFioRandSeedConst));
  EXPECT_EQ(Drain(&l), second);
}

// Every value in [0, nums) once, then the end, for sizes across the taps
// table (widths 3 to 21) and several seeds.
TEST(FioLfsr, EveryValueOncePerReset) {
  for (uint64_t nums : {1ull, 2ull, 7ull, 8ull, 100ull, 4096ull, 5000ull, 1ull << 20}) {
    for (uint64_t seed : {0ull, 1ull, 0x89ull, 0xdeadbee0ull}) {
      FioLfsr l;
      ASSERT_TRUE(l.init(nums, seed)) << nums << " " << seed;
      std::vector<bool> hit(nums);
      uint64_t n = 0;
      while (std::optional<uint64_t> x = l.next()) {
        ASSERT_LT(*x, nums);
        ASSERT_FALSE(hit[*x]) << nums << " " << seed << " " << *x;
        hit[*x] = true;
        n++;
      }
      EXPECT_EQ(n, nums);
      EXPECT_FALSE(l.next().has_value());
    }
  }
}

// fio's lfsr_init fails on XNOR's locked state (the seed's low bits all
// ones) and where no width fits.
TEST(FioLfsr, InitFailsAsFio) {
  FioLfsr l;
  EXPECT_FALSE(l.init(64, 0x7f));   // 7 bits for 64 values: all ones
  EXPECT_FALSE(l.init(64, 0x17f));  // only the low 7 bits count
  EXPECT_TRUE(l.init(64, 0x7e));
  EXPECT_FALSE(l.init(0, 1));
  EXPECT_FALSE(l.init(uint64_t(1) << 63, 1));
  EXPECT_TRUE(l.init((uint64_t(1) << 63) - 1, 1));
  // A failed init or reset gives no values (the locked state would step to
  // itself forever).
  EXPECT_FALSE(l.init(64, 0x7f));
  EXPECT_FALSE(l.ready());
  EXPECT_FALSE(l.next().has_value());
  ASSERT_TRUE(l.init(64, 1));
  EXPECT_FALSE(l.reset(0x7f));
  EXPECT_FALSE(l.next().has_value());
}

}  // namespace
}  // namespace blk::bench
