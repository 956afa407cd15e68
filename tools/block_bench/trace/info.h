// `block-bench --trace-info FILE`: what a trace holds, before replaying it.
//
//   block-bench --trace-info FILE [--trace-format=NAME] [--trace-device=DEV]
//               [--trace-max-size=SIZE] [--output-format=normal|json]
//
// The trace is read as a replay reads it (trace::LoadTrace): up to 4 GiB,
// or --trace-max-size; a device such as /dev/zero is refused at once.
// SIGINT/SIGTERM keep their default action (the process ends at once).
//
// Statistics of a parsed Trace (TraceInfo, ComputeInfo), rendered as compact
// fio-like text or as JSON.  Exit status of TraceInfoMain: 0, or 1 with the
// parser's one-line message on standard error.
//
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/block_bench/trace/trace.h"

namespace blk::bench::trace {

struct TraceInfo {
  std::string name;  // the file
  Format format = Format::kAuto;
  int64_t span_ns = 0;  // first to last I/O
  uint64_t ios = 0;
  struct PerOp {
    uint64_t count = 0;
    uint64_t bytes = 0;
  };
  std::array<PerOp, 4> ops;  // indexed by Op
  uint64_t fua = 0;
  // I/Os (flushes excepted) by size: sizes[i] counts sizes in [2^i, 2^(i+1)).
  std::array<uint64_t, 33> sizes{};
  // Per one-second bucket of the span (the last one partial), empty seconds
  // included.
  struct Rate {
    double min = 0, mean = 0, max = 0;
  };
  Rate iops, bw_bytes;
  // IOPS over time, at most kSeriesPoints points, each the mean over
  // series_step_s seconds.
  static constexpr size_t kSeriesPoints = 60;
  uint64_t series_step_s = 1;
  std::vector<double> iops_series;
  uint64_t footprint_bytes = 0;  // distinct 4 KiB blocks touched, in bytes
  uint64_t max_end = 0;          // highest offset + length
  std::optional<uint32_t> max_outstanding;
  std::optional<double> mean_outstanding;
  // Share of reads, writes and trims that start where the previous one of
  // the same kind ended.
  double sequential = 0;
  // Between consecutive records (all kinds); when ios >= 2.
  struct Gaps {
    int64_t min = 0, p50 = 0, p99 = 0, max = 0;
    double mean = 0;
  };
  std::optional<Gaps> interarrival_ns;
  std::vector<std::string> files;
  uint64_t bad = 0, filtered = 0, ignored = 0;
};

// REQUIRES: nothing (an empty trace gives zeros).
TraceInfo ComputeInfo(const Trace& trace, std::string_view name);

// A few lines of text, each ending in '\n'.
std::string RenderText(const TraceInfo& info);
// A JSON object (pretty-printed, no trailing newline).
std::string RenderJson(const TraceInfo& info);

// True when `args` (argv without the program) asks for --trace-info.
bool IsTraceInfoCommand(const std::vector<std::string>& args);
// Runs --trace-info: parses `args`, loads the trace, prints the report on
// standard output; returns the exit status.
int TraceInfoMain(const std::vector<std::string>& args);

}  // namespace blk::bench::trace
