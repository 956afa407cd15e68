// Driver-graph options: parsing a spec, typed values, and per-driver schemas.
//
// A graph spec is turned into `Options`, a flat, ordered map from dotted keys
// to string values, like QEMU's flattened QDict:
//   driver=throttle,file.driver=null,file.size=1G
// gives the keys `driver`, `file.driver`, `file.size`.  The opener splits the
// children off with `TakeSubtree("file")`, then checks each node's own keys
// against its driver's schema with `ValidateOptions`, which yields a typed
// `ParsedOptions`.  The free functions `ParseSize`, `ParseInt` and `ParseBool`
// are the value syntaxes the schema types use.
//
// Everything here runs at set-up time and reports failures as `Error`s whose
// messages name the text, option, value and driver involved.
//
// Thread-safety: plain values with no shared state.  Concurrent const access
// to one object is safe; mutation needs external synchronisation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"

namespace blk {

// Limits on the shape of a spec, so that hostile input fails at once
// instead of costing time and memory that grow faster than its size.  A key
// has at most kMaxKeyComponents dot-separated parts (a graph is at most that
// deep), and JSON objects nest at most kMaxJsonDepth deep (the root object is
// level 1).
inline constexpr size_t kMaxKeyComponents = 32;
inline constexpr size_t kMaxJsonDepth = 32;

// The options of one graph (or, after TakeSubtree, of one subtree of it).
class Options {
 public:
  Options() = default;

  // Parses a spec.  Two syntaxes are accepted:
  //  * QEMU -blockdev style `key=value,key=value`.  Inside a value `,,` is a
  //    literal comma; a value may be empty (`key=`); the empty spec gives no
  //    options.  Keys must satisfy IsValidKey().
  //  * JSON: text whose first non-blank character is `{`, or `json:` followed
  //    by an object.  Nested objects become dotted keys (a key may also be
  //    dotted itself); numbers become their exact decimal text (1e3 -> "1000",
  //    1.50 -> "1.5"); true/false become "on"/"off"; strings stay.  Arrays,
  //    null and empty nested objects are errors.
  // Keys keep the order in which they appear.  A key given twice, or given
  // both as a value and as a group (`file=x,file.driver=y`), is an error, and
  // so is a key of more than kMaxKeyComponents parts or JSON nested more than
  // kMaxJsonDepth deep.  Errors (code -EINVAL) start with "spec: " and name
  // the text (quoted with QuoteInput, util/quote.h) and its 0-based byte
  // position, e.g.
  //   spec: expected 'key=value' at position 12 near 'foo'
  //   spec: duplicate option 'size' at position 20
  //   spec: option 'file.file...' has 33 dot-separated parts, more than 32 at position 12
  //   spec: JSON objects nested more than 32 deep at 'file.file...'
  //   spec: invalid JSON: <nlohmann message>
  // Time and memory are linear in the length of `spec`.
  static Expected<Options> Parse(std::string_view spec);

  // True if `key` is one or more non-empty words of [A-Za-z0-9_-] joined by
  // '.'.  Parse() only produces such keys.
  static bool IsValidKey(std::string_view key);

  // The value of `key`, or nullptr if absent.  The pointer stays valid until
  // the next non-const call on this object.
  const std::string* Get(std::string_view key) const;
  // True if `key` is present.
  bool Has(std::string_view key) const;
  // Sets `key` to `value`: replaces the value in place if the key exists,
  // appends it otherwise.  ToString() round-trips only if IsValidKey(key).
  void Set(std::string_view key, std::string value);
  // Appends `key`.  REQUIRES: !Has(key).  Constant time, for builders that
  // already know the key is new (Set looks it up first).
  void Append(std::string key, std::string value);
  // Removes `key`; returns whether it was present.
  bool Erase(std::string_view key);
  // All keys in insertion order.
  std::vector<std::string> Keys() const;
  // All (key, value) pairs in insertion order.
  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  // Removes every key of the form `prefix.rest` and returns them as `rest`,
  // in order.  A key equal to `prefix` itself is left in place.  Used to
  // split off a child node's options: `file.driver` -> child `file`'s
  // `driver`.
  Options TakeSubtree(std::string_view prefix);

  // Canonical `key=value,...` form in insertion order, commas in values
  // doubled.  Parse(ToString()) gives back an equal Options when all keys
  // are valid (always true for parsed Options).
  std::string ToString() const;

  // Same keys with the same values in the same order.
  friend bool operator==(const Options&, const Options&) = default;

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

// Parses a byte count, QEMU style: a decimal number with an optional binary
// suffix: none, b or B = bytes; K, M, G, T, P, E (either case, optionally
// followed by "iB", e.g. KiB) = 2^10 ... 2^60.  A decimal fraction is allowed
// if the result is a whole number of bytes (1.5K = 1536; 1.5 and 0.1K fail).
// A plain `0x` hexadecimal number without suffix is also accepted.
// Fails with -EINVAL on bad syntax or a negative value, -ERANGE if the result
// does not fit in 64 bits; the message names the value.
Expected<uint64_t> ParseSize(std::string_view text);

// Parses an int64: optional sign, then decimal digits or `0x`/`0X` and
// hexadecimal digits (leading zeros are decimal, not octal).  The whole text
// must be the number.  Fails with -EINVAL on bad syntax, -ERANGE on overflow;
// the message names the value.
Expected<int64_t> ParseInt(std::string_view text);

// Parses on/off, true/false, yes/no, 1/0 (case-insensitive).  Fails with
// -EINVAL otherwise; the message names the value.
Expected<bool> ParseBool(std::string_view text);

// One option a driver accepts.
struct OptionSpec {
  enum class Type { kString, kBool, kInt, kSize, kEnum };
  std::string name;
  Type type = Type::kString;
  // Text form of the default, parsed like a given value; used only if
  // has_default.
  std::string default_value;
  bool has_default = false;
  // A required option must be given; its default, if any, is never used.
  bool required = false;
  // The allowed values of a kEnum option.
  std::vector<std::string> enum_values;
  // Inclusive bounds for kInt and kSize (a kSize value below 0 is
  // impossible, so min <= 0 means no lower bound for it).
  int64_t min = INT64_MIN;
  int64_t max = INT64_MAX;
  std::string help;
};

// "string", "bool", "int", "size" or "enum".
std::string_view OptionTypeName(OptionSpec::Type type);

// The validated, typed view of one node's own options.  Built by
// ValidateOptions(); holds every declared option that was given or has a
// default.
class ParsedOptions {
 public:
  ParsedOptions() = default;

  std::string_view driver() const { return driver_; }
  // True if `name` was given or has a default.
  bool has(std::string_view name) const;
  // True if `name` was given explicitly (not defaulted).
  bool given(std::string_view name) const;

  // Typed accessors.  REQUIRES: `name` is declared in the schema with the
  // accessor's type, and has(name).  A violation is a programming error and
  // aborts with a message.
  const std::string& str(std::string_view name) const;     // kString
  bool flag(std::string_view name) const;                  // kBool
  int64_t integer(std::string_view name) const;            // kInt
  uint64_t size(std::string_view name) const;              // kSize
  const std::string& choice(std::string_view name) const;  // kEnum
  // The text form of any option, as given or defaulted.  REQUIRES: has(name).
  const std::string& raw(std::string_view name) const;

 private:
  friend Expected<ParsedOptions> ValidateOptions(
      std::string_view driver, const std::vector<OptionSpec>& schema,
      const std::vector<std::string>& child_names, const Options& own);

  struct Value {
    OptionSpec::Type type = OptionSpec::Type::kString;
    std::string text;
    bool given = false;
    bool b = false;
    int64_t i = 0;
    uint64_t u = 0;
  };
  // Aborts unless `name` is present with type `type`.
  const Value& Lookup(std::string_view name, OptionSpec::Type type,
                      const char* accessor) const;

  std::string driver_;
  std::map<std::string, Value, std::less<>> values_;
};

// Checks the own options of one node of driver `driver` against `schema` and
// returns their typed view.  `own` holds the node's keys:
//  * a `driver` key is accepted if it equals `driver`;
//  * keys belonging to a declared child (`child` or `child.*`, for `child` in
//    `child_names`) are the child's business and are ignored, so the caller
//    may validate before or after splitting children off;
//  * every other key must be a declared option whose value parses as its
//    type, lies in [min, max] (kInt, kSize) or in enum_values (kEnum).
// Declared options that are absent take their default, if any; a required
// option must be given.  The first problem found is reported (code -EINVAL),
// naming the driver, option and value, e.g.
//   driver 'null': unknown option 'sise' (value '1G'); valid options: size, ...
//   driver 'null': option 'size' expects a size like 1G, got 'abc' (...)
//   driver 'file': missing required option 'filename'
//   driver 'null': unknown child 'foo' in option 'foo.bar'
// A schema whose default fails its own checks, or that declares a name twice,
// is reported the same way.
Expected<ParsedOptions> ValidateOptions(std::string_view driver,
                                        const std::vector<OptionSpec>& schema,
                                        const std::vector<std::string>& child_names,
                                        const Options& own);

// Renders `schema` as help text for a --help style listing: a heading naming
// the driver, then one line per option with its name, type (with range or
// enum values), default or "required", and help; then the children, if any.
// Each line ends with '\n'.
std::string FormatOptionsHelp(std::string_view driver,
                              const std::vector<OptionSpec>& schema,
                              const std::vector<std::string>& child_names = {});

}  // namespace blk
