#include <blkstack/util/quote.h>

#include <cstdio>

namespace blk {
namespace {

bool IsUtf8Continuation(char c) { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; }

// The length of the longest prefix of `text` of at most `max` bytes that
// does not end inside a UTF-8 sequence (a malformed sequence may still be
// cut: at most 3 bytes are given back).
size_t CutPoint(std::string_view text, size_t max) {
  if (text.size() <= max) return text.size();
  size_t n = max;
  for (int back = 0; back < 3 && n > 0 && IsUtf8Continuation(text[n]); ++back) --n;
  return IsUtf8Continuation(text[n]) ? max : n;
}

}  // namespace

namespace {

std::string Shorten(std::string_view text, size_t max) {
  const size_t n = CutPoint(text, max);
  std::string out;
  out.reserve(n + 24);
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (n < text.size()) out += "...(" + std::to_string(text.size() - n) + " more bytes)";
  return out;
}

}  // namespace

std::string ShortenInput(std::string_view text) { return Shorten(text, kMaxQuotedBytes); }
std::string QuoteInput(std::string_view text) { return "'" + ShortenInput(text) + "'"; }
std::string ShortenName(std::string_view text) { return Shorten(text, kMaxQuotedNameBytes); }
std::string QuoteName(std::string_view text) { return "'" + ShortenName(text) + "'"; }

}  // namespace blk
