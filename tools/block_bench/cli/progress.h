// block-bench's progress line, like fio's ETA line:
//
//   Jobs: 2 (f=2): [r(2)][50.0%][r=1024KiB/s][r=256 IOPS][eta 01m:05s]
//
// drawn over itself with "\r" about once a second while jobs run (run/
// runner.h's ProgressSnapshot), on standard output, or standard error when
// the reports are JSON on standard output (outputs.h decides whether and
// where).  With --eta-newline=T a line is kept (a newline) every T.
//
// Thread-safety: a ProgressLine is used on one thread (RunJobs' caller, where
// on_progress and on_status run).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "tools/block_bench/run/runner.h"

namespace blk::bench::cli {

// fio's ETA: "05m:03s", from an hour on "01h:02m:03s"; rounded to the second.
std::string FormatEta(double seconds);

// The line for `p`, unpadded: the running clones, the current segment's
// modes and percentage, then per direction that had I/O ("r", "w", "t")
// its bandwidth and IOPS over the last interval, and the segment's ETA.
std::string FormatProgress(const ProgressSnapshot& p);

class ProgressLine {
 public:
  // `stream`: where the line goes.  `newline_every_ms`: --eta-newline (0:
  // never keep a line).
  ProgressLine(FILE* stream, int64_t newline_every_ms);

  // Draws `p` over the line shown last ("\r", then spaces to cover a longer
  // previous line) and flushes.  With --eta-newline, first ends the line on
  // screen when newline_every_ms passed since the last one was kept (not
  // before the first line).  `now_ns`: a monotonic clock (util/clock.h's
  // NowNs()).
  void Show(const ProgressSnapshot& p, int64_t now_ns);
  // Blanks the line shown last, if any, and leaves the cursor at its start,
  // without flushing: a report follows on the same terminal.
  void Erase();
  // Erase, then flush: the run is over.  Nothing when no line is shown.
  void Finish();

 private:
  FILE* stream_;
  int64_t newline_every_ns_;
  size_t last_len_ = 0;           // of the line on screen; 0: none
  int64_t last_newline_ns_ = 0;   // when a line was last kept; 0: never
};

}  // namespace blk::bench::cli
