// PollGovernor: decides whether the loop's busy polling of a completion
// ring pays (aio-poll=, QueueEngine's poll handler), from what the engine
// reports: wake-ups that reaped completions and by which path, completions
// counted, and the moments the loop is about to wait.  It only decides: the
// engine registers or withdraws its PollHandler as told.
//
// Modes:
//   kAuto: registered, but withdrawn while it does not pay: when, over a
//     window of kWindow wake-ups with completions, the loop's polling found
//     fewer than a quarter and the eventfd (the loop slept) the rest.  That
//     is a device whose completions come from a kernel worker that needs
//     this CPU (the loop device: spinning delays the very completion it
//     waits for) or slower than the poll window (a disk).  Polling is tried
//     again after kRetryWindows windows, doubling up to kRetryMax windows
//     while it keeps failing; a window that pays resets the wait to
//     kRetryWindows.  While registered, the loop spins only when
//     worthwhile() (a shallow enough queue); eventfd wake-ups after a sleep
//     it declined do not count in the window.
//   kOn: always registered, always worthwhile.
//   kOff: never registered.  (The engine passes kOff without a ring read in
//     user space: the poll handler could not see completions.)
//
// Pace: the device's mean time between completions while busy
// (CompletionPace), sampled in worthwhile() only, with the count of
// completed() so far; idle (nothing in flight) when the loop is about to
// wait with nothing in flight, and when polling is registered again (the
// span it was withdrawn may hold a pause).
//
// No clock of its own: worthwhile() takes a callable that returns the time,
// called only when a sample is taken (so tests script the time).  Plain
// state, not thread-safe: the engine's loop thread.
#pragma once

#include <algorithm>
#include <cstdint>

#include <blkstack/block/file/completion_pace.h>

namespace blk {

class PollGovernor {
 public:
  enum class Mode { kAuto, kOn, kOff };
  // What woke the loop and reaped completions.
  enum class Wakeup { kPoll, kEventfd };
  // What the engine must do with its PollHandler after on_wakeup().
  enum class Change { kNone, kWithdraw, kRegister };

  static constexpr int kWindow = 128;       // wake-ups with completions
  static constexpr int kRetryWindows = 8;   // first wait before retrying
  static constexpr int kRetryMax = 256;     // longest wait

  explicit PollGovernor(Mode mode) : mode_(mode) {}

  Mode mode() const { return mode_; }

  // The engine attaches to a loop: a new window, the pace idle, no sleep
  // declined.  True when the engine must register its PollHandler (not
  // kOff); registered() is then true.
  bool attach() {
    win_poll_ = win_wait_ = 0;
    pace_.idle();
    declined_ = false;
    registered_ = mode_ != Mode::kOff;
    return registered_;
  }
  // The engine detached (and withdrew its handler if registered()).
  void detach() { registered_ = false; }
  // True while the engine's PollHandler must be registered.
  bool registered() const { return registered_; }

  // `n` completions reaped, wherever (the pace's count).
  void completed(int n) { completions_ += uint64_t(n); }

  // A wake-up that reaped at least one completion.  Returns the change the
  // engine must make now: only kAuto changes anything, and only on an
  // eventfd wake-up (the one path outside the loop's iteration over its
  // poll handlers, where a handler may be added or removed).
  Change on_wakeup(Wakeup src) {
    if (mode_ != Mode::kAuto) return Change::kNone;
    // A wake-up after a sleep the loop chose without polling says nothing
    // about whether polling would have caught it.
    if (src == Wakeup::kEventfd && declined_) return Change::kNone;
    if (src == Wakeup::kPoll) win_poll_++; else win_wait_++;
    if (src != Wakeup::kEventfd || win_poll_ + win_wait_ < kWindow) return Change::kNone;
    const bool paid = win_poll_ * 4 >= win_poll_ + win_wait_;
    win_poll_ = win_wait_ = 0;
    if (registered_) {
      if (paid) {
        retry_windows_ = kRetryWindows;
        return Change::kNone;
      }
      registered_ = false;
      withdrawals_++;
      retry_left_ = retry_windows_;
      retry_windows_ = std::min(retry_windows_ * 2, kRetryMax);
      return Change::kWithdraw;
    }
    if (--retry_left_ > 0) return Change::kNone;
    pace_.idle();  // unsampled while withdrawn: the span may hold a pause
    registered_ = true;
    retries_++;
    return Change::kRegister;
  }

  // The loop is about to wait, with `in_flight` requests in the kernel and
  // a poll window of `poll_max_ns`: whether spinning can pay.  kOn: always.
  // Otherwise only with requests in flight whose next completion is
  // expected within the window: in_flight * pace <= poll_max_ns (an
  // unknown pace counts as worthwhile).  At a deep queue the device stays
  // busy for longer than any poll window, so sleeping costs it nothing,
  // while spinning costs a CPU and reaps one completion per wake-up; at
  // QD 1 the next completion is the one the guest waits for, and polling
  // stays.  `now()` returns CLOCK_MONOTONIC ns; called once, only when
  // requests are in flight and the mode is not kOn.
  template <class Now>
  bool worthwhile(int in_flight, int64_t poll_max_ns, Now now) {
    if (mode_ == Mode::kOn) return true;
    bool worth = false;
    // Sampled only here, when the loop is about to wait: in flight dropping
    // to 0 inside an iteration and refilled before it ends is not a pause.
    if (in_flight == 0) {
      pace_.idle();
    } else {
      pace_.busy(now(), completions_);
      const int64_t pace = pace_.interval_ns();
      worth = pace == 0 || int64_t(in_flight) * pace <= poll_max_ns;
    }
    declined_ = !worth;
    if (!worth) declined_count_++;
    return worth;
  }

  // Counters.
  uint64_t withdrawals() const { return withdrawals_; }  // kAuto: withdrawn
  uint64_t retries() const { return retries_; }          // kAuto: registered again
  uint64_t declined() const { return declined_count_; }  // worthwhile() said no
  int64_t pace_ns() const { return pace_.interval_ns(); }

 private:
  Mode mode_;
  bool registered_ = false;
  CompletionPace pace_;
  uint64_t completions_ = 0;  // completed() in all: the pace's samples
  bool declined_ = false;     // the last worthwhile() said no
  int win_poll_ = 0;          // window: wake-ups reaped by polling
  int win_wait_ = 0;          //   ... by the eventfd
  int retry_left_ = 0;        // windows until polling is tried again
  int retry_windows_ = kRetryWindows;
  uint64_t withdrawals_ = 0;
  uint64_t retries_ = 0;
  uint64_t declined_count_ = 0;
};

}  // namespace blk
