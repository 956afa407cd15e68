#include "util/quote.h"

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
}  // namespace blk
