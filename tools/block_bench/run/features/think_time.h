// ThinkTime: fio's thinktime for one clone (handle_thinktime).
//
// After every thinktime_blocks I/Os (issued with thinktime_blocks_type=
// issue, else completed; ramp included), and with thinktime_iotime every
// thinktime_iotime + thinktime from decision to decision, the clone
// pauses: it lets the I/O in flight complete (fio's io_u_quiesce), spins on
// the CPU for thinktime_spin, then sleeps for the rest of thinktime; all
// of it ends with the runtime or a stop.  rate_ignore_thinktime: the rate
// schedule moves by the pause instead of catching up.  Not in the verify
// phase.  The pause's length is thinktime=, or what follow() names: cpuio
// and exec (run/work_engine.h) pause after every completed I/O without
// spinning, as fio's engines set thinktime_blocks=1, thinktime_spin=0.
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <cstdint>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/hook.h"

namespace blk::bench {

class ThinkTime : public SubmitHook {
 public:
  ThinkTime(const JobOptions& job, const Timeline& time, const CloneErrors& errors)
      : job_(job), time_(time), errors_(errors) {}
  unsigned points() const override { return kOnIssue | kAfterIssue | kOnComplete; }
  void on_issue(const IssuedIo&) override { issued_++; }
  void on_complete(const DoneIo&) override { completed_++; }
  bool after_issue(SubmitLoop&, int64_t now) override { return due(now); }
  Task<bool> turn(SubmitLoop& loop) override;

  // The pause lasts *length from now on (read at each pause; outlives
  // this).
  void follow(const std::chrono::microseconds* length) {
    length_ = length;
    every_io_ = true;
  }
  // The clock started at `now`.
  void start(int64_t now) { last_ns_ = now; }
  // Whether a pause is due after the I/O just issued at `now`; if so, notes
  // the count and the time.
  bool due(int64_t now);

 private:
  const JobOptions& job_;
  const Timeline& time_;
  const CloneErrors& errors_;
  const std::chrono::microseconds* length_ = &job_.thinktime;
  bool every_io_ = false;  // follow(): after each completion, no spin
  // I/Os issued and completed, the count at the last pause, and when it
  // was decided (or the clock started).
  uint64_t issued_ = 0, completed_ = 0, last_blocks_ = 0;
  int64_t last_ns_ = 0;
};

}  // namespace blk::bench
