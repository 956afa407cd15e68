#include <blkstack/block/options.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include <blkstack/util/quote.h>

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
    // Any exponent this large gives "" below; clamping keeps the point's
    // arithmetic from overflowing (e.g. "0e09223372036854775807").
    exp = std::clamp(exp, -100000L, 100000L);
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

}  // namespace blk
