// LatencyTarget: fio's latency_target search for one clone.
//
// The queue starts at depth 1 and doubles after each latency_window in
// which latency_percentile of the I/Os kept within latency_target, until a
// window fails; then it bisects between the last depth that passed (low)
// and the one that failed (high).  An I/O over the target fails the window
// at once when the percentile is 100.  A depth change first lets the I/Os
// in flight complete (the loop quiesces: before_fetch/turn); I/Os issued
// in an earlier cycle do not count.  When a pass leaves the depth where it
// was, the statistics restart (restart_stats) and one more window runs at
// that depth (the report covers it alone); when that passes too the job
// ends (end_job; latency_run=1: it goes on adjusting).  A failing window at
// depth 1 keeps the depth; an I/O over a 100 % target at depth 1 ends the
// job with ETIMEDOUT, as fio.
//
// The loop reads the depth through cap() (SubmitLoop::set_depth_cap).
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/hook.h"

namespace blk::bench {

class LatencyTarget : public SubmitHook {
 public:
  struct Callbacks {
    std::function<void(int64_t now)> restart_stats;  // drop what was measured
    std::function<void()> end_job;                   // the search is done
  };
  // `max_depth`: the job's depth; `slots`: how many requests may be in
  // flight (per-request cycle numbers).
  LatencyTarget(const JobOptions& job, uint32_t max_depth, uint32_t slots, CloneErrors& errors,
                Callbacks cb);

  unsigned points() const override { return kBeforeFetch | kOnIssue | kOnComplete; }
  bool before_fetch(SubmitLoop&) override { return quiesce_; }
  Task<bool> turn(SubmitLoop& loop) override;
  void on_issue(const IssuedIo& io) override { cycle_of_[io.slot] = cycle_; }
  void on_complete(const DoneIo& io) override {
    if (io.measured && io.st.ok() && cycle_of_[io.slot] == cycle_) record(io.lat, io.t1);
  }

  // The clock started at `now`: the first window starts.
  void start(int64_t now) { window_start_ = now; }
  // One completion of the current cycle with latency `lat` at `now`.
  void record(uint64_t lat, int64_t now);
  // The loop quiesced at `now`: restarts the statistics if a final window
  // starts, and the window.
  void quiesced(int64_t now);
  // The depth in effect (SubmitLoop::set_depth_cap).
  const uint32_t* cap() const { return &qd_; }
  uint32_t depth() const { return qd_; }
  bool quiescing() const { return quiesce_; }
  uint32_t cycle() const { return cycle_; }

 private:
  void new_cycle(int64_t now);
  bool ramp_down(int64_t now);
  void pass(int64_t now);

  uint64_t target_ns_;
  int64_t window_ns_;
  double percentile_;
  bool keep_running_;  // latency_run
  uint32_t max_depth_;
  CloneErrors& errors_;
  Callbacks cb_;
  uint32_t qd_ = 1, low_ = 1, high_;
  int64_t window_start_ = 0;
  uint64_t ios_ = 0, failed_ = 0;  // this cycle's counted completions
  uint32_t cycle_ = 1;
  bool final_run_ = false;
  bool quiesce_ = false;        // the loop lets every I/O complete first
  bool restart_stats_ = false;  // ... and then the statistics restart
  std::vector<uint32_t> cycle_of_;  // per slot: the cycle it was issued in
};

}  // namespace blk::bench
