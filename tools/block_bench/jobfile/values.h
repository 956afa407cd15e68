// Parsers for the value syntaxes of fio options: integers and sizes with
// unit suffixes, percentages, times, booleans, floats, ranges, per-direction
// comma lists and ':'-separated lists.
//
// Every parser takes the value text (already trimmed, with environment
// variables expanded) and returns either the typed value or an Error whose
// message says what was expected and what was found, e.g.
// "expected an integer >= 1, got 'abc'".  Callers prefix the location and
// option name.  A value starting with '(' is an arithmetic expression (see
// expr.h) wherever a single number is expected.
//
// Thread-safety: pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include <blkstack/util/result.h>

namespace blk::bench {

inline constexpr uint64_t kNoMax = std::numeric_limits<uint64_t>::max();
inline constexpr uint64_t kMicrosPerSecond = 1000000;

std::string_view Trim(std::string_view s);

// An integer with an optional size suffix (fio reads "iodepth=1k" as 1024)
// or 0x prefix, in [min, max].
Expected<uint64_t> ParseInteger(std::string_view text, uint32_t kb_base, uint64_t min = 0,
                                uint64_t max = kNoMax);

// A byte count with an optional size suffix, >= min.  fio's syntax (kb_base,
// k/m/g/t/p, expressions), not blk::ParseSize's (QEMU's).
Expected<uint64_t> FioParseSize(std::string_view text, uint32_t kb_base, uint64_t min = 0);

// A byte count, or "N%" with N in [percent_min, percent_max] ("N%%" too,
// as fio reads it).
Expected<SizeSpec> ParseSizeOrPercent(std::string_view text, uint32_t kb_base,
                                      uint64_t percent_min, uint64_t percent_max);

// A time with an optional unit suffix; a bare number is in units of
// `default_unit_us` microseconds (kMicrosPerSecond for most options, 1 for
// thinktime).  Inside an arithmetic expression a bare number is always in
// microseconds, as in fio.
Expected<std::chrono::microseconds> ParseTime(std::string_view text, uint64_t default_unit_us);

// "0" or "1" (fio's boolean; blk::ParseBool also takes on/off, yes/no, ...).
Expected<bool> FioParseBool(std::string_view text);

// A value-less flag is true; with a value, any non-negative integer (fio
// treats non-zero as set).
Expected<bool> ParseFlag(std::optional<std::string_view> text);

// A decimal number in [min, max]; with `min_exclusive` the interval is
// (min, max].
Expected<double> ParseDouble(std::string_view text, double min, double max,
                             bool min_exclusive = false);

// Splits `text` at `sep` characters that are not inside parentheses.
std::vector<std::string_view> SplitTopLevel(std::string_view text, char sep);

// Splits "lo-hi" or "lo:hi" at the first top-level '-' or ':' after the first
// character; nullopt if there is none.
std::optional<std::pair<std::string_view, std::string_view>> SplitRange(std::string_view text);

// fio's read,write,trim convention: "a" sets all three; "a,b" sets read=a
// and write=trim=b; "a,b,c" sets each; an empty element leaves that
// direction unchanged, and only the last element, when not followed by a
// comma, fills the remaining directions ("a," sets read only).  Returns the
// trimmed element for each direction that is set.  Errors on more than three
// elements or when none is set.
Expected<PerDir<std::optional<std::string>>> SplitPerDirection(std::string_view text);

// A ':'-separated list in which "\:" stands for a literal ':' (fio's syntax
// for filename= and directory=).  Errors on an empty element.
Expected<std::vector<std::string>> SplitEscapedList(std::string_view text);

// Inverse of SplitEscapedList.
std::string JoinEscapedList(const std::vector<std::string>& items);

}  // namespace blk::bench
