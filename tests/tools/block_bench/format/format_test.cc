// NumToStr against fio's num2str, and FormatScaled with each ladder at the
// edges of its units, where a wrong comparison or rounding shows.
#include "tools/block_bench/format/format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace blk::bench {
namespace {

// Expected strings are fio 3.33's num2str for the same arguments.
TEST(NumToStr, LikeFio) {
  EXPECT_EQ(NumToStr(500, 4, false), "500");
  EXPECT_EQ(NumToStr(9999, 4, false), "9999");
  EXPECT_EQ(NumToStr(2398000, 4, false), "2398k");
  EXPECT_EQ(NumToStr(12345678, 4, false), "12.3M");
  EXPECT_EQ(NumToStr(12355678, 4, false), "12.4M");  // the remainder rounds
  EXPECT_EQ(NumToStr(9822ull * 1024 * 1024, 4, true, "B"), "9822MiB");
  EXPECT_EQ(NumToStr(10240000, 4, true, "B"), "9.77MiB");  // two decimals
  EXPECT_EQ(NumToStr(4194304, 4, true, "B"), "4096KiB");
  EXPECT_EQ(NumToStr(4194304, 4, false, "B"), "4194kB");
  EXPECT_EQ(NumToStr(4194304, 5, false, "B"), "4194kB");  // no room for "." and a digit
  EXPECT_EQ(NumToStr(4194304, 6, false, "B"), "4194.3kB");
  EXPECT_EQ(NumToStr(999999, 4, false), "1000k");  // fio's carry into the integer
  EXPECT_EQ(NumToStr(19999, 4, false), "20.0k");   // a rounded-up decimal carries
  EXPECT_EQ(NumToStr(123456789, 1, false), "0G");  // significant_figures=1
  EXPECT_EQ(NumToStr(123456789, 10, false), "123456789");
  EXPECT_EQ(NumToStr(8000000, 4, false, "B/s"), "8000kB/s");
  EXPECT_EQ(NumToStr(8000000, 4, true, "B/s"), "7813KiB/s");
}

TEST(NumToStr, DigitBoundaries) {
  EXPECT_EQ(NumToStr(0, 4, false), "0");
  EXPECT_EQ(NumToStr(10000, 4, false), "10.0k");  // the first number that divides
  EXPECT_EQ(NumToStr(1023, 4, true, "B"), "1023B");
  EXPECT_EQ(NumToStr(1024, 4, true, "B"), "1024B");  // four digits: not divided
  EXPECT_EQ(NumToStr(10240, 4, true, "B"), "10.0KiB");
  EXPECT_EQ(NumToStr(99999, 5, false), "99999");
  EXPECT_EQ(NumToStr(100000, 5, false), "100.0k");
}

TEST(NumToStr, RemainderRounding) {
  // Without room for a decimal the last remainder rounds half up.
  EXPECT_EQ(NumToStr(12499, 2, false), "12k");
  EXPECT_EQ(NumToStr(12500, 2, false), "13k");
  EXPECT_EQ(NumToStr(1535, 1, true), "1Ki");
  EXPECT_EQ(NumToStr(1536, 1, true), "2Ki");
  EXPECT_EQ(NumToStr(1999499, 4, false), "1999k");
  EXPECT_EQ(NumToStr(1999500, 4, false), "2000k");
  // Only the last division's remainder counts: 12345678 is 12.345678M, but
  // the decimal comes from 345 alone.
  EXPECT_EQ(NumToStr(12349999, 4, false), "12.3M");
  // With room, printf rounds the decimals; a whole one carries (fio prints
  // one digit more than maxlen then).
  EXPECT_EQ(NumToStr(9949, 3, false), "9.9k");
  EXPECT_EQ(NumToStr(9995, 3, false), "10.0k");
}

TEST(NumToStr, LargestNumbers) {
  const uint64_t max = std::numeric_limits<uint64_t>::max();  // 18446744073709551615
  EXPECT_EQ(NumToStr(max, 4, false, "B"), "18.4EB");
  EXPECT_EQ(NumToStr(max, 4, true, "B"), "16.0EiB");
  EXPECT_EQ(NumToStr(max, 20, false), "18446744073709551615");
  // Seven divisions leave no prefix: fio's fallback prints the bare 0.
  EXPECT_EQ(NumToStr(max, 1, false, "B"), "0B");
}

TEST(FormatScaled, SecondsShortest) {
  EXPECT_EQ(FormatScaled(0, kSecondsShortest), "0ns");
  EXPECT_EQ(FormatScaled(999, kSecondsShortest), "999ns");
  EXPECT_EQ(FormatScaled(1000, kSecondsShortest), "1us");
  EXPECT_EQ(FormatScaled(12500, kSecondsShortest), "12.5us");
  EXPECT_EQ(FormatScaled(999999, kSecondsShortest), "999.999us");
  EXPECT_EQ(FormatScaled(1e6, kSecondsShortest), "1ms");
  EXPECT_EQ(FormatScaled(1234567, kSecondsShortest), "1.23457ms");  // six digits
  EXPECT_EQ(FormatScaled(1.5e9, kSecondsShortest), "1.5s");
  EXPECT_EQ(FormatScaled(3.6e12, kSecondsShortest), "3600s");  // no minutes
  // Not by magnitude: a negative duration stays in ns.
  EXPECT_EQ(FormatScaled(-5e6, kSecondsShortest), "-5e+06ns");
}

TEST(FormatScaled, SecondsFixed) {
  EXPECT_EQ(FormatScaled(0, kSecondsFixed), "0ns");
  EXPECT_EQ(FormatScaled(999.6, kSecondsFixed), "1000ns");  // rounding does not change unit
  EXPECT_EQ(FormatScaled(1000, kSecondsFixed), "1.0us");
  EXPECT_EQ(FormatScaled(999999.9, kSecondsFixed), "1000.0us");
  EXPECT_EQ(FormatScaled(2.25e6, kSecondsFixed), "2.250ms");
  EXPECT_EQ(FormatScaled(1e9, kSecondsFixed), "1.000s");
  EXPECT_EQ(FormatScaled(1.0005e9, kSecondsFixed), "1.000s");  // 1.0005 is just below in binary
}

TEST(FormatScaled, SiShortest) {
  EXPECT_EQ(FormatScaled(0, kSiShortest), "0");
  EXPECT_EQ(FormatScaled(0.25, kSiShortest), "0.25");
  EXPECT_EQ(FormatScaled(999, kSiShortest), "999");
  EXPECT_EQ(FormatScaled(1000, kSiShortest), "1k");
  EXPECT_EQ(FormatScaled(12345, kSiShortest), "12.345k");
  EXPECT_EQ(FormatScaled(1e9, kSiShortest), "1G");
  EXPECT_EQ(FormatScaled(2.5e12, kSiShortest), "2500G");  // G is the largest
  // By magnitude: negative values scale too.
  EXPECT_EQ(FormatScaled(-4.5e6, kSiShortest), "-4.5M");
  EXPECT_EQ(FormatScaled(-999, kSiShortest), "-999");
}

TEST(FormatScaled, SiCount) {
  EXPECT_EQ(FormatScaled(0, kSiCount), "0");
  EXPECT_EQ(FormatScaled(2.5, kSiCount), "2.5");
  EXPECT_EQ(FormatScaled(9999, kSiCount), "9999");  // whole: no decimals
  EXPECT_EQ(FormatScaled(9999.5, kSiCount), "9999.5");
  EXPECT_EQ(FormatScaled(9999.96, kSiCount), "10000.0");  // not whole, rounds up in place
  EXPECT_EQ(FormatScaled(10000, kSiCount), "10.0k");      // k from 10000, not 1000
  EXPECT_EQ(FormatScaled(999999, kSiCount), "1000.0k");
  EXPECT_EQ(FormatScaled(1e6, kSiCount), "1.0M");  // whole only below 10000
  EXPECT_EQ(FormatScaled(std::nan(""), kSiCount), "nan");
}

TEST(FormatScaled, IecBytes) {
  EXPECT_EQ(FormatScaled(0, kIecBytes), "0B");
  EXPECT_EQ(FormatScaled(1023, kIecBytes), "1023B");
  EXPECT_EQ(FormatScaled(1023.6, kIecBytes), "1024B");
  EXPECT_EQ(FormatScaled(1024, kIecBytes), "1.0KiB");
  EXPECT_EQ(FormatScaled(1536, kIecBytes), "1.5KiB");
  EXPECT_EQ(FormatScaled(1048575, kIecBytes), "1024.0KiB");
  EXPECT_EQ(FormatScaled(1048576, kIecBytes), "1.0MiB");
  EXPECT_EQ(FormatScaled(0x1p60, kIecBytes), "1.0EiB");
  EXPECT_EQ(FormatScaled(double(std::numeric_limits<uint64_t>::max()), kIecBytes), "16.0EiB");
  EXPECT_EQ(FormatScaled(0x1p70, kIecBytes), "1024.0EiB");  // EiB is the largest
}

TEST(FormatScaled, OwnLadder) {
  static constexpr ScaleStep kSteps[] = {{100, 100, "h", 2}, {0, 1, "u", 1, true}};
  EXPECT_EQ(FormatScaled(99.99, Scale{kSteps}), "100.0u");
  EXPECT_EQ(FormatScaled(100, Scale{kSteps}), "1.00h");
  EXPECT_EQ(FormatScaled(-3, Scale{kSteps}), "-3u");
  EXPECT_EQ(FormatScaled(-300, Scale{kSteps}), "-300u");
  EXPECT_EQ(FormatScaled(-300, Scale{kSteps, true}), "-3.00h");
  static constexpr ScaleStep kOne[] = {{0, 10, "x", kShortest}};
  EXPECT_EQ(FormatScaled(1e300, Scale{kOne}), "1e+299x");  // one step takes everything
}

TEST(FormatScaled, WholeIsInInt64Range) {
  static constexpr ScaleStep kSteps[] = {{1e30, 1e30, "Q", 1}, {0, 1, "", 1, true}};
  EXPECT_EQ(FormatScaled(0x1p62, Scale{kSteps}), "4611686018427387904");
  EXPECT_EQ(FormatScaled(0x1p63, Scale{kSteps}), "9223372036854775808.0");
  EXPECT_EQ(FormatScaled(-0x1p63, Scale{kSteps}), "-9223372036854775808");
  EXPECT_EQ(FormatScaled(-0x1p64, Scale{kSteps}), "-18446744073709551616.0");
}

}  // namespace
}  // namespace blk::bench
