// The verify block formats (run/verify.h): every method fills a block that
// it checks good, and catches a flipped data bit, a flipped digest bit, a
// misplaced block, a stale generation and a block written with another
// method; verify_pattern, verify_interval and verify_offset layouts.
#include "tools/block_bench/run/verify.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
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

// verify=meta, as fio 3.33 reads it (header only): the header's fields are
// checked — offset, length, generation, writer, and the header's own CRC —
// and the data is not checksummed.
TEST(VerifyMeta, TheHeaderIsCheckedTheDataIsNot) {
  const VerifyMethod m = VerifyMethod::kMeta;
  EXPECT_EQ(Name(m), "meta");
  EXPECT_EQ(VerifyHeaderSize(m), 32u);
  VerifyLayout l;
  l.method = m;
  l.thread = (2 << 16) | 3;
  const uint64_t off = 1 << 20, gen = 0x1234567;
  std::vector<uint8_t> b(4096);
  FillVerifyBlock(b.data(), b.size(), off, gen, l);
  uint32_t magic;
  std::memcpy(&magic, b.data(), 4);
  EXPECT_EQ(magic, kVerifyMagicMeta);
  EXPECT_EQ(CheckVerifyBlock(b.data(), b.size(), off, gen, l), "");
  EXPECT_EQ(CheckVerifyBlock(b.data(), b.size(), off, 0, l), "");  // writer unknown
  // Read at another offset, or the header's offset field corrupted.
  EXPECT_NE(CheckVerifyBlock(b.data(), b.size(), off + 4096, gen, l).find("misplaced"),
            std::string::npos);
  std::vector<uint8_t> o = b;
  o[8] ^= 0x01;  // the offset field's low byte
  EXPECT_NE(CheckVerifyBlock(o.data(), o.size(), off, gen, l).find("header says offset"),
            std::string::npos);
  EXPECT_NE(CheckVerifyBlock(b.data(), b.size(), off, gen + 1, l).find("stale"), std::string::npos);
  VerifyLayout other = l;
  other.thread = 7;
  EXPECT_NE(CheckVerifyBlock(b.data(), b.size(), off, gen, other).find("writer"), std::string::npos);
  EXPECT_EQ(CheckVerifyBlock(b.data(), b.size(), off, 0, other), "");  // writer unknown: not checked
  std::vector<uint8_t> h = b;
  h[28] ^= 0x01;  // the header CRC itself
  EXPECT_NE(CheckVerifyBlock(h.data(), h.size(), off, gen, l).find("meta header crc32c mismatch"),
            std::string::npos);
  h = b;
  h[24] ^= 0x01;  // the writer field: the header CRC catches it even with the writer unknown
  EXPECT_NE(CheckVerifyBlock(h.data(), h.size(), off, 0, l).find("crc32c mismatch"),
            std::string::npos);
  std::vector<uint8_t> d = b;
  d[4000] ^= 0x10;  // data: not checksummed, as fio's header-only verify
  EXPECT_EQ(CheckVerifyBlock(d.data(), d.size(), off, gen, l), "");
  // Another method's block is not taken for a meta one, and the other way.
  std::vector<uint8_t> c(4096);
  FillVerifyBlock(c.data(), c.size(), off, gen, VerifyMethod::kCrc32c);
  EXPECT_NE(CheckVerifyBlock(c.data(), c.size(), off, gen, l).find("bad magic"), std::string::npos);
  EXPECT_NE(CheckVerifyBlock(b.data(), b.size(), off, gen, VerifyMethod::kCrc32c).find("bad magic"),
            std::string::npos);
}

// fio's surface-scan.fio: verify=meta with verify_pattern and
// verify_interval=512: a header per 512 bytes and the pattern checked.
TEST(VerifyMeta, WithAPatternThePatternIsChecked) {
  VerifyLayout l;
  l.method = VerifyMethod::kMeta;
  l.pattern = "\xaa\x55\x5a\xa5";
  l.interval = 512;
  std::vector<uint8_t> b(65536);
  FillVerifyBlock(b.data(), b.size(), 0, 9, l);
  EXPECT_EQ(CheckVerifyBlock(b.data(), b.size(), 0, 9, l), "");
  b[3 * 512 + 100] ^= 0x01;
  const std::string bad = CheckVerifyBlock(b.data(), b.size(), 0, 9, l);
  EXPECT_NE(bad.find("interval at offset 1536"), std::string::npos) << bad;
  EXPECT_NE(bad.find("pattern mismatch at offset 1636"), std::string::npos) << bad;
}

VerifyLayout Layout(VerifyMethod m, std::string pattern = "", std::vector<uint32_t> offsets = {},
                    uint64_t interval = 0, uint64_t header_offset = 0) {
  VerifyLayout l;
  l.method = m;
  l.pattern = std::move(pattern);
  l.pattern_offsets = std::move(offsets);
  l.interval = interval;
  l.header_offset = header_offset;
  return l;
}

TEST(VerifyPattern, NoHeaderIsThePatternWithTheOffsetPasted) {
  // fio's verify=pattern, verify_pattern=0xff%o"ab": the offset pasted into
  // the first copy only, which is then repeated.
  const std::string pat = std::string("\xff", 1) + std::string(8, '\0') + "ab";
  const VerifyLayout l = Layout(VerifyMethod::kPattern, pat, {1});
  std::vector<uint8_t> b(4096);
  const uint64_t off = 0x12345678;
  FillVerifyBlock(b.data(), b.size(), off, 9, l);
  for (size_t i = 0; i < b.size(); i++) {
    const size_t k = i % pat.size();
    const uint8_t want = k >= 1 && k < 9 ? uint8_t(off >> (8 * (k - 1))) : uint8_t(pat[k]);
    ASSERT_EQ(b[i], want) << i;
  }
  EXPECT_EQ(CheckVerifyBlock(b.data(), b.size(), off, 9, l), "");
  // Another offset: the pasted bytes differ.
  EXPECT_NE(CheckVerifyBlock(b.data(), b.size(), off + 4096, 0, l).find("pattern mismatch at offset"),
            std::string::npos);
  b[1000] ^= 1;
  EXPECT_EQ(CheckVerifyBlock(b.data(), b.size(), off, 0, l),
            "pattern mismatch at offset " + std::to_string(off + 1000) +
                " (byte 1000 of the block): read 0x" +
                [&] { char h[3]; std::snprintf(h, 3, "%02x", b[1000]); return std::string(h); }() +
                ", expected 0x" +
                [&] { char h[3]; std::snprintf(h, 3, "%02x", b[1000] ^ 1); return std::string(h); }() +
                " (pattern of 11 bytes)");
}

TEST(VerifyPattern, WithAHeaderTheDataIsThePatternAndBothAreChecked) {
  for (VerifyMethod m : kMethods) {
    SCOPED_TRACE(std::string(Name(m)));
    const VerifyLayout l = Layout(m, "\xde\xad\xbe\xef");
    std::vector<uint8_t> b(8192);
    FillVerifyBlock(b.data(), b.size(), 8192, 5, l);
    const uint64_t h = VerifyHeaderSize(m);
    // The pattern's phase runs from the block's first byte.
    for (size_t i = h; i < b.size(); i++) ASSERT_EQ(b[i], uint8_t("\xde\xad\xbe\xef"[i % 4])) << i;
    EXPECT_EQ(CheckVerifyBlock(b.data(), b.size(), 8192, 5, l), "");
    b[5000] ^= 0x80;  // caught by the checksum first
    EXPECT_NE(CheckVerifyBlock(b.data(), b.size(), 8192, 5, l).find("mismatch"), std::string::npos);
  }
  // A block of random data (no pattern) fails the pattern check even with
  // a good checksum.
  std::vector<uint8_t> r(4096);
  FillVerifyBlock(r.data(), r.size(), 0, 5, VerifyMethod::kCrc32c);
  EXPECT_NE(CheckVerifyBlock(r.data(), r.size(), 0, 5, Layout(VerifyMethod::kCrc32c, "\x11"))
                .find("pattern mismatch at offset 32"),
            std::string::npos);
}

TEST(VerifyInterval, AHeaderPerIntervalAndTheBadOneIsNamed) {
  const VerifyLayout l = Layout(VerifyMethod::kMd5, "", {}, 1024);
  std::vector<uint8_t> b(4096);
  FillVerifyBlock(b.data(), b.size(), 65536, 3, l);
  for (uint64_t s = 0; s < 4096; s += 1024) {
    uint32_t magic, len;
    uint64_t off;
    std::memcpy(&magic, &b[s], 4);
    std::memcpy(&len, &b[s + 4], 4);
    std::memcpy(&off, &b[s + 8], 8);
    EXPECT_EQ(magic, kVerifyMagicV2) << s;
    EXPECT_EQ(len, 1024u) << s;
    EXPECT_EQ(off, 65536 + s) << s;
  }
  EXPECT_EQ(CheckVerifyBlock(b.data(), b.size(), 65536, 3, l), "");
  b[2048 + 500] ^= 4;
  const std::string bad = CheckVerifyBlock(b.data(), b.size(), 65536, 3, l);
  EXPECT_EQ(bad.rfind("interval at offset 67584 length 1024: md5 mismatch", 0), 0u) << bad;
  // A block that is not a multiple: the last interval takes the rest.
  std::vector<uint8_t> odd(4096 + 512);
  FillVerifyBlock(odd.data(), odd.size(), 0, 3, l);
  EXPECT_EQ(CheckVerifyBlock(odd.data(), odd.size(), 0, 3, l), "");
  uint32_t last_len;
  std::memcpy(&last_len, &odd[3072 + 4], 4);
  EXPECT_EQ(last_len, 1536u);
}

TEST(VerifyOffset, TheHeaderIsSwappedWithTheDataThere) {
  const VerifyLayout at0 = Layout(VerifyMethod::kCrc32c, "", {}, 1024);
  const VerifyLayout at = Layout(VerifyMethod::kCrc32c, "", {}, 1024, 100);
  std::vector<uint8_t> a(4096), b(4096);
  FillVerifyBlock(a.data(), a.size(), 0, 3, at0);
  FillVerifyBlock(b.data(), b.size(), 0, 3, at);
  for (uint64_t s = 0; s < 4096; s += 1024) {
    // fio's swap: header at 100, the data of 100..132 at 0, the rest as is.
    EXPECT_EQ(std::memcmp(&b[s + 100], &a[s], 32), 0) << s;
    EXPECT_EQ(std::memcmp(&b[s], &a[s + 100], 32), 0) << s;
    EXPECT_EQ(std::memcmp(&b[s + 32], &a[s + 32], 68), 0) << s;
    EXPECT_EQ(std::memcmp(&b[s + 132], &a[s + 132], 1024 - 132), 0) << s;
  }
  EXPECT_EQ(CheckVerifyBlock(b.data(), b.size(), 0, 3, at), "");
  EXPECT_NE(CheckVerifyBlock(b.data(), b.size(), 0, 3, at0).find("bad magic"), std::string::npos);
  b[1024 + 110] ^= 1;  // in the second interval's header
  EXPECT_NE(CheckVerifyBlock(b.data(), b.size(), 0, 3, at).find("interval at offset 1024"),
            std::string::npos);
}

}  // namespace
}  // namespace blk::bench
