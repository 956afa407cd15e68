// VerifyBacklog (run/features/verify_backlog.h): when a batch of backlog
// reads is due (fio's check_get_verify: the history at a multiple of
// verify_backlog right after a write, or a batch under way) and which reads
// take() queues (the oldest completed writes still unchecked), over a
// VerifyTracker driven by hand; then on a real submit loop over HoldDriver,
// the order the writes and reads go out in.
#include "tools/block_bench/run/features/verify_backlog.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/tools/block_bench/run/features/verify_rig.h"
#include "tests/tools/block_bench/run/loop_fixture.h"

namespace blk::bench {
namespace {

using testing::LoopFixture;
using testing::Read;
using testing::VerifyRig;
using testing::Write;

VerifyTracker::Options BacklogOptions() {
  VerifyTracker::Options o;
  o.count_history = o.backlog = o.skip_checked = true;
  return o;
}

std::vector<IoUnit> Take(VerifyBacklog& vb) {
  std::vector<IoUnit> out;
  vb.take([&out](const IoUnit& u) { out.push_back(u); });
  return out;
}

std::vector<uint64_t> Offsets(const std::vector<IoUnit>& v) {
  std::vector<uint64_t> o;
  for (const IoUnit& u : v) o.push_back(u.offset);
  return o;
}

TEST(VerifyBacklog, ABatchIsDueAtEveryMultipleOfTheBacklogAfterAWrite) {
  VerifyRig r(BacklogOptions());
  Timeline time;
  VerifyBacklog vb(4, 0, r.t, time);
  EXPECT_EQ(vb.points(), unsigned(SubmitHook::kBeforeFetch));
  EXPECT_FALSE(vb.due(Dir::kWrite)) << "no history";
  for (int i = 0; i < 3; i++) {
    r.io(Write(uint64_t(i) * 4096));
    EXPECT_FALSE(vb.due(Dir::kWrite)) << i + 1 << " writes";
  }
  // The fourth: 4 % 4 == 0, but only right after a write.
  const IoUnit w3 = Write(3 * 4096);
  const uint32_t s3 = r.issue(w3);
  EXPECT_FALSE(vb.due(Dir::kRead));
  EXPECT_EQ(vb.batch_left(), 0u);
  EXPECT_TRUE(vb.due(Dir::kWrite));
  EXPECT_EQ(vb.batch_left(), 4u);  // verify_backlog_batch=0: the backlog
  EXPECT_TRUE(vb.due(Dir::kRead)) << "a batch under way stays due";
  r.complete(s3, w3);
  // The oldest completed writes, in completion order.
  EXPECT_EQ(Offsets(Take(vb)), (std::vector<uint64_t>{0, 4096, 8192, 12288}));
  EXPECT_EQ(vb.batch_left(), 0u);
  EXPECT_EQ(r.t.history(), 0u);
  EXPECT_FALSE(vb.due(Dir::kWrite));
}

TEST(VerifyBacklog, TakeFollowsCompletionOrderAndSkipsFailedWrites) {
  VerifyRig r(BacklogOptions());
  Timeline time;
  VerifyBacklog vb(4, 0, r.t, time);
  const IoUnit w[4] = {Write(0), Write(4096), Write(8192), Write(12288)};
  uint32_t s[4];
  for (int i = 0; i < 4; i++) s[i] = r.issue(w[i]);
  ASSERT_TRUE(vb.due(Dir::kWrite));
  r.complete(s[3], w[3]);
  r.complete(s[1], w[1], Status(-EIO));
  r.complete(s[0], w[0]);
  r.complete(s[2], w[2]);
  const std::vector<IoUnit> reads = Take(vb);
  EXPECT_EQ(Offsets(reads), (std::vector<uint64_t>{12288, 0, 8192}));
  for (const IoUnit& u : reads) EXPECT_EQ(u.dir, Dir::kRead);
  // One read of the batch is left: the history is empty (the failed write
  // left nothing) ...
  EXPECT_EQ(vb.batch_left(), 1u);
  EXPECT_EQ(r.t.history(), 0u);
  EXPECT_FALSE(vb.due(Dir::kWrite));
  // ... and the next write takes it.
  r.io(Write(65536));
  EXPECT_TRUE(vb.due(Dir::kWrite)) << "1 is no multiple of 4, but the batch is under way";
  EXPECT_EQ(Offsets(Take(vb)), (std::vector<uint64_t>{65536}));
  EXPECT_EQ(vb.batch_left(), 0u);
  r.io(Write(69632));
  EXPECT_FALSE(vb.due(Dir::kWrite));
}

// verify_backlog_batch larger than the backlog: what is left is taken by
// the next writes, one read after each.
TEST(VerifyBacklog, WhatIsLeftOfABatchGoesOneReadAfterEachWrite) {
  VerifyRig r(BacklogOptions());
  Timeline time;
  VerifyBacklog vb(2, 3, r.t, time);
  r.io(Write(0));
  r.io(Write(4096));
  ASSERT_TRUE(vb.due(Dir::kWrite));
  EXPECT_EQ(vb.batch_left(), 3u);
  EXPECT_EQ(Offsets(Take(vb)), (std::vector<uint64_t>{0, 4096}));
  EXPECT_EQ(vb.batch_left(), 1u);
  r.io(Write(8192));
  ASSERT_TRUE(vb.due(Dir::kWrite));
  EXPECT_EQ(Offsets(Take(vb)), (std::vector<uint64_t>{8192}));
  EXPECT_EQ(vb.batch_left(), 0u);
  r.io(Write(12288));
  EXPECT_FALSE(vb.due(Dir::kWrite));
  r.io(Write(16384));
  EXPECT_TRUE(vb.due(Dir::kWrite));
  EXPECT_EQ(vb.batch_left(), 3u);
}

// A smaller batch leaves the rest of the backlog for the next one.
TEST(VerifyBacklog, ABatchSmallerThanTheBacklog) {
  VerifyRig r(BacklogOptions());
  Timeline time;
  VerifyBacklog vb(4, 2, r.t, time);
  for (int i = 0; i < 4; i++) r.io(Write(uint64_t(i) * 4096));
  ASSERT_TRUE(vb.due(Dir::kWrite));
  EXPECT_EQ(Offsets(Take(vb)), (std::vector<uint64_t>{0, 4096}));
  EXPECT_EQ(r.t.history(), 2u);
  EXPECT_FALSE(vb.due(Dir::kRead));
  r.io(Write(16384));
  r.io(Write(20480));
  ASSERT_TRUE(vb.due(Dir::kWrite));  // history 4 again
  EXPECT_EQ(Offsets(Take(vb)), (std::vector<uint64_t>{8192, 12288}));
}

TEST(VerifyBacklog, NotInTheVerifyPhase) {
  VerifyRig r(BacklogOptions());
  Timeline time;
  VerifyBacklog vb(1, 0, r.t, time);
  r.io(Write(0));
  time.verify_phase = true;
  EXPECT_FALSE(vb.due(Dir::kWrite));
  time.verify_phase = false;
  EXPECT_TRUE(vb.due(Dir::kWrite));
}

// On a loop: the batch goes out after the writes completed, before the
// next write, and the verify phase reads only the blocks left unchecked.
TEST(VerifyBacklog, OnALoopTheReadsGoOutBetweenTheWrites) {
  JobOptions j;
  j.name = "vb";
  j.ioengine = IoEngine::kNull;
  j.verify = VerifyMethod::kCrc32c;
  j.verify_backlog = 4;
  std::vector<IoUnit> writes;
  for (int i = 0; i < 10; i++) writes.push_back(Write(uint64_t(i) * 4096));
  LoopFixture fx(j, writes);
  fx.open_hold();
  SubmitLoop& loop = fx.make_loop();
  VerifyLayout layout;
  VerifyTracker::Options o = BacklogOptions();
  o.seed = 3;
  VerifyTracker t(o, layout, fx.files.keys(), {"hold0"}, fx.slots, fx.errors, &fx.res);
  VerifyBacklog vb(4, 0, t, fx.time);
  struct Log : SubmitHook {
    unsigned points() const override { return kOnIssue; }
    void on_issue(const IssuedIo& io) override { ios.push_back(io.u); }
    std::vector<IoUnit> ios;
  } log;
  loop.add_hook(&t);
  loop.add_hook(&vb);
  loop.add_hook(&log);
  loop.set_next_phase([&]() -> IoSource& { return t.verify_reader(fx.source); });
  fx.start();
  ASSERT_TRUE(fx.complete_in_order());

  std::vector<char> kinds;
  for (const IoUnit& u : log.ios) kinds.push_back(u.dir == Dir::kWrite ? 'w' : 'r');
  const std::vector<char> want = {'w', 'w', 'w', 'w', 'r', 'r', 'r', 'r', 'w', 'w', 'w',
                                  'w', 'r', 'r', 'r', 'r', 'w', 'w', 'r', 'r'};
  EXPECT_EQ(kinds, want);
  std::vector<uint64_t> read_offsets;
  for (const IoUnit& u : log.ios)
    if (u.dir == Dir::kRead) read_offsets.push_back(u.offset / 4096);
  EXPECT_EQ(read_offsets, (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_TRUE(fx.time.verify_phase);
  EXPECT_EQ(fx.res.verified, 10u);
  EXPECT_EQ(fx.res.verify_errors, 0u) << fx.res.error_message;
  EXPECT_EQ(t.not_verified(), 0u);
}

}  // namespace
}  // namespace blk::bench
