// How every clone of a run learns at once that it is to start or to stop.
//
// StopSource: how a block-bench run is asked to end early (SIGINT,
// SIGTERM).  request() may be called from a signal handler: it is an
// atomic update and a write(2) to an eventfd, both async-signal-safe.  The
// eventfd is never read, so it stays readable: every clone's loop watches
// fd() (OnceReadable) and interrupts its clone itself when it wakes, so one
// write reaches every clone at once however many there are (RunOptions::
// stop).  The object belongs to the caller (the tool's main); the runner
// only reads it.
//
// Broadcast: the same one-shot eventfd for the runner's own events (the
// start of a segment's clones, once all their threads exist).
//
// OnceReadable: on one loop, calls a function the first time a descriptor
// is readable (at once when it already is), then stops watching it.
//
// Thread-safety: StopSource's and Broadcast's methods from any thread or
// signal handler once constructed; OnceReadable on its loop's thread.
#pragma once

#include <atomic>
#include <coroutine>
#include <cstdint>
#include <functional>
#include <optional>

#include <blkstack/util/aio_context.h>

namespace blk::bench {

class StopSource {
 public:
  // Creates the eventfd.  If that fails (no file descriptor left) fd() is -1
  // and the coordinator notices a request at its next progress tick instead
  // (then posting the interrupt to each clone's loop).
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

// A one-shot event: fire() makes fd() readable for good.  fd() is -1 when
// the eventfd could not be created (ok() false).
class Broadcast {
 public:
  Broadcast();
  ~Broadcast();
  Broadcast(const Broadcast&) = delete;
  Broadcast& operator=(const Broadcast&) = delete;

  bool ok() const noexcept { return fd_ >= 0; }
  int fd() const noexcept { return fd_; }
  // Idempotent; async-signal-safe.  The first call's CLOCK_MONOTONIC time
  // is kept.
  void fire() noexcept;
  bool fired() const noexcept { return fired_ns_.load() != 0; }
  // When fire() was first called (0: not yet).
  int64_t fired_ns() const noexcept { return fired_ns_.load(); }

 private:
  int fd_ = -1;
  std::atomic<bool> firing_{false};
  std::atomic<int64_t> fired_ns_{0};
};

// Calls `fn` on `ctx`'s loop once, the first time `fd` is readable, and
// then no more (the handler is removed before `fn` runs, so `fn` may destroy
// this object).  fd < 0: never.  cancel() or the destructor stops watching
// (a no-op once fired).  REQUIRES: on `ctx`'s loop thread, which outlives
// this object; `fd` stays open while watched; no other handler for `fd` on
// `ctx`.
class OnceReadable {
 public:
  OnceReadable(AioContext& ctx, int fd, std::function<void()> fn);
  ~OnceReadable() { cancel(); }
  OnceReadable(const OnceReadable&) = delete;
  OnceReadable& operator=(const OnceReadable&) = delete;

  void cancel();
  // True once fn ran.
  bool fired() const { return fired_; }

 private:
  AioContext& ctx_;
  int fd_;
  bool watching_ = false;
  bool fired_ = false;
  std::function<void()> fn_;
};

// Awaitable: resumes the awaiting coroutine on `ctx`'s loop once `fd` is
// readable (at once when it is already; never when fd < 0).  Loop thread.
class WhenReadable {
 public:
  WhenReadable(AioContext& ctx, int fd) : ctx_(ctx), fd_(fd) {}
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    watch_.emplace(ctx_, fd_, [this, h] { ctx_.defer(h); });
  }
  void await_resume() noexcept { watch_.reset(); }

 private:
  AioContext& ctx_;
  int fd_;
  std::optional<OnceReadable> watch_;
};

}  // namespace blk::bench
