// Pieces shared by the trace parsers (iolog.cc, blktrace.cc, perf.cc,
// csv.cc) and their driver (trace.cc).  Not part of the interface: include
// trace.h instead.
//
// Every parser appends records with *absolute* times (nanoseconds in the
// trace's own clock, any sign) to a Trace and leaves it to Finish() to sort
// them and to make the times relative to the earliest record.
//
// Thread-safety: pure functions and plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/block_bench/trace/trace.h"
#include <blkstack/util/result.h>
#include <blkstack/util/saturating.h>

namespace blk::bench::trace::internal {

// ---- Numbers (std::from_chars: no locale, no exceptions) ----

// A whole field of decimal digits (no sign, no spaces); false otherwise or on
// overflow.
bool ParseU64(std::string_view s, uint64_t* out);
// As ParseU64 with an optional leading '-'.
bool ParseI64(std::string_view s, int64_t* out);
// Time arithmetic: CheckedAdd/Sub/Mul of util/saturating.h (a time that
// does not fit in int64 ns is refused, never wrapped).
// "MAJ,MIN" into its numbers; false if malformed or a part exceeds 32 bits.
bool ParseMajMin(std::string_view s, uint32_t* maj, uint32_t* min);

// ---- Text ----

// `s` without leading and trailing blanks (space, tab, \r).
std::string_view Trim(std::string_view s);
// Splits at runs of blanks into at most `max` fields; returns how many were
// found, or max + 1 when there are more.
size_t SplitBlanks(std::string_view s, std::string_view* fields, size_t max);
// Splits at every ',' into at most `max` trimmed fields; returns how many
// were found, or max + 1 when there are more.
size_t SplitCommas(std::string_view s, std::string_view* fields, size_t max);

// Walks the lines of a text ('\n' or "\r\n" ends a line; a last line without
// one counts).  Line numbers start at 1.
class LineReader {
 public:
  explicit LineReader(std::string_view data) : data_(data) {}
  // The next line (without its end) and its number; false at the end.
  bool next(std::string_view* line, uint64_t* number);

 private:
  std::string_view data_;
  size_t pos_ = 0;
  uint64_t number_ = 0;
};

// Whether a stop was asked (ParseOptions::interrupted), looked at every
// 65536th record `n` only: a parse loop calls it each record.
inline bool StopAsked(const ParseOptions& opts, uint64_t n) {
  return (n & 0xffff) == 0 && opts.interrupted && opts.interrupted();
}
// -EINTR naming the trace.
inline Error Stopped(std::string_view name) {
  return MakeError(-EINTR, std::string(name) + ": parsing interrupted by a signal");
}

// "NAME:LINE: what".
std::string LineMessage(std::string_view name, uint64_t line, std::string_view what);
// NotANumber("offset", "12x") == "offset '12x' is not a number" (the value
// quoted by QuoteInput: at most kMaxQuotedBytes of it).
std::string NotANumber(std::string_view field, std::string_view value);
// A time beyond the limit of every trace time (kMaxTraceTimeText):
// TimeOutOfRange("time", "9e99", "us") == "time '9e99' us is out of range
// (a trace's times must lie within 2^63 - 1 ns, 292 years, of each other)".
std::string TimeOutOfRange(std::string_view field, std::string_view value, std::string_view unit);

// ---- Building a Trace ----

// Distinct device names in the order found, at most a few of them kept.
class DeviceSet {
 public:
  void add(std::string_view dev);
  size_t size() const { return count_; }
  // "a, b, c and 2 more".
  std::string list() const;

 private:
  static constexpr size_t kKeep = 5;
  std::vector<std::string> names_;
  size_t count_ = 0;
};

// The error for a trace of several devices and no ParseOptions::device.
Error SeveralDevices(std::string_view name, const DeviceSet& devices, std::string_view syntax);

// Counts I/Os in flight from start (+1) and end (-1) events; clamped at 0.
class Outstanding {
 public:
  void start(int64_t t_ns) { events_.push_back({t_ns, +1}); }
  void end(int64_t t_ns) { events_.push_back({t_ns, -1}); }
  bool empty() const { return events_.empty(); }
  // Sets trace->max_outstanding and ->mean_outstanding (time-weighted over
  // the span of the events) when there is at least one end event.
  void finish(Trace* trace);

 private:
  struct Event {
    int64_t t;
    int delta;
  };
  std::vector<Event> events_;
};

// Adds the record `r` (absolute t_ns) unless it is a zero-length read or
// write or trim (counted in trace->ignored); checks offset + len for
// overflow.  Returns an error text (empty: fine).
std::string AddRecord(Trace* trace, Record r);

// Sorts (stable) and makes the times relative to the earliest record.  An
// empty trace or a span beyond int64 nanoseconds is an error naming `name`.
Expected<Trace> Finish(Trace trace, std::string_view name);

// ---- The parsers (all append to *trace; `name` for messages) ----

Expected<Trace> ParseIolog(std::string_view data, std::string_view name, const ParseOptions& opts);
Expected<Trace> ParsePerf(std::string_view data, std::string_view name, const ParseOptions& opts);
Expected<Trace> ParseCsv(std::string_view data, std::string_view name, const ParseOptions& opts,
                         Format format);

// blktrace: several files (per-CPU) of one trace.
struct NamedData {
  std::string_view name;
  std::string_view data;
};
Expected<Trace> ParseBlktrace(const std::vector<NamedData>& files, const ParseOptions& opts);

// Sniffing helpers.
bool LooksLikeBlktrace(std::string_view data);
Format SniffCsv(std::string_view data);

}  // namespace blk::bench::trace::internal
