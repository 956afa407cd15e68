// TrimBacklog (run/features/trim_backlog.h): which writes join the trim
// list, and fio 3.33's check_get_trim decision before each fetch — with
// blocks listed: a batch under way (batch - 1, a trim), or the history at
// a multiple of trim_backlog right after a write (a new batch of
// trim_backlog_batch, 0: trim_backlog, and a trim now) — over a
// VerifyTracker driven by hand; then on a real submit loop over HoldDriver:
// the order of writes, trims and the verify phase's reads, and the trimmed
// blocks read back as zeros.
#include "tools/block_bench/run/features/trim_backlog.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/tools/block_bench/run/features/verify_rig.h"
#include "tests/tools/block_bench/run/loop_fixture.h"

namespace blk::bench {
namespace {

using testing::LoopFixture;
using testing::Read;
using testing::VerifyRig;
using testing::Write;

JobOptions TrimJob(uint32_t percentage, uint32_t backlog, uint32_t batch, bool verify_zero) {
  JobOptions j;
  j.name = "tb";
  j.ioengine = IoEngine::kNull;
  j.verify = VerifyMethod::kCrc32c;
  j.trim_percentage = percentage;
  j.trim_backlog = backlog;
  j.trim_backlog_batch = batch;
  j.trim_verify_zero = verify_zero;
  return j;
}

VerifyTracker::Options TrimOptions() {
  VerifyTracker::Options o;
  o.count_history = true;
  return o;
}

struct Trims {
  explicit Trims(const JobOptions& j) : job(j), r(TrimOptions()), tb(job, 5, r.t, r.keys, time) {}
  // A write issued (the tracker, then the trim list, see it) and completed.
  void write(uint64_t offset) {
    const IoUnit u = Write(offset);
    const uint32_t s = r.slots.take();
    r.t.on_issue(IssuedIo{s, u, 0});
    tb.on_issue(IssuedIo{s, u, 0});
    r.complete(s, u);
  }
  // The trim take() hands out, completed on the device; its offset, or -1.
  int64_t trim() {
    IoUnit u;
    if (!tb.take(&u)) return -1;
    EXPECT_EQ(u.dir, Dir::kTrim);
    r.io(u);
    return int64_t(u.offset);
  }
  JobOptions job;
  Timeline time;
  VerifyRig r;
  TrimBacklog tb;
};

TEST(TrimBacklog, Wanted) {
  const JobOptions j = TrimJob(10, 4, 0, true);
  EXPECT_TRUE(TrimBacklog::Wanted(j, true));
  EXPECT_FALSE(TrimBacklog::Wanted(j, false)) << "a job that does not write";
  JobOptions k = j;
  k.verify = VerifyMethod::kNone;
  EXPECT_FALSE(TrimBacklog::Wanted(k, true));
  k = j;
  k.trim_percentage = 0;
  EXPECT_FALSE(TrimBacklog::Wanted(k, true));
  k = j;
  k.trim_backlog = 0;
  EXPECT_FALSE(TrimBacklog::Wanted(k, true));
  k = j;
  k.do_verify = false;
  EXPECT_FALSE(TrimBacklog::Wanted(k, true));
  k = j;
  k.verify_only = true;
  EXPECT_FALSE(TrimBacklog::Wanted(k, true));
}

// trim_backlog=2, trim_backlog_batch=0 (a batch of 2), every write listed.
// The decisions by fio 3.33's rule, fetch by fetch:
//   w0            history 1: no
//   w1            history 2, after a write: a batch of 2 starts, trim w0
//   (after trim)  batch 2: trim w1, batch 1
//   (after trim)  nothing listed: no
//   w2            batch 1: trim w2, batch 0
//   w3            history 4, after a write: a new batch, trim w3
TEST(TrimBacklog, TheDecisionsFollowFiosCheckGetTrim) {
  Trims t(TrimJob(100, 2, 0, true));
  EXPECT_EQ(t.tb.points(), unsigned(SubmitHook::kBeforeFetch | SubmitHook::kOnIssue));
  std::vector<std::string> got;
  auto step = [&](Dir last) {
    if (!t.tb.due(last)) {
      got.push_back("-");
      return;
    }
    got.push_back(std::to_string(t.trim() / 4096));
  };
  t.write(0);
  step(Dir::kWrite);
  t.write(4096);
  step(Dir::kWrite);
  step(Dir::kTrim);
  step(Dir::kTrim);
  t.write(8192);
  step(Dir::kWrite);
  t.write(12288);
  step(Dir::kWrite);
  EXPECT_EQ(got, (std::vector<std::string>{"-", "0", "1", "-", "2", "3"}));
  EXPECT_EQ(t.r.t.history(), 4u) << "trim_verify_zero keeps the trimmed blocks";
}

TEST(TrimBacklog, NoNewBatchRightAfterARead) {
  Trims t(TrimJob(100, 2, 0, true));
  t.write(0);
  t.write(4096);
  EXPECT_FALSE(t.tb.due(Dir::kRead));
  EXPECT_TRUE(t.tb.due(Dir::kWrite));
}

TEST(TrimBacklog, AnExplicitBatchSize) {
  // trim_backlog=3, trim_backlog_batch=1: the decision that starts a batch
  // trims, and the batch of 1 one more.
  Trims t(TrimJob(100, 3, 1, true));
  for (int i = 0; i < 3; i++) t.write(uint64_t(i) * 4096);  // history 3, 3 listed
  std::vector<int64_t> got;
  auto step = [&](Dir last) { got.push_back(t.tb.due(last) ? t.trim() / 4096 : -1); };
  step(Dir::kWrite);  // a new batch: trim 0
  step(Dir::kTrim);   // the batch: trim 1
  t.write(3 * 4096);  // history 4
  step(Dir::kWrite);  // 4 is no multiple of 3 and no batch is under way
  EXPECT_EQ(got, (std::vector<int64_t>{0, 1, -1}));
}

// fio 3.33 asks "not right after a read" (last_ddir != DDIR_READ): a trim
// is not a read, so once a batch is done and the history (which kept
// trims do not lower) is still at a multiple, the next decision starts
// another batch.  The header says "right after a write"; this is the rule
// the code and fio 3.33 follow.
TEST(TrimBacklog, AfterATrimTheNextDecisionMayStartANewBatch) {
  Trims t(TrimJob(100, 2, 1, true));
  for (int i = 0; i < 6; i++) t.write(uint64_t(i) * 4096);  // history 6, 6 listed
  std::vector<int64_t> got;
  for (int i = 0; i < 7; i++) got.push_back(t.tb.due(Dir::kTrim) ? t.trim() / 4096 : -1);
  EXPECT_EQ(got, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, -1}));
}

TEST(TrimBacklog, WithoutVerifyZeroTheTrimmedBlocksLeaveTheHistory) {
  Trims t(TrimJob(100, 2, 0, false));
  t.write(0);
  t.write(4096);
  ASSERT_TRUE(t.tb.due(Dir::kWrite));
  EXPECT_EQ(t.trim(), 0);
  EXPECT_EQ(t.r.t.history(), 1u);
  ASSERT_TRUE(t.tb.due(Dir::kTrim));
  EXPECT_EQ(t.trim(), 4096);
  EXPECT_EQ(t.r.t.history(), 0u);
  EXPECT_FALSE(t.tb.due(Dir::kTrim)) << "nothing listed";
  // Not read back in the verify phase.
  testing::ScriptedSource src({Write(0)});
  IoUnit u;
  EXPECT_FALSE(t.r.t.verify_reader(src).next(&u));
}

TEST(TrimBacklog, RewrittenOrCheckedBlocksLeaveTheList) {
  Trims t(TrimJob(100, 1, 0, true));
  t.write(0);
  EXPECT_EQ(t.tb.listed(), 1u);
  t.write(0);  // rewritten: the first entry is stale
  t.r.io(Read(0));  // checked: the second is done with
  EXPECT_EQ(t.tb.listed(), 2u);
  EXPECT_FALSE(t.tb.due(Dir::kWrite));
  EXPECT_EQ(t.tb.listed(), 0u);
  IoUnit u;
  EXPECT_FALSE(t.tb.take(&u));
}

// A listed write still in flight (or failed) is no trim: take() moves on.
TEST(TrimBacklog, TakeSkipsWritesThatDidNotComplete) {
  Trims t(TrimJob(100, 1, 0, true));
  const IoUnit w = Write(0);
  const uint32_t s = t.r.slots.take();
  t.r.t.on_issue(IssuedIo{s, w, 0});
  t.tb.on_issue(IssuedIo{s, w, 0});
  t.r.complete(s, w, Status(-EIO));
  t.write(4096);
  ASSERT_TRUE(t.tb.due(Dir::kWrite));
  EXPECT_EQ(t.trim(), 4096);
}

TEST(TrimBacklog, TrimPercentagePicksThatShareOfTheWrites) {
  Trims t(TrimJob(25, 1'000'000, 0, true));
  for (int i = 0; i < 2000; i++) t.write(uint64_t(i % 64) * 4096);
  // Binomial(2000, 0.25): 500 +- 19.4; within 4 sigma.
  EXPECT_GT(t.tb.listed(), 420u);
  EXPECT_LT(t.tb.listed(), 580u);
  Trims none(TrimJob(0, 1, 0, true));
  for (int i = 0; i < 100; i++) none.write(uint64_t(i) * 4096);
  EXPECT_EQ(none.tb.listed(), 0u);
}

TEST(TrimBacklog, NotInTheVerifyPhase) {
  Trims t(TrimJob(100, 1, 0, true));
  t.time.verify_phase = true;
  t.write(0);
  EXPECT_EQ(t.tb.listed(), 0u) << "no write is listed";
}

// On a loop: the trims go out after the writes they trim completed, and
// the verify phase reads the trimmed blocks back as zeros.
TEST(TrimBacklog, OnALoopTrimsInterleaveAndReadBackAsZeros) {
  const JobOptions j = TrimJob(100, 2, 0, true);
  LoopFixture fx(j, {Write(0), Write(4096), Write(8192), Write(12288)});
  fx.open_hold();
  SubmitLoop& loop = fx.make_loop();
  VerifyLayout layout;
  VerifyTracker::Options o = TrimOptions();
  o.seed = 11;
  VerifyTracker t(o, layout, fx.files.keys(), {"hold0"}, fx.slots, fx.errors, &fx.res);
  TrimBacklog tb(fx.job, 11, t, fx.files.keys(), fx.time);
  struct Log : SubmitHook {
    unsigned points() const override { return kOnIssue; }
    void on_issue(const IssuedIo& io) override {
      const char k = io.u.dir == Dir::kWrite ? 'w' : io.u.dir == Dir::kTrim ? 't' : 'r';
      seq += k + std::to_string(io.u.offset / 4096) + " ";
    }
    std::string seq;
  } log;
  loop.add_hook(&t);
  loop.add_hook(&tb);
  loop.add_hook(&log);
  loop.set_next_phase([&]() -> IoSource& { return t.verify_reader(fx.source); });
  fx.start();
  ASSERT_TRUE(fx.complete_in_order());
  EXPECT_EQ(log.seq, "w0 w1 t0 t1 w2 t2 w3 t3 r0 r1 r2 r3 ");
  // The device zeroed them; the reads expect zeros.
  EXPECT_EQ(fx.res.verified, 4u);
  EXPECT_EQ(fx.res.verify_errors, 0u) << fx.res.error_message;
  EXPECT_EQ(fx.res.dir[int(Dir::kTrim)].ios, 4u);
}

}  // namespace
}  // namespace blk::bench
