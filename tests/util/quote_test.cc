#include <blkstack/util/quote.h>

#include <gtest/gtest.h>

#include <string>

namespace blk {
namespace {

TEST(QuoteInputTest, ShortTextIsQuotedAsIs) {
  EXPECT_EQ(QuoteInput(""), "''");
  EXPECT_EQ(QuoteInput("4k"), "'4k'");
  EXPECT_EQ(QuoteInput(std::string(kMaxQuotedBytes, 'x')), "'" + std::string(80, 'x') + "'");
}

TEST(QuoteInputTest, LongTextIsCutWithTheCountOfTheRest) {
  EXPECT_EQ(QuoteInput(std::string(81, 'x')), "'" + std::string(80, 'x') + "...(1 more bytes)'");
  const std::string eight_mb(8 << 20, 'y');
  const std::string q = QuoteInput(eight_mb);
  EXPECT_EQ(q, "'" + std::string(80, 'y') + "...(" + std::to_string((8 << 20) - 80) +
                   " more bytes)'");
}

TEST(QuoteInputTest, ControlCharactersAreEscaped) {
  EXPECT_EQ(ShortenInput("a\nb\tc\x7f"), "a\\x0ab\\x09c\\x7f");
  EXPECT_EQ(ShortenInput(std::string_view("a\0b", 3)), "a\\x00b");
}

TEST(QuoteInputTest, CutNeverSplitsAUtf8Character) {
  // 79 ASCII bytes, then "é" (2 bytes) straddling the 80-byte limit.
  const std::string text = std::string(79, 'a') + "\xc3\xa9" + "zz";
  EXPECT_EQ(ShortenInput(text), std::string(79, 'a') + "...(4 more bytes)");
  // A malformed run of continuation bytes is cut at the limit.
  const std::string bad(100, '\x80');
  EXPECT_EQ(ShortenInput(bad), std::string(80, '\x80') + "...(20 more bytes)");
}

}  // namespace
// Names (paths, specs) are cut at PATH_MAX, not at 80 bytes: a long real
// path stays whole, a 100 KB spec does not.
TEST(QuoteNameTest, PathsStayWholeHugeSpecsAreCut) {
  const std::string path = "/root/.cache/bazel/" + std::string(200, 'p') + "/a.dat";
  EXPECT_EQ(QuoteName(path), "'" + path + "'");
  EXPECT_NE(QuoteInput(path), "'" + path + "'");
  const std::string spec(100000, 'n');
  EXPECT_EQ(ShortenName(spec), std::string(kMaxQuotedNameBytes, 'n') + "...(" +
                                   std::to_string(100000 - kMaxQuotedNameBytes) + " more bytes)");
  EXPECT_EQ(ShortenName("a\tb"), "a\\x09b");
}

}  // namespace blk
