#include "tools/block_bench/format/format.h"

#include <cmath>
#include <cstdio>

namespace blk::bench {
namespace {

int Digits(uint64_t v) { return int(std::to_string(v).size()); }

// An integer that int64_t holds (trace-info's test, kept for its output).
bool IsWhole(double x) { return x >= -0x1p63 && x < 0x1p63 && std::trunc(x) == x; }

const ScaleStep& StepOf(double v, const Scale& scale) {
  const double key = scale.by_magnitude ? std::abs(v) : v;
  for (size_t i = 0; i + 1 < scale.steps.size(); i++)
    if (key >= scale.steps[i].from) return scale.steps[i];
  return scale.steps.back();
}

}  // namespace

std::string NumToStr(uint64_t num, int maxlen, bool pow2, const char* unit) {
  static const char* const kSiPrefix[] = {"", "k", "M", "G", "T", "P", "E"};
  static const char* const kIecPrefix[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  constexpr int kPrefixes = 7;
  const char* const* prefix = pow2 ? kIecPrefix : kSiPrefix;
  const uint64_t thousand = pow2 ? 1024 : 1000;
  int p = 0;
  bool divided = false, carry = false;
  uint64_t rest = 0;  // the last division's remainder
  while (p < kPrefixes && Digits(num) > maxlen) {
    rest = num % thousand;
    num /= thousand;
    carry = rest >= thousand / 2;
    divided = true;
    p++;
  }
  if (p >= kPrefixes) p = 0;  // fio's fallback (maxlen 1 and a number near 2^64)
  char buf[512];
  const int room = maxlen - Digits(num);
  if (divided && room > 1) {
    // The remainder as room-1 decimals; rounding up to a whole one carries.
    char frac[512];
    std::snprintf(frac, sizeof frac, "%.*f", room - 1, double(rest) / double(thousand));
    if (frac[0] == '1') num++;
    std::snprintf(buf, sizeof buf, "%llu.%s%s%s", (unsigned long long)num, frac + 2, prefix[p],
                  unit);
    return buf;
  }
  if (divided && carry) num++;
  std::snprintf(buf, sizeof buf, "%llu%s%s", (unsigned long long)num, prefix[p], unit);
  return buf;
}

std::string FormatScaled(double v, const Scale& scale) {
  const ScaleStep& s = StepOf(v, scale);
  const double x = v / s.div;
  char buf[64];
  if (s.decimals == kShortest) {
    std::snprintf(buf, sizeof buf, "%g%s", x, s.suffix);
  } else {
    const int decimals = s.whole_plain && IsWhole(x) ? 0 : s.decimals;
    std::snprintf(buf, sizeof buf, "%.*f%s", decimals, x, s.suffix);
  }
  return buf;
}

}  // namespace blk::bench
