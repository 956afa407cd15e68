// fio's flow control (run/features/flow.h): FlowGroup's shares and
// FlowMember's decision before each I/O (ahead: it waits; else its I/O
// counts in the group), with weights, members joining and leaving.  The
// members' turns (a yield or a flow_sleep) are not run: before_issue() is
// driven by hand, as the loop of each clone would call it.
#include "tools/block_bench/run/features/flow.h"

#include <gtest/gtest.h>

#include <memory>

#include "tests/tools/block_bench/run/loop_fixture.h"

namespace blk::bench {
namespace {

using testing::LoopFixture;

JobOptions Weight(uint32_t w) {
  JobOptions j;
  j.ioengine = IoEngine::kNull;
  j.flow = w;
  return j;
}

TEST(FlowGroup, AheadWhenTheShareOfIssuedIsOverTheShareOfWeight) {
  FlowGroup g;
  EXPECT_FALSE(g.ahead(0, 1)) << "no member: never ahead";
  g.join(1);
  g.join(3);
  // issued counts from 1: no member is ahead before any I/O.
  EXPECT_FALSE(g.ahead(0, 1));
  EXPECT_FALSE(g.ahead(0, 3));
  for (int i = 0; i < 7; i++) g.issued();  // 8
  // Weight 1 of 4: ahead over 2 of 8.
  EXPECT_FALSE(g.ahead(2, 1));
  EXPECT_TRUE(g.ahead(3, 1));
  // Weight 3 of 4: ahead over 6 of 8.
  EXPECT_FALSE(g.ahead(6, 3));
  EXPECT_TRUE(g.ahead(7, 3));
}

TEST(FlowGroup, LeaveTakesTheMembersShareOut) {
  FlowGroup g;
  g.join(1);
  g.join(1);
  for (int i = 0; i < 10; i++) g.issued();  // 11: say 6 by A, 4 by B
  EXPECT_TRUE(g.ahead(6, 1));
  g.leave(1, 4);  // B goes: 7 issued, weight 1
  // A alone holds the whole weight: never ahead again.
  EXPECT_FALSE(g.ahead(6, 1));
  for (int i = 0; i < 100; i++) g.issued();
  EXPECT_FALSE(g.ahead(106, 1));
}

struct Members {
  Members() : fx(Weight(1)) { fx.make_loop(); }
  LoopFixture fx;  // a SubmitLoop to hand to before_issue
  FlowGroup group;
  Timeline time;
};

// Two members, weights 1 and 3, each trying to issue in turn: every I/O a
// member issues is taken while it is not ahead, and the shares follow the
// weights.
TEST(FlowMember, IssuedSharesFollowTheWeights) {
  Members m;
  const JobOptions ja = Weight(1), jb = Weight(3);
  FlowMember a(ja, m.group, m.time), b(jb, m.group, m.time);
  EXPECT_EQ(a.points(), unsigned(SubmitHook::kBeforeIssue));
  a.join();
  b.join();
  uint64_t na = 0, nb = 0;
  for (int round = 0; round < 400; round++) {
    if (!a.before_issue(*m.fx.loop)) na++;
    if (!b.before_issue(*m.fx.loop)) nb++;
    ASSERT_GT(na + nb, 0u);
    // Neither goes beyond its share by more than the one I/O that took it
    // there.
    const double total = double(na + nb) + 1;  // the group counts from 1
    EXPECT_LE(double(na) - 1, total * 0.25) << "round " << round;
    EXPECT_LE(double(nb) - 1, total * 0.75) << "round " << round;
  }
  EXPECT_NEAR(double(na) / double(na + nb), 0.25, 0.01);
  // Both made progress all along: neither starved.
  EXPECT_GT(na, 90u);
  EXPECT_GT(nb, 290u);
}

TEST(FlowMember, AMemberThatLeftHoldsNoOneBack) {
  Members m;
  const JobOptions j = Weight(1);
  FlowMember a(j, m.group, m.time), b(j, m.group, m.time);
  a.join();
  b.join();
  // A issues until it is ahead of its half: the group counts from 1, so
  // its second I/O makes 2 of 3.
  int n = 0;
  while (!a.before_issue(*m.fx.loop)) n++;
  EXPECT_EQ(n, 2);
  EXPECT_TRUE(a.before_issue(*m.fx.loop));
  b.leave();
  EXPECT_FALSE(b.joined());
  for (int i = 0; i < 50; i++) EXPECT_FALSE(a.before_issue(*m.fx.loop)) << i;
  b.leave();  // idempotent
  EXPECT_FALSE(a.before_issue(*m.fx.loop));
}

// leave() takes the I/Os a member counted out with its weight: a member
// joining afterwards starts from the shares of those still there.
TEST(FlowMember, LeavingTakesOutTheIosItCounted) {
  Members m;
  const JobOptions j1 = Weight(1), j3 = Weight(3);
  FlowMember a(j1, m.group, m.time), b(j3, m.group, m.time), c(j1, m.group, m.time);
  a.join();
  b.join();
  // B alone issues 3 of 4 weights' share: 4 I/Os (4 of 5 is over 3/4).
  int nb = 0;
  while (!b.before_issue(*m.fx.loop)) nb++;
  EXPECT_EQ(nb, 4);
  b.leave();
  c.join();
  // A and C, one weight each, and nothing issued but the group's 1: A gets
  // 2 I/Os before it is ahead (with B's 4 still counted it would get 6).
  int na = 0;
  while (!a.before_issue(*m.fx.loop)) na++;
  EXPECT_EQ(na, 2);
}

TEST(FlowMember, NotJoinedOrInTheVerifyPhaseItIssuesFreelyAndCountsNothing) {
  Members m;
  const JobOptions j = Weight(1);
  FlowMember a(j, m.group, m.time), b(j, m.group, m.time);
  b.join();
  // A is not in the group: never held, nothing counted.
  for (int i = 0; i < 10; i++) EXPECT_FALSE(a.before_issue(*m.fx.loop));
  EXPECT_FALSE(m.group.ahead(0, 1));
  a.join();
  EXPECT_TRUE(a.joined());
  a.join();  // idempotent: the weight is in once
  // Half of the weight each (a second join would make A's two of three):
  // B issues two (2 of 3 is over half), then waits.
  EXPECT_FALSE(b.before_issue(*m.fx.loop));
  EXPECT_FALSE(b.before_issue(*m.fx.loop));
  EXPECT_TRUE(b.before_issue(*m.fx.loop));
  m.time.verify_phase = true;
  for (int i = 0; i < 10; i++) EXPECT_FALSE(b.before_issue(*m.fx.loop));
  m.time.verify_phase = false;
  EXPECT_TRUE(b.before_issue(*m.fx.loop)) << "the verify phase counted nothing";
  EXPECT_FALSE(a.before_issue(*m.fx.loop));
}

TEST(FlowMember, TheDestructorLeaves) {
  Members m;
  const JobOptions j = Weight(1);
  FlowMember a(j, m.group, m.time);
  a.join();
  {
    FlowMember b(j, m.group, m.time);
    b.join();
    EXPECT_FALSE(a.before_issue(*m.fx.loop));
    EXPECT_FALSE(a.before_issue(*m.fx.loop));
    EXPECT_TRUE(a.before_issue(*m.fx.loop));
  }
  EXPECT_FALSE(a.before_issue(*m.fx.loop));
}

}  // namespace
}  // namespace blk::bench
