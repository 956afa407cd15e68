// RatePacer: when each I/O of a clone may start under fio's rate= and
// rate_iops= (per direction) with rate_process=linear or poisson, and which
// direction a mixed job issues next.
//
//  * each direction's limit is fio's rate_bps: rate= in bytes per second,
//    else rate_iops= times the direction's smallest block size (fio's
//    __setup_rate; with bsrange/bssplit the job issues fewer I/Os per
//    second than rate_iops, as fio 3.33's); rate= wins over rate_iops=.
//  * linear: the n-th I/O of a direction is due once the bytes issued
//    before it fit the limit since start(): an absolute schedule, so a late
//    wake-up does not lower the average rate.
//  * poisson: exponentially distributed gaps of mean smallest block size /
//    limit (fio's usec_for_io), from a generator seeded by the clone's
//    seed.
//  * times saturate (util/saturating.h): a schedule that runs past int64
//    nanoseconds (rate=1 after 9.2 GB) stays at kNeverNs, never wraps to
//    a time in the past.
//  * each direction has its own budget: next_due(d) is when d's next I/O
//    may go, whatever the other directions do.  In a read/write mix the
//    direction the mix drew waits only if no other direction could go
//    sooner (choose(), fio's rate_ddir): were the drawn direction's I/O
//    held until its own time while the other direction's were due, a
//    70/30 mix capped at 8000 reads/s and 3000 writes/s would run at the
//    writes' pace (7000 reads/s) and every read would be issued later and
//    later behind its schedule.
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
  // reserves its share of the limits: next_due(u.dir) before the call.
  // 0 when u.dir has no limit.  REQUIRES: active().
  int64_t due(const IoUnit& u);
  // When the next I/O of direction `d` may be issued; 0 (now) when `d` has
  // no limit.  Reserves nothing.
  int64_t next_due(Dir d) const;
  // fio's rate_ddir: the direction of a read/write mix's next I/O at `now`,
  // given the one the mix drew (read or write; both have a share in the
  // mix).  The drawn one when it is due; else the other one when that is
  // due; else whichever is due first (the drawn one on a tie).  Reserves
  // nothing: due() of the I/O made in that direction does.
  Dir choose(Dir drawn, int64_t now) const;

 private:
  uint64_t bps_[kNumDirs] = {}, min_bs_[kNumDirs] = {};
  bool poisson_;
  bool active_ = false;
  int64_t start_ns_ = 0;
  int64_t next_[kNumDirs] = {};  // poisson
  uint64_t bytes_[kNumDirs] = {};  // linear
  Rng rng_;
};

}  // namespace blk::bench
