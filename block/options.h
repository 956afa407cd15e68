// Graph specs: parsing a spec into `Options`, the flat key/value list of a
// driver graph.
//
// A graph spec is turned into `Options`, a flat, ordered map from dotted keys
// to string values, like QEMU's flattened QDict:
//   driver=throttle,file.driver=null,file.size=1G
// gives the keys `driver`, `file.driver`, `file.size`.  The opener splits the
// children off with `TakeSubtree("file")`, then checks each node's own keys
// against its driver's schema (block/option_schema.h).  Values stay text
// here; their syntaxes are in block/option_values.h.
//
// Everything here runs at set-up time and reports failures as `Error`s whose
// messages name the text and the position involved.
//
// Thread-safety: plain values with no shared state.  Concurrent const access
// to one object is safe; mutation needs external synchronisation.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <blkstack/util/result.h>

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

}  // namespace blk
