#include "block/options.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "util/quote.h"

namespace blk {
namespace {

// `text` in single quotes for a message, shortened and escaped so that one
// bad value cannot flood or garble a log line.
std::string Quote(std::string_view text) { return QuoteInput(text); }

Error Invalid(std::string msg) { return MakeError(-EINVAL, std::move(msg)); }

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '_';
}

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

// Builds a flat option list, rejecting duplicates and keys that are used both
// as a value and as a group (`file` and `file.driver`), which the tree view
// of a graph cannot represent.
class FlatBuilder {
 public:
  // Adds key=value.  `where` is appended to error messages (e.g. a position).
  Expected<void> Add(std::string key, std::string value, const std::string& where) {
    const size_t parts = static_cast<size_t>(std::count(key.begin(), key.end(), '.')) + 1;
    if (parts > kMaxKeyComponents) {
      return Invalid("spec: option " + Quote(key) + " has " + std::to_string(parts) +
                     " dot-separated parts, more than " + std::to_string(kMaxKeyComponents) +
                     where);
    }
    if (keys_.count(key)) return Invalid("spec: duplicate option " + Quote(key) + where);
    if (groups_.count(key)) {
      return Invalid("spec: option " + Quote(key) + " conflicts with " +
                     Quote(FirstUnder(key)) + where +
                     " (it cannot be both a value and a group)");
    }
    for (size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.', dot + 1)) {
      std::string group = key.substr(0, dot);
      if (keys_.count(group)) {
        return Invalid("spec: option " + Quote(key) + " conflicts with " + Quote(group) +
                       where + " (it cannot be both a value and a group)");
      }
      groups_.insert(std::move(group));
    }
    keys_.insert(key);
    opts_.Append(std::move(key), std::move(value));
    return {};
  }
  Options Take() { return std::move(opts_); }

 private:
  std::string FirstUnder(const std::string& group) const {
    std::string prefix = group + ".";
    for (const auto& k : opts_.Keys()) {
      if (k.compare(0, prefix.size(), prefix) == 0) return k;
    }
    return prefix;
  }

  Options opts_;
  std::unordered_set<std::string> keys_;
  std::unordered_set<std::string> groups_;
};

// ---- key=value syntax -------------------------------------------------------

Expected<Options> ParseKeyValue(std::string_view spec) {
  FlatBuilder out;
  if (spec.empty()) return out.Take();
  size_t pos = 0;
  while (true) {
    const size_t item = pos;
    // The raw item, up to the next comma, for "near '...'" in messages.
    auto near = [&] {
      size_t end = spec.find(',', item);
      return Quote(spec.substr(item, end == std::string_view::npos ? end : end - item));
    };
    size_t eq = item;
    while (eq < spec.size() && spec[eq] != '=' && spec[eq] != ',') ++eq;
    if (eq == spec.size() || spec[eq] == ',') {
      return Invalid("spec: expected 'key=value' at position " + std::to_string(item) +
                     " near " + near());
    }
    std::string key(spec.substr(item, eq - item));
    if (!Options::IsValidKey(key)) {
      return Invalid("spec: invalid option name " + Quote(key) + " at position " +
                     std::to_string(item) + " near " + near() +
                     " (expected dot-separated words of letters, digits, '-' and '_')");
    }
    std::string value;
    pos = eq + 1;
    bool more = false;
    while (pos < spec.size()) {
      if (spec[pos] == ',') {
        if (pos + 1 < spec.size() && spec[pos + 1] == ',') {
          value += ',';
          pos += 2;
          continue;
        }
        more = true;
        ++pos;
        break;
      }
      value += spec[pos++];
    }
    auto added = out.Add(std::move(key), std::move(value),
                         " at position " + std::to_string(item));
    if (!added) return added.error();
    if (!more) break;
    // A trailing comma would otherwise be silently dropped.
    if (pos == spec.size()) {
      return Invalid("spec: expected 'key=value' at position " + std::to_string(pos) +
                     " near '' (trailing comma)");
    }
  }
  return out.Take();
}

// ---- JSON syntax ------------------------------------------------------------

// Exact decimal text of a JSON number token (e.g. "-1.50e2" -> "-150"), or ""
// if it would be unreasonably long.
std::string DecimalText(const std::string& token) {
  constexpr size_t kMaxDigits = 100;
  std::string_view s = token;
  bool neg = false;
  if (!s.empty() && s[0] == '-') {
    neg = true;
    s.remove_prefix(1);
  }
  size_t e = s.find_first_of("eE");
  long exp = 0;
  if (e != std::string_view::npos) {
    std::string_view es = s.substr(e + 1);
    if (!es.empty() && es[0] == '+') es.remove_prefix(1);
    auto [p, ec] = std::from_chars(es.data(), es.data() + es.size(), exp);
    if (ec != std::errc() || p != es.data() + es.size()) exp = (es[0] == '-') ? -100000 : 100000;
    s = s.substr(0, e);
  }
  size_t dot = s.find('.');
  std::string digits(s.substr(0, dot));
  long point = static_cast<long>(digits.size()) + exp;
  if (dot != std::string_view::npos) digits += s.substr(dot + 1);
  // Drop leading zeros (moving the point) and trailing zeros; an all-zero
  // number is "0" regardless of its exponent.
  size_t lead = digits.find_first_not_of('0');
  if (lead == std::string::npos) return "0";
  digits.erase(0, lead);
  point -= static_cast<long>(lead);
  digits.erase(digits.find_last_not_of('0') + 1);
  long len = static_cast<long>(digits.size());
  if (point > static_cast<long>(kMaxDigits) || point < -static_cast<long>(kMaxDigits) ||
      len > static_cast<long>(kMaxDigits)) {
    return "";
  }
  std::string out = neg ? "-" : "";
  if (point <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-point), '0');
    out += digits;
  } else if (point >= len) {
    out += digits;
    out.append(static_cast<size_t>(point - len), '0');
  } else {
    out += digits.substr(0, static_cast<size_t>(point));
    out += '.';
    out += digits.substr(static_cast<size_t>(point));
  }
  return out;
}

// Flattens a JSON object into dotted keys while parsing, so that duplicate
// keys (which nlohmann::json would silently merge) are caught and the order
// of the text is kept.
class FlattenSax {
 public:
  using json = nlohmann::json;

  bool null() {
    if (depth_ == 0) return Fail("spec: JSON spec must be an object");
    return Fail("spec: option " + Quote(Current()) + ": JSON null is not supported");
  }
  bool boolean(bool v) { return Value(v ? "on" : "off"); }
  bool number_integer(json::number_integer_t v) { return Value(std::to_string(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return Value(std::to_string(v)); }
  bool number_float(json::number_float_t, const std::string& token) {
    std::string text = DecimalText(token);
    if (text.empty()) {
      return Fail("spec: option " + Quote(Current()) + ": number " + Quote(token) +
                  " is out of range");
    }
    return Value(std::move(text));
  }
  bool string(std::string& v) { return Value(std::move(v)); }
  bool binary(json::binary_t&) { return Fail("spec: invalid JSON: binary values are not supported"); }
  bool start_object(std::size_t) {
    if (depth_ >= kMaxJsonDepth) {
      return Fail("spec: JSON objects nested more than " + std::to_string(kMaxJsonDepth) +
                  " deep at " + Quote(Current()));
    }
    if (depth_ > 0) {
      prefixes_.push_back(Current());
      members_.push_back(0);
    }
    ++depth_;
    return true;
  }
  bool key(std::string& k) {
    if (k.empty() || !Options::IsValidKey(k)) {
      std::string parent = prefixes_.empty() ? "" : " in " + Quote(prefixes_.back());
      return Fail("spec: invalid option name " + Quote(k) + parent +
                  " (expected dot-separated words of letters, digits, '-' and '_')");
    }
    if (!members_.empty()) ++members_.back();
    key_ = std::move(k);
    return true;
  }
  bool end_object() {
    --depth_;
    if (depth_ > 0) {
      std::string group = std::move(prefixes_.back());
      prefixes_.pop_back();
      size_t members = members_.back();
      members_.pop_back();
      // An empty group would vanish from the flat form without a trace.
      if (members == 0) return Fail("spec: option " + Quote(group) + ": empty JSON object");
    }
    return true;
  }
  bool start_array(std::size_t) {
    if (depth_ == 0) return Fail("spec: JSON spec must be an object, got an array");
    return Fail("spec: option " + Quote(Current()) + ": JSON arrays are not supported");
  }
  bool end_array() { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) {
    return Fail("spec: invalid JSON: " + ShortenLastRead(ex.what()));
  }

  bool failed() const { return failed_; }
  const std::string& message() const { return message_; }
  Options Take() { return out_.Take(); }

 private:
  std::string Current() const {
    return prefixes_.empty() ? key_ : prefixes_.back() + "." + key_;
  }
  bool Value(std::string v) {
    if (depth_ == 0) return Fail("spec: JSON spec must be an object");
    auto added = out_.Add(Current(), std::move(v), "");
    if (!added) return Fail(added.error().message);
    return true;
  }
  bool Fail(std::string msg) {
    if (!failed_) {
      failed_ = true;
      message_ = std::move(msg);
    }
    return false;
  }

  // nlohmann's parse errors end "; last read: '<token>'", with the whole
  // token (a string may be megabytes): shorten it like any quoted input.
  static std::string ShortenLastRead(std::string_view msg) {
    constexpr std::string_view kLastRead = "; last read: '";
    const size_t at = msg.find(kLastRead);
    if (at == std::string_view::npos || msg.back() != '\'') return std::string(msg);
    const size_t token = at + kLastRead.size();
    return std::string(msg.substr(0, at)) + "; last read: " +
           Quote(msg.substr(token, msg.size() - 1 - token));
  }

  FlatBuilder out_;
  std::vector<std::string> prefixes_;  // dotted path of each open nested object
  std::vector<size_t> members_;        // member count of each open nested object
  std::string key_;
  size_t depth_ = 0;
  bool failed_ = false;
  std::string message_;
};

Expected<Options> ParseJson(std::string_view text) {
  FlattenSax sax;
  bool ok = nlohmann::json::sax_parse(text, &sax);
  if (!ok || sax.failed()) {
    return Invalid(sax.failed() ? sax.message() : std::string("spec: invalid JSON"));
  }
  return sax.Take();
}

// ---- value syntaxes ---------------------------------------------------------

struct ValueError {
  int code;
  std::string why;
};

// Parses a size; on failure fills `err` with a reason that does not repeat
// the value.
bool SizeImpl(std::string_view s, uint64_t* out, ValueError* err) {
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
    *err = {-EINVAL, "unknown suffix " + Quote(suffix) +
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

bool IntImpl(std::string_view s, int64_t* out, ValueError* err) {
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

bool BoolImpl(std::string_view s, bool* out, ValueError* err) {
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

// ---- schema -----------------------------------------------------------------

bool IsChildKey(std::string_view key, const std::vector<std::string>& children) {
  for (const auto& c : children) {
    if (key.size() >= c.size() && key.compare(0, c.size(), c) == 0 &&
        (key.size() == c.size() || key[c.size()] == '.')) {
      return true;
    }
  }
  return false;
}

std::string RangeText(const OptionSpec& spec) {
  bool is_size = spec.type == OptionSpec::Type::kSize;
  bool has_min = is_size ? spec.min > 0 : spec.min != INT64_MIN;
  // A size above INT64_MAX is a real limit: the type reaches UINT64_MAX.
  bool has_max = spec.max != INT64_MAX || is_size;
  if (has_min && has_max) {
    return "between " + std::to_string(spec.min) + " and " + std::to_string(spec.max);
  }
  if (has_min) return "at least " + std::to_string(spec.min);
  if (has_max) return "at most " + std::to_string(spec.max);
  return "";
}

struct Typed {
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
};

// Parses `text` as a value of `spec` into `t`.  On failure sets `why` to the
// rest of a message that starts "option 'name' ".
bool ParseTyped(const OptionSpec& spec, const std::string& text, Typed* t, std::string* why) {
  using T = OptionSpec::Type;
  ValueError err;
  switch (spec.type) {
    case T::kString:
      return true;
    case T::kBool:
      if (BoolImpl(text, &t->b, &err)) return true;
      *why = "expects on/off, got " + Quote(text);
      return false;
    case T::kInt:
      if (!IntImpl(text, &t->i, &err)) {
        *why = "expects an integer, got " + Quote(text) + " (" + err.why + ")";
        return false;
      }
      if (t->i < spec.min || t->i > spec.max) {
        *why = "must be " + RangeText(spec) + ", got " + Quote(text);
        return false;
      }
      return true;
    case T::kSize: {
      if (!SizeImpl(text, &t->u, &err)) {
        *why = "expects a size like 1G, got " + Quote(text) + " (" + err.why + ")";
        return false;
      }
      bool low = spec.min > 0 && t->u < static_cast<uint64_t>(spec.min);
      bool high = spec.max < 0 || t->u > static_cast<uint64_t>(spec.max);
      if (low || high) {
        *why = "must be " + RangeText(spec) + " bytes, got " + Quote(text);
        return false;
      }
      return true;
    }
    case T::kEnum:
      if (std::find(spec.enum_values.begin(), spec.enum_values.end(), text) !=
          spec.enum_values.end()) {
        return true;
      }
      *why = "must be one of: " + Join(spec.enum_values, ", ") + "; got " + Quote(text);
      return false;
  }
  *why = "has an unknown type";
  return false;
}

}  // namespace

// ---- Options ----------------------------------------------------------------

Expected<Options> Options::Parse(std::string_view spec) {
  constexpr std::string_view kJsonPrefix = "json:";
  if (spec.substr(0, kJsonPrefix.size()) == kJsonPrefix) {
    return ParseJson(spec.substr(kJsonPrefix.size()));
  }
  size_t first = spec.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && spec[first] == '{') return ParseJson(spec);
  return ParseKeyValue(spec);
}

bool Options::IsValidKey(std::string_view key) {
  if (key.empty()) return false;
  size_t word = 0;
  for (char c : key) {
    if (c == '.') {
      if (word == 0) return false;
      word = 0;
    } else if (IsKeyChar(c)) {
      ++word;
    } else {
      return false;
    }
  }
  return word > 0;
}

const std::string* Options::Get(std::string_view key) const {
  for (const auto& [k, v] : entries_) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool Options::Has(std::string_view key) const { return Get(key) != nullptr; }

void Options::Set(std::string_view key, std::string value) {
  for (auto& [k, v] : entries_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  entries_.emplace_back(std::string(key), std::move(value));
}

void Options::Append(std::string key, std::string value) {
  entries_.emplace_back(std::move(key), std::move(value));
}

bool Options::Erase(std::string_view key) {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const auto& e) { return e.first == key; });
  if (it == entries_.end()) return false;
  entries_.erase(it);
  return true;
}

std::vector<std::string> Options::Keys() const {
  std::vector<std::string> keys;
  keys.reserve(entries_.size());
  for (const auto& e : entries_) keys.push_back(e.first);
  return keys;
}

Options Options::TakeSubtree(std::string_view prefix) {
  Options sub;
  auto in_subtree = [&](const std::string& k) {
    return k.size() > prefix.size() + 1 && k.compare(0, prefix.size(), prefix) == 0 &&
           k[prefix.size()] == '.';
  };
  std::vector<std::pair<std::string, std::string>> rest;
  rest.reserve(entries_.size());
  for (auto& e : entries_) {
    if (in_subtree(e.first)) {
      sub.entries_.emplace_back(e.first.substr(prefix.size() + 1), std::move(e.second));
    } else {
      rest.push_back(std::move(e));
    }
  }
  entries_ = std::move(rest);
  return sub;
}

std::string Options::ToString() const {
  std::string out;
  for (const auto& [k, v] : entries_) {
    if (!out.empty()) out += ',';
    out += k;
    out += '=';
    for (char c : v) {
      out += c;
      if (c == ',') out += ',';
    }
  }
  return out;
}

// ---- value syntaxes ---------------------------------------------------------

Expected<uint64_t> ParseSize(std::string_view text) {
  uint64_t v = 0;
  ValueError err;
  if (!SizeImpl(text, &v, &err)) {
    return MakeError(err.code, "invalid size " + Quote(text) + ": " + err.why);
  }
  return v;
}

Expected<int64_t> ParseInt(std::string_view text) {
  int64_t v = 0;
  ValueError err;
  if (!IntImpl(text, &v, &err)) {
    return MakeError(err.code, "invalid integer " + Quote(text) + ": " + err.why);
  }
  return v;
}

Expected<bool> ParseBool(std::string_view text) {
  bool v = false;
  ValueError err;
  if (!BoolImpl(text, &v, &err)) {
    return MakeError(err.code, "invalid boolean " + Quote(text) + ": " + err.why);
  }
  return v;
}

// ---- schema -----------------------------------------------------------------

std::string_view OptionTypeName(OptionSpec::Type type) {
  switch (type) {
    case OptionSpec::Type::kString: return "string";
    case OptionSpec::Type::kBool: return "bool";
    case OptionSpec::Type::kInt: return "int";
    case OptionSpec::Type::kSize: return "size";
    case OptionSpec::Type::kEnum: return "enum";
  }
  return "unknown";
}

bool ParsedOptions::has(std::string_view name) const { return values_.find(name) != values_.end(); }

bool ParsedOptions::given(std::string_view name) const {
  auto it = values_.find(name);
  return it != values_.end() && it->second.given;
}

const ParsedOptions::Value& ParsedOptions::Lookup(std::string_view name, OptionSpec::Type type,
                                                  const char* accessor) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.type != type) {
    // A caller bug (schema and code disagree); continuing would hand out a
    // made-up value.
    std::fprintf(stderr,
                 "blk::ParsedOptions::%s: driver '%s' has no %s option '%.*s'%s\n", accessor,
                 driver_.c_str(), std::string(OptionTypeName(type)).c_str(),
                 static_cast<int>(name.size()), name.data(),
                 it == values_.end() ? " (not given and no default; check has())"
                                     : " (declared with another type)");
    std::abort();
  }
  return it->second;
}

const std::string& ParsedOptions::str(std::string_view name) const {
  return Lookup(name, OptionSpec::Type::kString, "str").text;
}
bool ParsedOptions::flag(std::string_view name) const {
  return Lookup(name, OptionSpec::Type::kBool, "flag").b;
}
int64_t ParsedOptions::integer(std::string_view name) const {
  return Lookup(name, OptionSpec::Type::kInt, "integer").i;
}
uint64_t ParsedOptions::size(std::string_view name) const {
  return Lookup(name, OptionSpec::Type::kSize, "size").u;
}
const std::string& ParsedOptions::choice(std::string_view name) const {
  return Lookup(name, OptionSpec::Type::kEnum, "choice").text;
}
const std::string& ParsedOptions::raw(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    std::fprintf(stderr, "blk::ParsedOptions::raw: driver '%s' has no option '%.*s'\n",
                 driver_.c_str(), static_cast<int>(name.size()), name.data());
    std::abort();
  }
  return it->second.text;
}

Expected<ParsedOptions> ValidateOptions(std::string_view driver,
                                        const std::vector<OptionSpec>& schema,
                                        const std::vector<std::string>& child_names,
                                        const Options& own) {
  const std::string head = "driver " + Quote(driver) + ": ";
  std::map<std::string_view, const OptionSpec*> by_name;
  std::vector<std::string> names;
  for (const auto& spec : schema) {
    if (!by_name.emplace(spec.name, &spec).second) {
      return Invalid(head + "option " + Quote(spec.name) + " is declared twice in the schema");
    }
    names.push_back(spec.name);
  }
  auto children_hint = [&] {
    return child_names.empty() ? std::string("; this driver has no children")
                               : "; children: " + Join(child_names, ", ");
  };

  ParsedOptions out;
  out.driver_ = std::string(driver);
  std::string why;
  for (const auto& [key, value] : own.entries()) {
    if (key == "driver") {
      if (value != driver) {
        return Invalid(head + "option 'driver' is " + Quote(value) + ", expected " +
                       Quote(driver));
      }
      continue;
    }
    if (IsChildKey(key, child_names)) continue;
    auto it = by_name.find(key);
    if (it == by_name.end()) {
      size_t dot = key.find('.');
      if (dot != std::string::npos) {
        return Invalid(head + "unknown child " + Quote(std::string_view(key).substr(0, dot)) +
                       " in option " + Quote(key) + " (value " + Quote(value) + ")" +
                       children_hint());
      }
      std::string msg = head + "unknown option " + Quote(key) + " (value " + Quote(value) +
                        "); valid options: " + (names.empty() ? "none" : Join(names, ", "));
      if (!child_names.empty()) msg += children_hint();
      return Invalid(std::move(msg));
    }
    const OptionSpec& spec = *it->second;
    Typed t;
    if (!ParseTyped(spec, value, &t, &why)) {
      return Invalid(head + "option " + Quote(spec.name) + " " + why);
    }
    out.values_[spec.name] = ParsedOptions::Value{spec.type, value, true, t.b, t.i, t.u};
  }

  for (const auto& spec : schema) {
    if (out.values_.count(spec.name)) continue;
    if (spec.required) return Invalid(head + "missing required option " + Quote(spec.name));
    if (!spec.has_default) continue;
    Typed t;
    if (!ParseTyped(spec, spec.default_value, &t, &why)) {
      return Invalid(head + "bad schema default: option " + Quote(spec.name) + " " + why);
    }
    out.values_[spec.name] =
        ParsedOptions::Value{spec.type, spec.default_value, false, t.b, t.i, t.u};
  }
  return out;
}

std::string FormatOptionsHelp(std::string_view driver, const std::vector<OptionSpec>& schema,
                              const std::vector<std::string>& child_names) {
  constexpr size_t kMaxColumn = 34;
  std::vector<std::string> lefts;
  size_t width = 0;
  for (const auto& spec : schema) {
    std::string type;
    if (spec.type == OptionSpec::Type::kEnum) {
      type = Join(spec.enum_values, "|");
    } else {
      type = std::string(OptionTypeName(spec.type));
      if (spec.type == OptionSpec::Type::kInt || spec.type == OptionSpec::Type::kSize) {
        bool has_min = spec.type == OptionSpec::Type::kSize ? spec.min > 0 : spec.min != INT64_MIN;
        bool has_max = spec.max != INT64_MAX;
        if (has_min || has_max) {
          type += ' ';
          if (has_min) type += std::to_string(spec.min);
          type += "..";
          if (has_max) type += std::to_string(spec.max);
        }
      }
    }
    lefts.push_back("  " + spec.name + "=<" + type + ">");
    width = std::max(width, lefts.back().size());
  }
  width = std::min(width, kMaxColumn);

  std::string out = "driver '" + std::string(driver) + "' options:\n";
  if (schema.empty()) out += "  (none)\n";
  for (size_t i = 0; i < schema.size(); ++i) {
    const OptionSpec& spec = schema[i];
    std::string line = lefts[i];
    line.append(line.size() < width ? width - line.size() : 0, ' ');
    line += "  ";
    std::string tail;
    if (spec.required) {
      tail = "(required)";
    } else if (spec.has_default) {
      tail = "(default: " + (spec.default_value.empty() ? "''" : spec.default_value) + ")";
    }
    if (!spec.help.empty()) tail += (tail.empty() ? "" : " ") + spec.help;
    line += tail;
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  if (!child_names.empty()) out += "  children: " + Join(child_names, ", ") + "\n";
  return out;
}

}  // namespace blk
