// CmdPrio: which I/O priority each request of a job carries, as fio 3.33's
// libaio and io_uring engines choose it (engines/cmdprio.c).
//
//  * Every request has the job's own priority (prio/prioclass, which the
//    clone also sets on its thread with ioprio_set; 0 when neither is
//    written) unless cmdprio picks it.
//  * cmdprio_percentage=P: P% of the direction's requests (an independent
//    draw per request) get cmdprio_class/cmdprio (class real-time when not
//    written).
//  * cmdprio_bssplit: for a request of a size named in the list, a draw in
//    0..99 walks that size's entries in order, each taking its percentage;
//    an entry without class/level takes cmdprio_class/cmdprio.
//
// pick() returns the ioprio value to report the request under and whether
// it goes with the request (per_request: cmdprio chose it; the others rely
// on the thread's priority, as fio's).  priorities(d) lists the values
// direction d can report, the job's own first (fio's clat_prio order):
// the report splits the latencies by them when cmdprio is on.
//
// Thread-safety: one clone's thread.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/rng.h"

namespace blk::bench {

class CmdPrio {
 public:
  CmdPrio(const IoPrioOptions& o, uint64_t seed);

  struct Pick {
    uint16_t ioprio;    // the request's priority (the job's own, or cmdprio's)
    bool per_request;   // cmdprio chose it: send it with the request
  };
  // The priority of a request of direction d (read or write) and `len`
  // bytes.  Trims and flushes: the job's own.
  Pick pick(Dir d, uint64_t len);
  // Whether cmdprio is on for any direction.
  bool active() const { return active_; }
  // The values direction d reports under, the job's own first.
  const std::vector<uint16_t>& priorities(Dir d) const { return prios_[int(d) & 1]; }

  // ioprio value of a class and level (fio's ioprio_value: class 0 is
  // best-effort).
  static uint16_t Value(uint32_t prioclass, uint32_t level) {
    return uint16_t((prioclass ? prioclass : 2) << 13 | level);
  }

 private:
  const IoPrioOptions& o_;
  Rng rng_;
  uint16_t job_ = 0;
  bool active_ = false;
  std::vector<uint16_t> prios_[2];
};

}  // namespace blk::bench
