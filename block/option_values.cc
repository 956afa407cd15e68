#include <blkstack/block/option_values.h>

#include <cerrno>
#include <charconv>

#include <blkstack/util/quote.h>

namespace blk {
namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

}  // namespace

bool ScanSize(std::string_view s, uint64_t* out, ValueError* err) {
  __extension__ typedef unsigned __int128 u128;  // exact size arithmetic
  constexpr u128 kMax = UINT64_MAX;
  if (s.empty()) {
    *err = {-EINVAL, "empty"};
    return false;
  }
  if (s[0] == '-') {
    *err = {-EINVAL, "must not be negative"};
    return false;
  }
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    std::string_view hex = s.substr(2);
    auto [p, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), *out, 16);
    if (ec == std::errc::result_out_of_range) {
      *err = {-ERANGE, "too large (at most 16E - 1 bytes)"};
      return false;
    }
    if (ec != std::errc() || p != hex.data() + hex.size()) {
      *err = {-EINVAL, "bad hexadecimal number (hex takes no suffix)"};
      return false;
    }
    return true;
  }
  size_t i = 0;
  u128 whole = 0;
  bool whole_overflow = false;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    if (whole <= kMax) whole = whole * 10 + static_cast<unsigned>(s[i] - '0');
    if (whole > kMax) whole_overflow = true;
    ++i;
  }
  if (i == 0) {
    *err = {-EINVAL, "expected a number with an optional suffix B, K, M, G, T, P, E"};
    return false;
  }
  std::string_view frac;
  if (i < s.size() && s[i] == '.') {
    size_t start = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    frac = s.substr(start, i - start);
    if (frac.empty()) {
      *err = {-EINVAL, "expected digits after '.'"};
      return false;
    }
  }
  std::string_view suffix = s.substr(i);
  int shift = -1;
  if (suffix.empty() || suffix == "b" || suffix == "B") {
    shift = 0;
  } else if (suffix.size() == 1 || (suffix.size() == 3 && suffix.substr(1) == "iB")) {
    static constexpr std::string_view kUnits = "kmgtpe";
    size_t u = kUnits.find(Lower(suffix[0]));
    if (u != std::string_view::npos) shift = 10 * static_cast<int>(u + 1);
  }
  if (shift < 0) {
    *err = {-EINVAL, "unknown suffix " + QuoteInput(suffix) +
                         " (expected B, K, M, G, T, P, E or KiB, MiB, GiB, TiB, PiB, EiB)"};
    return false;
  }
  if (whole_overflow) {
    *err = {-ERANGE, "too large (at most 16E - 1 bytes)"};
    return false;
  }
  const u128 unit = u128{1} << shift;
  u128 total = whole * unit;  // < 2^64 * 2^60: no wrap
  frac = frac.substr(0, frac.find_last_not_of('0') + 1);
  if (!frac.empty()) {
    // 18 digits keep frac * unit below 2^120; finer fractions of a byte
    // count are not a real use.
    if (frac.size() > 18) {
      *err = {-EINVAL, "too many fractional digits"};
      return false;
    }
    u128 f = 0, scale = 1;
    for (char c : frac) {
      f = f * 10 + static_cast<unsigned>(c - '0');
      scale *= 10;
    }
    if ((f * unit) % scale != 0) {
      *err = {-EINVAL, "not a whole number of bytes"};
      return false;
    }
    total += f * unit / scale;
  }
  if (total > kMax) {
    *err = {-ERANGE, "too large (at most 16E - 1 bytes)"};
    return false;
  }
  *out = static_cast<uint64_t>(total);
  return true;
}

bool ScanInt(std::string_view s, int64_t* out, ValueError* err) {
  std::string_view digits = s;
  bool neg = false;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    neg = digits[0] == '-';
    digits.remove_prefix(1);
  }
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits.remove_prefix(2);
  }
  uint64_t mag = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), mag, base);
  if (digits.empty() || (ec != std::errc() && ec != std::errc::result_out_of_range) ||
      p != digits.data() + digits.size()) {
    *err = {-EINVAL, "not an integer"};
    return false;
  }
  const uint64_t limit = neg ? uint64_t{1} << 63 : uint64_t{INT64_MAX};
  if (ec == std::errc::result_out_of_range || mag > limit) {
    *err = {-ERANGE, "out of range for a 64-bit integer"};
    return false;
  }
  // Two's-complement negation of the magnitude; exact for -2^63 too.
  *out = neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
  return true;
}

bool ScanBool(std::string_view s, bool* out, ValueError* err) {
  static constexpr std::string_view kTrue[] = {"on", "true", "yes", "1"};
  static constexpr std::string_view kFalse[] = {"off", "false", "no", "0"};
  for (auto t : kTrue) {
    if (EqualsIgnoreCase(s, t)) return *out = true, true;
  }
  for (auto f : kFalse) {
    if (EqualsIgnoreCase(s, f)) return *out = false, true;
  }
  *err = {-EINVAL, "expected on/off, true/false, yes/no or 1/0"};
  return false;
}

Expected<uint64_t> ParseSize(std::string_view text) {
  uint64_t v = 0;
  ValueError err;
  if (!ScanSize(text, &v, &err)) {
    return MakeError(err.code, "invalid size " + QuoteInput(text) + ": " + err.why);
  }
  return v;
}

Expected<int64_t> ParseInt(std::string_view text) {
  int64_t v = 0;
  ValueError err;
  if (!ScanInt(text, &v, &err)) {
    return MakeError(err.code, "invalid integer " + QuoteInput(text) + ": " + err.why);
  }
  return v;
}

Expected<bool> ParseBool(std::string_view text) {
  bool v = false;
  ValueError err;
  if (!ScanBool(text, &v, &err)) {
    return MakeError(err.code, "invalid boolean " + QuoteInput(text) + ": " + err.why);
  }
  return v;
}

}  // namespace blk
