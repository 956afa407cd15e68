// block-bench's plots, as self-contained SVG (svg.h):
//
//   block-bench plot [--output=FILE.svg] [--title=T] FILE...
//
//  * JSON results (block-bench or fio; json+ gives the whole histogram):
//    the completion-latency percentile curve of every job and direction of
//    every file, overlaid, on a "nines" axis (50 %, 90 %, 99 %, 99.9 % ...
//    equally spaced) against a log latency axis;
//  * fio-format log files (write_lat_log, write_iops_log, write_bw_log:
//    NAME_{lat,clat,slat,iops,bw}.N.log): the values over time, one panel
//    per kind, every file a series.
// `block-bench compare --plot=FILE` and `ab --plot=FILE` write ComparisonPlot:
// the per-run values of each deciding metric for both sides (with their
// medians) and the percentile curves of every run, BASE against NEW.
//
// Inputs are read within limits (util/input_file.h): a result document up
// to 256 MiB (verdict::kResultMaxBytes), a log up to kLogMaxBytes; a device
// such as /dev/zero is refused at once.
//
// Thread-safety: pure functions (PlotMain reads and writes files).
#pragma once

#include <string>
#include <vector>

#include "tools/block_bench/plot/svg.h"
#include "tools/block_bench/verdict/results.h"
#include "tools/block_bench/verdict/verdict.h"
#include <blkstack/util/result.h>

namespace blk::bench::plot {

// The largest log file read (a per-I/O latency log of a long run); fixed.
inline constexpr uint64_t kLogMaxBytes = uint64_t(1) << 30;

// One fio-format log file.
struct LogData {
  enum Kind { kLatency, kIops, kBandwidth } kind = kLatency;
  std::string name;  // file name without directory
  struct Point {
    double ms, value;
    int dir;
  };
  std::vector<Point> points;
};

// Parses a log's text; the kind comes from `path`'s name (…_lat.1.log,
// …_clat.log, …_iops.2.log, …_bw.1.log).  Lines are "msec, value, dir, bs,
// offset[, prio]" (at least msec and value; the direction 0-3); blank
// lines are skipped.
// Errors name path:line.
Expected<LogData> ParseLog(std::string_view text, const std::string& path);

// The percentile curves of every job and direction of `docs`, one panel.
Panel PercentilePanel(const std::vector<verdict::ResultDoc>& docs,
                      const std::vector<std::string>& labels);

// Values over time, one panel per kind present.
std::vector<Panel> TimePanels(const std::vector<LogData>& logs);

// compare/ab: per-run values of each deciding row, and the curves of every
// run of both sides per job and direction of those rows.
std::string ComparisonPlot(const verdict::Comparison& c, const verdict::CompareOptions& o,
                           const std::vector<verdict::ResultDoc>& base,
                           const std::vector<verdict::ResultDoc>& neu, const std::string& title);

// args: what follows "plot".  Exit 0, or 1 with a message on error.
int PlotMain(const std::vector<std::string>& args);

}  // namespace blk::bench::plot
