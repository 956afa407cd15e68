// BatchSizer: the most requests QueueEngine sends per submission
// (aio-max-batch, aio-batch-adapt).
//
// Without adapting, the limit is max_batch.  Adapting, it follows the
// device: max_batch while the peeks right after a submission find at least
// half of the requests sent already done (the device completes inside the
// submission, like zram: big batches save system calls); async_batch (at
// most max_batch) once they find fewer than a quarter (an asynchronous
// device: the first requests reach it sooner instead of waiting for 31
// others, and a virtual disk or the loop worker starts on them while the
// rest are prepared).  In between the limit stays (a loop device at QD 128
// hovers around a half and would flip every window).  Decided per window:
// at the end of a submission pass once kWindow requests or more were sent
// since the last decision.  Adapting needs the peeks (peek-after-submit);
// the engine turns it off without them.
//
// The engine reports what happens (submitted(), found(), end_of_pass());
// the sizer has no clock and makes no system call.  Plain state, not
// thread-safe: the engine's loop thread.
#pragma once

#include <algorithm>
#include <cstdint>

namespace blk {

class BatchSizer {
 public:
  static constexpr uint64_t kWindow = 512;  // requests sent per decision

  // REQUIRES: max_batch >= 1, async_batch >= 1.
  BatchSizer(int max_batch, int async_batch, bool adapt)
      : max_batch_(max_batch), async_batch_(async_batch), adapt_(adapt), limit_(max_batch) {}

  // The most requests the next submission may carry.
  int limit() const { return limit_; }

  // `n` requests went to the device in one submission.
  void submitted(int n) { win_submitted_ += uint64_t(n); }
  // A peek right after a submission found `n` requests done.
  void found(int n) { win_found_ += uint64_t(n); }
  // A submission pass ended (its peeks included): decides if the window is
  // full, and starts the next.
  void end_of_pass() {
    if (!adapt_ || win_submitted_ < kWindow) return;
    const int b = Choose(win_found_, win_submitted_, limit_, max_batch_, async_batch_);
    if (b != limit_) {
      limit_ = b;
      changes_++;
    }
    win_submitted_ = win_found_ = 0;
  }

  // Times the limit switched.
  uint64_t changes() const { return changes_; }

  // The rule: the limit after a window in which `submitted` requests went
  // out with limit `current` and the peeks found `found` of them done.
  static int Choose(uint64_t found, uint64_t submitted, int current, int max_batch,
                    int async_batch) {
    if (found * 2 >= submitted) return max_batch;
    if (found * 4 < submitted) return std::min(max_batch, async_batch);
    return current;
  }

 private:
  int max_batch_;
  int async_batch_;
  bool adapt_;
  int limit_;
  uint64_t win_submitted_ = 0;  // window: requests sent
  uint64_t win_found_ = 0;      //   ... found done by the peeks after a submission
  uint64_t changes_ = 0;
};

}  // namespace blk
