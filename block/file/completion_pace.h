// CompletionPace: how fast a device completes requests while it has some in
// flight, for deciding whether busy polling can pay
// (PollGovernor::worthwhile, poll_governor.h).
//
// The estimate is the mean time between completions over busy time only: the
// owner samples (time, completions so far) at moments when requests are in
// flight and calls idle() at moments when none are, so a span holding a gap
// with nothing in flight (a paused workload, think time) is never counted.
// PollGovernor samples when its loop is about to wait.  The mean is recomputed once
// kWindow completions have been seen across samples, so it follows a device
// whose speed changes (a loop device that starts writing back) within a few
// thousand requests.
//
// At queue depth d the time until the device runs out of work is about
// d * interval_ns(); at depth 1 interval_ns() is the whole round trip.
//
// Plain value type, no clock of its own (the caller passes the time, so tests
// drive it with made-up times).  Not thread-safe.
#pragma once

#include <cstdint>

namespace blk {

class CompletionPace {
 public:
  static constexpr uint64_t kWindow = 256;

  // A sample at `now_ns`, with requests in flight, after `completions` in
  // all.  The span since the previous sample counts when that one was also
  // busy (no idle() between).
  void busy(int64_t now_ns, uint64_t completions) {
    if (last_ns_ >= 0 && now_ns >= last_ns_ && completions >= last_done_) {
      win_ns_ += now_ns - last_ns_;
      win_done_ += completions - last_done_;
      if (win_done_ >= kWindow) {
        interval_ns_ = win_ns_ / int64_t(win_done_);
        win_ns_ = 0;
        win_done_ = 0;
      }
    }
    last_ns_ = now_ns;
    last_done_ = completions;
  }
  // Nothing in flight: the span until the next busy() is not the device's.
  void idle() { last_ns_ = -1; }

  // Mean ns between completions while busy; 0 until a window has closed.
  int64_t interval_ns() const { return interval_ns_; }

 private:
  int64_t last_ns_ = -1;
  uint64_t last_done_ = 0;
  int64_t win_ns_ = 0;
  uint64_t win_done_ = 0;
  int64_t interval_ns_ = 0;
};

}  // namespace blk
