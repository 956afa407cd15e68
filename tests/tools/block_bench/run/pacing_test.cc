// Pacing (run/pacing.h) over RatePacer (run/pacer.h) with plain numbers for
// the clock: when an I/O is due under rate= / rate_iops= (linear: the n-th
// I/O of a direction at n * bs / rate from the start) or a trace's times,
// what record() keeps of lateness, and the trace's spin window.  Nothing
// waits: wait_until() is not called.
#include "tools/block_bench/run/pacing.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace blk::bench {
namespace {

constexpr int R = int(Dir::kRead);
constexpr int W = int(Dir::kWrite);

IoUnit Unit(Dir d, uint64_t len = 4096, int64_t at_ns = -1) {
  IoUnit u;
  u.dir = d;
  u.len = len;
  u.at_ns = at_ns;
  return u;
}

struct Fixture {
  explicit Fixture(const JobOptions& j) : job(j) {}
  JobOptions job;
  Timeline time;
  SleepGroup sleeps;
  ScheduleResult sched;
  Pacing pacing{job, 42, time, sleeps, &sched};
};

TEST(Pacing, RateLinearDueAtBytesOverRateFromTheStart) {
  JobOptions j;
  j.rate[W] = 1'000'000;  // bytes/s
  Fixture f(j);
  EXPECT_TRUE(f.pacing.rate_active());
  const int64_t start = 5'000'000'000;
  f.time.start_ns = start;
  f.pacing.start(start);
  // I/O n is due once the n * 4096 bytes before it fit 1 MB/s: n * 4.096 ms.
  for (int64_t n = 0; n < 10; n++)
    EXPECT_EQ(f.pacing.due(Unit(Dir::kWrite)), start + n * 4'096'000) << "write " << n;
  // A direction without a limit is never held.
  EXPECT_EQ(f.pacing.due(Unit(Dir::kRead)), 0);
  // Other sizes count by their bytes: after ten 4 KiB writes, a 64 KiB one
  // is due at 40960 bytes, the next at 40960 + 65536.
  EXPECT_EQ(f.pacing.due(Unit(Dir::kWrite, 65536)), start + 40'960'000);
  EXPECT_EQ(f.pacing.due(Unit(Dir::kWrite)), start + 106'496'000);
}

TEST(Pacing, RateIopsAndTheStricterOfTwoLimits) {
  {
    JobOptions j;
    j.rate_iops[R] = 1000;
    Fixture f(j);
    f.pacing.start(0);
    for (int64_t n = 0; n < 5; n++) EXPECT_EQ(f.pacing.due(Unit(Dir::kRead)), n * 1'000'000);
  }
  {
    // 1000 IOPS and 2 MB/s: rate= wins, as in fio's __setup_rate: 4 KiB
    // I/Os 2.048 ms apart, 1 KiB ones 0.512 ms.
    JobOptions j;
    j.rate_iops[R] = 1000;
    j.rate[R] = 2'000'000;
    Fixture f(j);
    f.pacing.start(0);
    EXPECT_EQ(f.pacing.due(Unit(Dir::kRead)), 0);
    EXPECT_EQ(f.pacing.due(Unit(Dir::kRead)), 2'048'000);
    EXPECT_EQ(f.pacing.due(Unit(Dir::kRead)), 4'096'000);
    JobOptions k = j;
    Fixture g(k);
    g.pacing.start(0);
    EXPECT_EQ(g.pacing.due(Unit(Dir::kRead, 1024)), 0);
    EXPECT_EQ(g.pacing.due(Unit(Dir::kRead, 1024)), 512'000);
    EXPECT_EQ(g.pacing.due(Unit(Dir::kRead, 1024)), 1'024'000);
  }
  {
    // rate_iops alone is rate_iops x the smallest block size bytes/s: with
    // bsrange=1k-8k, 1000 IOPS is 1 MiB/s, so an 8 KiB read holds the next
    // for 8 ms.
    JobOptions j;
    j.rate_iops[R] = 1000;
    j.bs[R].min = 1024;
    j.bs[R].max = 8192;
    Fixture f(j);
    f.pacing.start(0);
    EXPECT_EQ(f.pacing.due(Unit(Dir::kRead, 8192)), 0);
    EXPECT_EQ(f.pacing.due(Unit(Dir::kRead, 1024)), 8'000'000);
    EXPECT_EQ(f.pacing.due(Unit(Dir::kRead, 1024)), 9'000'000);
  }
}

TEST(Pacing, DirectionsArePacedApart) {
  JobOptions j;
  j.rate[R] = 4'096'000;  // 1 ms per 4 KiB
  j.rate[W] = 1'024'000;  // 4 ms per 4 KiB
  Fixture f(j);
  f.pacing.start(0);
  EXPECT_EQ(f.pacing.due(Unit(Dir::kRead)), 0);
  EXPECT_EQ(f.pacing.due(Unit(Dir::kWrite)), 0);
  EXPECT_EQ(f.pacing.due(Unit(Dir::kRead)), 1'000'000);
  EXPECT_EQ(f.pacing.due(Unit(Dir::kWrite)), 4'000'000);
  EXPECT_EQ(f.pacing.due(Unit(Dir::kRead)), 2'000'000);
}

// rate_ignore_thinktime: the rest of the schedule moves by the pause.
TEST(Pacing, ShiftMovesTheRestOfTheSchedule) {
  JobOptions j;
  j.rate_iops[W] = 1000;
  Fixture f(j);
  f.pacing.start(0);
  EXPECT_EQ(f.pacing.due(Unit(Dir::kWrite)), 0);
  EXPECT_EQ(f.pacing.due(Unit(Dir::kWrite)), 1'000'000);
  f.pacing.shift(10'000'000);
  EXPECT_EQ(f.pacing.due(Unit(Dir::kWrite)), 12'000'000);
  EXPECT_EQ(f.pacing.due(Unit(Dir::kWrite)), 13'000'000);
}

TEST(Pacing, ATracesTimesCountFromTheClonesStart) {
  JobOptions j;
  Fixture f(j);
  EXPECT_FALSE(f.pacing.rate_active());
  f.time.start_ns = 7'000;
  EXPECT_EQ(f.pacing.due(Unit(Dir::kRead, 4096, 0)), 7'000);
  EXPECT_EQ(f.pacing.due(Unit(Dir::kRead, 4096, 123'456)), 130'456);
  // No schedule of its own: due now.
  EXPECT_EQ(f.pacing.due(Unit(Dir::kRead, 4096, -1)), 0);
}

TEST(Pacing, TheVerifyPhaseIsNotPaced) {
  JobOptions j;
  j.rate[R] = 1000;  // 4 s per 4 KiB
  Fixture f(j);
  f.pacing.start(0);
  EXPECT_EQ(f.pacing.due(Unit(Dir::kRead)), 0);
  f.time.verify_phase = true;
  EXPECT_EQ(f.pacing.due(Unit(Dir::kRead)), 0);
  EXPECT_EQ(f.pacing.due(Unit(Dir::kRead, 4096, 5'000)), 0);
  // ... and reserves nothing of the rate meanwhile.
  f.time.verify_phase = false;
  EXPECT_EQ(f.pacing.due(Unit(Dir::kRead)), int64_t(4096) * 1'000'000);
}

TEST(Pacing, RecordKeepsLatenessAndItsThresholds) {
  JobOptions j;
  Fixture f(j);
  f.pacing.record(1000, /*due=*/0, 0, false);  // unpaced: nothing
  EXPECT_EQ(f.sched.lateness.count(), 0u);
  f.pacing.record(50'000 + 1000, 1000, 0, false);     // 50 us late
  f.pacing.record(150'000 + 1000, 1000, 0, false);    // 150 us
  f.pacing.record(2'000'000 + 1000, 1000, 0, true);   // 2 ms, held back
  f.pacing.record(500, 1000, 0, false);               // early: 0 late
  f.pacing.record(100'000 + 1000, 1000, 0, false);    // exactly 100 us: not over
  EXPECT_EQ(f.sched.lateness.count(), 5u);
  EXPECT_EQ(f.sched.lateness.min(), 0u);
  EXPECT_EQ(f.sched.lateness.max(), 2'000'000u);
  EXPECT_EQ(f.sched.late_100us, 2u);
  EXPECT_EQ(f.sched.late_1ms, 1u);
  EXPECT_EQ(f.sched.held_back, 1u);
  EXPECT_EQ(f.sched.pacer_held.count(), 0u);  // none waited for its time
}

// The time the pacer held an I/O until its due time is kept apart from
// lateness (only the time after the due time).
TEST(Pacing, HeldByThePacerIsNotLateness) {
  JobOptions j;
  Fixture f(j);
  // Found not yet due at 1000, due at 301000, issued at 301000: held 300 us,
  // not late.
  f.pacing.record(301'000, 301'000, 1000, false);
  // Held 200 us, then issued 40 us after its due time (a late wake-up).
  f.pacing.record(240'000, 200'000, 0 + 1, false);
  // Due when first seen: not held, 5 us late.
  f.pacing.record(105'000, 100'000, 0, false);
  EXPECT_EQ(f.sched.pacer_held.count(), 2u);
  EXPECT_EQ(f.sched.pacer_held.min(), 199'999u);
  EXPECT_EQ(f.sched.pacer_held.max(), 300'000u);
  EXPECT_EQ(f.sched.lateness.count(), 3u);
  EXPECT_EQ(f.sched.lateness.max(), 40'000u);
  EXPECT_EQ(f.sched.lateness.min(), 0u);
  EXPECT_EQ(f.sched.late_100us, 0u);
}

TEST(Pacing, TheSpinWindowFollowsOversleepWithinItsBounds) {
  JobOptions j;
  Fixture f(j);
  EXPECT_EQ(f.pacing.spin_window_ns(), kSpinMinNs);
  // Twice the oversleep when that is more than the window.
  f.pacing.adapt_window(15'000);
  EXPECT_EQ(f.pacing.spin_window_ns(), 30'000);
  f.pacing.adapt_window(100'000);
  EXPECT_EQ(f.pacing.spin_window_ns(), 200'000);
  // Never above kSpinMaxNs.
  f.pacing.adapt_window(10'000'000);
  EXPECT_EQ(f.pacing.spin_window_ns(), kSpinMaxNs);
  // Punctual wake-ups: down by 1/64 each time ...
  f.pacing.adapt_window(0);
  EXPECT_EQ(f.pacing.spin_window_ns(), kSpinMaxNs - kSpinMaxNs / 64);
  // ... and never below kSpinMinNs.
  for (int i = 0; i < 1000; i++) f.pacing.adapt_window(0);
  EXPECT_EQ(f.pacing.spin_window_ns(), kSpinMinNs);
  // An oversleep of half the window or less is punctual.
  f.pacing.adapt_window(kSpinMinNs / 2);
  EXPECT_EQ(f.pacing.spin_window_ns(), kSpinMinNs);
}

// Due times past int64 saturate at kNeverNs (issue #29): never a wrapped
// time in the past, which would issue the I/O at once.  Under --config=asan
// UBSan aborts on the overflow these used to be.
TEST(Pacing, ATraceTimePastInt64IsNever) {
  Fixture f{JobOptions{}};
  f.time.start_ns = 5'000'000'000;
  EXPECT_EQ(f.pacing.due(Unit(Dir::kRead, 4096, INT64_MAX)), kNeverNs);
  EXPECT_EQ(f.pacing.due(Unit(Dir::kRead, 4096, INT64_MAX - 5'000'000'000)), kNeverNs);
  EXPECT_EQ(f.pacing.due(Unit(Dir::kRead, 4096, INT64_MAX - 5'000'000'001)), kNeverNs - 1);
}

TEST(Pacing, ARateSchedulePastInt64IsNever) {
  // rate=1 (byte/s): after 10 GB the next I/O is due 10^19 ns out, past
  // int64; the poisson schedule (gaps of mean min_bs / rate, 1 GiB blocks
  // here: ~10^18 ns) passes it after a few dozen.
  for (RateProcess p : {RateProcess::kLinear, RateProcess::kPoisson}) {
    JobOptions j;
    j.rate[R] = 1;
    j.bs[R].min = j.bs[R].max = uint64_t(1) << 30;
    j.rate_process = p;
    Fixture f(j);
    const int64_t start = 5'000'000'000;
    f.time.start_ns = start;
    f.pacing.start(start);
    int64_t last = 0;
    for (int n = 0; n < 60; n++) {
      const int64_t due = f.pacing.due(Unit(Dir::kRead, uint64_t(1) << 30));
      EXPECT_GE(due, last) << "I/O " << n << " due before the one before it";
      last = due;
    }
    EXPECT_EQ(last, kNeverNs);
    EXPECT_EQ(f.pacing.due(Unit(Dir::kRead)), kNeverNs);
    // rate_ignore_thinktime's shift of a huge pause saturates too.
    f.pacing.shift(INT64_MAX);
    EXPECT_EQ(f.pacing.due(Unit(Dir::kRead)), kNeverNs);
  }
}

}  // namespace
}  // namespace blk::bench
