// fio's steady state detection (ss=, ss_dur=, ss_ramp=, ss_interval=).
//
// A SteadyMonitor watches one reporting unit (one clone, or the clones of a
// group with group_reporting, as fio does) from the coordinator thread: once
// ss_ramp has passed since the unit started, it takes the unit's IOPS,
// bandwidth and mean completion latency over each ss_interval from the
// clones' LiveCounters, keeps the last ss_dur / ss_interval of them, and
// once that window is full evaluates the criterion after every interval
// (SteadyCriterion).  When it holds, the coordinator ends the unit's clones
// as if their runtime had ended (Worker::end_now).
//
// Thread-safety: a monitor is used by the coordinator thread only; it reads
// LiveCounters (atomics).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/block_bench/jobfile/job.h"

namespace blk::bench {

struct LiveCounters;

struct SteadyEvaluation {
  double mean = 0;
  double max_deviation = 0;  // max |value - mean|
  double slope = 0;          // least squares, per second
  double criterion = 0;      // deviation or |slope|, relative to mean (in %) when pct
  bool attained = false;     // criterion < limit
};

// Evaluates `ss` over the window `values`, taken every `interval_s`.
// REQUIRES: values.size() >= 2, interval_s > 0.
SteadyEvaluation SteadyCriterion(const std::vector<double>& values, double interval_s,
                                 const SteadyState& ss);

// What the report shows (fio's "steadystate" JSON object).
struct SteadyStateResult {
  std::string ss;           // "iops", "iops_slope", "bw", "bw_slope", "lat", "lat_slope"
  double limit = 0;
  bool pct = false;
  double duration_s = 0;    // ss_dur
  bool attained = false;
  SteadyEvaluation last;    // the last evaluation (of a full window), if any
  bool evaluated = false;
  // The window's values, oldest first: IOPS, bandwidth in KiB/s (fio's
  // unit), mean completion latency in ns; ss_dur / ss_interval of them,
  // those of the intervals not sampled yet 0 (fio's ring of samples).
  std::vector<double> iops, bw_kib, lat_ns;
  double attained_at_s = 0;  // since the unit started, when attained
};

class SteadyMonitor {
 public:
  // `clones`: indexes into the LiveCounters vector the unit consists of.
  SteadyMonitor(const JobOptions& job, std::vector<size_t> clones);

  // Samples when an interval is due.  Returns true exactly once: when the
  // criterion first holds.
  bool poll(int64_t now_ns, const std::vector<LiveCounters>& live);
  // When poll() next has something to do (INT64_MAX: nothing).
  int64_t next_due_ns() const {
    if (done_) return INT64_MAX;
    return next_ns_ ? next_ns_ : last_poll_ns_ + 10'000'000;  // waiting for the start
  }
  const std::vector<size_t>& clones() const { return clones_; }
  const SteadyStateResult& result() const { return res_; }

 private:
  const JobOptions* job_;
  std::vector<size_t> clones_;
  SteadyStateResult res_;
  size_t window_;
  int64_t start_ns_ = 0;  // the unit's first clone start
  int64_t next_ns_ = 0;   // 0: not started yet
  int64_t last_poll_ns_ = 0;
  int64_t prev_ns_ = 0;
  uint64_t prev_ios_ = 0, prev_bytes_ = 0, prev_lat_ = 0;
  size_t samples_ = 0;  // intervals sampled
  bool done_ = false;
};

}  // namespace blk::bench
