// The value syntaxes of driver options, QEMU style: byte counts with binary
// suffixes, 64-bit integers, and on/off booleans.  The schema types kSize,
// kInt and kBool (block/option_schema.h) parse their values with these; the
// tools use them for their own sizes and counts.
//
// Each syntax has two forms: Parse* fails with an `Error` whose message
// names the value ("invalid size 'abc': <reason>"); Scan* reports the reason
// alone, for a caller that names the value in a message of its own.
//
// Thread-safety: pure functions.
#pragma once

#include <cerrno>
#include <cstdint>
#include <string>
#include <string_view>

#include <blkstack/util/result.h>

namespace blk {

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

// Why a text is not a value of a syntax, without the text itself, e.g.
// {-EINVAL, "not an integer"}.
struct ValueError {
  int code = -EINVAL;  // -EINVAL (bad syntax) or -ERANGE (out of range)
  std::string why;
};

// The syntaxes of ParseSize, ParseInt and ParseBool, with the same codes and
// reasons.  On success set *out and return true; on failure set *err and
// return false, leaving *out unspecified.  REQUIRES: out, err non-null.
bool ScanSize(std::string_view text, uint64_t* out, ValueError* err);
bool ScanInt(std::string_view text, int64_t* out, ValueError* err);
bool ScanBool(std::string_view text, bool* out, ValueError* err);

}  // namespace blk
