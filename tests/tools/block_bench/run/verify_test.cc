// The verify block formats (run/verify.h): every method fills a block that
// it checks good, and catches a flipped data bit, a flipped digest bit, a
// misplaced block, a stale generation and a block written with another
// method.
#include "tools/block_bench/run/verify.h"

#include <gtest/gtest.h>

#include <vector>

namespace blk::bench {
namespace {

const VerifyMethod kMethods[] = {VerifyMethod::kCrc32c, VerifyMethod::kCrc32, VerifyMethod::kMd5,
                                 VerifyMethod::kSha1,   VerifyMethod::kSha256, VerifyMethod::kSha512,
                                 VerifyMethod::kXxhash};

class VerifyTest : public ::testing::TestWithParam<VerifyMethod> {};

TEST_P(VerifyTest, GoodBlockPassesEveryDamageIsCaught) {
  const VerifyMethod m = GetParam();
  const uint64_t off = 1 << 20, gen = 0x1234567;
  for (uint64_t len : {VerifyHeaderSize(m), uint64_t(512), uint64_t(4096), uint64_t(65536 + 3)}) {
    SCOPED_TRACE(len);
    std::vector<uint8_t> b(len);
    FillVerifyBlock(b.data(), len, off, gen, m);
    EXPECT_EQ(CheckVerifyBlock(b.data(), len, off, gen, m), "");
    EXPECT_EQ(CheckVerifyBlock(b.data(), len, off, 0, m), "");  // writer unknown
    EXPECT_NE(CheckVerifyBlock(b.data(), len, off + 4096, gen, m).find("misplaced"),
              std::string::npos);
    EXPECT_NE(CheckVerifyBlock(b.data(), len, off, gen + 1, m).find("stale"), std::string::npos);
    const std::string name(Name(m));
    if (len > VerifyHeaderSize(m)) {
      std::vector<uint8_t> d = b;
      d[len - 1] ^= 0x10;  // the last data byte
      EXPECT_NE(CheckVerifyBlock(d.data(), len, off, gen, m).find(name + " mismatch"),
                std::string::npos)
          << CheckVerifyBlock(d.data(), len, off, gen, m);
    }
    std::vector<uint8_t> h = b;
    h[VerifyHeaderSize(m) - (m == VerifyMethod::kCrc32c ? 8 : 64)] ^= 1;  // the checksum's first byte
    EXPECT_NE(CheckVerifyBlock(h.data(), len, off, gen, m).find("mismatch"), std::string::npos);
  }
  std::vector<uint8_t> small(VerifyHeaderSize(m) - 1);
  EXPECT_NE(CheckVerifyBlock(small.data(), small.size(), 0, 0, m).find("shorter"),
            std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Methods, VerifyTest, ::testing::ValuesIn(kMethods),
                         [](const auto& info) { return std::string(Name(info.param)); });

TEST(Verify, HeaderSizes) {
  EXPECT_EQ(VerifyHeaderSize(VerifyMethod::kCrc32c), 32u);  // the original format
  EXPECT_EQ(VerifyHeaderSize(VerifyMethod::kSha512), 96u);
}

TEST(Verify, BlockOfAnotherMethodIsNamed) {
  std::vector<uint8_t> b(4096);
  FillVerifyBlock(b.data(), b.size(), 0, 7, VerifyMethod::kMd5);
  EXPECT_NE(CheckVerifyBlock(b.data(), b.size(), 0, 7, VerifyMethod::kSha1).find("written with verify method"),
            std::string::npos);
  EXPECT_NE(CheckVerifyBlock(b.data(), b.size(), 0, 7, VerifyMethod::kCrc32c).find("bad magic"),
            std::string::npos);
}

TEST(Verify, DigestsDifferBetweenBlocks) {
  // Two offsets, same generation: different data and digests (the digest
  // is of the block, not a constant).
  std::vector<uint8_t> a(4096), b(4096);
  FillVerifyBlock(a.data(), a.size(), 0, 7, VerifyMethod::kSha256);
  FillVerifyBlock(b.data(), b.size(), 4096, 7, VerifyMethod::kSha256);
  EXPECT_NE(std::vector<uint8_t>(a.begin() + 32, a.begin() + 64),
            std::vector<uint8_t>(b.begin() + 32, b.begin() + 64));
}

}  // namespace
}  // namespace blk::bench
