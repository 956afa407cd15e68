// The verify block format (run/verify.h), fio 3.33's: blocks fio wrote
// (fio_verify_kat.h) pass block-bench's check, block-bench's checksum of
// their data is fio's field, and block-bench fills the same bytes from the
// same rand_seed; every method fills a block that it checks good, and
// catches a flipped data bit, a flipped checksum bit, a misplaced block, a
// stale generation and a block written with another method;
// verify_pattern, verify_interval and verify_offset layouts.
#include "tools/block_bench/run/verify.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tests/tools/block_bench/run/fio_verify_kat.h"

namespace blk::bench {
namespace {

const VerifyMethod kMethods[] = {
    VerifyMethod::kCrc32c,   VerifyMethod::kCrc32,    VerifyMethod::kMd5,
    VerifyMethod::kSha1,     VerifyMethod::kSha256,   VerifyMethod::kSha512,
    VerifyMethod::kXxhash,   VerifyMethod::kCrc64,    VerifyMethod::kCrc16,
    VerifyMethod::kCrc7,     VerifyMethod::kSha3_224, VerifyMethod::kSha3_256,
    VerifyMethod::kSha3_384, VerifyMethod::kSha3_512};

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
    // The checksum field's first byte (fio 3.33's sha512 field holds only
    // data it saw: with no data, nothing).
    if (m != VerifyMethod::kSha512 || len > VerifyHeaderSize(m)) {
      std::vector<uint8_t> h = b;
      h[kFioHeaderSize] ^= 1;
      EXPECT_NE(CheckVerifyBlock(h.data(), len, off, gen, m).find("mismatch"), std::string::npos);
    }
  }
  std::vector<uint8_t> small(VerifyHeaderSize(m) - 1);
  EXPECT_NE(CheckVerifyBlock(small.data(), small.size(), 0, 0, m).find("shorter"),
            std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Methods, VerifyTest, ::testing::ValuesIn(kMethods),
                         [](const auto& info) {
                           std::string n(Name(info.param));
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// fio's struct verify_header (40 bytes) and each method's field (verify.c's
// __hdr_size).
TEST(Verify, HeaderSizesAreFios) {
  EXPECT_EQ(VerifyHeaderSize(VerifyMethod::kMeta), 40u);
  EXPECT_EQ(VerifyHeaderSize(VerifyMethod::kPatternHdr), 40u);
  EXPECT_EQ(VerifyHeaderSize(VerifyMethod::kCrc7), 41u);
  EXPECT_EQ(VerifyHeaderSize(VerifyMethod::kCrc16), 42u);
  EXPECT_EQ(VerifyHeaderSize(VerifyMethod::kCrc32c), 44u);
  EXPECT_EQ(VerifyHeaderSize(VerifyMethod::kCrc64), 48u);
  EXPECT_EQ(VerifyHeaderSize(VerifyMethod::kMd5), 56u);
  EXPECT_EQ(VerifyHeaderSize(VerifyMethod::kSha1), 60u);
  EXPECT_EQ(VerifyHeaderSize(VerifyMethod::kSha256), 104u);
  EXPECT_EQ(VerifyHeaderSize(VerifyMethod::kSha512), 168u);
  EXPECT_EQ(VerifyHeaderSize(VerifyMethod::kSha3_384), 88u);
  EXPECT_EQ(VerifyHeaderSize(VerifyMethod::kPattern), 0u);
  EXPECT_EQ(VerifyHeaderSize(VerifyMethod::kNull), 0u);
}

VerifyMethod MethodNamed(const std::string& n) {
  for (VerifyMethod m : kMethods)
    if (Name(m) == n) return m;
  if (n == "meta") return VerifyMethod::kMeta;
  if (n == "pattern_hdr") return VerifyMethod::kPatternHdr;
  if (n == "md5_pattern") return VerifyMethod::kMd5;
  if (n == "interval") return VerifyMethod::kCrc32c;
  ADD_FAILURE() << "no method for " << n;
  return VerifyMethod::kNone;
}

// The layout fio wrote each known-answer block with (fio_verify_kat.h).
VerifyLayout KatLayout(const std::string& n) {
  VerifyLayout l;
  l.method = MethodNamed(n);
  l.thread = 1;  // fio's first thread
  if (n == "pattern_hdr") {
    l.pattern = std::string("\xfe", 1) + std::string(8, '\0') + "ab";  // 0xfe%o"ab"
    l.pattern_offsets = {1};
  }
  if (n == "md5_pattern") l.pattern = "\x01\x23\x45\x67";  // 0x1234567
  if (n == "interval") {
    l.interval = 512;
    l.header_offset = 64;
  }
  return l;
}

// Known answers: fio 3.33 wrote each block; block-bench's check passes it
// (the generation unknown, as a read-only job), its checksum of the data
// is fio's field, and its fill from the header's rand_seed and numberio is
// fio's block byte for byte but for the time fields (and so the header's
// crc) fio takes from the clock.  One flipped byte that fio's field covers
// is caught.
TEST(VerifyFioKat, FioBlocksPassAndBlockBenchWritesTheSameBytes) {
  for (const fio_kat::Block& k : fio_kat::kBlocks) {
    SCOPED_TRACE(k.name);
    const VerifyLayout l = KatLayout(k.name);
    const std::vector<uint8_t> fio(k.bytes, k.bytes + k.len);
    EXPECT_EQ(CheckVerifyBlock(fio.data(), k.len, k.offset, 0, l), "");
    const uint64_t chunk = l.interval ? l.interval : k.len;
    std::vector<uint8_t> plain = fio;  // headers swapped back to each chunk's start
    for (uint64_t s = 0; s < k.len; s += chunk)
      if (l.header_offset)
        for (uint64_t i = 0; i < VerifyHeaderSize(l.method); i++)
          std::swap(plain[s + i], plain[s + l.header_offset + i]);
    uint64_t seed = 0;
    uint16_t numberio = 0, magic = 0, type = 0;
    std::memcpy(&magic, &plain[0], 2);
    std::memcpy(&type, &plain[2], 2);
    std::memcpy(&seed, &plain[8], 8);
    std::memcpy(&numberio, &plain[34], 2);
    EXPECT_EQ(magic, kFioVerifyMagic);
    EXPECT_EQ(type, FioVerifyType(l.method));
    const uint64_t field = VerifyChecksumSize(l.method);
    if (field && l.pattern.empty()) {
      for (uint64_t s = 0; s < k.len; s += chunk) {
        std::vector<uint8_t> sum(field);
        const uint64_t hs = VerifyHeaderSize(l.method);
        ASSERT_TRUE(FioChecksum(l.method, &plain[s + hs], chunk - hs, sum.data()));
        EXPECT_EQ(std::memcmp(sum.data(), &plain[s + kFioHeaderSize], field), 0) << s;
      }
    }
    std::vector<uint8_t> ours(k.len);
    FillVerifyBlock(ours.data(), k.len, k.offset, seed, l, numberio);
    for (uint64_t s = 0; s < k.len; s += chunk) {
      const uint64_t h = s + l.header_offset;
      std::memcpy(&ours[h + 24], &fio[h + 24], 8);  // time_sec, time_nsec
      std::memcpy(&ours[h + 36], &fio[h + 36], 4);  // the header's crc32c over them
    }
    EXPECT_EQ(ours, fio);
    // One byte fio's field covers: the last (sha512: its tail is all it
    // keeps); meta: the header's offset field; a pattern: a pattern byte.
    std::vector<uint8_t> bad = fio;
    const uint64_t at = l.method == VerifyMethod::kMeta ? l.header_offset + 16 : k.len - 1;
    bad[at] ^= 0x20;
    EXPECT_NE(CheckVerifyBlock(bad.data(), k.len, k.offset, 0, l), "") << at;
  }
}

// verify_dump's expected block: a fio block with one data byte flipped
// rebuilds to fio's block exactly (data from the header's rand_seed, the
// time fields from the read headers).
TEST(VerifyFioKat, ExpectedBlockIsWhatFioWrote) {
  for (const fio_kat::Block& k : fio_kat::kBlocks) {
    SCOPED_TRACE(k.name);
    const VerifyLayout l = KatLayout(k.name);
    std::vector<uint8_t> bad(k.bytes, k.bytes + k.len);
    bad[k.len - 1] ^= 0x20;
    if (l.method != VerifyMethod::kMeta) {  // meta: the data is not checked
      uint64_t at = 99, n = 0;
      EXPECT_NE(CheckVerifyBlock(bad.data(), k.len, k.offset, 0, l, &at, &n), "");
      const uint64_t chunk = l.interval ? l.interval : k.len;
      EXPECT_EQ(at, k.len - chunk);  // the last chunk is the bad one
      EXPECT_EQ(n, chunk);
    }
    EXPECT_EQ(ExpectedVerifyBlock(bad.data(), k.len, k.offset, l),
              std::vector<uint8_t>(k.bytes, k.bytes + k.len));
  }
  std::vector<uint8_t> z(512);
  EXPECT_TRUE(ExpectedVerifyBlock(z.data(), 512, 0, VerifyLayout{.method = VerifyMethod::kNull}).empty());
}

// fio's data fill (lib/rand.c, 4 seed buckets): word i of a group of four
// from seed * {1, 2, 3, 5}, each multiplied by the golden ratio per group.
TEST(VerifyFioKat, RandomFillIsFios) {
  const uint64_t seed = 0x00a4cc01c509543cull, g = 0x61c8864680b583ebull;
  std::vector<uint8_t> b(4096 + 12);
  FioRandomFill(b.data(), b.size(), seed);
  uint64_t w[12];
  std::memcpy(w, b.data(), sizeof w);
  EXPECT_EQ(w[0], seed);
  EXPECT_EQ(w[1], seed * 2);
  EXPECT_EQ(w[3], seed * 5);
  EXPECT_EQ(w[4], seed * g);
  EXPECT_EQ(w[6], seed * 3 * g);
  EXPECT_EQ(w[8], seed * g * g);
  // 4096 / 8 = 512 words in whole groups, then one more word and 4 bytes
  // from bucket 0 running on.
  uint64_t s0 = seed;
  for (int i = 0; i < 128; i++) s0 *= g;
  uint64_t tail;
  std::memcpy(&tail, &b[4096], 8);
  EXPECT_EQ(tail, s0);
  s0 *= g;
  EXPECT_EQ(std::memcmp(&b[4104], &s0, 4), 0);
}

// Checksums with a published check value over "123456789" where fio's
// variant has one (CRC-16/ARC, CRC-7/MMC, CRC-32/CKSUM and CRC-32C without
// their final xor, CRC-64/REDIS: Jones with init 0), and fio's SHA-1 field
// layout.
TEST(VerifyFioKat, ChecksumsOfTheStandardString) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>("123456789");
  uint8_t out[128];
  auto u16 = [&] { uint16_t v; std::memcpy(&v, out, 2); return v; };
  auto u32 = [&] { uint32_t v; std::memcpy(&v, out, 4); return v; };
  auto u64 = [&] { uint64_t v; std::memcpy(&v, out, 8); return v; };
  ASSERT_TRUE(FioChecksum(VerifyMethod::kCrc16, p, 9, out));
  EXPECT_EQ(u16(), 0xbb3d);  // CRC-16/ARC
  ASSERT_TRUE(FioChecksum(VerifyMethod::kCrc32c, p, 9, out));
  EXPECT_EQ(u32(), ~0xe3069283u);  // CRC-32C's check value, before its final xor
  ASSERT_TRUE(FioChecksum(VerifyMethod::kCrc7, p, 9, out));
  EXPECT_EQ(out[0], 0x75);  // CRC-7/MMC
  ASSERT_TRUE(FioChecksum(VerifyMethod::kCrc32, p, 9, out));
  EXPECT_EQ(u32(), ~0x765e7680u);  // CRC-32/CKSUM's check value, before its final xor
  ASSERT_TRUE(FioChecksum(VerifyMethod::kCrc64, p, 9, out));
  EXPECT_EQ(u64(), 0xe9c6d914c4b8d9caull);  // CRC-64/REDIS
  ASSERT_TRUE(FioChecksum(VerifyMethod::kSha1, p, 9, out));
  // SHA-1("123456789") = f7c3bc1d 808e0473 2adf679965ccc34ca7ae3441, per word little-endian.
  EXPECT_EQ(u32(), 0xf7c3bc1du);
}

TEST(Verify, BlockOfAnotherMethodIsNamed) {
  std::vector<uint8_t> b(4096);
  FillVerifyBlock(b.data(), b.size(), 0, 7, VerifyMethod::kMd5);
  EXPECT_NE(CheckVerifyBlock(b.data(), b.size(), 0, 7, VerifyMethod::kSha1).find("written with verify method"),
            std::string::npos);
  EXPECT_EQ(CheckVerifyBlock(b.data(), b.size(), 0, 7, VerifyMethod::kCrc32c),
            "written with verify method md5, checked with crc32c");
}

TEST(Verify, DigestsDifferBetweenGenerations) {
  // The data comes from the generation (fio's rand_seed), so two writes'
  // digests differ; the header names the offset.
  std::vector<uint8_t> a(4096), b(4096);
  FillVerifyBlock(a.data(), a.size(), 0, 7, VerifyMethod::kSha256);
  FillVerifyBlock(b.data(), b.size(), 0, 9, VerifyMethod::kSha256);
  EXPECT_NE(std::vector<uint8_t>(a.begin() + 40, a.begin() + 104),
            std::vector<uint8_t>(b.begin() + 40, b.begin() + 104));
}

// verify=meta, as fio 3.33 reads it (VERIFY_HDR_ONLY): fio's 40-byte
// header is checked — offset, length, generation (rand_seed), writer
// (thread) and its own crc32c — and the data is not checksummed.
TEST(VerifyMeta, TheHeaderIsCheckedTheDataIsNot) {
  const VerifyMethod m = VerifyMethod::kMeta;
  EXPECT_EQ(Name(m), "meta");
  EXPECT_EQ(VerifyHeaderSize(m), 40u);
  VerifyLayout l;
  l.method = m;
  l.thread = 3;
  const uint64_t off = 1 << 20, gen = 0x1234567;
  std::vector<uint8_t> b(4096);
  FillVerifyBlock(b.data(), b.size(), off, gen, l, 77);
  uint16_t magic, type, thread, numberio;
  uint64_t seed, offset;
  std::memcpy(&magic, &b[0], 2);
  std::memcpy(&type, &b[2], 2);
  std::memcpy(&seed, &b[8], 8);
  std::memcpy(&offset, &b[16], 8);
  std::memcpy(&thread, &b[32], 2);
  std::memcpy(&numberio, &b[34], 2);
  EXPECT_EQ(magic, 0xacca);
  EXPECT_EQ(type, 1);  // fio's VERIFY_HDR_ONLY
  EXPECT_EQ(seed, gen);
  EXPECT_EQ(offset, off);
  EXPECT_EQ(thread, 3);
  EXPECT_EQ(numberio, 77);
  EXPECT_EQ(CheckVerifyBlock(b.data(), b.size(), off, gen, l), "");
  EXPECT_EQ(CheckVerifyBlock(b.data(), b.size(), off, 0, l), "");  // writer unknown
  // Read at another offset, or the header's offset field corrupted.
  EXPECT_NE(CheckVerifyBlock(b.data(), b.size(), off + 4096, gen, l).find("misplaced"),
            std::string::npos);
  std::vector<uint8_t> o = b;
  o[16] ^= 0x01;  // the offset field's low byte
  EXPECT_NE(CheckVerifyBlock(o.data(), o.size(), off, gen, l).find("bad header offset"),
            std::string::npos);
  EXPECT_NE(CheckVerifyBlock(b.data(), b.size(), off, gen + 1, l).find("stale"), std::string::npos);
  VerifyLayout other = l;
  other.thread = 7;
  EXPECT_NE(CheckVerifyBlock(b.data(), b.size(), off, gen, other).find("writer"), std::string::npos);
  EXPECT_EQ(CheckVerifyBlock(b.data(), b.size(), off, 0, other), "");  // writer unknown: not checked
  std::vector<uint8_t> h = b;
  h[36] ^= 0x01;  // the header crc itself
  EXPECT_NE(CheckVerifyBlock(h.data(), h.size(), off, gen, l).find("bad header crc"),
            std::string::npos);
  h = b;
  h[32] ^= 0x01;  // the writer field: the header crc catches it even with the writer unknown
  EXPECT_NE(CheckVerifyBlock(h.data(), h.size(), off, 0, l).find("bad header crc"),
            std::string::npos);
  std::vector<uint8_t> d = b;
  d[4000] ^= 0x10;  // data: not checksummed, as fio's header-only verify
  EXPECT_EQ(CheckVerifyBlock(d.data(), d.size(), off, gen, l), "");
  // Another method's block is not taken for a meta one, and the other way.
  std::vector<uint8_t> c(4096);
  FillVerifyBlock(c.data(), c.size(), off, gen, VerifyMethod::kCrc32c);
  EXPECT_EQ(CheckVerifyBlock(c.data(), c.size(), off, gen, l),
            "written with verify method crc32c, checked with meta");
  EXPECT_EQ(CheckVerifyBlock(b.data(), b.size(), off, gen, VerifyMethod::kCrc32c),
            "written with verify method meta, checked with crc32c");
  // Not fio's header at all.
  std::vector<uint8_t> z(4096);
  EXPECT_NE(CheckVerifyBlock(z.data(), z.size(), off, 0, l).find("bad magic header 0, wanted acca"),
            std::string::npos);
}

// verify=null writes no header and checks nothing, as fio's "pretend".
TEST(VerifyNull, NothingIsWrittenOrChecked) {
  std::vector<uint8_t> b(4096);
  FillVerifyBlock(b.data(), b.size(), 0, 5, VerifyMethod::kNull);
  uint16_t magic;
  std::memcpy(&magic, &b[0], 2);
  EXPECT_NE(magic, kFioVerifyMagic);
  std::vector<uint8_t> z(4096);
  EXPECT_EQ(CheckVerifyBlock(z.data(), z.size(), 0, 5, VerifyMethod::kNull), "");
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
                .find("pattern mismatch at offset 44"),
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
    std::memcpy(&off, &b[s + 16], 8);
    EXPECT_EQ(uint16_t(magic), kFioVerifyMagic) << s;
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
    // fio's swap: header at 100, the data of 100..144 at 0, the rest as is.
    EXPECT_EQ(std::memcmp(&b[s + 100], &a[s], 44), 0) << s;
    EXPECT_EQ(std::memcmp(&b[s], &a[s + 100], 44), 0) << s;
    EXPECT_EQ(std::memcmp(&b[s + 44], &a[s + 44], 56), 0) << s;
    EXPECT_EQ(std::memcmp(&b[s + 144], &a[s + 144], 1024 - 144), 0) << s;
  }
  EXPECT_EQ(CheckVerifyBlock(b.data(), b.size(), 0, 3, at), "");
  EXPECT_NE(CheckVerifyBlock(b.data(), b.size(), 0, 3, at0).find("bad magic"), std::string::npos);
  b[1024 + 110] ^= 1;  // in the second interval's header
  EXPECT_NE(CheckVerifyBlock(b.data(), b.size(), 0, 3, at).find("interval at offset 1024"),
            std::string::npos);
}

}  // namespace
}  // namespace blk::bench
