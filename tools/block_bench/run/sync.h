// RunSync: how the clones of several processes (MPI ranks, each running the
// same jobs on its own host) start every stonewall segment together.
//
// With RunOptions::sync set, RunJobs runs each segment in two steps: every
// clone opens and prepares its target (file layout included) and waits;
// once all of them are ready or failed, the calling thread calls
// segment_ready(); its answer starts the clones' I/O (their clocks,
// ramp_time and runtime, start there) or ends the segment with no I/O.
// Without it, each clone starts its I/O as soon as it is prepared (the
// single-host behaviour, no waiting step).  The clones' ramp_time ends on
// every process together too (ramp_begin / ramp_done below).
//
// Contract for implementations: segment_ready is called on RunJobs' calling
// thread only (MPI_THREAD_FUNNELED), once per segment, in segment order, by
// every process; the worker threads never call it and are parked, not
// blocked on it.
#pragma once

#include <cstddef>
#include <string>

#include <blkstack/util/result.h>

namespace blk::bench {

class RunSync {
 public:
  virtual ~RunSync() = default;
  // Every clone of segment `segment` here is prepared (`failure` empty), or
  // one failed to open or prepare its target (`failure` says which and
  // why).  Returns once every process reached this point: success when
  // every process is ready, else the error (its message names the process,
  // e.g. "rank 2 (host-b): ...") that keeps all of them from starting.
  virtual Expected<void> segment_ready(size_t segment, const std::string& failure) = 0;

  // The end of ramp_time, agreed without stopping the I/O: ramp_begin()
  // starts a non-blocking agreement (MPI_Ibarrier) once this process's ramp
  // is over (or its clones ended), ramp_done() polls it; once it is done on
  // a process, that process's clones start measuring.  Called on the
  // calling thread, once per distinct ramp_time of a started segment, in
  // increasing order, always to completion (also by a process whose clones
  // ended early).
  virtual void ramp_begin() = 0;
  virtual bool ramp_done() = 0;
};

}  // namespace blk::bench
