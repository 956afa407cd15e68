// BufferFiller: fio's buffer-content options, byte by byte.
#include "tools/block_bench/run/buffer_fill.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "bench_test_util.h"

namespace blk::bench {
namespace {

using testing::ParseJob;

std::vector<uint8_t> Fill(BufferFiller& f, size_t len) {
  std::vector<uint8_t> b(len, 0xAA);
  f.fill(b.data(), len);
  return b;
}

bool AllZero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i]) return false;
  return true;
}

TEST(BufferFill, DefaultIsRandomOnceWithScramble) {
  JobOptions j = ParseJob({"--name=a", "--ioengine=null", "--rw=write", "--size=1m"});
  BufferFiller f(j, "", 1);
  EXPECT_FALSE(f.refill());
  EXPECT_TRUE(f.scramble());
  auto a = Fill(f, 4096), b = Fill(f, 4096);
  EXPECT_NE(a, b);
  EXPECT_FALSE(AllZero(a.data(), a.size()));
}

TEST(BufferFill, ScrambleStampsEveryWholeBlock) {
  std::vector<uint8_t> a(4096 + 100, 0), b(4096 + 100, 0);
  BufferFiller::Scramble(a.data(), a.size(), 8192, 1000);
  BufferFiller::Scramble(b.data(), b.size(), 8192 + 4096, 1000);
  EXPECT_NE(a, b);  // the same buffer written to two offsets differs
  for (size_t blk = 0; blk < 8; blk++) {
    uint64_t t = 0;
    std::memcpy(&t, a.data() + blk * 512 + 56, 8);
    EXPECT_EQ(t, 1000u);
    bool found = false;
    for (size_t line = 0; line < 8; line++) {
      uint64_t off = 0;
      std::memcpy(&off, a.data() + blk * 512 + line * 64, 8);
      found |= off == 8192 + blk * 512;
    }
    EXPECT_TRUE(found) << blk;
  }
  EXPECT_TRUE(AllZero(a.data() + 4096, 100));  // a partial block is left alone
}

TEST(BufferFill, CompressPercentageRandomThenFixedPerChunk) {
  JobOptions j = ParseJob({"--name=a", "--ioengine=null", "--rw=write", "--size=1m",
                           "--buffer_compress_percentage=75", "--buffer_compress_chunk=1k"});
  BufferFiller f(j, "", 2);
  EXPECT_TRUE(f.refill());
  EXPECT_FALSE(f.scramble());
  auto a = Fill(f, 8192);
  for (size_t c = 0; c < 8; c++) {
    EXPECT_FALSE(AllZero(a.data() + c * 1024, 256)) << c;
    EXPECT_TRUE(AllZero(a.data() + c * 1024 + 256, 768)) << c;
  }
  EXPECT_NE(Fill(f, 8192), a);  // refilled
}

TEST(BufferFill, CompressFixedPartIsThePattern) {
  JobOptions j = ParseJob({"--name=a", "--ioengine=null", "--rw=write", "--size=1m",
                           "--buffer_compress_percentage=50", "--buffer_compress_chunk=0",
                           "--buffer_pattern=\"xy\""});
  BufferFiller f(j, "xy", 3);
  auto a = Fill(f, 4096);
  for (size_t i = 2048; i < 4096; i++) EXPECT_EQ(a[i], i % 2 ? 'y' : 'x') << i;
}

TEST(BufferFill, PatternRepeatsAndIsNotScrambled) {
  JobOptions j = ParseJob({"--name=a", "--ioengine=null", "--rw=write", "--size=1m",
                           "--buffer_pattern=0xdeadbeef\"ab\""});
  ASSERT_EQ(j.buffer_pattern.size(), 2u);
  auto p = ResolvePattern(j.buffer_pattern);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, std::string("\xde\xad\xbe\xef" "ab", 6));
  BufferFiller f(j, *p, 4);
  EXPECT_FALSE(f.scramble());
  auto a = Fill(f, 600);
  for (size_t i = 0; i < a.size(); i++) ASSERT_EQ(char(a[i]), (*p)[i % 6]) << i;
}

// A buffer filled once can be filled in pieces (SlotPool): the pieces lay
// out the bytes as one fill would (pattern phase, compression chunks from
// the buffer's start), whatever the cuts.
TEST(BufferFill, FillPartInPiecesIsTheWholeFill) {
  auto pieces = [](BufferFiller& f, size_t len, std::vector<size_t> cuts) {
    std::vector<uint8_t> b(len, 0xAA);
    size_t from = 0;
    cuts.push_back(len);
    for (size_t to : cuts) {
      f.fill_part(b.data(), from, to);
      from = to;
    }
    return b;
  };
  JobOptions pj = ParseJob({"--name=a", "--ioengine=null", "--rw=write", "--size=1m",
                            "--buffer_pattern=0xdeadbeef\"abc\""});
  const std::string pat("\xde\xad\xbe\xef" "abc", 7);
  BufferFiller p(pj, pat, 1);
  ASSERT_FALSE(p.refill());
  EXPECT_EQ(pieces(p, 5000, {1, 7, 100, 4097}), Fill(p, 5000));
  JobOptions zj = ParseJob({"--name=a", "--ioengine=null", "--rw=write", "--size=1m",
                            "--zero_buffers"});
  BufferFiller z(zj, "", 1);
  auto zb = pieces(z, 3000, {512, 513});
  EXPECT_TRUE(AllZero(zb.data(), zb.size()));
  // buffer_compress_percentage=100 is filled once (no refill): all fixed.
  JobOptions cj = ParseJob({"--name=a", "--ioengine=null", "--rw=write", "--size=1m",
                            "--buffer_compress_percentage=100", "--buffer_compress_chunk=512",
                            "--buffer_pattern=\"xyz\""});
  BufferFiller c(cj, "xyz", 1);
  ASSERT_FALSE(c.refill());
  EXPECT_EQ(pieces(c, 4096, {100, 1000, 1024}), Fill(c, 4096));
  // Random: every byte of every piece is written, none left as it was.
  JobOptions rj = ParseJob({"--name=a", "--ioengine=null", "--rw=write", "--size=1m"});
  BufferFiller r(rj, "", 1);
  auto rb = pieces(r, 1 << 16, {3, 4096, 40000});
  size_t untouched = 0;
  for (size_t i = 0; i + 8 <= rb.size(); i += 8)
    untouched += std::memcmp(rb.data() + i, "\xAA\xAA\xAA\xAA\xAA\xAA\xAA\xAA", 8) == 0;
  EXPECT_EQ(untouched, 0u);
  // An empty or reversed range writes nothing.
  std::vector<uint8_t> e(16, 0xAA);
  p.fill_part(e.data(), 8, 8);
  EXPECT_EQ(e, std::vector<uint8_t>(16, 0xAA));
}

TEST(BufferFill, PatternPieces) {
  JobOptions j = ParseJob({"--name=a", "--ioengine=null", "--buffer_pattern=-12 300 0x1 'f'"});
  ASSERT_EQ(j.buffer_pattern.size(), 4u);
  EXPECT_EQ(j.buffer_pattern[0].data, std::string("\xf4\xff\xff\xff", 4));  // fio: 32-bit -12
  EXPECT_EQ(j.buffer_pattern[1].data, std::string("\x2c\x01", 2));  // 300, little-endian
  EXPECT_EQ(j.buffer_pattern[2].data, std::string("\x01", 1));
  EXPECT_TRUE(j.buffer_pattern[3].file);
  EXPECT_EQ(j.buffer_pattern[3].data, "f");
  auto missing = ResolvePattern({PatternPiece{true, "/nonexistent/pattern"}});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/nonexistent/pattern"), std::string::npos);
}

// A pattern file is read within fio's 128 MiB (all pieces together); a
// device is refused without reading it.
TEST(BufferFill, PatternFilesAreBounded) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string big = std::string(tmp ? tmp : "/tmp") + "/big_pattern";
  const int fd = open(big.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, off_t(kMaxPatternBytes)), 0);  // sparse: exactly the limit
  close(fd);
  auto at_limit = ResolvePattern({PatternPiece{true, big}});
  ASSERT_TRUE(at_limit.ok()) << at_limit.error().message;
  EXPECT_EQ(at_limit->size(), kMaxPatternBytes);
  auto over = ResolvePattern({PatternPiece{false, "x"}, PatternPiece{true, big}});
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().code, -EFBIG);
  EXPECT_EQ(over.error().message,
            "buffer_pattern: with '" + big + "' the pattern is longer than 128 MiB (fio's limit too)");
  // A file alone over it: refused before it is read.
  ASSERT_EQ(truncate(big.c_str(), off_t(kMaxPatternBytes) + 1), 0);
  auto file_over = ResolvePattern({PatternPiece{true, big}});
  ASSERT_FALSE(file_over.ok());
  EXPECT_EQ(file_over.error().message,
            "buffer_pattern: " + big +
                ": 128.0 MiB, over the limit of 128 MiB for a pattern file (a fixed limit)");
  auto dev = ResolvePattern({PatternPiece{true, "/dev/zero"}}, "verify_pattern");
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.error().message,
            "verify_pattern: /dev/zero: a character device, not a pattern file (read from a "
            "regular file or a pipe)");
}

TEST(BufferFill, DedupeRepeatsTheLastUniqueWrite) {
  JobOptions j = ParseJob({"--name=a", "--ioengine=null", "--rw=write", "--size=1m",
                           "--dedupe_percentage=40"});
  BufferFiller f(j, "", 5);
  EXPECT_TRUE(f.refill());
  std::set<std::vector<uint8_t>> seen;
  std::vector<uint8_t> prev;
  int repeats = 0;
  for (int i = 0; i < 2000; i++) {
    auto b = Fill(f, 512);
    if (!seen.insert(b).second) {
      repeats++;
      EXPECT_EQ(b, prev) << i;  // a repeat is of the last unique one
    } else {
      prev = b;
    }
  }
  EXPECT_NEAR(repeats, 800, 100);
}

TEST(BufferFill, ZeroBuffers) {
  JobOptions j = ParseJob({"--name=a", "--ioengine=null", "--rw=write", "--size=1m", "--zero_buffers"});
  BufferFiller f(j, "", 6);
  EXPECT_FALSE(f.scramble());
  auto a = Fill(f, 4096);
  EXPECT_TRUE(AllZero(a.data(), a.size()));
}

}  // namespace
}  // namespace blk::bench
