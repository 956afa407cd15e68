// Pacing: when a clone's I/O is due, waiting for it, and how late it went.
//
// An I/O with a due time (rate=/rate_iops= through RatePacer, or a
// trace's timestamps) is issued at that time on an absolute schedule from
// the clone's start, never earlier: lateness never accumulates.  The
// verify phase is not paced.  Due times saturate (util/saturating.h): one
// beyond int64 nanoseconds is kNeverNs, after every runtime, so such an
// I/O is not issued; without a runtime the clone waits for it until it is
// interrupted.
//
// wait_until() sleeps on a timer, at most until the runtime ends, and is
// cut short by cancelling the clone's SleepGroup (interrupt, end of a held
// ramp).  For a trace (spin_near_due) it sleeps until a window before the
// due time and then yields to the loop until it is due, so completions are
// reaped meanwhile; the window follows the timer's observed oversleep
// (twice the last one, decaying slowly when wake-ups are punctual, within
// kSpinMinNs..kSpinMaxNs).  Rate jobs only sleep.
//
// A rate-paced read/write mix takes its direction from choose() (see
// RatePacer::choose): each direction keeps its own rate, and an I/O is
// never held behind another direction's time.
//
// record() keeps the schedule's fidelity (ScheduleResult), for every
// measured paced I/O:
//  * held by the pacer: how long the submitter held it until its due time
//    (from when it first found it not yet due) -- the rate or the trace
//    doing its job, not a delay;
//  * lateness: issue - due, the delay after the due time, which the pacer
//    never adds (it holds an I/O only until its own due time): waiting for
//    room in the queue (the device), a late timer wake-up or a busy loop
//    (the host); how many were over 100 us and 1 ms late, and how many
//    waited for room in the queue (held back).
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <algorithm>
#include <coroutine>
#include <cstdint>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/pacer.h"
#include "tools/block_bench/run/result.h"
#include "tools/block_bench/run/source.h"
#include <blkstack/util/aio_context.h>
#include <blkstack/util/clock.h>
#include <blkstack/util/saturating.h>
#include <blkstack/util/task.h>

namespace blk::bench {

// Bounds of the window before a trace I/O's due time spent yielding to the
// loop instead of sleeping on a timer.
inline constexpr int64_t kSpinMinNs = 20'000;
inline constexpr int64_t kSpinMaxNs = 500'000;

// Awaitable: lets the loop run one round (completions, timers), then
// resumes.
struct YieldToLoop {
  AioContext* ctx;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) noexcept { ctx->defer(h); }
  void await_resume() const noexcept {}
};

class Pacing final : public DirChooser {
 public:
  Pacing(const JobOptions& job, uint64_t seed, const Timeline& time, SleepGroup& sleeps,
         ScheduleResult* schedule)
      : pacer_(job, seed), time_(time), sleeps_(sleeps), schedule_(schedule) {}
  // A trace's schedule: wait_until() spins near the due time.
  void set_spin_near_due(bool on) { spin_ = on; }
  // Whether rate=/rate_iops= pace the job.
  bool rate_active() const { return pacer_.active(); }
  // The I/O starts (after the buffers are filled): the rate schedule
  // starts now.
  void start(int64_t now) {
    origin_ns_ = now;
    pacer_.start(now);
  }
  // When start() was called (0: not yet).
  int64_t origin_ns() const { return origin_ns_; }
  // rate_ignore_thinktime: the rest of the rate schedule moves `ns` later.
  void shift(int64_t ns) { pacer_.shift(ns); }
  // When `u` is due (0: now), reserving its share of the rate.  A time
  // past int64 saturates at kNeverNs: past every runtime, never at once.
  int64_t due(const IoUnit& u) {
    if (time_.verify_phase) return 0;
    if (pacer_.active()) return pacer_.due(u);
    // The schedule starts with the clone.
    if (u.at_ns >= 0) return SatAdd(time_.start_ns, u.at_ns);
    return 0;
  }
  // Waits until `due`, at most until the runtime ends (not in the verify
  // phase); returns early when the clone's sleeps are cancelled.
  Task<void> wait_until(AioContext& ctx, int64_t due);
  // DirChooser: the direction of a rate-paced mix's next I/O now.
  Dir choose(Dir drawn) override { return pacer_.choose(drawn, NowNs()); }
  // A measured I/O due at `due` (0: unpaced) was issued at `now`;
  // `waited_from`: when the submitter first found it not yet due (0: it
  // was due when first seen); held: it waited for room after it was due.
  void record(int64_t now, int64_t due, int64_t waited_from, bool held) {
    if (!due) return;
    ScheduleResult& sc = *schedule_;
    if (waited_from && due > waited_from) sc.pacer_held.record(uint64_t(due - waited_from));
    const int64_t late = now > due ? now - due : 0;
    sc.lateness.record(uint64_t(late));
    if (late > 100'000) sc.late_100us++;
    if (late > 1'000'000) sc.late_1ms++;
    if (held) sc.held_back++;
  }
  int64_t spin_window_ns() const { return spin_ns_; }
  // The window after a wake-up `over` ns after the timer's deadline.
  void adapt_window(int64_t over) {
    if (2 * over > spin_ns_) spin_ns_ = std::min(kSpinMaxNs, 2 * over);
    else spin_ns_ = std::max(kSpinMinNs, spin_ns_ - spin_ns_ / 64);
  }

 private:
  RatePacer pacer_;
  int64_t origin_ns_ = 0;
  const Timeline& time_;
  SleepGroup& sleeps_;
  ScheduleResult* schedule_;
  bool spin_ = false;
  int64_t spin_ns_ = kSpinMinNs;
};

}  // namespace blk::bench
