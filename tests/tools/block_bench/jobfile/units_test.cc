// Size and time suffixes, and their formatting.
#include "tools/block_bench/jobfile/units.h"

#include <gtest/gtest.h>

#include "tools/block_bench/jobfile/values.h"

namespace blk::bench {
namespace {

using std::chrono::microseconds;

uint64_t Size(const std::string& text, uint32_t kb_base = 1024) {
  auto v = FioParseSize(text, kb_base);
  EXPECT_TRUE(v.ok()) << text << ": " << (v.ok() ? "" : v.error().message);
  return v.ok() ? v.value() : 0;
}

TEST(SizeSuffix, PlainPrefixesArePowersOf1024ByDefault) {
  EXPECT_EQ(Size("512"), 512u);
  EXPECT_EQ(Size("4k"), 4096u);
  EXPECT_EQ(Size("4K"), 4096u);
  EXPECT_EQ(Size("4kb"), 4096u);
  EXPECT_EQ(Size("4KB"), 4096u);
  EXPECT_EQ(Size("1m"), 1048576u);
  EXPECT_EQ(Size("1g"), 1ull << 30);
  EXPECT_EQ(Size("1t"), 1ull << 40);
  EXPECT_EQ(Size("1p"), 1ull << 50);
  EXPECT_EQ(Size("4096b"), 4096u);
  EXPECT_EQ(Size("4096B"), 4096u);
}

TEST(SizeSuffix, IecSpellingIsPowersOf1000UnderDefaultKbBase) {
  // fio's documented compatibility rule for kb_base=1024.
  EXPECT_EQ(Size("1mi"), 1000000u);
  EXPECT_EQ(Size("1MiB"), 1000000u);
  EXPECT_EQ(Size("1000ki"), 1000000u);
  EXPECT_EQ(Size("4KiB"), 4000u);
  EXPECT_EQ(Size("1ti"), 1000000000000ull);
}

TEST(SizeSuffix, KbBase1000FollowsTheStandards) {
  EXPECT_EQ(Size("4k", 1000), 4000u);
  EXPECT_EQ(Size("1m", 1000), 1000000u);
  EXPECT_EQ(Size("4ki", 1000), 4096u);
  EXPECT_EQ(Size("4KiB", 1000), 4096u);
  EXPECT_EQ(Size("1mi", 1000), 1048576u);
  EXPECT_EQ(Size("1024gi", 1000), 1ull << 40);
}

TEST(SizeSuffix, HexAndArithmetic) {
  EXPECT_EQ(Size("0x1000"), 4096u);
  EXPECT_EQ(Size("(4k*2)"), 8192u);
  EXPECT_EQ(Size("(1m-4k)"), 1048576u - 4096u);
}

TEST(SizeSuffix, BadSizesAreRejected) {
  for (const char* bad : {"", "k", "4x", "4kk", "-4k", "1.5m", "4 k", "0x", "0xg", "(4k*", "4%"}) {
    EXPECT_FALSE(FioParseSize(bad, 1024).ok()) << bad;
  }
  EXPECT_FALSE(FioParseSize("99999999999p", 1024).ok()) << "overflow";
  EXPECT_EQ(SizeSuffixMultiplier("q", 1024), std::nullopt);
  EXPECT_EQ(SizeSuffixMultiplier("kbb", 1024), std::nullopt);
}

TEST(TimeSuffix, UnitsAndDefaults) {
  auto t = [](const std::string& text, uint64_t unit = kMicrosPerSecond) {
    auto v = ParseTime(text, unit);
    EXPECT_TRUE(v.ok()) << text;
    return v.ok() ? v.value() : microseconds(-1);
  };
  EXPECT_EQ(t("10"), microseconds(10'000'000));
  EXPECT_EQ(t("10s"), microseconds(10'000'000));
  EXPECT_EQ(t("10sec"), microseconds(10'000'000));
  EXPECT_EQ(t("2m"), microseconds(120'000'000));
  EXPECT_EQ(t("2M"), microseconds(120'000'000));
  EXPECT_EQ(t("1h"), microseconds(3600'000'000));
  EXPECT_EQ(t("1d"), microseconds(86400'000'000));
  EXPECT_EQ(t("500ms"), microseconds(500'000));
  EXPECT_EQ(t("500msec"), microseconds(500'000));
  EXPECT_EQ(t("100us"), microseconds(100));
  EXPECT_EQ(t("100usec"), microseconds(100));
  // thinktime's default unit is microseconds.
  EXPECT_EQ(t("100", 1), microseconds(100));
  EXPECT_EQ(t("1s", 1), microseconds(1'000'000));
  // Inside an expression bare numbers are microseconds, as in fio.
  EXPECT_EQ(t("(1000+1ms)"), microseconds(2000));
  EXPECT_EQ(t("(1m+30s)"), microseconds(90'000'000));
}

TEST(TimeSuffix, BadTimesAreRejected) {
  for (const char* bad : {"", "s", "10x", "10 s", "-1", "1.5s", "10mss", "(1+)"}) {
    EXPECT_FALSE(ParseTime(bad, kMicrosPerSecond).ok()) << bad;
  }
  auto e = ParseTime("abc", kMicrosPerSecond);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("got 'abc'"), std::string::npos) << e.error().message;
}

TEST(Format, SizeUsesExactSuffixes) {
  EXPECT_EQ(FormatSize(0, 1024), "0");
  EXPECT_EQ(FormatSize(512, 1024), "512");
  EXPECT_EQ(FormatSize(4096, 1024), "4k");
  EXPECT_EQ(FormatSize(1 << 20, 1024), "1m");
  EXPECT_EQ(FormatSize(3ull << 30, 1024), "3g");
  EXPECT_EQ(FormatSize(1000, 1024), "1000");
  EXPECT_EQ(FormatSize(6144, 1024), "6k");
  EXPECT_EQ(FormatSize(4000, 1000), "4k");
  EXPECT_EQ(FormatSize(4096, 1000), "4ki");
  EXPECT_EQ(FormatSize(1234, 1000), "1234");
}

TEST(Format, SizeReadsBack) {
  for (uint32_t kb : {1024u, 1000u}) {
    for (uint64_t v : {0ull, 1ull, 512ull, 1000ull, 4096ull, 4000ull, 1ull << 20, 1000000ull,
                       3ull << 40, 5000000000000ull, 12345ull, (1ull << 62)}) {
      auto back = FioParseSize(FormatSize(v, kb), kb);
      ASSERT_TRUE(back.ok()) << FormatSize(v, kb);
      EXPECT_EQ(back.value(), v) << FormatSize(v, kb) << " kb_base=" << kb;
    }
  }
}

TEST(Format, TimeUsesLargestExactUnit) {
  EXPECT_EQ(FormatTime(microseconds(0)), "0");
  EXPECT_EQ(FormatTime(microseconds(10'000'000)), "10s");
  EXPECT_EQ(FormatTime(microseconds(120'000'000)), "2m");
  EXPECT_EQ(FormatTime(microseconds(90'000'000)), "90s");
  EXPECT_EQ(FormatTime(microseconds(7200'000'000)), "2h");
  EXPECT_EQ(FormatTime(microseconds(86400'000'000)), "1d");
  EXPECT_EQ(FormatTime(microseconds(500'000)), "500ms");
  EXPECT_EQ(FormatTime(microseconds(7)), "7us");
  for (int64_t us : {1LL, 999LL, 1000LL, 1001LL, 60'000'000LL, 61'000'000LL, 3'600'000'001LL}) {
    auto back = ParseTime(FormatTime(microseconds(us)), kMicrosPerSecond);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back.value(), microseconds(us));
  }
}

TEST(Format, DoubleIsShortestExact) {
  EXPECT_EQ(FormatDouble(99.5), "99.5");
  EXPECT_EQ(FormatDouble(1.1), "1.1");
  EXPECT_EQ(FormatDouble(50), "50");
  EXPECT_EQ(FormatDouble(99.99), "99.99");
}

}  // namespace
}  // namespace blk::bench
