// VerifyTracker and MakeVerifyLayout (run/features/verify_tracker.h),
// driven through the hook's points by hand (VerifyRig, verify_rig.h: a
// SlotPool with real buffers and a byte-array "device").
// What is checked and what is not (failed, ambiguous, raced writes), the
// verify phase's reader, verify_only's recording, the history and backlog,
// trims with and without trim_verify_zero, and the layout's errors.
#include "tools/block_bench/run/features/verify_tracker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "tests/tools/block_bench/run/features/verify_rig.h"
#include "tests/tools/block_bench/run/loop_fixture.h"

namespace blk::bench {
namespace {

using testing::Read;
using testing::ScriptedSource;
using testing::VerifyRig;
using testing::Write;
using testing::kDisk;

std::vector<uint64_t> Offsets(const std::vector<IoUnit>& v) {
  std::vector<uint64_t> o;
  for (const IoUnit& u : v) o.push_back(u.offset);
  return o;
}

TEST(VerifyTracker, AWrittenBlockReadsBackAndChecks) {
  VerifyRig r;
  EXPECT_EQ(r.t.points(),
            unsigned(SubmitHook::kOnIssue | SubmitHook::kOnComplete | SubmitHook::kOnRetire));
  r.io(Write(8192));
  r.io(Read(8192));
  EXPECT_EQ(r.res.verified, 1u);
  EXPECT_EQ(r.res.verify_errors, 0u);
  EXPECT_EQ(r.res.error, 0);
  EXPECT_EQ(r.t.not_verified(), 0u);
}

TEST(VerifyTracker, ACorruptedByteFailsNamingTheBlock) {
  VerifyRig r;
  r.io(Write(8192, 4096, 1));
  r.disk[kDisk + 8192 + 1000] ^= 0x01;
  r.io(Read(8192, 4096, 1));
  EXPECT_EQ(r.res.verified, 1u);
  EXPECT_EQ(r.res.verify_errors, 1u);
  EXPECT_EQ(r.res.error, EILSEQ);
  EXPECT_NE(r.res.error_message.find("verify failed on 'f1' at offset 8192 length 4096"),
            std::string::npos)
      << r.res.error_message;
  EXPECT_FALSE(r.errors.stopped()) << "without verify_fatal every block is checked";
}

// verify_async: the check runs on a verify thread, the read's slot held
// (holds/settle) until the verdict is back; what is reported is what the
// inline check reports, for a good and a corrupted block.
TEST(VerifyTracker, VerifyAsyncReportsWhatTheInlineCheckReports) {
  AioContext ctx;
  auto off = VerifyOffload::Start("t", 2, {});
  ASSERT_TRUE(off.ok()) << off.error().message;
  std::string msg[2];
  for (int async = 0; async < 2; async++) {
    VerifyTracker::Options o;
    if (async) {
      o.async = off->get();
      o.home = &ctx;
    }
    VerifyRig r(o);
    EXPECT_EQ(bool(r.t.points() & SubmitHook::kSettle), bool(async));
    r.io(Write(0));
    r.io(Write(8192, 4096, 1));
    r.disk[kDisk + 8192 + 1000] ^= 0x01;
    for (const IoUnit& u : {Read(0), Read(8192, 4096, 1)}) {
      const uint32_t s = r.issue(u);
      std::memcpy(r.slots[s].buf.data(), r.disk.data() + r.keys.key(u), u.len);
      r.t.on_complete(DoneIo{s, u, 1, 1, 1, nullptr, true, Status()});
      EXPECT_EQ(r.t.holds(s), bool(async));
      if (async) {
        EXPECT_EQ(r.res.verify_errors, 0u) << "reported before the check ran";
        blk::RunSync(ctx, r.t.settle(s));
        EXPECT_FALSE(r.t.holds(s));
      }
      r.t.on_retire(s);
      r.slots.give(s);
    }
    EXPECT_EQ(r.res.verified, 2u);
    EXPECT_EQ(r.res.verify_errors, 1u);
    EXPECT_EQ(r.res.error, EILSEQ);
    EXPECT_EQ(r.t.not_verified(), 0u);
    msg[async] = r.res.error_message;
  }
  EXPECT_NE(msg[1].find("verify failed on 'f1' at offset 8192 length 4096: crc32c mismatch"),
            std::string::npos)
      << msg[1];
  EXPECT_EQ(msg[0], msg[1]);
  EXPECT_EQ((*off)->calls(0) + (*off)->calls(1), 2u);
}

TEST(VerifyTracker, VerifyFatalStopsAtTheFirstBadBlock) {
  VerifyTracker::Options o;
  o.fatal = true;
  VerifyRig r(o);
  r.io(Write(0));
  r.disk[0 + 4095] ^= 0xff;
  r.io(Read(0));
  EXPECT_TRUE(r.errors.stopped());
  EXPECT_EQ(r.res.error, EILSEQ);
}

// A stale block (an older write's data) fails on its generation.
TEST(VerifyTracker, AStaleBlockFails) {
  VerifyRig r;
  r.io(Write(4096));
  std::vector<uint8_t> old(r.disk.begin() + 4096, r.disk.begin() + 8192);
  r.io(Write(4096));
  std::memcpy(r.disk.data() + 4096, old.data(), old.size());  // the device lost the rewrite
  r.io(Read(4096));
  EXPECT_EQ(r.res.verify_errors, 1u);
  EXPECT_NE(r.res.error_message.find("stale block"), std::string::npos) << r.res.error_message;
}

TEST(VerifyTracker, OverlappingWritesInFlightAreAmbiguousAndNotChecked) {
  VerifyRig r;
  const IoUnit a = Write(0, 8192), b = Write(4096, 4096);
  const uint32_t sa = r.issue(a);
  const uint32_t sb = r.issue(b);  // while a is in flight: may land first
  r.complete(sb, b);
  r.complete(sa, a);
  r.disk[4096 + 17] ^= 0x40;  // whatever is there ...
  r.io(Read(4096));           // ... is not judged
  EXPECT_EQ(r.res.verified, 0u);
  EXPECT_EQ(r.res.verify_errors, 0u);
  // Nor read back by the verify phase, and it counts as not verified.
  ScriptedSource job_src({Write(0)});
  EXPECT_TRUE(r.drain(r.t.verify_reader(job_src)).empty());
  EXPECT_EQ(r.t.not_verified(), 1u);
}

// Writes of the same block in flight together (norandommap at depth > 1):
// fio reads the block back expecting the last one issued; block-bench
// reads it too (the same I/O as fio) and takes any of them, as the device
// may apply them in either order -- once all completed.
TEST(VerifyTracker, WritesOfOneBlockInFlightTogetherCheckAgainstAnyOfThem) {
  VerifyRig r;
  const IoUnit a = Write(4096), b = Write(4096), c = Write(4096);
  const uint32_t sa = r.issue(a), sb = r.issue(b), sc = r.issue(c);
  r.complete(sc, c);
  r.complete(sb, b);
  r.io(Read(4096));  // a still in flight: proves nothing
  EXPECT_EQ(r.res.verified, 0u);
  r.complete(sa, a);  // the first issued lands last
  r.io(Read(4096));
  EXPECT_EQ(r.res.verified, 1u);
  EXPECT_EQ(r.res.verify_errors, 0u) << r.res.error_message;
  // The verify phase reads it again (a main-phase check is not a skip), and
  // a broken byte fails whichever write it was.
  r.disk[4096 + 300] ^= 0x10;
  ScriptedSource job_src({Write(0)});
  const std::vector<IoUnit> reads = r.drain(r.t.verify_reader(job_src));
  ASSERT_EQ(reads.size(), 1u);
  r.io(reads[0]);
  EXPECT_EQ(r.res.verify_errors, 1u);
}

// A failed write beside another of the same block may have left a part of
// itself: the block is not checked.
TEST(VerifyTracker, AFailedWriteBesideAnotherOfTheBlockMakesItAmbiguous) {
  VerifyRig r;
  const IoUnit a = Write(0), b = Write(0);
  const uint32_t sa = r.issue(a), sb = r.issue(b);
  r.complete(sb, b);
  r.complete(sa, a, Status(-EIO));
  r.io(Read(0));
  EXPECT_EQ(r.res.verified, 0u);
  EXPECT_EQ(r.t.not_verified(), 1u);
}

// A write after a completed one (not in flight together) is not ambiguous.
TEST(VerifyTracker, SequentialRewritesAreChecked) {
  VerifyRig r;
  r.io(Write(0));
  r.io(Write(0));
  r.io(Read(0));
  EXPECT_EQ(r.res.verified, 1u);
  EXPECT_EQ(r.res.verify_errors, 0u);
}

TEST(VerifyTracker, AWriteIssuedAfterAReadMakesThatReadProveNothing) {
  VerifyRig r;
  r.io(Write(12288));
  const IoUnit rd = Read(12288);
  const uint32_t s = r.issue(rd);   // expects the first write's data
  r.io(Write(12288));               // a new write issued (and done) meanwhile
  r.disk[12288 + 100] ^= 0x08;      // the read sees a broken block ...
  r.complete(s, rd);
  EXPECT_EQ(r.res.verified, 0u);  // ... but could have seen either write
  EXPECT_EQ(r.res.verify_errors, 0u);
  // The block is still to be checked (the second write's data).
  r.disk[12288 + 100] ^= 0x08;
  r.io(Read(12288));
  EXPECT_EQ(r.res.verified, 1u);
  EXPECT_EQ(r.res.verify_errors, 0u);
}

// A read whose write has not completed, or that reads another length,
// checks nothing.
TEST(VerifyTracker, AReadOfAnUnfinishedOrDifferentBlockChecksNothing) {
  VerifyRig r;
  const IoUnit w = Write(0);
  const uint32_t sw = r.issue(w);
  r.io(Read(0));
  EXPECT_EQ(r.res.verified, 0u);
  r.complete(sw, w);
  r.io(Read(0, 8192));
  r.io(Read(65536));  // never written
  EXPECT_EQ(r.res.verified, 0u);
  EXPECT_EQ(r.res.verify_errors, 0u);
}

TEST(VerifyTracker, AReadOnlyJobChecksEveryRead) {
  VerifyTracker::Options o;
  o.has_write = false;
  VerifyRig r(o);
  // Blocks written by an earlier run (any generation).
  FillVerifyBlock(r.disk.data() + 4096, 4096, 4096, 12345);
  r.io(Read(4096));
  EXPECT_EQ(r.res.verified, 1u);
  EXPECT_EQ(r.res.verify_errors, 0u);
  r.io(Read(8192));  // never written: garbage
  EXPECT_EQ(r.res.verified, 2u);
  EXPECT_EQ(r.res.verify_errors, 1u);
}

TEST(VerifyTracker, TheReaderReadsCompletedUnambiguousBlocksInKeyOrder) {
  VerifyRig r;
  r.io(Write(3 * 4096));
  r.io(Write(0, 4096, 1));  // file 1: after every key of file 0
  r.io(Write(4096));
  r.io(Write(2 * 4096), Status(-EIO));  // failed: holds no verify data
  const IoUnit a = Write(5 * 4096, 8192), b = Write(6 * 4096);
  const uint32_t sa = r.issue(a), sb = r.issue(b);  // b within a: ambiguous
  r.complete(sa, a);
  r.complete(sb, b);
  r.io(Write(7 * 4096, 8192));
  ScriptedSource job_src({Write(0, 8192)});
  IoSource& reader = r.t.verify_reader(job_src);
  EXPECT_TRUE(reader.has_dir(Dir::kWrite));
  EXPECT_FALSE(reader.has_dir(Dir::kRead));
  EXPECT_EQ(reader.max_bs(), 8192u);
  const std::vector<IoUnit> reads = r.drain(reader);
  ASSERT_EQ(reads.size(), 4u);
  EXPECT_EQ(Offsets(reads), (std::vector<uint64_t>{4096, 3 * 4096, 7 * 4096, 0}));
  EXPECT_EQ(reads[3].file, 1u);
  EXPECT_EQ(reads[2].len, 8192u);
  for (const IoUnit& u : reads) EXPECT_EQ(u.dir, Dir::kRead);
  // They check.
  for (const IoUnit& u : reads) r.io(u);
  EXPECT_EQ(r.res.verified, 4u);
  EXPECT_EQ(r.res.verify_errors, 0u);
  // Left unverified: the failed and the ambiguous block.
  EXPECT_EQ(r.t.not_verified(), 2u);
}

// With the random map fio reads back in the order of the writes (its
// io_hist list), else by file and offset (its rbtree).
TEST(VerifyTracker, TheReaderFollowsTheWritesWithIssueOrder) {
  VerifyTracker::Options o;
  o.issue_order = true;
  VerifyRig r(o);
  for (uint64_t off : {3 * 4096, 0, 5 * 4096, 4096}) r.io(Write(off));
  ScriptedSource job_src({Write(0)});
  EXPECT_EQ(Offsets(r.drain(r.t.verify_reader(job_src))),
            (std::vector<uint64_t>{3 * 4096, 0, 5 * 4096, 4096}));
}

// Between passes: the list starts empty for the next pass; what a verify
// phase that ran left unchecked counts as not verified, what a skipped one
// (the runtime) held does not.
TEST(VerifyTracker, ClosingAPassEmptiesTheList) {
  VerifyRig r;
  r.io(Write(0));
  r.io(Write(4096), Status(-EIO));  // never readable
  ScriptedSource job_src({Write(0)});
  for (const IoUnit& u : r.drain(r.t.verify_reader(job_src))) r.io(u);
  EXPECT_EQ(r.res.verified, 1u);
  r.t.close_pass(true);
  EXPECT_EQ(r.t.not_verified(), 1u);
  r.io(Write(8192));
  EXPECT_EQ(Offsets(r.drain(r.t.verify_reader(job_src))), (std::vector<uint64_t>{8192}));
  r.t.close_pass(false);
  EXPECT_EQ(r.t.not_verified(), 1u);
  EXPECT_TRUE(r.drain(r.t.verify_reader(job_src)).empty());
}

TEST(VerifyTracker, NotVerifiedCountsBlocksNeverChecked) {
  VerifyRig r;
  r.io(Write(0));
  r.io(Write(4096));
  r.io(Write(8192));
  EXPECT_EQ(r.t.not_verified(), 3u);
  r.io(Read(4096));
  EXPECT_EQ(r.t.not_verified(), 2u);
  // A bad block was checked too: not "not verified".
  r.disk[1] ^= 1;
  r.io(Read(0));
  EXPECT_EQ(r.t.not_verified(), 1u);
}

// verify_only: the job's writes are recorded as done, with the generation
// they would carry, and nothing is issued; the verify phase then checks a
// device an earlier run with the same seed wrote.
TEST(VerifyTracker, RecordOnlyExpectsWhatAnEarlierRunWrote) {
  VerifyTracker::Options o;
  o.seed = 99;
  const std::vector<IoUnit> job_ios = {Write(8192), Read(0), Write(0), Write(8192), Write(4096, 4096, 1)};
  VerifyRig writer(o);
  for (const IoUnit& u : job_ios) writer.io(u);

  VerifyRig verifier(o);
  verifier.disk = writer.disk;
  ScriptedSource job_src(job_ios);
  // The job's I/O comes through dry (fio's do_dry_run): through the hook,
  // never to the device.
  const std::vector<IoUnit> dry = verifier.drain(verifier.t.record_only(job_src));
  ASSERT_EQ(dry.size(), job_ios.size());
  for (const IoUnit& d : dry) {
    EXPECT_TRUE(d.dry);
    verifier.io(d);
  }
  EXPECT_EQ(verifier.disk, writer.disk) << "a dry write reached the device";
  const std::vector<IoUnit> reads = verifier.drain(verifier.t.verify_reader(job_src));
  EXPECT_EQ(Offsets(reads), (std::vector<uint64_t>{0, 8192, 4096}));
  for (const IoUnit& rd : reads) verifier.io(rd);
  EXPECT_EQ(verifier.res.verified, 3u);
  EXPECT_EQ(verifier.res.verify_errors, 0u) << verifier.res.error_message;
  // As fio's verify_only, the header's rand_seed (generation) is taken as
  // read: another seed's run (or fio) checks the same blocks good...
  VerifyRig other(VerifyTracker::Options{.seed = 100});
  other.disk = writer.disk;
  ScriptedSource src2(job_ios);
  for (const IoUnit& d : other.drain(other.t.record_only(src2))) other.io(d);
  for (const IoUnit& rd : other.drain(other.t.verify_reader(src2))) other.io(rd);
  EXPECT_EQ(other.res.verify_errors, 0u) << other.res.error_message;
  EXPECT_EQ(other.res.verified, 3u);
  // ...but a block out of its place fails.
  VerifyRig moved(o);
  moved.disk = writer.disk;
  std::swap_ranges(moved.disk.begin(), moved.disk.begin() + 4096, moved.disk.begin() + 8192);
  ScriptedSource src3(job_ios);
  for (const IoUnit& d : moved.drain(moved.t.record_only(src3))) moved.io(d);
  for (const IoUnit& rd : moved.drain(moved.t.verify_reader(src3))) moved.io(rd);
  EXPECT_EQ(moved.res.verify_errors, 2u);
  EXPECT_NE(moved.res.error_message.find("misplaced"), std::string::npos) << moved.res.error_message;
}

TEST(VerifyTracker, HistoryCountsWritesNotReadBack) {
  VerifyTracker::Options o;
  o.count_history = true;
  VerifyRig r(o);
  r.io(Write(0));
  r.io(Read(0));
  r.io(Write(4096));
  EXPECT_EQ(r.t.history(), 2u);
  // Without count_history nothing is counted.
  VerifyRig n;
  n.io(Write(0));
  EXPECT_EQ(n.t.history(), 0u);
}

TEST(VerifyTracker, TheBacklogHandsOutCompletedWritesInCompletionOrder) {
  VerifyTracker::Options o;
  o.count_history = o.backlog = o.skip_checked = true;
  VerifyRig r(o);
  const IoUnit w[4] = {Write(0), Write(4096), Write(8192), Write(12288)};
  uint32_t s[4];
  for (int i = 0; i < 4; i++) s[i] = r.issue(w[i]);
  EXPECT_EQ(r.t.history(), 4u);
  r.complete(s[2], w[2]);
  r.complete(s[0], w[0]);
  r.complete(s[3], w[3], Status(-EIO));  // failed: dropped
  r.complete(s[1], w[1]);
  IoUnit u;
  std::vector<uint64_t> got;
  while (r.t.pop_backlog(&u)) {
    EXPECT_EQ(u.dir, Dir::kRead);
    got.push_back(u.offset);
  }
  EXPECT_EQ(got, (std::vector<uint64_t>{8192, 0, 4096}));
  EXPECT_EQ(r.t.history(), 1u) << "one popped per completed write";
  r.t.settle_history();
  EXPECT_EQ(r.t.history(), 0u) << "no completed write left: the failed one left nothing";
  // A block checked meanwhile is not handed out again, and the verify
  // phase skips the checked ones.
  r.io(Write(65536));
  r.io(Read(65536));
  EXPECT_FALSE(r.t.pop_backlog(&u));
  r.io(Read(0));
  ScriptedSource job_src({Write(0)});
  EXPECT_EQ(Offsets(r.drain(r.t.verify_reader(job_src))), (std::vector<uint64_t>{4096, 8192}));
}

TEST(VerifyTracker, TheVerifyPhaseDoesNotGrowTheHistory) {
  VerifyTracker::Options o;
  o.count_history = true;
  VerifyRig r(o);
  r.io(Write(0));
  ScriptedSource job_src({Write(0)});
  (void)r.t.verify_reader(job_src);
  r.io(Write(4096));
  EXPECT_EQ(r.t.history(), 1u);
}

TEST(VerifyTracker, ATrimKeptMustReadBackAsZeros) {
  VerifyTracker::Options o;
  o.count_history = true;
  VerifyRig r(o);
  r.io(Write(8192, 4096, 1));
  const uint64_t key = r.keys.key(Write(8192, 4096, 1));
  const uint64_t gen = r.t.last_gen();
  EXPECT_TRUE(r.t.trimmable(key, gen));
  EXPECT_FALSE(r.t.trimmable(key, gen + 2)) << "another write's generation";
  IoUnit u;
  ASSERT_TRUE(r.t.trim(key, gen, /*keep=*/true, &u));
  EXPECT_EQ(u.dir, Dir::kTrim);
  EXPECT_EQ(u.file, 1u);
  EXPECT_EQ(u.offset, 8192u);
  EXPECT_EQ(u.len, 4096u);
  EXPECT_FALSE(r.t.trimmable(key, gen)) << "trimmed once";
  EXPECT_EQ(r.t.history(), 1u) << "kept: still to be read back";
  r.io(u);  // the device zeroes it
  r.io(Read(8192, 4096, 1));
  EXPECT_EQ(r.res.verified, 1u);
  EXPECT_EQ(r.res.verify_errors, 0u);

  // A device that ignored the discard: the old data is a failure, naming
  // the first non-zero byte.
  VerifyRig bad(o);
  bad.io(Write(4096));
  const uint64_t k = bad.keys.key(Write(4096));
  ASSERT_TRUE(bad.t.trim(k, bad.t.last_gen(), true, &u));
  bad.t.on_complete(DoneIo{0, u, 1, 1, 1, nullptr, true, Status()});  // not applied
  std::memset(bad.disk.data() + 4096, 0, 4096);
  bad.disk[4096 + 300] = 7;
  bad.io(Read(4096));
  EXPECT_EQ(bad.res.verify_errors, 1u);
  EXPECT_NE(bad.res.error_message.find("trim verify failed on 'f0' at offset 4396"),
            std::string::npos)
      << bad.res.error_message;
  EXPECT_NE(bad.res.error_message.find("(block offset 300)"), std::string::npos);
}

TEST(VerifyTracker, AFailedTrimLeavesTheBlockUnchecked) {
  VerifyRig r;
  r.io(Write(0));
  IoUnit u;
  ASSERT_TRUE(r.t.trim(0, r.t.last_gen(), true, &u));
  r.io(u, Status(-EIO));
  r.io(Read(0));
  EXPECT_EQ(r.res.verified, 0u);
  EXPECT_EQ(r.res.verify_errors, 0u);
}

TEST(VerifyTracker, ATrimNotKeptLeavesTheListAndTheHistory) {
  VerifyTracker::Options o;
  o.count_history = o.backlog = true;
  VerifyRig r(o);
  r.io(Write(0));
  r.io(Write(4096));
  ASSERT_EQ(r.t.history(), 2u);
  IoUnit u;
  EXPECT_FALSE(r.t.trim(0, r.t.last_gen(), false, &u))
      << "key 0 holds the first write's generation, not the last";
  ASSERT_TRUE(r.t.pop_backlog(&u));  // the oldest: key 0
  EXPECT_EQ(u.offset, 0u);
  EXPECT_EQ(r.t.history(), 1u);
  const uint64_t gen2 = r.t.last_gen();
  ASSERT_TRUE(r.t.trim(4096, gen2, /*keep=*/false, &u));
  EXPECT_EQ(u.dir, Dir::kTrim);
  EXPECT_EQ(r.t.history(), 0u);
  EXPECT_FALSE(r.t.pop_backlog(&u)) << "out of the backlog too";
  ScriptedSource job_src({Write(0)});
  EXPECT_EQ(Offsets(r.drain(r.t.verify_reader(job_src))), (std::vector<uint64_t>{0}));
  EXPECT_EQ(r.t.not_verified(), 1u) << "the trimmed block is not counted";
}

TEST(VerifyTracker, NothingToTrimUnlessTheWriteCompletedUnambiguously) {
  VerifyRig r;
  const IoUnit w = Write(0);
  const uint32_t s = r.issue(w);
  const uint64_t gen = r.t.last_gen();
  IoUnit u;
  EXPECT_TRUE(r.t.trimmable(0, gen));
  EXPECT_FALSE(r.t.trim(0, gen, true, &u)) << "still in flight";
  r.complete(s, w, Status(-EIO));
  EXPECT_FALSE(r.t.trim(0, gen, true, &u)) << "failed";
  r.io(Read(0));  // a read of it is not a check
  r.io(Write(4096));
  r.io(Read(4096));  // checked
  EXPECT_FALSE(r.t.trimmable(4096, r.t.last_gen())) << "checked already";
  EXPECT_FALSE(r.t.trim(4096, r.t.last_gen(), true, &u));
}

// ---- MakeVerifyLayout --------------------------------------------------

JobOptions VerifyJob(VerifyMethod m, uint64_t bs) {
  JobOptions j;
  j.verify = m;
  j.bs[int(Dir::kRead)] = j.bs[int(Dir::kWrite)] = {bs, bs};
  return j;
}

ScriptedSource Writes() {
  ScriptedSource s;
  s.add_dir(Dir::kWrite);
  return s;
}

TEST(MakeVerifyLayout, TheMethodAndDefaults) {
  ScriptedSource w = Writes();
  auto l = MakeVerifyLayout(VerifyJob(VerifyMethod::kSha256, 4096), w);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->method, VerifyMethod::kSha256);
  EXPECT_EQ(l->interval, 0u);
  EXPECT_EQ(l->header_offset, 0u);
  EXPECT_TRUE(l->pattern.empty());
}

TEST(MakeVerifyLayout, BlocksSmallerThanTheHeaderAreAnError) {
  ScriptedSource w = Writes();
  auto l = MakeVerifyLayout(VerifyJob(VerifyMethod::kCrc32c, 16), w);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().code, -EINVAL);
  EXPECT_EQ(l.error().message,
            "verify=crc32c needs blocks of at least 44 bytes (its header), but this job writes "
            "blocks of 16 bytes (bs=)");
  // md5's header is fio's 40 bytes and its 16-byte digest; a read-only job
  // is judged by its reads.
  ScriptedSource rd;
  rd.add_dir(Dir::kRead);
  auto m = MakeVerifyLayout(VerifyJob(VerifyMethod::kMd5, 48), rd);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("at least 56 bytes"), std::string::npos) << m.error().message;
  EXPECT_NE(m.error().message.find("this job reads blocks of 48"), std::string::npos);
  // verify=pattern has no header.
  JobOptions p = VerifyJob(VerifyMethod::kPattern, 16);
  p.verify_pattern = {PatternPiece{false, "ab", false}};
  EXPECT_TRUE(MakeVerifyLayout(p, w).ok());
}

TEST(MakeVerifyLayout, VerifyOffsetMustClearTheHeaderAndFitTheBlock) {
  ScriptedSource w = Writes();
  JobOptions j = VerifyJob(VerifyMethod::kCrc32c, 4096);
  j.verify_offset = 16;
  auto a = MakeVerifyLayout(j, w);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().message,
            "verify_offset=16 overlaps verify=crc32c's 44-byte header: give 0 or at least 44");
  j.verify_offset = 4080;
  auto b = MakeVerifyLayout(j, w);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().message,
            "verify_offset=4080 puts verify=crc32c's 44-byte header past the end of a 4096-byte "
            "block");
  j.verify_offset = 4052;  // 4052 + 44 = 4096: fits
  auto c = MakeVerifyLayout(j, w);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->header_offset, 4052u);
  // Within an interval.
  j.verify_interval = 512;
  j.verify_offset = 490;
  auto d = MakeVerifyLayout(j, w);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("past the end of a 512-byte verify_interval"), std::string::npos)
      << d.error().message;
}

TEST(MakeVerifyLayout, VerifyIntervalDividesTheSmallestAndLargestBlocksElseTheirGcd) {
  ScriptedSource w = Writes();
  JobOptions j = VerifyJob(VerifyMethod::kCrc32c, 4096);
  j.bssplit[int(Dir::kWrite)] = {{4096, 50}, {6144, 50}};
  j.verify_interval = 1024;  // divides 4096 and 6144
  auto a = MakeVerifyLayout(j, w);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->interval, 1024u);
  j.verify_interval = 4096;  // not a divisor of 6144: gcd(4096, 6144)
  auto b = MakeVerifyLayout(j, w);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->interval, 2048u);
  JobOptions k = VerifyJob(VerifyMethod::kCrc32c, 4096);
  k.verify_interval = 8192;  // at most the smallest block
  auto c = MakeVerifyLayout(k, w);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->interval, 4096u);
  k.verify_interval = 1000;  // not a divisor of 4096: gcd(4096, 4096)
  auto d = MakeVerifyLayout(k, w);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->interval, 4096u);
  k.verify_interval = 16;  // below the header
  auto e = MakeVerifyLayout(k, w);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message,
            "verify_interval=16 is smaller than verify=crc32c's 44-byte header");
}

// A pattern longer than fio 3.33's 512 bytes is taken whole (fio 3.33 cuts
// it; later fios take it, t0027), up to 64 MiB.
TEST(MakeVerifyLayout, APatternIsTakenWholeUpTo64MiB) {
  ScriptedSource w = Writes();
  JobOptions j = VerifyJob(VerifyMethod::kPattern, 16384);
  std::string p(16384, 'x');
  for (size_t i = 0; i < p.size(); i++) p[i] = char(i * 7 + i / 251);
  j.verify_pattern = {PatternPiece{false, p, false}};
  auto ok = MakeVerifyLayout(j, w);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->pattern, p);
  std::vector<uint8_t> block(16384);
  FillVerifyBlock(block.data(), block.size(), 0, 1, *ok);
  EXPECT_EQ(std::string(block.begin(), block.end()), p);
  j.verify_pattern = {PatternPiece{false, std::string((size_t(64) << 20) + 1, 'y'), false}};
  auto bad = MakeVerifyLayout(j, w);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, -EINVAL);
  EXPECT_EQ(bad.error().message, "verify_pattern: 67108865 bytes, at most 64 MiB");
}

// verify=0 with a verify_pattern: the pattern is written, nothing checked,
// so no header rule applies.
TEST(MakeVerifyLayout, APatternWithoutVerifyIsOnlyThePattern) {
  ScriptedSource w = Writes();
  JobOptions j = VerifyJob(VerifyMethod::kNone, 8);
  j.verify_pattern = {PatternPiece{false, "\x01\x02", false}};
  j.verify_offset = 3;
  auto l = MakeVerifyLayout(j, w);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->pattern, "\x01\x02");
  EXPECT_EQ(l->header_offset, 0u);
}

// A tracker over a layout with a pattern and intervals still checks.
TEST(VerifyTracker, ChecksWithThePatternAndIntervalsOfItsLayout) {
  ScriptedSource w = Writes();
  JobOptions j = VerifyJob(VerifyMethod::kCrc32c, 8192);
  j.verify_interval = 2048;
  j.verify_pattern = {PatternPiece{false, "abc", false}};
  auto l = MakeVerifyLayout(j, w);
  ASSERT_TRUE(l.ok());
  VerifyRig r({}, ContinueOnError::kNone, *l);
  r.io(Write(16384, 8192));
  r.io(Read(16384, 8192));
  EXPECT_EQ(r.res.verified, 1u);
  EXPECT_EQ(r.res.verify_errors, 0u) << r.res.error_message;
  r.disk[16384 + 4096 + 100] ^= 1;  // in the third interval's pattern
  r.io(Read(16384, 8192));
  EXPECT_EQ(r.res.verify_errors, 1u);
  EXPECT_NE(r.res.error_message.find("interval at offset 20480"), std::string::npos)
      << r.res.error_message;
}

}  // namespace
}  // namespace blk::bench
