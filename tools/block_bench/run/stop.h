// StopSource: how a block-bench run is asked to end early (SIGINT, SIGTERM).
//
// request() may be called from a signal handler: it is an atomic update and
// a write(2) to an eventfd, both async-signal-safe.  The runner's
// coordinator thread waits on fd() and, once it is readable, interrupts every
// running clone (RunOptions::stop).  The object belongs to the caller (the
// tool's main); the runner only reads it.
//
// Thread-safety: request(), requested(), signal() and fd() from any thread
// or signal handler once constructed.
#pragma once

#include <atomic>

namespace blk::bench {

class StopSource {
 public:
  // Creates the eventfd.  If that fails (no file descriptor left) fd() is -1
  // and the coordinator notices a request at its next progress tick instead.
  StopSource();
  ~StopSource();
  StopSource(const StopSource&) = delete;
  StopSource& operator=(const StopSource&) = delete;

  // Records a request to stop, by signal `signo` (0: not a signal), and wakes
  // whoever waits on fd().  Returns how many requests there were, this one
  // included: a caller may treat the second as "stop at once".  The first
  // request's signal is kept.
  int request(int signo) noexcept;
  bool requested() const noexcept { return count_.load() > 0; }
  // The signal of the first request, or 0.
  int signal() const noexcept { return signo_.load(); }
  // Readable once a request was made (never read: it stays readable).
  int fd() const noexcept { return fd_; }

 private:
  int fd_ = -1;
  std::atomic<int> count_{0};
  std::atomic<int> signo_{0};
};

}  // namespace blk::bench
