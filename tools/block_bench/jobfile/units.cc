#include "tools/block_bench/jobfile/units.h"

#include <array>
#include <cctype>
#include <charconv>

namespace blk::bench {
namespace {

constexpr std::string_view kPrefixes = "kmgtp";

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

uint64_t Power(uint64_t base, int exp) {
  uint64_t r = 1;
  while (exp-- > 0) r *= base;
  return r;
}

}  // namespace

std::optional<uint64_t> SizeSuffixMultiplier(std::string_view suffix, uint32_t kb_base) {
  const std::string s = Lower(suffix);
  if (s.empty() || s == "b") return 1;
  const size_t prefix = kPrefixes.find(s[0]);
  if (prefix == std::string_view::npos) return std::nullopt;
  const std::string_view rest = std::string_view(s).substr(1);
  const int exp = static_cast<int>(prefix) + 1;
  if (rest.empty() || rest == "b") return Power(kb_base, exp);
  if (rest == "i" || rest == "ib") {
    // fio: the IEC spelling means the *other* base (see header).
    return Power(kb_base == 1024 ? 1000 : 1024, exp);
  }
  return std::nullopt;
}

std::optional<uint64_t> TimeSuffixMicros(std::string_view suffix) {
  const std::string s = Lower(suffix);
  if (s == "us" || s == "usec") return 1;
  if (s == "ms" || s == "msec") return 1000;
  if (s == "s" || s == "sec") return 1000000;
  if (s == "m" || s == "min") return 60ull * 1000000;
  if (s == "h") return 3600ull * 1000000;
  if (s == "d") return 86400ull * 1000000;
  return std::nullopt;
}

std::string FormatSize(uint64_t bytes, uint32_t kb_base) {
  if (bytes == 0) return "0";
  // Under kb_base=1000 prefer decimal units, else binary ones; the suffix
  // spelling is whichever one means that base under this kb_base.
  const std::array<uint64_t, 2> bases =
      kb_base == 1000 ? std::array<uint64_t, 2>{1000, 1024} : std::array<uint64_t, 2>{1024, 0};
  for (uint64_t base : bases) {
    if (base == 0) continue;
    const bool iec = base != kb_base;
    for (int exp = 5; exp >= 1; --exp) {
      const uint64_t unit = Power(base, exp);
      if (bytes % unit != 0) continue;
      std::string out = std::to_string(bytes / unit);
      out += kPrefixes[exp - 1];
      if (iec) out += 'i';
      return out;
    }
  }
  return std::to_string(bytes);
}

std::string FormatTime(std::chrono::microseconds t) {
  const uint64_t us = static_cast<uint64_t>(t.count());
  if (us == 0) return "0";
  struct Unit {
    uint64_t micros;
    const char* suffix;
  };
  static constexpr Unit kUnits[] = {{86400ull * 1000000, "d"}, {3600ull * 1000000, "h"},
                                    {60ull * 1000000, "m"},    {1000000, "s"},
                                    {1000, "ms"},              {1, "us"}};
  for (const Unit& u : kUnits) {
    if (us % u.micros == 0) return std::to_string(us / u.micros) + u.suffix;
  }
  return std::to_string(us) + "us";
}

std::string FormatDouble(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

}  // namespace blk::bench
