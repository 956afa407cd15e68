#include <blkstack/block/option_schema.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include <blkstack/block/option_values.h>
#include <blkstack/util/quote.h>

namespace blk {
namespace {

// `text` in single quotes for a message, shortened and escaped so that one
// bad value cannot flood or garble a log line.
std::string Quote(std::string_view text) { return QuoteInput(text); }

Error Invalid(std::string msg) { return MakeError(-EINVAL, std::move(msg)); }

std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

// True if `key` is one of `children` or lies under one (`child.rest`).
bool IsChildKey(std::string_view key, const std::vector<std::string>& children) {
  for (const auto& c : children) {
    if (key.size() >= c.size() && key.compare(0, c.size(), c) == 0 &&
        (key.size() == c.size() || key[c.size()] == '.')) {
      return true;
    }
  }
  return false;
}

// The bounds of a kInt or kSize option for a message: "between A and B",
// "at least A" or "at most B".
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

// A value parsed by its type (only the member of that type is set).
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
      if (ScanBool(text, &t->b, &err)) return true;
      *why = "expects on/off, got " + Quote(text);
      return false;
    case T::kInt:
      if (!ScanInt(text, &t->i, &err)) {
        *why = "expects an integer, got " + Quote(text) + " (" + err.why + ")";
        return false;
      }
      if (t->i < spec.min || t->i > spec.max) {
        *why = "must be " + RangeText(spec) + ", got " + Quote(text);
        return false;
      }
      return true;
    case T::kSize: {
      if (!ScanSize(text, &t->u, &err)) {
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
    out.values_[spec.name] = ParsedOptions::Value{.type = spec.type, .text = value,
                                                  .given = true, .b = t.b, .i = t.i, .u = t.u};
  }

  for (const auto& spec : schema) {
    if (out.values_.count(spec.name)) continue;
    if (spec.required) return Invalid(head + "missing required option " + Quote(spec.name));
    if (!spec.has_default) continue;
    Typed t;
    if (!ParseTyped(spec, spec.default_value, &t, &why)) {
      return Invalid(head + "bad schema default: option " + Quote(spec.name) + " " + why);
    }
    out.values_[spec.name] = ParsedOptions::Value{.type = spec.type, .text = spec.default_value,
                                                  .given = false, .b = t.b, .i = t.i, .u = t.u};
  }
  return out;
}

// ---- help -------------------------------------------------------------------

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
