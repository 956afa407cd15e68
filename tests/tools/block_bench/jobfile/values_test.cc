// Value syntaxes: integers, percentages, booleans, floats, ranges,
// per-direction lists and escaped ':' lists.
#include "tools/block_bench/jobfile/values.h"

#include <gtest/gtest.h>

namespace blk::bench {
namespace {

using Dirs = PerDir<std::optional<std::string>>;

Dirs Split(const std::string& text) {
  auto v = SplitPerDirection(text);
  EXPECT_TRUE(v.ok()) << text << ": " << (v.ok() ? "" : v.error().message);
  return v.ok() ? v.value() : Dirs{};
}

TEST(Integer, RangeAndMessage) {
  EXPECT_EQ(ParseInteger("8", 1024, 1).value(), 8u);
  EXPECT_EQ(ParseInteger("1k", 1024, 1).value(), 1024u) << "fio accepts suffixes on integers";
  EXPECT_EQ(ParseInteger("0x10", 1024).value(), 16u);
  auto e = ParseInteger("abc", 1024, 1);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "expected an integer >= 1, got 'abc'");
  e = ParseInteger("0", 1024, 1);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "expected an integer >= 1, got '0'");
  e = ParseInteger("101", 1024, 0, 100);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "expected an integer between 0 and 100, got '101'");
  e = ParseInteger("-1", 1024);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "expected a non-negative integer, got '-1'");
}

TEST(Integer, ExpressionErrorsSayWhyAndQuoteBriefly) {
  auto e = ParseInteger("(1/0)", 1024, 1);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "expected an integer >= 1, got '(1/0)': division by zero");
  const std::string deep = std::string(100000, '(') + "1" + std::string(100000, ')');
  auto s = FioParseSize(deep, 1024, 1);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "expected a size >= 1 (a number with an optional k/m/g/t/p suffix), got '" +
                std::string(80, '(') + "...(199921 more bytes)': nested more than 64 levels deep");
  auto t = ParseTime(deep, kMicrosPerSecond);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("nested more than 64 levels deep"), std::string::npos);
}

TEST(SizeOrPercent, Percentages) {
  auto v = ParseSizeOrPercent("50%", 1024, 1, 100);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v.value(), (SizeSpec{50, true}));
  v = ParseSizeOrPercent("1g", 1024, 1, 100);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v.value(), (SizeSpec{1ull << 30, false}));
  EXPECT_FALSE(ParseSizeOrPercent("0%", 1024, 1, 100).ok());
  EXPECT_FALSE(ParseSizeOrPercent("101%", 1024, 1, 100).ok());
  EXPECT_TRUE(ParseSizeOrPercent("250%", 1024, 1, kNoMax).ok());
  // fio reads "100%%" (job files written through printf templates) as 100 %.
  v = ParseSizeOrPercent("100%%", 1024, 1, 100);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v.value(), (SizeSpec{100, true}));
  EXPECT_FALSE(ParseSizeOrPercent("%%", 1024, 1, 100).ok());
  EXPECT_FALSE(ParseSizeOrPercent("101%%", 1024, 1, 100).ok());
  auto e = ParseSizeOrPercent("half", 1024, 1, 100);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "expected a size or a percentage (1% to 100%), got 'half'");
}

TEST(Bool, OnlyZeroOrOne) {
  EXPECT_EQ(FioParseBool("1").value(), true);
  EXPECT_EQ(FioParseBool("0").value(), false);
  for (const char* bad : {"", "2", "yes", "true", "on"}) {
    EXPECT_FALSE(FioParseBool(bad).ok()) << bad;
  }
  EXPECT_EQ(ParseFlag(std::nullopt).value(), true);
  EXPECT_EQ(ParseFlag("0").value(), false);
  EXPECT_EQ(ParseFlag("2").value(), true) << "fio treats non-zero as set";
  EXPECT_FALSE(ParseFlag("yes").ok());
}

TEST(Double, Bounds) {
  EXPECT_EQ(ParseDouble("99.5", 0, 100).value(), 99.5);
  EXPECT_FALSE(ParseDouble("0", 0, 100, true).ok());
  EXPECT_TRUE(ParseDouble("0", 0, 100).ok());
  EXPECT_FALSE(ParseDouble("100.1", 0, 100).ok());
  EXPECT_FALSE(ParseDouble("1x", 0, 100).ok());
  EXPECT_FALSE(ParseDouble("nan", 0, 100).ok());
}

TEST(Range, SplitsAtTopLevelDashOrColon) {
  auto r = SplitRange("4k-64k");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, "4k");
  EXPECT_EQ(r->second, "64k");
  r = SplitRange("1k:4k");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->second, "4k");
  r = SplitRange("(8k-4k)-(16k-1k)");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, "(8k-4k)");
  EXPECT_EQ(r->second, "(16k-1k)");
  EXPECT_FALSE(SplitRange("4k"));
}

TEST(PerDirection, FioCommaRules) {
  // bs=256k: all three.
  EXPECT_EQ(Split("256k"), (Dirs{"256k", "256k", "256k"}));
  // bs=8k,32k: 8k reads, 32k writes and trims.
  EXPECT_EQ(Split("8k,32k"), (Dirs{"8k", "32k", "32k"}));
  // bs=8k,32k,: trims keep their default.
  EXPECT_EQ(Split("8k,32k,"), (Dirs{"8k", "32k", std::nullopt}));
  // bs=,8k: reads keep their default.
  EXPECT_EQ(Split(",8k"), (Dirs{std::nullopt, "8k", "8k"}));
  // bs=,8k,: only writes.
  EXPECT_EQ(Split(",8k,"), (Dirs{std::nullopt, "8k", std::nullopt}));
  // rate=500k,: only reads.
  EXPECT_EQ(Split("500k,"), (Dirs{"500k", std::nullopt, std::nullopt}));
  EXPECT_EQ(Split("1k,2k,3k"), (Dirs{"1k", "2k", "3k"}));
  EXPECT_EQ(Split(" 1k , 2k "), (Dirs{"1k", "2k", "2k"}));
  EXPECT_EQ(Split("(1k*2),4k"), (Dirs{"(1k*2)", "4k", "4k"}));
}

TEST(PerDirection, Errors) {
  auto e = SplitPerDirection("1k,2k,3k,4k");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("at most 3"), std::string::npos);
  EXPECT_FALSE(SplitPerDirection(",").ok());
  EXPECT_FALSE(SplitPerDirection("").ok());
}

TEST(EscapedList, ColonsAndEscapes) {
  auto v = SplitEscapedList("/dev/sda:/dev/sdb");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v.value(), (std::vector<std::string>{"/dev/sda", "/dev/sdb"}));
  v = SplitEscapedList("/dev/dsk/foo@3,0\\:c");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v.value(), (std::vector<std::string>{"/dev/dsk/foo@3,0:c"}));
  EXPECT_FALSE(SplitEscapedList("a::b").ok());
  EXPECT_FALSE(SplitEscapedList("").ok());
  const std::vector<std::string> names = {"a:b", "c", "d\\e"};
  auto back = SplitEscapedList(JoinEscapedList(names));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value(), names);
}

}  // namespace
}  // namespace blk::bench
