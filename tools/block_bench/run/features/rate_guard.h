// RateGuard: fio's rate_min / rate_iops_min (check_min_rate) for one clone.
//
// From 2 s after the start and past the ramp, every rate_cycle ms the rate
// of each direction with a minimum, over that cycle, is checked against it
// (bytes/s, then I/O/s); below it the job ends with EIO, naming the
// direction, the rate and the target.  Checked at completions (measured
// ones) and from the sample timer (check()), so that a stalled device that
// completes nothing is caught too.  Not in the verify phase.
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/clone_stats.h"
#include "tools/block_bench/run/hook.h"
#include "tools/block_bench/run/source.h"

namespace blk::bench {

class RateGuard : public SubmitHook {
 public:
  // Whether the job sets any minimum.
  static bool Wanted(const JobOptions& job);
  // `dirs`: what the job issues; `target`: its name for the message;
  // `on_fail`: after the job was failed (wakes the submitter, cuts sleeps).
  RateGuard(const JobOptions& job, const Timeline& time, const CloneStats& stats,
            const IoSource& dirs, CloneErrors& errors, std::string target,
            std::function<void()> on_fail)
      : job_(job), time_(time), stats_(stats), dirs_(dirs), errors_(errors),
        target_(std::move(target)), on_fail_(std::move(on_fail)) {}
  unsigned points() const override { return kOnComplete; }
  void on_complete(const DoneIo& io) override {
    if (io.measured) check(io.t1);
  }
  void check(int64_t now);

 private:
  struct Mark {
    int64_t at = 0;  // 0: not started
    uint64_t bytes = 0, ios = 0;
  };
  // The miss of direction d over the cycle since its mark, or "".
  std::string miss(int d, int64_t spent) const;

  const JobOptions& job_;
  const Timeline& time_;
  const CloneStats& stats_;
  const IoSource& dirs_;
  CloneErrors& errors_;
  std::string target_;
  std::function<void()> on_fail_;
  Mark mark_[kNumDirs];
};

}  // namespace blk::bench
