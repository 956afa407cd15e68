// FioBlockSizes and FioBsSeeds: fio's get_next_buflen rules.  That the
// lengths equal fio 3.33's, I/O by I/O, is checked end to end by
// fio_sequence_e2e_test; these tests pin the rules themselves.
#include "tools/block_bench/run/block_size.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "bench_test_util.h"

namespace blk::bench {
namespace {

using testing::ParseJob;

constexpr uint64_t kEnd = 1ull << 30;

TEST(FioBlockSizes, FixedSizeIsReturnedWhateverTheRoom) {
  JobOptions j = ParseJob({"--name=a", "--bs=16k"});
  FioBlockSizes s(j, {1, 2, 3});
  EXPECT_TRUE(s.fixed(Dir::kRead));
  EXPECT_EQ(s.next(Dir::kRead, 0, kEnd), 16384u);
  // fio checks a fixed size against the target, not the region (fill_io_u).
  EXPECT_EQ(s.next(Dir::kRead, kEnd - 4096, kEnd), 16384u);
}

TEST(FioBlockSizes, RangeIsMultiplesOfTheMinimumThatFit) {
  JobOptions j = ParseJob({"--name=a", "--bsrange=4k-64k"});
  FioBlockSizes s(j, {7, 7, 7});
  std::map<uint64_t, int> seen;
  for (int i = 0; i < 20000; i++) {
    const uint64_t len = s.next(Dir::kRead, 0, kEnd);
    ASSERT_GE(len, 4096u);
    ASSERT_LE(len, 65536u);
    ASSERT_EQ(len % 4096, 0u);
    seen[len]++;
  }
  // min + max * r / 2^32 rounded down to 4k: each of the 16 lengths takes
  // 1/16 of the draws (1250 of 20000).
  EXPECT_EQ(seen.size(), 16u);
  for (const auto& [len, n] : seen) EXPECT_NEAR(n, 1250, 250) << len;
  // Near the region's end the length is drawn again until it fits.
  for (int i = 0; i < 1000; i++) ASSERT_LE(s.next(Dir::kRead, kEnd - 12288, kEnd), 12288u);
  // Not even the minimum fits: 0 (fio fails the I/O).
  EXPECT_EQ(s.next(Dir::kRead, kEnd - 2048, kEnd), 0u);
}

TEST(FioBlockSizes, UnalignedRangeDrawsAnyLength) {
  JobOptions j = ParseJob({"--name=a", "--bsrange=1k-16k", "--bs_unaligned"});
  FioBlockSizes s(j, {7, 7, 7});
  int odd = 0;
  for (int i = 0; i < 1000; i++) odd += s.next(Dir::kWrite, 0, kEnd) % 1024 != 0;
  EXPECT_GT(odd, 900);
}

TEST(FioBlockSizes, SplitTakesEntriesInRisingPercentage) {
  // Written 64k/80 first: fio's order puts 4k/20 first, so a draw below
  // 20 % of the range is 4k.
  JobOptions j = ParseJob({"--name=a", "--bssplit=64k/80:4k/20"});
  FioBlockSizes s(j, {99, 99, 99});
  FioRand r(99);
  int small = 0;
  for (int i = 0; i < 5000; i++) {
    const uint32_t x = r.next();
    const uint64_t want = uint64_t(x) / 20 <= 0xffffffffull / 100 ? 4096 : 65536;
    ASSERT_EQ(s.next(Dir::kRead, 0, kEnd), want) << i;
    small += want == 4096;
  }
  EXPECT_NEAR(small, 1000, 150);
}

TEST(FioBlockSizes, SplitSkipsEntriesThatDoNotFitAndNeverSpins) {
  JobOptions j = ParseJob({"--name=a", "--bssplit=4k/50:64k/50"});
  FioBlockSizes s(j, {5, 5, 5});
  for (int i = 0; i < 1000; i++) ASSERT_EQ(s.next(Dir::kRead, kEnd - 8192, kEnd), 4096u);
  // Only an entry without a share fits: fio would draw forever; here the
  // pass ends.
  JobOptions k = ParseJob({"--name=a", "--bssplit=64k/100:4k"});
  FioBlockSizes t(k, {5, 5, 5});
  EXPECT_EQ(t.min(Dir::kRead), 4096u);
  EXPECT_EQ(t.next(Dir::kRead, 0, kEnd), 65536u);
  EXPECT_EQ(t.next(Dir::kRead, kEnd - 8192, kEnd), 0u);
}

TEST(FioBlockSizes, EachDirectionHasItsOwnGeneratorAndReseedStartsOver) {
  JobOptions j = ParseJob({"--name=a", "--bsrange=4k-64k"});
  FioBlockSizes s(j, {11, 11, 12});
  std::vector<uint64_t> r, w, t;
  for (int i = 0; i < 64; i++) r.push_back(s.next(Dir::kRead, 0, kEnd));
  for (int i = 0; i < 64; i++) w.push_back(s.next(Dir::kWrite, 0, kEnd));
  for (int i = 0; i < 64; i++) t.push_back(s.next(Dir::kTrim, 0, kEnd));
  EXPECT_EQ(r, w);  // same seed, own state: the same lengths
  EXPECT_NE(r, t);
  s.reseed();
  for (int i = 0; i < 64; i++) ASSERT_EQ(s.next(Dir::kRead, 0, kEnd), r[size_t(i)]);
}

TEST(FioBsSeeds, SlotsAsFio) {
  JobOptions j = ParseJob({"--name=a", "--rw=randrw"});
  const auto seeds = FioSeeds(kFioDefaultRandSeed, 3);
  auto s = FioBsSeeds(j, 3, 0);
  for (int i = 0; i < 3; i++) EXPECT_EQ(s[size_t(i)], seeds[size_t(i)]) << i;
  // A verifying writer draws its writes with the reads' seed.
  JobOptions v = ParseJob({"--name=a", "--rw=randwrite", "--verify=crc32c"});
  s = FioBsSeeds(v, 3, 0);
  EXPECT_EQ(s[1], s[0]);
  // trimwrite: the trims' seed is the writes'.
  JobOptions tw = ParseJob({"--name=a", "--rw=trimwrite"});
  s = FioBsSeeds(tw, 3, 0);
  EXPECT_EQ(s[2], s[1]);
  EXPECT_NE(s[1], s[0]);
  // randrepeat=0 without randseed: the clone's own seed.
  JobOptions nr = ParseJob({"--name=a", "--randrepeat=0"});
  EXPECT_NE(FioBsSeeds(nr, 1, 100), FioBsSeeds(nr, 1, 200));
}

TEST(FioMinBs, BsSplitCountsEveryEntry) {
  JobOptions j = ParseJob({"--name=a", "--bssplit=8k/100:4k:64k"});
  EXPECT_EQ(FioMinBs(j, 0), 4096u);
  EXPECT_EQ(FioMaxBs(j, 0), 65536u);
  EXPECT_FALSE(BlockalignTurnsOffRandomMap(j));
  JobOptions b = ParseJob({"--name=a", "--rw=randread", "--bs=4k", "--blockalign=512"});
  EXPECT_TRUE(BlockalignTurnsOffRandomMap(b));
  EXPECT_EQ(FioWarnings(b).size(), 1u);
  JobOptions same = ParseJob({"--name=a", "--rw=randread", "--bs=4k", "--blockalign=4k"});
  EXPECT_FALSE(BlockalignTurnsOffRandomMap(same));
  JobOptions seq = ParseJob({"--name=a", "--rw=read", "--bs=4k", "--blockalign=512"});
  EXPECT_FALSE(BlockalignTurnsOffRandomMap(seq));
}

// fio's "norandommap given for variable block sizes, verify limited": any
// direction's range, or directions of different sizes (trim's too).
TEST(FioWarnings, NorandommapWithVerifyAndVariableBlockSizes) {
  const auto warns = [](std::vector<std::string> extra) {
    std::vector<std::string> a = {"--name=a", "--norandommap", "--verify=crc32c"};
    a.insert(a.end(), extra.begin(), extra.end());
    return FioWarnings(ParseJob(a)).size();
  };
  EXPECT_EQ(warns({"--rw=randwrite", "--bs=4k"}), 0u);
  EXPECT_EQ(warns({"--rw=write", "--bs=4k,8k"}), 1u);
  EXPECT_EQ(warns({"--rw=randwrite", "--bsrange=4k-8k"}), 1u);
  EXPECT_EQ(warns({"--rw=randwrite", "--bssplit=4k/50:8k/50"}), 1u);
  EXPECT_EQ(warns({"--rw=randwrite", "--bs=4k,4k,8k"}), 1u);
  EXPECT_EQ(FioWarnings(ParseJob({"--name=a", "--bsrange=4k-8k", "--verify=crc32c"})).size(), 0u);
  EXPECT_EQ(FioWarnings(ParseJob({"--name=a", "--bsrange=4k-8k", "--norandommap"})).size(), 0u);
}

}  // namespace
}  // namespace blk::bench
