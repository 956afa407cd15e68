// Tests for block/option_values.h: the size, integer and boolean syntaxes.
#include <blkstack/block/option_values.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <string>

#include "tests/block/option_test_util.h"

namespace blk {
namespace {

using testing::FailsWith;

// ---- ParseSize --------------------------------------------------------------

uint64_t Size(std::string_view s) {
  auto r = ParseSize(s);
  EXPECT_TRUE(r.ok()) << s << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : ~uint64_t{0};
}

TEST(ParseSizeTest, EverySuffix) {
  EXPECT_EQ(Size("0"), 0u);
  EXPECT_EQ(Size("512"), 512u);
  EXPECT_EQ(Size("512b"), 512u);
  EXPECT_EQ(Size("512B"), 512u);
  const char* letters[] = {"K", "M", "G", "T", "P", "E"};
  for (int i = 0; i < 6; ++i) {
    const uint64_t unit = uint64_t{1} << (10 * (i + 1));
    std::string up = letters[i];
    std::string low(1, static_cast<char>(up[0] - 'A' + 'a'));
    EXPECT_EQ(Size("3" + up), 3 * unit) << up;
    EXPECT_EQ(Size("3" + low), 3 * unit) << low;
    EXPECT_EQ(Size("3" + up + "iB"), 3 * unit) << up << "iB";
  }
  EXPECT_EQ(Size("1KiB"), 1024u);
  EXPECT_EQ(Size("1MiB"), 1048576u);
  EXPECT_EQ(Size("1GiB"), 1073741824u);
  EXPECT_EQ(Size("1TiB"), uint64_t{1} << 40);
  EXPECT_EQ(Size("007K"), 7168u);
}

TEST(ParseSizeTest, Fractions) {
  EXPECT_EQ(Size("1.5G"), 3u << 29);
  EXPECT_EQ(Size("0.5K"), 512u);
  EXPECT_EQ(Size("1.25M"), 1310720u);
  EXPECT_EQ(Size("2.0"), 2u);
  EXPECT_EQ(Size("0.0009765625K"), 1u);  // 2^-10 KiB
  EXPECT_EQ(Size("1.500000000000000000000000000000K"), 1536u);  // zeros are free

  for (const char* s : {"1.5", "0.1K", "1.0000001K", "0.3B"}) {
    auto r = ParseSize(s);
    EXPECT_TRUE(FailsWith(r, {std::string("'") + s + "'", "whole number of bytes"})) << s;
    EXPECT_EQ(r.error().code, -EINVAL);
  }
  EXPECT_TRUE(FailsWith(ParseSize("1.0000000000000000001K"), {"too many fractional digits"}));
}

TEST(ParseSizeTest, Maximum) {
  EXPECT_EQ(Size("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(Size("15E"), uint64_t{15} << 60);
  EXPECT_EQ(Size("16383P"), uint64_t{16383} << 50);
  EXPECT_EQ(Size("0xffffffffffffffff"), UINT64_MAX);
  EXPECT_EQ(Size("18014398509481983.9990234375K"), UINT64_MAX);  // (2^54 - 2^-10) KiB
}

TEST(ParseSizeTest, OverflowIsError) {
  for (const char* s : {"16E", "16384P", "18446744073709551616", "99999999999999999999999K",
                        "16.5E", "18014398509481984.5K", "0x10000000000000000"}) {
    auto r = ParseSize(s);
    EXPECT_TRUE(FailsWith(r, {std::string("'") + s + "'", "too large"})) << s;
    EXPECT_EQ(r.error().code, -ERANGE) << s;
  }
}

TEST(ParseSizeTest, NegativeIsError) {
  for (const char* s : {"-1", "-1G", "-0"}) {
    auto r = ParseSize(s);
    EXPECT_TRUE(FailsWith(r, {std::string("invalid size '") + s + "'", "negative"})) << s;
    EXPECT_EQ(r.error().code, -EINVAL);
  }
}

TEST(ParseSizeTest, GarbageIsError) {
  for (const char* s : {"", "abc", "G", "1X", "1KB", "1Kib", "1 G", " 1", "1 ", "1.", "1.G",
                        ".5G", "+1", "1e3", "0x", "0x1G", "1GG"}) {
    auto r = ParseSize(s);
    EXPECT_TRUE(FailsWith(r, {std::string("invalid size '") + s + "'"})) << s;
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, -EINVAL) << s;
    }
  }
  EXPECT_TRUE(FailsWith(ParseSize("1X"), {"unknown suffix 'X'"}));
}

TEST(ParseSizeTest, HexWithoutSuffix) {
  EXPECT_EQ(Size("0x1000"), 4096u);
  EXPECT_EQ(Size("0X1f"), 31u);
}

// ---- ParseInt ---------------------------------------------------------------

int64_t Int(std::string_view s) {
  auto r = ParseInt(s);
  EXPECT_TRUE(r.ok()) << s << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : -12345;
}

TEST(ParseIntTest, Accepts) {
  EXPECT_EQ(Int("0"), 0);
  EXPECT_EQ(Int("42"), 42);
  EXPECT_EQ(Int("-42"), -42);
  EXPECT_EQ(Int("+7"), 7);
  EXPECT_EQ(Int("010"), 10);
  EXPECT_EQ(Int("0x10"), 16);
  EXPECT_EQ(Int("0X1f"), 31);
  EXPECT_EQ(Int("-0x10"), -16);
  EXPECT_EQ(Int("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(Int("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(Int("0x7fffffffffffffff"), INT64_MAX);
  EXPECT_EQ(Int("-0x8000000000000000"), INT64_MIN);
}

TEST(ParseIntTest, OverflowIsError) {
  for (const char* s : {"9223372036854775808", "-9223372036854775809", "0x8000000000000000",
                        "99999999999999999999999", "-0x10000000000000000"}) {
    auto r = ParseInt(s);
    EXPECT_TRUE(FailsWith(r, {std::string("invalid integer '") + s + "'", "out of range"})) << s;
    EXPECT_EQ(r.error().code, -ERANGE) << s;
  }
}

TEST(ParseIntTest, StrictSyntax) {
  for (const char* s : {"", "-", "+", "12abc", " 1", "1 ", "0x", "1.5", "0x-1", "--1", "+-1",
                        "1G", "0xg", "abc"}) {
    auto r = ParseInt(s);
    EXPECT_TRUE(FailsWith(r, {std::string("invalid integer '") + s + "'"})) << s;
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, -EINVAL) << s;
    }
  }
}

// ---- ParseBool --------------------------------------------------------------

TEST(ParseBoolTest, AcceptsAllSpellings) {
  for (const char* s : {"on", "true", "yes", "1", "ON", "True", "YES"}) {
    auto r = ParseBool(s);
    ASSERT_TRUE(r.ok()) << s;
    EXPECT_TRUE(r.value()) << s;
  }
  for (const char* s : {"off", "false", "no", "0", "OFF", "False", "No"}) {
    auto r = ParseBool(s);
    ASSERT_TRUE(r.ok()) << s;
    EXPECT_FALSE(r.value()) << s;
  }
}

TEST(ParseBoolTest, RejectsOthers) {
  for (const char* s : {"", "2", "onn", "y", "n", "enable", " on", "-1"}) {
    auto r = ParseBool(s);
    EXPECT_TRUE(FailsWith(r, {std::string("invalid boolean '") + s + "'", "on/off"})) << s;
  }
}

// ---- Scan* ------------------------------------------------------------------

TEST(ScanTest, SameValuesAsParse) {
  uint64_t u = 0;
  int64_t i = 0;
  bool b = false;
  ValueError err;
  ASSERT_TRUE(ScanSize("1.5K", &u, &err));
  EXPECT_EQ(u, 1536u);
  ASSERT_TRUE(ScanInt("-0x10", &i, &err));
  EXPECT_EQ(i, -16);
  ASSERT_TRUE(ScanBool("Yes", &b, &err));
  EXPECT_TRUE(b);
}

TEST(ScanTest, ReasonAloneWithParsesCode) {
  uint64_t u = 0;
  int64_t i = 0;
  bool b = false;
  ValueError err;
  ASSERT_FALSE(ScanSize("20E", &u, &err));
  EXPECT_EQ(err.code, -ERANGE);
  EXPECT_EQ(err.why, "too large (at most 16E - 1 bytes)");
  ASSERT_FALSE(ScanInt("12x", &i, &err));
  EXPECT_EQ(err.code, -EINVAL);
  EXPECT_EQ(err.why, "not an integer");
  ASSERT_FALSE(ScanBool("maybe", &b, &err));
  EXPECT_EQ(err.code, -EINVAL);
  EXPECT_EQ(err.why.find("maybe"), std::string::npos) << err.why;
  // Parse* puts the same reason after the quoted value.
  auto p = ParseSize("20E");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, -ERANGE);
  EXPECT_EQ(p.error().message, "invalid size '20E': too large (at most 16E - 1 bytes)");
}

}  // namespace
}  // namespace blk
