// FioSkew and FioJhash (run/fio_skew.h): fio 3.33's zipf, pareto and
// normal generators and the hash of a file name that seeds them.
//
// The sequences below are fio 3.33's: the first blocks (offset / 4096) of
// `fio --name=j --ioengine=null --rw=randread --size=1m
// --random_distribution=... --write_iolog=...` on this project's CI machine,
// whose file is "j.0.0" (thread 1: the seed is jhash("j.0.0") x 1).
// fio_sequence_e2e_test compares whole runs against a live fio.
#include "tools/block_bench/run/fio_skew.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace blk::bench {
namespace {

std::vector<uint64_t> Draw(FioSkew& s, int n) {
  std::vector<uint64_t> out;
  for (int i = 0; i < n; i++) out.push_back(s.next());
  return out;
}

using V = std::vector<uint64_t>;

TEST(FioJhash, FiosValuesAndItsOneByteBlocks) {
  // Found from fio's sequences: the names' hashes as fio computes them.
  EXPECT_EQ(FioJhash("j.0.0"), 0xd646691eu);
  EXPECT_EQ(FioJhash("averyveryverylongname.dat"), 0x3f593109u);
  // fio adds one byte of each whole 12-byte block but the last: bytes 1-3
  // of the first block do not count, byte 0 does.
  const std::string a = "abcdefghijklmnopq";
  std::string b = a;
  b[1] = 'X';
  EXPECT_EQ(FioJhash(a), FioJhash(b));
  b = a;
  b[0] = 'X';
  EXPECT_NE(FioJhash(a), FioJhash(b));
  // The last block counts whole.
  b = a;
  b[14] = 'X';
  EXPECT_NE(FioJhash(a), FioJhash(b));
}

TEST(FioSkewSeed, JhashTimesThreadUnlessRandseedOrNoRepeat) {
  EXPECT_EQ(FioSkewSeed(true, false, "j.0.0", 1, 77), 0xd646691eu);
  EXPECT_EQ(FioSkewSeed(true, false, "j.0.0", 3, 77), 0xd646691eu * 3u);
  EXPECT_EQ(FioSkewSeed(true, true, "j.0.0", 1, 77), 77u);
  EXPECT_EQ(FioSkewSeed(false, false, "j.0.0", 1, 77), 77u);
}

TEST(FioSkew, FiosSequences) {
  const uint32_t seed = FioJhash("j.0.0");
  FioSkew zipf(Distribution::kZipf, 256, 1.2, std::nullopt, seed);
  EXPECT_EQ(Draw(zipf, 8), (V{127, 161, 203, 244, 161, 186, 203, 203}));
  FioSkew pareto(Distribution::kPareto, 256, 0.3, std::nullopt, seed);
  EXPECT_EQ(Draw(pareto, 8), (V{155, 228, 182, 213, 35, 206, 203, 203}));
  FioSkew normal(Distribution::kNormal, 256, 30, 0.2, seed);
  EXPECT_EQ(Draw(normal, 8), (V{107, 157, 132, 39, 10, 236, 177, 91}));
  // size=4m: 1024 ranges, centred at 0.3.
  FioSkew centred(Distribution::kZipf, 1024, 0.8, 0.3, seed);
  EXPECT_EQ(Draw(centred, 8), (V{57, 533, 160, 205, 701, 156, 286, 286}));
  // Another file name, another sequence.
  FioSkew other(Distribution::kZipf, 256, 1.2, std::nullopt, FioJhash("averyveryverylongname.dat"));
  EXPECT_EQ(Draw(other, 6), (V{19, 196, 80, 217, 196, 196}));
}

TEST(FioSkew, InRangeAndSkewed) {
  for (Distribution k : {Distribution::kZipf, Distribution::kPareto, Distribution::kNormal}) {
    const double param = k == Distribution::kZipf ? 1.1 : k == Distribution::kPareto ? 0.2 : 10;
    for (uint64_t n : {1ull, 2ull, 7ull, 1000ull}) {
      FioSkew s(k, n, param, std::nullopt, 12345);
      std::map<uint64_t, int> seen;
      for (int i = 0; i < 5000; i++) {
        const uint64_t v = s.next();
        ASSERT_LT(v, n) << int(k);
        seen[v]++;
      }
      if (n < 1000) continue;
      // The most frequent range takes far more than a uniform share (5).
      int top = 0;
      for (const auto& [v, c] : seen) top = std::max(top, c);
      EXPECT_GT(top, 50) << int(k);
    }
  }
}

}  // namespace
}  // namespace blk::bench
