// Driver option schemas: what options a driver accepts, checking a node's
// options against them, and help text listing them.
//
// A driver declares its options as a list of `OptionSpec`s (see
// block/null/null.cc), written with named fields:
//   {.name = "size", .type = OptionSpec::Type::kSize, .default_value = "1G",
//    .has_default = true, .help = "device size in bytes"}
// The opener checks each node's own keys (an `Options`, block/options.h)
// against its driver's schema with `ValidateOptions`, which yields a typed
// `ParsedOptions`; values parse with the syntaxes of block/option_values.h.
//
// Everything here runs at set-up time and reports failures as `Error`s whose
// messages name the option, value and driver involved.
//
// Thread-safety: plain values with no shared state.  Concurrent const access
// to one object is safe; mutation needs external synchronisation.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <blkstack/block/options.h>
#include <blkstack/util/result.h>

namespace blk {

// One option a driver accepts.  Schemas name the fields they set, in the
// order declared here (C++20 designated initializers); a field left out
// keeps the default below.  (Every field has an initializer, `{}` for the
// empty ones, so that leaving one out draws no -Wmissing-field-initializers.)
struct OptionSpec {
  enum class Type { kString, kBool, kInt, kSize, kEnum };
  std::string name{};
  Type type = Type::kString;
  // Text form of the default, parsed like a given value; used only if
  // has_default.
  std::string default_value{};
  bool has_default = false;
  // A required option must be given; its default, if any, is never used.
  bool required = false;
  // The allowed values of a kEnum option.
  std::vector<std::string> enum_values{};
  // Inclusive bounds for kInt and kSize (a kSize value below 0 is
  // impossible, so min <= 0 means no lower bound for it); other types
  // ignore them.
  int64_t min = INT64_MIN;
  int64_t max = INT64_MAX;
  // One line for FormatOptionsHelp.
  std::string help{};
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
