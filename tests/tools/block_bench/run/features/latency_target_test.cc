// LatencyTarget (run/features/latency_target.h) as a state machine: driven
// with record(lat, now) and quiesced(now) on plain times, the depth doubles
// while windows pass, bisects between the last depth that passed and the
// one that failed, restarts the statistics for a final window at the depth
// found and then ends the job; latency_run keeps adjusting; a 100 % target
// missed at depth 1 is ETIMEDOUT.  Also the hook side: only completions of
// the current cycle, measured and successful, count.
#include "tools/block_bench/run/features/latency_target.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

namespace blk::bench {
namespace {

constexpr uint64_t kTargetNs = 1'000'000;   // latency_target=1ms
constexpr int64_t kWindowNs = 100'000'000;  // latency_window=100ms
constexpr uint64_t kFast = 500'000, kSlow = 2'000'000;

JobOptions Job(double percentile = 100, bool run = false) {
  JobOptions j;
  j.latency_target = std::chrono::microseconds(kTargetNs / 1000);
  j.latency_window = std::chrono::microseconds(kWindowNs / 1000);
  j.latency_percentile = percentile;
  j.latency_run = run;
  return j;
}

struct Search {
  explicit Search(const JobOptions& j, uint32_t max_depth = 16)
      : job(j),
        errors(&res, job.continue_on_error),
        lt(job, max_depth, max_depth, errors,
           LatencyTarget::Callbacks{[this](int64_t now) { restarts.push_back(now); },
                                    [this] { ends++; }}) {
    lt.start(now);
  }
  // A window of `n` completions at the current depth, `slow` of them over
  // the target, the last one at the window's end; then, if the search asked
  // for it, the loop quiesces 1 ms later.
  void window(int n = 4, int slow = 0) {
    const int64_t start = now;
    for (int i = 0; i < n; i++) {
      now = start + (i + 1 == n ? kWindowNs : (i + 1) * kWindowNs / n / 2);
      lt.record(i < slow ? kSlow : kFast, now);
      if (lt.quiescing()) break;  // a 100 % target failed at once
    }
    settle();
  }
  void settle() {
    if (!lt.quiescing()) return;
    now += 1'000'000;
    lt.quiesced(now);
  }

  JobOptions job;
  CloneResult res;
  CloneErrors errors;
  std::vector<int64_t> restarts;
  int ends = 0;
  int64_t now = 1'000'000'000;
  LatencyTarget lt;
};

TEST(LatencyTarget, DoublesWhileWindowsPassThenRunsAFinalWindowAndEnds) {
  Search s(Job(), /*max_depth=*/8);
  EXPECT_EQ(s.lt.depth(), 1u);
  EXPECT_EQ(*s.lt.cap(), 1u);
  EXPECT_FALSE(s.lt.quiescing());
  std::vector<uint32_t> depths;
  for (int w = 0; w < 3; w++) {
    s.window();
    depths.push_back(s.lt.depth());
  }
  EXPECT_EQ(depths, (std::vector<uint32_t>{2, 4, 8}));
  EXPECT_TRUE(s.restarts.empty());
  // At the job's depth a pass leaves it there: the statistics restart once
  // the loop quiesced, and one more window runs.
  s.window(4, 0);
  EXPECT_EQ(s.lt.depth(), 8u);
  ASSERT_EQ(s.restarts.size(), 1u);
  EXPECT_EQ(s.restarts[0], s.now);  // at the quiesce, not at the decision
  EXPECT_EQ(s.ends, 0);
  s.window(4, 0);
  EXPECT_EQ(s.ends, 1);
  EXPECT_EQ(s.lt.depth(), 8u);
  EXPECT_EQ(s.restarts.size(), 1u);
  EXPECT_EQ(s.res.error, 0);
}

TEST(LatencyTarget, AWindowPassesOnlyOnceItsTimeIsUp) {
  Search s(Job());
  const int64_t start = s.now;
  s.lt.record(kFast, start + kWindowNs - 1);
  EXPECT_EQ(s.lt.depth(), 1u);
  EXPECT_FALSE(s.lt.quiescing());
  s.lt.record(kFast, start + kWindowNs);
  EXPECT_EQ(s.lt.depth(), 2u);
  EXPECT_TRUE(s.lt.quiescing());
  // The next window counts from the quiesce.
  s.lt.quiesced(start + 2 * kWindowNs);
  s.lt.record(kFast, start + 3 * kWindowNs - 1);
  EXPECT_EQ(s.lt.depth(), 2u);
  s.lt.record(kFast, start + 3 * kWindowNs);
  EXPECT_EQ(s.lt.depth(), 4u);
}

TEST(LatencyTarget, BisectsBetweenTheLastPassAndTheFailure) {
  Search s(Job(), /*max_depth=*/16);
  s.window();  // 1 -> 2
  s.window();  // 2 -> 4
  s.window();  // 4 -> 8
  ASSERT_EQ(s.lt.depth(), 8u);
  // One I/O over a 100 % target fails the window at once: (8 + 4) / 2.
  s.window(4, 1);
  EXPECT_EQ(s.lt.depth(), 6u);
  s.window();  // passes at 6: (6 + 8) / 2
  EXPECT_EQ(s.lt.depth(), 7u);
  s.window();  // passes at 7: (7 + 8) / 2 = 7, found
  EXPECT_EQ(s.lt.depth(), 7u);
  EXPECT_EQ(s.restarts.size(), 1u);
  EXPECT_EQ(s.ends, 0);
  s.window();
  EXPECT_EQ(s.ends, 1);
  EXPECT_EQ(s.lt.depth(), 7u);
}

TEST(LatencyTarget, FailingAtTheLowBoundLowersIt) {
  Search s(Job(), 16);
  s.window();  // 2
  s.window();  // 4
  s.window(4, 1);  // fails at 4: high 4, (4 + 2) / 2 = 3
  EXPECT_EQ(s.lt.depth(), 3u);
  s.window(4, 1);  // fails at 3: high 3, (3 + 2) / 2 = 2
  EXPECT_EQ(s.lt.depth(), 2u);
  s.window(4, 1);  // fails at 2 = low: low 1, (2 + 1) / 2 = 1
  EXPECT_EQ(s.lt.depth(), 1u);
  EXPECT_EQ(s.res.error, 0);
}

TEST(LatencyTarget, APercentileBelow100CountsTheWindowsShare) {
  {
    // 9 of 10 within: 90 % >= 90 %, a pass.
    Search s(Job(90), 16);
    s.window(10, 1);
    EXPECT_EQ(s.lt.depth(), 2u);
    s.window(10, 1);
    EXPECT_EQ(s.lt.depth(), 4u);
    // 8 of 10: 80 % < 90 %, a failure: (4 + 2) / 2.
    s.window(10, 2);
    EXPECT_EQ(s.lt.depth(), 3u);
    EXPECT_EQ(s.res.error, 0);
  }
  {
    // A slow I/O does not fail a sub-100 % window before its end.
    Search s(Job(90), 16);
    s.window();  // 2
    const int64_t start = s.now;
    s.lt.record(kSlow, start + 1);
    EXPECT_EQ(s.lt.depth(), 2u);
    EXPECT_FALSE(s.lt.quiescing());
  }
}

TEST(LatencyTarget, AFailingWindowAtDepthOneMeasuresAgain) {
  Search s(Job(90), 16);
  const uint32_t cycle = s.lt.cycle();
  s.window(10, 5);
  EXPECT_EQ(s.lt.depth(), 1u);
  EXPECT_FALSE(s.lt.quiescing());
  EXPECT_EQ(s.lt.cycle(), cycle + 1);  // a new window at depth 1
  EXPECT_EQ(s.res.error, 0);
  EXPECT_FALSE(s.errors.stopped());
  // The next window starts empty: all within, a pass.
  s.window(10, 0);
  EXPECT_EQ(s.lt.depth(), 2u);
}

TEST(LatencyTarget, AHundredPercentTargetMissedAtDepthOneIsEtimedout) {
  Search s(Job(100), 16);
  s.lt.record(kSlow, s.now + 10);
  EXPECT_TRUE(s.errors.stopped());
  EXPECT_EQ(s.res.error, ETIMEDOUT);
  EXPECT_NE(s.res.error_message.find("at depth 1"), std::string::npos) << s.res.error_message;
  EXPECT_NE(s.res.error_message.find(std::to_string(kSlow)), std::string::npos);
  EXPECT_NE(s.res.error_message.find("latency_target=" + std::to_string(kTargetNs)),
            std::string::npos)
      << s.res.error_message;
  EXPECT_EQ(s.lt.depth(), 1u);
}

TEST(LatencyTarget, LatencyRunKeepsAdjustingInsteadOfEnding) {
  Search s(Job(100, /*run=*/true), 4);
  s.window();  // 2
  s.window();  // 4 = the job's depth
  s.window();  // stays: the statistics restart for the depth found
  EXPECT_EQ(s.lt.depth(), 4u);
  EXPECT_EQ(s.restarts.size(), 1u);
  for (int i = 0; i < 5; i++) s.window();
  EXPECT_EQ(s.ends, 0);
  EXPECT_EQ(s.lt.depth(), 4u);
  EXPECT_EQ(s.restarts.size(), 1u);
  // A later failure still lowers the depth: (4 + 3) / 2.
  s.window(4, 1);
  EXPECT_EQ(s.lt.depth(), 3u);
  EXPECT_EQ(s.ends, 0);
}

// The hook: completions count only in the cycle their I/O was issued in,
// and only measured, successful ones.
TEST(LatencyTarget, OnlyCompletionsOfTheCurrentCycleCount) {
  Search s(Job(100), 16);
  IoUnit u;
  u.len = 4096;
  EXPECT_EQ(s.lt.points(),
            unsigned(SubmitHook::kBeforeFetch | SubmitHook::kOnIssue | SubmitHook::kOnComplete));
  s.lt.on_issue(IssuedIo{3, u, s.now});  // slot 3, cycle 1
  s.window();                            // depth 2, a new cycle
  ASSERT_EQ(s.lt.depth(), 2u);
  // The old I/O completes slow: it belongs to the earlier cycle.
  s.lt.on_complete(DoneIo{3, u, s.now + 10, kSlow, kSlow, nullptr, true, Status()});
  EXPECT_EQ(s.lt.depth(), 2u);
  EXPECT_FALSE(s.lt.quiescing());
  // Failed or ramp completions do not count either.
  s.lt.on_issue(IssuedIo{4, u, s.now});
  s.lt.on_complete(DoneIo{4, u, s.now + 20, kSlow, kSlow, nullptr, true, Status(-EIO)});
  s.lt.on_issue(IssuedIo{5, u, s.now});
  s.lt.on_complete(DoneIo{5, u, s.now + 30, kSlow, kSlow, nullptr, false, Status()});
  EXPECT_EQ(s.lt.depth(), 2u);
  EXPECT_FALSE(s.lt.quiescing());
  // One of this cycle, measured and successful, fails it.
  s.lt.on_issue(IssuedIo{6, u, s.now});
  s.lt.on_complete(DoneIo{6, u, s.now + 40, kSlow, kSlow, nullptr, true, Status()});
  EXPECT_EQ(s.lt.depth(), 1u);
  EXPECT_TRUE(s.lt.quiescing());
}

TEST(LatencyTarget, TheLoopIsAskedToQuiesceAtEveryDepthChange) {
  Search s(Job(), 16);
  for (int w = 0; w < 3; w++) {
    const uint32_t before = s.lt.depth();
    const int64_t start = s.now;
    s.now = start + kWindowNs;
    s.lt.record(kFast, s.now);
    EXPECT_NE(s.lt.depth(), before);
    EXPECT_TRUE(s.lt.quiescing());
    s.settle();
    EXPECT_FALSE(s.lt.quiescing());
  }
}

}  // namespace
}  // namespace blk::bench
