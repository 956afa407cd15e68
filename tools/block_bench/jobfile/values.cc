#include "tools/block_bench/jobfile/values.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include "tools/block_bench/jobfile/expr.h"
#include "tools/block_bench/jobfile/units.h"
#include <blkstack/util/quote.h>

namespace blk::bench {
namespace {

// "expected WHAT, got 'GOT'", then ": WHY" when an expression said why it
// has no value.
Error Want(std::string_view what, std::string_view got, const std::string& why = "") {
  return MakeError(-EINVAL, "expected " + std::string(what) + ", got " + QuoteInput(got) +
                                (why.empty() ? "" : ": " + why));
}

// A number: "(expr)", "0x1f" or digits followed by an optional suffix.
struct Number {
  uint64_t value = 0;
  bool percent = false;
};

// Converts an expression result to an unsigned count, truncating fractions
// the way fio's integer evaluation does.
std::optional<uint64_t> ToUnsigned(double v) {
  if (!(v >= 0) || v >= 18446744073709551616.0) return std::nullopt;
  return static_cast<uint64_t>(std::floor(v));
}

// Nullopt if `text` is not a number; `why` is then set when an expression
// failed for a reason worth showing ("division by zero").
std::optional<Number> ParseNumber(std::string_view text, uint32_t kb_base, bool allow_percent,
                                  std::string* why) {
  if (text.empty()) return std::nullopt;
  if (text.front() == '(') {
    auto v = EvaluateArithmeticReason(text, [kb_base](std::string_view s) -> std::optional<double> {
      auto m = SizeSuffixMultiplier(s, kb_base);
      if (!m) return std::nullopt;
      return static_cast<double>(*m);
    });
    if (!v.ok()) {
      *why = std::move(v.error().message);
      return std::nullopt;
    }
    auto u = ToUnsigned(v.value());
    if (!u) return std::nullopt;
    return Number{*u, false};
  }
  uint64_t value = 0;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    const auto res = std::from_chars(text.data() + 2, text.data() + text.size(), value, 16);
    if (res.ec != std::errc() || res.ptr != text.data() + text.size()) return std::nullopt;
    return Number{value, false};
  }
  const auto res = std::from_chars(text.data(), text.data() + text.size(), value, 10);
  if (res.ec != std::errc() || res.ptr == text.data()) return std::nullopt;
  const std::string_view suffix = text.substr(res.ptr - text.data());
  if (suffix == "%") {
    if (!allow_percent) return std::nullopt;
    return Number{value, true};
  }
  const std::optional<uint64_t> mult = SizeSuffixMultiplier(suffix, kb_base);
  if (!mult) return std::nullopt;
  uint64_t out = 0;
  if (__builtin_mul_overflow(value, *mult, &out)) return std::nullopt;
  return Number{out, false};
}

// "an integer >= 1"; an upper bound is only spelled out when it is a real
// limit of the option rather than the size of its field.
std::string IntegerDomain(uint64_t min, uint64_t max) {
  if (max >= UINT32_MAX) {
    return min == 0 ? "a non-negative integer" : "an integer >= " + std::to_string(min);
  }
  return "an integer between " + std::to_string(min) + " and " + std::to_string(max);
}

}  // namespace

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

Expected<uint64_t> ParseInteger(std::string_view text, uint32_t kb_base, uint64_t min,
                                uint64_t max) {
  std::string why;
  const std::optional<Number> n = ParseNumber(text, kb_base, /*allow_percent=*/false, &why);
  if (!n || n->value < min || n->value > max) {
    Error e = Want(IntegerDomain(min, max), text, why);
    if (n && n->value > max && max >= UINT32_MAX) e.message += " (at most " + std::to_string(max) + ")";
    return e;
  }
  return n->value;
}

Expected<uint64_t> FioParseSize(std::string_view text, uint32_t kb_base, uint64_t min) {
  std::string why;
  const std::optional<Number> n = ParseNumber(text, kb_base, /*allow_percent=*/false, &why);
  if (!n || n->value < min) {
    std::string what = "a size";
    if (min > 0) what += " >= " + std::to_string(min);
    what += " (a number with an optional k/m/g/t/p suffix)";
    return Want(what, text, why);
  }
  return n->value;
}

Expected<SizeSpec> ParseSizeOrPercent(std::string_view text, uint32_t kb_base,
                                      uint64_t percent_min, uint64_t percent_max) {
  // "100%%" is 100 %, as fio reads it (fio stops at the first '%'; job files
  // written through printf-style templates double it).
  while (text.size() >= 2 && text.substr(text.size() - 2) == "%%") text.remove_suffix(1);
  std::string why;
  const std::optional<Number> n = ParseNumber(text, kb_base, /*allow_percent=*/true, &why);
  if (!n || (n->percent && (n->value < percent_min || n->value > percent_max))) {
    std::string what = "a size or a percentage (" + std::to_string(percent_min) + "%";
    what += percent_max == kNoMax ? " or more)" : " to " + std::to_string(percent_max) + "%)";
    return Want(what, text, why);
  }
  return SizeSpec{n->value, n->percent};
}

Expected<std::chrono::microseconds> ParseTime(std::string_view text, uint64_t default_unit_us) {
  const std::string what = std::string("a time (a number with an optional unit us/ms/s/m/h/d; ") +
                           (default_unit_us == 1 ? "default unit us)" : "default unit s)");
  if (!text.empty() && text.front() == '(') {
    auto v = EvaluateArithmeticReason(text, [](std::string_view s) -> std::optional<double> {
      auto m = TimeSuffixMicros(s);
      if (!m) return std::nullopt;
      return static_cast<double>(*m);
    });
    if (!v.ok()) return Want(what, text, v.error().message);
    std::optional<uint64_t> us = ToUnsigned(v.value());
    if (!us || *us > static_cast<uint64_t>(std::chrono::microseconds::max().count())) {
      return Want(what, text);
    }
    return std::chrono::microseconds(static_cast<int64_t>(*us));
  }
  uint64_t value = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), value, 10);
  if (res.ec != std::errc() || res.ptr == text.data()) return Want(what, text);
  const std::string_view suffix = text.substr(res.ptr - text.data());
  const std::optional<uint64_t> mult =
      suffix.empty() ? std::optional<uint64_t>(default_unit_us) : TimeSuffixMicros(suffix);
  uint64_t us = 0;
  if (!mult || __builtin_mul_overflow(value, *mult, &us) ||
      us > static_cast<uint64_t>(std::chrono::microseconds::max().count())) {
    return Want(what, text);
  }
  return std::chrono::microseconds(static_cast<int64_t>(us));
}

Expected<bool> FioParseBool(std::string_view text) {
  if (text == "0") return false;
  if (text == "1") return true;
  return Want("0 or 1", text);
}

Expected<bool> ParseFlag(std::optional<std::string_view> text) {
  if (!text) return true;
  std::string why;
  const std::optional<Number> n = ParseNumber(*text, 1024, /*allow_percent=*/false, &why);
  if (!n) return Want("no value, 0 or 1", *text, why);
  return n->value != 0;
}

Expected<double> ParseDouble(std::string_view text, double min, double max, bool min_exclusive) {
  double v = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
  const bool parsed = res.ec == std::errc() && res.ptr == text.data() + text.size() && !text.empty();
  if (!parsed || !std::isfinite(v) || v > max || v < min || (min_exclusive && v == min)) {
    std::string what = "a number in " + std::string(min_exclusive ? "(" : "[") +
                       FormatDouble(min) + ", " + FormatDouble(max) + "]";
    return Want(what, text);
  }
  return v;
}

std::vector<std::string_view> SplitTopLevel(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && depth > 0) --depth;
    if (text[i] == sep && depth == 0) {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(text.substr(start));
  return out;
}

std::optional<std::pair<std::string_view, std::string_view>> SplitRange(std::string_view text) {
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && depth > 0) --depth;
    if (i > 0 && depth == 0 && (text[i] == '-' || text[i] == ':')) {
      return std::make_pair(Trim(text.substr(0, i)), Trim(text.substr(i + 1)));
    }
  }
  return std::nullopt;
}

Expected<PerDir<std::optional<std::string>>> SplitPerDirection(std::string_view text) {
  const std::vector<std::string_view> parts = SplitTopLevel(text, ',');
  if (parts.size() > static_cast<size_t>(kNumDirs)) {
    return MakeError(-EINVAL, "expected at most 3 comma-separated values (read,write,trim), got " +
                                  QuoteInput(text));
  }
  PerDir<std::optional<std::string>> out;
  bool any = false;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string_view part = Trim(parts[i]);
    if (part.empty()) continue;
    any = true;
    out[i] = std::string(part);
    if (i + 1 == parts.size()) {
      for (size_t j = i + 1; j < static_cast<size_t>(kNumDirs); ++j) out[j] = std::string(part);
    }
  }
  if (!any) return MakeError(-EINVAL, "expected a value, got " + QuoteInput(text));
  return out;
}

Expected<std::vector<std::string>> SplitEscapedList(std::string_view text) {
  std::vector<std::string> out(1);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == ':') {
      out.back() += ':';
      ++i;
    } else if (text[i] == ':') {
      out.emplace_back();
    } else {
      out.back() += text[i];
    }
  }
  for (const std::string& item : out) {
    if (item.empty()) {
      return MakeError(-EINVAL, "expected a ':'-separated list of names without empty entries, got " +
                                    QuoteInput(text));
    }
  }
  return out;
}

std::string JoinEscapedList(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ':';
    for (char c : items[i]) {
      if (c == ':') out += '\\';
      out += c;
    }
  }
  return out;
}

}  // namespace blk::bench
