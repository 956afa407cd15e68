// ThinkTime::due (run/features/think_time.h) on plain times: a pause after
// every thinktime_blocks I/Os completed (or issued, with
// thinktime_blocks_type=issue), or every thinktime_iotime + thinktime from
// decision to decision; none in the verify phase.  The pause itself (turn)
// waits on the clock and is not run here.
#include "tools/block_bench/run/features/think_time.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace blk::bench {
namespace {

using std::chrono::microseconds;

struct Think {
  explicit Think(const JobOptions& j) : job(j), errors(&res, job.continue_on_error), tt(job, time, errors) {
    tt.start(0);
  }
  void issue(int n = 1) {
    for (int i = 0; i < n; i++) tt.on_issue(IssuedIo{0, u, 0});
  }
  void complete(int n = 1) {
    for (int i = 0; i < n; i++) tt.on_complete(DoneIo{0, u, 0, 1, 1, nullptr, true, Status()});
  }
  JobOptions job;
  CloneResult res;
  Timeline time;
  CloneErrors errors;
  ThinkTime tt;
  IoUnit u;
};

JobOptions Job(uint32_t blocks) {
  JobOptions j;
  j.thinktime = microseconds(100);
  j.thinktime_blocks = blocks;
  return j;
}

TEST(ThinkTime, AfterEveryNCompletedIos) {
  Think t(Job(3));
  EXPECT_EQ(t.tt.points(),
            unsigned(SubmitHook::kOnIssue | SubmitHook::kAfterIssue | SubmitHook::kOnComplete));
  t.issue(5);
  EXPECT_FALSE(t.tt.due(10)) << "issued, not completed";
  t.complete(2);
  EXPECT_FALSE(t.tt.due(20));
  t.complete();
  EXPECT_TRUE(t.tt.due(30));
  // Counted from the last pause.
  EXPECT_FALSE(t.tt.due(40));
  t.complete(2);
  EXPECT_FALSE(t.tt.due(50));
  t.complete();
  EXPECT_TRUE(t.tt.due(60));
}

TEST(ThinkTime, IssueTypeCountsIssuedIos) {
  JobOptions j = Job(2);
  j.thinktime_issue = true;
  Think t(j);
  t.complete(10);
  EXPECT_FALSE(t.tt.due(1)) << "completions do not count";
  t.issue();
  EXPECT_FALSE(t.tt.due(2));
  t.issue();
  EXPECT_TRUE(t.tt.due(3));
  t.issue();
  EXPECT_FALSE(t.tt.due(4));
  t.issue();
  EXPECT_TRUE(t.tt.due(5));
}

TEST(ThinkTime, ZeroBlocksMeansEveryIo) {
  Think t(Job(0));
  for (int i = 0; i < 4; i++) {
    t.complete();
    EXPECT_TRUE(t.tt.due(i)) << i;
    EXPECT_FALSE(t.tt.due(i)) << "once per I/O";
  }
}

TEST(ThinkTime, IotimeAloneCountsOnlyTheTime) {
  JobOptions j = Job(0);
  j.thinktime_iotime = microseconds(1000);
  Think t(j);
  // thinktime_iotime + thinktime = 1.1 ms from the start.
  t.complete(100);
  EXPECT_FALSE(t.tt.due(1'099'999));
  EXPECT_TRUE(t.tt.due(1'100'000));
  EXPECT_FALSE(t.tt.due(1'100'001));
  // From decision to decision: a late decision moves the next one.
  EXPECT_FALSE(t.tt.due(2'199'999));
  EXPECT_TRUE(t.tt.due(2'500'000));
  EXPECT_FALSE(t.tt.due(3'599'999));
  EXPECT_TRUE(t.tt.due(3'600'000));
}

TEST(ThinkTime, IotimeWithBlocksPausesOnWhicheverComesFirst) {
  JobOptions j = Job(2);
  j.thinktime_iotime = microseconds(1000);
  Think t(j);
  t.complete(2);
  EXPECT_TRUE(t.tt.due(500'000));  // the blocks, before the time
  // The time is counted from that decision now.
  EXPECT_FALSE(t.tt.due(1'599'999));
  EXPECT_TRUE(t.tt.due(1'600'000));  // the time, with no new block
  // ... and the blocks from the last pause.
  t.complete();
  EXPECT_FALSE(t.tt.due(1'700'000));
  t.complete();
  EXPECT_TRUE(t.tt.due(1'800'000));
}

TEST(ThinkTime, NotInTheVerifyPhase) {
  Think t(Job(1));
  t.complete(5);
  t.time.verify_phase = true;
  EXPECT_FALSE(t.tt.due(1));
  t.time.verify_phase = false;
  EXPECT_TRUE(t.tt.due(2));
}

}  // namespace
}  // namespace blk::bench
