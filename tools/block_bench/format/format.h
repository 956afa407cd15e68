// Human-readable figures for block-bench's outputs: fio's num2str
// (NumToStr) for the text report, and FormatScaled, a value written in the
// largest unit of a ladder it reaches ("12.3k", "1.500ms", "4.0KiB"), for
// the plots and --trace-info.  The ladders the outputs use are defined
// here; where two outputs print the same quantity differently (a plot's
// tick "1.5ms" against --trace-info's "1.500ms"), the difference is which
// ladder they pass, not a second formatter.
//
// Not for option values: jobfile/units.h renders those so that they parse
// back (FormatSize, FormatTime).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace blk::bench {

// fio's num2str, for the text report's figures: `num` divided by 1000
// (pow2: 1024) until it has at most `maxlen` digits, then the last
// division's remainder as decimals where `maxlen` leaves room for the point
// and one or more digits (else rounded into the integer), then the SI (k, M,
// ...) or IEC (Ki, Mi, ...) prefix and `unit`: "2398k", "12.3M", "9.77MiB",
// "9822MiB/s".  `maxlen` is fio's significant_figures (4 by default).
// REQUIRES: maxlen >= 1.
std::string NumToStr(uint64_t num, int maxlen, bool pow2, const char* unit = "");

// FormatScaled's decimals: printf's "%g" (6 significant digits, no trailing
// zeros) instead of a fixed number of them.
inline constexpr int kShortest = -1;

// One unit of a ladder: a value from `from` up prints as value / `div`
// with `decimals` ("%.Nf", or kShortest), then `suffix`.
struct ScaleStep {
  double from;
  double div;
  const char* suffix;
  int decimals;
  // A whole quotient (an integer in int64_t's range) prints without
  // decimals: "2" where 2.5 prints "2.5".
  bool whole_plain = false;
};

// A ladder: steps from the largest unit down; the last step takes every
// value below the others (its `from` is not read), and NaN.
struct Scale {
  std::span<const ScaleStep> steps;
  // Compare |value| with `from` (negative values scale too); else the
  // value itself (negative values take the last step).
  bool by_magnitude = false;
};

// `v` in the first step of `scale` it reaches.  REQUIRES: scale.steps is
// not empty.
std::string FormatScaled(double v, const Scale& scale);

// Nanoseconds in s, ms, us or ns, shortest: "1.5s", "12.5us", "850ns".
inline constexpr ScaleStep kSecondsShortestSteps[] = {{1e9, 1e9, "s", kShortest},
                                                      {1e6, 1e6, "ms", kShortest},
                                                      {1e3, 1e3, "us", kShortest},
                                                      {0, 1, "ns", kShortest}};
inline constexpr Scale kSecondsShortest{kSecondsShortestSteps};

// Nanoseconds with fixed decimals: "1.500s", "2.250ms", "12.5us", "850ns".
inline constexpr ScaleStep kSecondsFixedSteps[] = {
    {1e9, 1e9, "s", 3}, {1e6, 1e6, "ms", 3}, {1e3, 1e3, "us", 1}, {0, 1, "ns", 0}};
inline constexpr Scale kSecondsFixed{kSecondsFixedSteps};

// A number with an SI prefix from 1000 up, by magnitude, shortest:
// "12.3k", "-4.5M", "1G", "900", "0.25".
inline constexpr ScaleStep kSiShortestSteps[] = {{1e9, 1e9, "G", kShortest},
                                                 {1e6, 1e6, "M", kShortest},
                                                 {1e3, 1e3, "k", kShortest},
                                                 {0, 1, "", kShortest}};
inline constexpr Scale kSiShortest{kSiShortestSteps, /*by_magnitude=*/true};

// A count, one decimal, "k" only from 10000 up: "1.5M", "12.3k", "9999",
// "2.5".
inline constexpr ScaleStep kSiCountSteps[] = {
    {1e6, 1e6, "M", 1}, {1e4, 1e3, "k", 1}, {0, 1, "", 1, /*whole_plain=*/true}};
inline constexpr Scale kSiCount{kSiCountSteps};

// Bytes in IEC units up to EiB, one decimal from KiB up: "512B", "4.0KiB",
// "1.5GiB".
inline constexpr ScaleStep kIecBytesSteps[] = {
    {0x1p60, 0x1p60, "EiB", 1}, {0x1p50, 0x1p50, "PiB", 1}, {0x1p40, 0x1p40, "TiB", 1},
    {0x1p30, 0x1p30, "GiB", 1}, {0x1p20, 0x1p20, "MiB", 1}, {0x1p10, 0x1p10, "KiB", 1},
    {0, 1, "B", 0}};
inline constexpr Scale kIecBytes{kIecBytesSteps};

}  // namespace blk::bench
