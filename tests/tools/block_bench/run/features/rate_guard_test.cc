// RateGuard::check (run/features/rate_guard.h) on plain times, over the raw
// counters of a CloneStats fed by hand: nothing before 2 s or the ramp's
// end, one rate_cycle from the first check to the next, the failure's EIO
// and message, on_fail once.
#include "tools/block_bench/run/features/rate_guard.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "tests/tools/block_bench/run/loop_fixture.h"

namespace blk::bench {
namespace {

using testing::ScriptedSource;

constexpr int64_t kSec = 1'000'000'000;

struct Guard {
  explicit Guard(const JobOptions& j, std::vector<Dir> dirs = {Dir::kRead})
      : job(j), errors(&res, job.continue_on_error) {
    for (Dir d : dirs) source.add_dir(d);
    time.start_ns = 0;
    time.ramp_end_ns = 0;
  }
  // `n` requests of `len` bytes in direction d completed (raw counters).
  void done(Dir d, int n, uint64_t len = 4096, bool measured = true) {
    IoUnit u;
    u.dir = d;
    u.len = len;
    for (int i = 0; i < n; i++) stats.complete(u, 0, 1, 0, 0, measured, Status());
  }
  JobOptions job;
  CloneResult res;
  LiveCounters live;
  Timeline time;
  CloneErrors errors;
  CloneStats stats{job, &res, &live};
  ScriptedSource source;
  int fails = 0;
  RateGuard guard{job, time, stats, source, errors, "dev0", [this] { fails++; }};
};

JobOptions MinBytes(Dir d, uint64_t bytes_per_s) {
  JobOptions j;
  j.rate_min[int(d)] = bytes_per_s;
  return j;
}

TEST(RateGuard, WantedWithAnyMinimum) {
  JobOptions j;
  EXPECT_FALSE(RateGuard::Wanted(j));
  j.rate_iops_min[int(Dir::kTrim)] = 1;
  EXPECT_TRUE(RateGuard::Wanted(j));
  EXPECT_TRUE(RateGuard::Wanted(MinBytes(Dir::kWrite, 1)));
}

TEST(RateGuard, NothingIsCheckedInTheFirstTwoSeconds) {
  Guard g(MinBytes(Dir::kRead, 1'000'000));
  g.guard.check(kSec);
  g.guard.check(2 * kSec - 1);
  EXPECT_FALSE(g.errors.stopped());
  // The first check after 2 s only marks the start of a cycle ...
  g.guard.check(2 * kSec);
  EXPECT_FALSE(g.errors.stopped());
  // ... nothing is judged before a whole rate_cycle (1000 ms) passed ...
  g.guard.check(2 * kSec + kSec - 1);
  EXPECT_FALSE(g.errors.stopped());
  // ... and then nothing was read: below the minimum.
  g.guard.check(3 * kSec);
  EXPECT_TRUE(g.errors.stopped());
  EXPECT_EQ(g.res.error, EIO);
  EXPECT_EQ(g.fails, 1);
}

TEST(RateGuard, ARateAtOrAboveTheMinimumPassesAndStartsANewCycle) {
  Guard g(MinBytes(Dir::kRead, 1'000'000));
  g.guard.check(2 * kSec);
  g.done(Dir::kRead, 245);  // 1,003,520 bytes in the cycle: >= 1 MB/s
  g.guard.check(3 * kSec);
  EXPECT_FALSE(g.errors.stopped());
  // The next cycle counts from there: 122 x 4 KiB in 1 s is too slow.
  g.done(Dir::kRead, 122);
  g.guard.check(4 * kSec);
  EXPECT_TRUE(g.errors.stopped());
  EXPECT_EQ(g.res.error, EIO);
  EXPECT_EQ(g.res.error_message,
            "rate_min=1000000 B/s not met for reads: 499712 B/s over the last 1000 ms on 'dev0'");
  EXPECT_EQ(g.fails, 1);
}

TEST(RateGuard, TheRampIsNotJudged) {
  Guard g(MinBytes(Dir::kRead, 1'000'000));
  g.time.ramp_end_ns = 10 * kSec;
  g.guard.check(3 * kSec);
  g.guard.check(5 * kSec);
  g.guard.check(9 * kSec);
  EXPECT_FALSE(g.errors.stopped());
  g.guard.check(10 * kSec);  // marks
  EXPECT_FALSE(g.errors.stopped());
  g.guard.check(11 * kSec);
  EXPECT_TRUE(g.errors.stopped());
}

TEST(RateGuard, RateCycleSetsTheSpan) {
  JobOptions j = MinBytes(Dir::kRead, 1'000'000);
  j.rate_cycle = 250;
  Guard g(j);
  g.guard.check(2 * kSec);
  g.done(Dir::kRead, 62);  // 253,952 bytes in 0.25 s: 1,015,808 B/s
  g.guard.check(2 * kSec + kSec / 4);
  EXPECT_FALSE(g.errors.stopped());
  g.done(Dir::kRead, 30);
  g.guard.check(2 * kSec + kSec / 2);
  EXPECT_TRUE(g.errors.stopped());
  EXPECT_NE(g.res.error_message.find("over the last 250 ms"), std::string::npos)
      << g.res.error_message;
}

TEST(RateGuard, IopsMinimumNamesTheDirection) {
  JobOptions j;
  j.rate_iops_min[int(Dir::kWrite)] = 100;
  Guard g(j, {Dir::kRead, Dir::kWrite});
  g.guard.check(2 * kSec);
  g.done(Dir::kRead, 1000);  // reads do not help the writes
  g.done(Dir::kWrite, 99);
  g.guard.check(3 * kSec);
  EXPECT_TRUE(g.errors.stopped());
  EXPECT_EQ(g.res.error_message,
            "rate_iops_min=100 not met for writes: 99 IOPS over the last 1000 ms on 'dev0'");
}

TEST(RateGuard, RampCompletionsCountInTheRawRate) {
  // The raw counters count every completion since the start, the ramp's
  // included (what was issued before the cycle began completes in it).
  JobOptions j;
  j.rate_iops_min[int(Dir::kRead)] = 10;
  Guard g(j);
  g.guard.check(2 * kSec);
  g.done(Dir::kRead, 10, 4096, /*measured=*/false);
  g.guard.check(3 * kSec);
  EXPECT_FALSE(g.errors.stopped());
}

TEST(RateGuard, DirectionsTheJobDoesNotIssueAreNotChecked) {
  JobOptions j = MinBytes(Dir::kWrite, 1'000'000);
  Guard g(j, {Dir::kRead});
  g.guard.check(2 * kSec);
  g.guard.check(5 * kSec);
  EXPECT_FALSE(g.errors.stopped());
}

TEST(RateGuard, TheVerifyPhaseIsNotJudged) {
  Guard g(MinBytes(Dir::kRead, 1'000'000));
  g.guard.check(2 * kSec);
  g.time.verify_phase = true;
  g.guard.check(5 * kSec);
  EXPECT_FALSE(g.errors.stopped());
}

TEST(RateGuard, OnFailRunsOnceAndTheFirstErrorStays) {
  Guard g(MinBytes(Dir::kRead, 1'000'000));
  g.guard.check(2 * kSec);
  g.guard.check(3 * kSec);
  ASSERT_TRUE(g.errors.stopped());
  const std::string first = g.res.error_message;
  g.guard.check(4 * kSec);
  g.guard.check(10 * kSec);
  EXPECT_EQ(g.fails, 1);
  EXPECT_EQ(g.res.error_message, first);
}

// Completions check too (measured ones), not only the sample timer.
TEST(RateGuard, MeasuredCompletionsCheck) {
  Guard g(MinBytes(Dir::kRead, 1'000'000));
  IoUnit u;
  u.dir = Dir::kRead;
  u.len = 4096;
  g.guard.on_complete(DoneIo{0, u, 2 * kSec, 1, 1, nullptr, true, Status()});
  g.guard.on_complete(DoneIo{0, u, 3 * kSec, 1, 1, nullptr, false, Status()});  // ramp: not
  EXPECT_FALSE(g.errors.stopped());
  g.guard.on_complete(DoneIo{0, u, 3 * kSec, 1, 1, nullptr, true, Status()});
  EXPECT_TRUE(g.errors.stopped());
  EXPECT_EQ(g.fails, 1);
}

}  // namespace
}  // namespace blk::bench
