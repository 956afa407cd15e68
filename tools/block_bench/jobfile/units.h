// Unit suffixes of fio values: sizes ("4k", "1MiB"), times ("10s", "500ms")
// and the inverse formatting used when rendering a job back to options.
//
// Sizes follow fio's kb_base rule.  With kb_base=1024 (fio's default) the
// plain prefixes k/m/g/t/p (optionally followed by "b") are powers of 1024,
// and the IEC spellings ki/kib/mi/mib/... are powers of 1000 -- fio inverts
// them "to provide compatibility with old scripts".  With kb_base=1000 both
// follow the standards (k = 1000, ki = 1024).  Suffixes are case-insensitive;
// "b" alone means bytes.
//
// Times: us/usec, ms/msec, s/sec, m/min, h, d (case-insensitive); values are
// kept in microseconds.
//
// Thread-safety: pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace blk::bench {

// Multiplier of a size suffix ("" and "b" are 1), or nullopt if `suffix` is
// not one.  REQUIRES: kb_base is 1000 or 1024.
std::optional<uint64_t> SizeSuffixMultiplier(std::string_view suffix, uint32_t kb_base);

// Microseconds per unit of a time suffix, or nullopt if `suffix` is empty or
// not a time unit.
std::optional<uint64_t> TimeSuffixMicros(std::string_view suffix);

// Shortest text that reads back as `bytes` under `kb_base`: a suffix is used
// only when it divides exactly ("4k", "1m", "1000" under kb_base=1024; "4ki"
// for 4096 under kb_base=1000).
std::string FormatSize(uint64_t bytes, uint32_t kb_base);

// "0", or the value in the largest unit dividing it exactly: "10s", "2m",
// "500ms", "7us".
std::string FormatTime(std::chrono::microseconds t);

// Shortest decimal text that reads back as exactly `v` ("99.5", "1.1").
std::string FormatDouble(double v);

}  // namespace blk::bench
