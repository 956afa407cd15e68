// Quoting outside input (option values, names, spec text, file names) in
// error messages.
//
// One bad value must not flood or garble a log line: a message shows at
// most kMaxQuotedBytes bytes of any one piece of input, cut at a UTF-8
// character boundary, followed by "...(N more bytes)"; control characters
// (below 0x20, and 0x7f) are shown as \xNN.  Every parser of outside input
// (block/options.cc, option_values.cc and option_schema.cc, block-bench's
// job file, command line and value parsers) quotes through these functions.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace blk {

inline constexpr size_t kMaxQuotedBytes = 80;
// The bound for a name the user must be able to find from the message: a
// file path, a graph spec, a pool or image name in an open, I/O or verify
// error.  PATH_MAX: a real path is never cut; a 100 KB spec still is.
inline constexpr size_t kMaxQuotedNameBytes = 4096;

// `text` shortened and escaped as described above, without quotes:
//   ShortenInput("a\nb") == "a\\x0ab"
//   ShortenInput(string(100, 'x')) == string(80, 'x') + "...(20 more bytes)"
std::string ShortenInput(std::string_view text);

// ShortenInput(text) in single quotes: "'abc'",
// "'xxx...(20 more bytes)'".
std::string QuoteInput(std::string_view text);

// The same with kMaxQuotedNameBytes, for names (see above).
std::string ShortenName(std::string_view text);
std::string QuoteName(std::string_view text);

}  // namespace blk
