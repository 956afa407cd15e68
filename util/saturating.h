// Overflow-free arithmetic on int64 times and durations (nanoseconds).
//
// Two kinds, for the two places outside times are handled:
//  * Checked* (parsers): the exact result, or false when it does not fit in
//    int64 -- the caller refuses the input with a message.
//  * Sat* (schedules): the exact result clamped to [INT64_MIN, INT64_MAX].
//    A due time that saturates at INT64_MAX (kNeverNs) is "never": it lies
//    past every runtime, so the I/O is not issued and the job ends at its
//    runtime; a sleep until it lasts until the clone's sleeps are cancelled
//    (interrupt, runtime).  Saturation never turns a late time into an
//    early one, which wrap-around (the optimised build's signed overflow)
//    does: a record due in 292 years was issued at once.
//
// None of these has undefined behaviour for any argument, except the
// REQUIRES below.  Thread-safety: pure functions.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace blk {

// A due time that never comes.
inline constexpr int64_t kNeverNs = std::numeric_limits<int64_t>::max();

// ---- Checked: false on overflow (*out is then unspecified) ----

constexpr bool CheckedAdd(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
constexpr bool CheckedSub(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_sub_overflow(a, b, out);
}
constexpr bool CheckedMul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

// ---- Saturating: the exact result clamped to int64's range ----

constexpr int64_t Clamp128(__int128 v) {
  constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
  constexpr __int128 kMin = std::numeric_limits<int64_t>::min();
  return v > kMax ? int64_t(kMax) : v < kMin ? int64_t(kMin) : int64_t(v);
}

constexpr int64_t SatAdd(int64_t a, int64_t b) { return Clamp128(__int128(a) + b); }
constexpr int64_t SatSub(int64_t a, int64_t b) { return Clamp128(__int128(a) - b); }
constexpr int64_t SatMul(int64_t a, int64_t b) { return Clamp128(__int128(a) * b); }

// a * num / den, rounded toward zero, computed exactly (the product is not
// rounded first) and clamped.  Scales a time by a ratio: a trace time by
// 100 / replay_time_scale, microseconds to ns (num 1000, den 1).
// REQUIRES: den > 0, |num| < 2^63 (any int64 other than INT64_MIN).
constexpr int64_t SatMulDiv(int64_t a, int64_t num, int64_t den) {
  return Clamp128(__int128(a) * num / den);
}

// `v` rounded toward zero and clamped; NaN gives 0.  (A double outside
// int64's range converted with a plain cast is undefined behaviour.)
inline int64_t SatFromDouble(double v) {
  if (std::isnan(v)) return 0;
  // 2^63 is exact in double; every double below it converts.
  if (v >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
  if (v <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return int64_t(v);
}

}  // namespace blk
