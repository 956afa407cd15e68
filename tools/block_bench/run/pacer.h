// RatePacer: when each I/O of a clone may start under fio's rate= and
// rate_iops= (per direction) with rate_process=linear or poisson.
//
//  * linear: the n-th I/O of a direction is due once the bytes (rate=) and
//    I/Os (rate_iops=) issued before it fit the limits since start(): an
//    absolute schedule, so a late wake-up does not lower the average rate.
//  * poisson: exponentially distributed gaps with the limit's mean, from a
//    generator seeded by the clone's seed.
//
// Thread-safety: one pacer per clone, on its worker thread.
#pragma once

#include <cstdint>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/generator.h"
#include "tools/block_bench/run/rng.h"

namespace blk::bench {

class RatePacer {
 public:
  RatePacer(const JobOptions& job, uint64_t seed);
  // True when any direction has a limit.
  bool active() const { return active_; }
  // Starts the schedule at `now_ns` (CLOCK_MONOTONIC).
  void start(int64_t now_ns);
  // Moves the rest of the schedule `ns` later (rate_ignore_thinktime: the
  // time of a pause is not caught up).
  void shift(int64_t ns);
  // The time at which `u` may be issued (at or before now: at once), and
  // reserves its share of the limits.  REQUIRES: active().
  int64_t due(const IoUnit& u);

 private:
  PerDir<uint64_t> rate_, rate_iops_;
  bool poisson_;
  bool active_ = false;
  int64_t start_ns_ = 0;
  int64_t next_[kNumDirs] = {};  // poisson
  uint64_t bytes_[kNumDirs] = {}, ios_[kNumDirs] = {};  // linear
  Rng rng_;
};

}  // namespace blk::bench
