// SubmitHook: how an optional fio feature joins a clone's submit loop.
//
// The submit loop (run/submit_loop.h) fetches an I/O, waits until it is
// due and there is room, issues it and accounts its completion.  A feature
// that a job enables (verify, trim_backlog, latency_target, thinktime,
// rate_min, flow, fsync=, max_latency, the per-I/O logs) is a SubmitHook
// that the clone registers with the loop for the points it uses
// (points()); the loop calls only the hooks registered for a point, so a
// job pays nothing for a feature it does not use.  The points, in the
// order of one round of the loop:
//
//   before_fetch(loop)  before the loop takes its next I/O; true: the hook
//                       takes its turn now (turn()).  Hooks are asked in
//                       registration order; the first that answers true
//                       runs, and its turn decides whether the round
//                       starts over.
//   before_issue(loop)  the next I/O is due and there is room; true: the
//                       hook takes its turn first (the I/O waits).
//   on_issue(io)        the I/O is being issued (not for flushes).
//   after_issue(loop, now)
//                       the I/O was issued; true: the hook takes its turn.
//   on_complete(io)     a request completed, successfully or not, and was
//                       accounted (not a flush, not a request cancelled at
//                       the end, not fill_device's ENOSPC).
//   holds(slot)/settle(slot)
//                       after on_complete: a hook that still needs the
//                       request's buffer (verify_async: its block is
//                       checked on another thread) answers true from
//                       holds(); the loop then awaits settle() before
//                       on_retire.  Meanwhile the request no longer counts
//                       as in flight (the depth, the refill point), but its
//                       slot stays taken, as fio keeps an io_u until it is
//                       verified; wait_all() waits for it too.
//   on_retire(slot)     every request's slot is given back, whatever the
//                       outcome.
//
// A turn (turn()) is a coroutine on the clone's loop that may wait (for
// the requests in flight, a time, a slot) and queue I/O (loop.inject());
// it returns true when the loop starts its round over, false when it goes
// on.  Turns are rare (a batch, a pause), so their frames cost nothing on
// the common path.
//
// Thread-safety: everything on the clone's loop thread.
#pragma once

#include <cstdint>

#include "tools/block_bench/run/source.h"
#include <blkstack/util/result.h>
#include <blkstack/util/task.h>

namespace blk::bench {

class SubmitLoop;

// An I/O being issued from `slot` at `now`.
struct IssuedIo {
  uint32_t slot;
  const IoUnit& u;
  int64_t now;
};

// A completed request (see on_complete).  slat: nullptr when the driver did
// not mark a hand-over (run/result.h); clat is then lat.
struct DoneIo {
  uint32_t slot;
  const IoUnit& u;
  int64_t t1;       // when it completed
  uint64_t lat;     // from issue to completion, ns
  uint64_t clat;
  const uint64_t* slat;
  bool measured;    // issued after the ramp
  Status st;
};

class SubmitHook {
 public:
  enum Point : unsigned {
    kBeforeFetch = 1u << 0,
    kBeforeIssue = 1u << 1,
    kOnIssue = 1u << 2,
    kAfterIssue = 1u << 3,
    kOnComplete = 1u << 4,
    kOnRetire = 1u << 5,
    kSettle = 1u << 6,
  };
  virtual ~SubmitHook() = default;
  // The points this hook is called at (a mask of Point).
  virtual unsigned points() const = 0;

  virtual bool before_fetch(SubmitLoop&) { return false; }
  virtual bool before_issue(SubmitLoop&) { return false; }
  virtual void on_issue(const IssuedIo&) {}
  virtual bool after_issue(SubmitLoop&, int64_t /*now*/) { return false; }
  virtual void on_complete(const DoneIo&) {}
  // Whether the request just completed from `slot` must settle() before
  // its slot is retired.  Called right after on_complete.
  virtual bool holds(uint32_t /*slot*/) { return false; }
  // Finishes what holds() announced; it may move to other threads but
  // returns on the clone's loop.  REQUIRES: holds(slot) answered true.
  virtual Task<void> settle(uint32_t /*slot*/) { co_return; }
  virtual void on_retire(uint32_t /*slot*/) {}
  // The hook's turn, after one of the points above answered true.
  virtual Task<bool> turn(SubmitLoop&) { co_return false; }
  // Whether on_issue, on_complete and on_retire are called for
  // verify_only's dry I/O (IoUnit::dry) too; the other points never see it
  // (fio's dry run has no pacing, think time, flow, locks or syncs).
  virtual bool sees_dry() const { return false; }
};

}  // namespace blk::bench
