// VerifyBacklog: fio's verify_backlog / verify_backlog_batch for one clone.
//
// The tracker's history (VerifyTracker::history()) counts the writes issued
// and not yet read back.  When it is a multiple of verify_backlog and the
// last I/O issued was not a read (fio 3.33 asks of the last completed one;
// the two differ only at iodepth > 1), a batch of verify_backlog_batch (0: verify_backlog)
// reads starts: the loop lets the I/O in flight complete and queues reads
// of the oldest completed writes still unchecked (SubmitLoop::inject), which
// go out before anything else.  What is left of a batch when no completed
// write is left is taken by the next writes, one read after each.  The
// verify phase then skips the checked blocks.
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <cstdint>

#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/features/verify_tracker.h"
#include "tools/block_bench/run/hook.h"

namespace blk::bench {

class VerifyBacklog : public SubmitHook {
 public:
  // REQUIRES: backlog > 0.
  VerifyBacklog(uint32_t backlog, uint32_t batch, VerifyTracker& tracker, const Timeline& time)
      : backlog_(backlog), batch_size_(batch ? batch : backlog), tracker_(tracker), time_(time) {}
  unsigned points() const override { return kBeforeFetch; }
  bool before_fetch(SubmitLoop& loop) override;
  Task<bool> turn(SubmitLoop& loop) override;
  // Whether a batch is due, the last I/O issued being in direction `last`
  // and nothing queued.
  bool due(Dir last);
  // Moves up to the batch's remaining reads into `out` (loop.inject).
  template <class Inject>
  void take(Inject&& inject) {
    IoUnit u;
    while (batch_ && tracker_.pop_backlog(&u)) {
      inject(u);
      batch_--;
    }
    tracker_.settle_history();
  }
  uint32_t batch_left() const { return batch_; }

 private:
  uint32_t backlog_, batch_size_;
  VerifyTracker& tracker_;
  const Timeline& time_;
  uint32_t batch_ = 0;  // reads still to queue in the current batch
};

}  // namespace blk::bench
