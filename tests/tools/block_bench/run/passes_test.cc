// FioPasses (run/passes.h): where fio 3.33 ends a pass and whether another
// begins.  Each case drives FioPasses as the generator does, with a region
// that runs out of I/O after a given count per pass (a full random map, the
// end of a sequential region) or never (norandommap), and checks the I/Os
// of each pass against what fio 3.33 issued for the same job (its
// write_iolog, counted by hand: the jobs are named in each case).
#include "tools/block_bench/run/passes.h"

#include <gtest/gtest.h>

#include <vector>

namespace blk::bench {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;

// The I/Os of each pass: `bs` bytes each in direction `d`, the region out
// of I/O after `per_pass` of them (0: never).
std::vector<uint64_t> Passes(const PassLimits& l, uint64_t bs, uint64_t per_pass,
                             Dir d = Dir::kRead) {
  FioPasses p(l);
  std::vector<uint64_t> ios(1, 0);
  for (int guard = 0; guard < 100000; guard++) {
    const bool may = p.may_issue();
    if (may && (per_pass == 0 || ios.back() < per_pass)) {
      p.issued(d, bs);
      ios.back()++;
      EXPECT_EQ(p.pass(), ios.size() - 1);
      continue;
    }
    if (!p.next_pass(may)) break;
    ios.push_back(0);
  }
  if (!ios.empty() && ios.back() == 0) ios.pop_back();
  return ios;
}

JobOptions Job(RwMode rw, IoEngine e, uint32_t depth = 1) {
  JobOptions j;
  j.rw = rw;
  j.ioengine = e;
  j.iodepth = depth;
  return j;
}

using V = std::vector<uint64_t>;

TEST(CountsPassBytes, OnlyEnginesThatQueue) {
  EXPECT_FALSE(CountsPassBytes(Job(RwMode::kRead, IoEngine::kNull, 1)));
  EXPECT_TRUE(CountsPassBytes(Job(RwMode::kRead, IoEngine::kNull, 4)));
  EXPECT_TRUE(CountsPassBytes(Job(RwMode::kRead, IoEngine::kLibaio, 1)));
  EXPECT_TRUE(CountsPassBytes(Job(RwMode::kRead, IoEngine::kIoUring, 1)));
  EXPECT_FALSE(CountsPassBytes(Job(RwMode::kRead, IoEngine::kPsync, 8)));
  EXPECT_FALSE(CountsPassBytes(Job(RwMode::kRead, IoEngine::kSync, 1)));
  JobOptions off = Job(RwMode::kRead, IoEngine::kLibaio, 8);
  off.io_submit_mode = JobOptions::SubmitMode::kOffload;
  EXPECT_FALSE(CountsPassBytes(off));
}

TEST(FioPasses, SynchronousEngineRunsLoopsWithoutAMapAsOnePass) {
  // randread size=1m loops=2 norandommap: psync one pass of 512 I/Os,
  // libaio two of 256 (each from the seeds again).
  JobOptions j = Job(RwMode::kRandRead, IoEngine::kPsync);
  j.loops = 2;
  EXPECT_EQ(Passes(PassLimits::Of(j, kMiB, 0), 4096, 0), (V{512}));
  j.ioengine = IoEngine::kLibaio;
  EXPECT_EQ(Passes(PassLimits::Of(j, kMiB, 0), 4096, 0), (V{256, 256}));
}

TEST(FioPasses, AFullMapEndsAPassAndLoopsStartAnother) {
  // randread bs=4k size=10k loops=3: two blocks fit, 3 passes of 2.
  JobOptions j = Job(RwMode::kRandRead, IoEngine::kNull);
  j.loops = 3;
  EXPECT_EQ(Passes(PassLimits::Of(j, 10 * kKiB, 0), 4096, 2), (V{2, 2, 2}));
  // loops=1: 8k of 10k done, less than a block short: no second pass.
  j.loops = 1;
  EXPECT_EQ(Passes(PassLimits::Of(j, 10 * kKiB, 0), 4096, 2), (V{2}));
  // io_size=30k: passes until 30k are issued (the last I/O whole): 8 I/Os.
  EXPECT_EQ(Passes(PassLimits::Of(j, 10 * kKiB, 30 * kKiB), 4096, 2), (V{2, 2, 2, 2}));
}

TEST(FioPasses, IoSizeBeyondSize) {
  // read size=1m io_size=2m: two passes of the region.
  JobOptions j = Job(RwMode::kRead, IoEngine::kNull);
  EXPECT_EQ(Passes(PassLimits::Of(j, kMiB, 2 * kMiB), 4096, 256), (V{256, 256}));
  // randread io_size=1536k: the second pass ends half way.
  j.rw = RwMode::kRandRead;
  EXPECT_EQ(Passes(PassLimits::Of(j, kMiB, 1536 * kKiB), 4096, 256), (V{256, 128}));
  // No map, a synchronous engine: one pass of 2m.
  EXPECT_EQ(Passes(PassLimits::Of(j, kMiB, 2 * kMiB), 4096, 0), (V{512}));
  // Random writes without a map through an engine that queues: fio cuts
  // at the larger of size and io_size, so one pass too (randwrite
  // size=1m io_size=3m norandommap, libaio: 768 I/Os from one seed).
  j.rw = RwMode::kRandWrite;
  j.ioengine = IoEngine::kLibaio;
  j.norandommap = true;
  EXPECT_EQ(Passes(PassLimits::Of(j, kMiB, 3 * kMiB), 4096, 0), (V{768}));
  // ... where random reads are cut at size.
  j.rw = RwMode::kRandRead;
  EXPECT_EQ(Passes(PassLimits::Of(j, kMiB, 3 * kMiB), 4096, 0), (V{256, 256, 256}));
}

TEST(FioPasses, NumberIosCountsTimesLoops) {
  // randread size=1m number_ios=100 loops=2: 200 I/Os in one pass.
  JobOptions j = Job(RwMode::kRandRead, IoEngine::kNull);
  j.loops = 2;
  j.number_ios = 100;
  EXPECT_EQ(Passes(PassLimits::Of(j, kMiB, 0), 4096, 256), (V{200}));
}

TEST(FioPasses, AMixCountsBothDirectionsTrimwriteItsWrites) {
  JobOptions mix = Job(RwMode::kRandReadWrite, IoEngine::kNull);
  PassLimits l = PassLimits::Of(mix, 8192, 0);
  FioPasses p(l);
  p.issued(Dir::kRead, 4096);
  EXPECT_TRUE(p.may_issue());
  p.issued(Dir::kWrite, 4096);
  EXPECT_FALSE(p.may_issue());

  JobOptions tw = Job(RwMode::kTrimWrite, IoEngine::kNull);
  FioPasses q(PassLimits::Of(tw, 8192, 0));
  q.issued(Dir::kTrim, 4096);
  q.issued(Dir::kWrite, 4096);
  q.issued(Dir::kTrim, 4096);
  EXPECT_TRUE(q.may_issue());  // 4k of writes so far
  q.issued(Dir::kWrite, 4096);
  EXPECT_FALSE(q.may_issue());
}

TEST(FioPasses, APassWithoutIoEndsTheJob) {
  JobOptions j = Job(RwMode::kRandRead, IoEngine::kNull);
  j.loops = 5;
  FioPasses p(PassLimits::Of(j, 8192, 0));
  EXPECT_FALSE(p.next_pass(true));
  EXPECT_EQ(p.pass(), 0u);
}

TEST(FioPasses, TimeBasedEndsPassesOnlyForWantOfIo) {
  JobOptions j = Job(RwMode::kRead, IoEngine::kLibaio);
  j.time_based = true;
  FioPasses p(PassLimits::Of(j, 8192, 0));
  for (int i = 0; i < 10; i++) p.issued(Dir::kRead, 4096);
  EXPECT_TRUE(p.may_issue());
  EXPECT_TRUE(p.next_pass(true));
  EXPECT_EQ(p.pass(), 1u);
  EXPECT_FALSE(p.next_pass(true));  // nothing in the new pass
  // set_unlimited(false): bounded again.
  p.set_unlimited(false);
  p.issued(Dir::kRead, 4096);
  EXPECT_FALSE(p.may_issue());
}

// Time based with verify: fio's do_io breaks after size bytes "to run
// verification" (an engine that queues), and the job goes on; a
// synchronous engine's pass never ends so.
TEST(FioPasses, TimeBasedWithVerifyEndsAPassAfterSizeBytes) {
  JobOptions j = Job(RwMode::kRandWrite, IoEngine::kLibaio);
  j.time_based = true;
  j.verify = VerifyMethod::kCrc32c;
  FioPasses p(PassLimits::Of(j, 8192, 0));
  p.issued(Dir::kWrite, 4096);
  EXPECT_TRUE(p.may_issue());
  p.issued(Dir::kWrite, 4096);
  EXPECT_FALSE(p.may_issue());
  EXPECT_TRUE(p.next_pass(false));
  EXPECT_EQ(p.pass(), 1u);
  EXPECT_TRUE(p.may_issue());
  JobOptions s = j;
  s.ioengine = IoEngine::kPsync;
  FioPasses q(PassLimits::Of(s, 8192, 0));
  for (int i = 0; i < 10; i++) q.issued(Dir::kWrite, 4096);
  EXPECT_TRUE(q.may_issue());
}

// verify's read-back between passes counts toward io_size when fio's
// keep_running decides on another pass.
TEST(FioPasses, OtherIoCountsTowardAnotherPass) {
  JobOptions j = Job(RwMode::kRandWrite, IoEngine::kLibaio);
  FioPasses p(PassLimits::Of(j, 8192, 3 * 8192));
  for (int i = 0; i < 2; i++) p.issued(Dir::kWrite, 4096);
  EXPECT_FALSE(p.may_issue());  // the pass's size bytes
  p.other_io(8192);
  EXPECT_TRUE(p.next_pass(false));  // 16k of 24k
  for (int i = 0; i < 2; i++) p.issued(Dir::kWrite, 4096);
  p.other_io(8192);
  EXPECT_FALSE(p.next_pass(false));  // 32k: no room left
}

// With a read-back after each pass, fio decides on another pass only after
// it, with the read-back's bytes counted and no file done (clear_io_state):
// fio 3.33's randrw, bs=4k,256k, size=8m, verify=crc32c, psync ran out of
// I/O after 15 writes and 14 reads (3896 KiB), read 3840 KiB back (7736
// KiB, 456 KiB below size: room for a 256 KiB block) and began a second
// pass; after it and its read-back the job ended.
TEST(FioPasses, AReadBackDecidesAfterItsBytes) {
  JobOptions j = Job(RwMode::kRandReadWrite, IoEngine::kPsync);
  j.bs[1] = {256 * kKiB, 256 * kKiB};
  j.verify = VerifyMethod::kCrc32c;
  const PassLimits l = PassLimits::Of(j, 8 * kMiB, 0);
  ASSERT_TRUE(l.read_back);
  ASSERT_EQ(l.max_bs, 256 * kKiB);
  FioPasses p(l);
  for (uint32_t pass = 0; pass < 2; pass++) {
    for (int i = 0; i < 15; i++) p.issued(Dir::kWrite, 256 * kKiB);
    for (int i = 0; i < 14; i++) p.issued(Dir::kRead, 4 * kKiB);
    EXPECT_TRUE(p.may_issue());
    EXPECT_FALSE(p.next_pass(/*out_of_io=*/true));
    EXPECT_TRUE(p.deferred());
    EXPECT_EQ(p.pass(), pass);
    p.other_io(15 * 256 * kKiB);
    EXPECT_EQ(p.resume(), pass == 0) << pass;
    EXPECT_FALSE(p.deferred());
  }
  EXPECT_EQ(p.pass(), 1u);
  EXPECT_FALSE(p.resume());  // nothing deferred

  // Without the read-back, running out of I/O ends the job at once.
  j.do_verify = false;
  FioPasses q(PassLimits::Of(j, 8 * kMiB, 0));
  q.issued(Dir::kWrite, 256 * kKiB);
  EXPECT_FALSE(q.next_pass(true));
  EXPECT_FALSE(q.deferred());
  // fio's net engines never read back (FIO_UNIDIR).
  j.do_verify = true;
  j.ioengine = IoEngine::kNet;
  EXPECT_FALSE(PassLimits::Of(j, 8 * kMiB, 0).read_back);
}

// Loops left and number_ios decide at once, read-back or not.
TEST(FioPasses, AReadBackDefersOnlyTheBytesDecision) {
  JobOptions j = Job(RwMode::kRandWrite, IoEngine::kPsync);
  j.verify = VerifyMethod::kMd5;
  j.loops = 2;
  FioPasses p(PassLimits::Of(j, 8192, 0));
  p.issued(Dir::kWrite, 8192);
  EXPECT_TRUE(p.next_pass(true));
  EXPECT_FALSE(p.deferred());
  j.loops = 1;
  j.number_ios = 1;
  FioPasses q(PassLimits::Of(j, 8192, 0));
  q.issued(Dir::kWrite, 4096);
  EXPECT_FALSE(q.next_pass(false));
  EXPECT_FALSE(q.deferred());
}

TEST(FioPasses, RestartBudgetCountsAgain) {
  JobOptions j = Job(RwMode::kRead, IoEngine::kNull);
  FioPasses p(PassLimits::Of(j, 8192, 0));
  p.issued(Dir::kRead, 8192);
  EXPECT_FALSE(p.may_issue());
  p.restart_budget();
  EXPECT_TRUE(p.may_issue());
  EXPECT_EQ(p.budget(), 8192u);
}

}  // namespace
}  // namespace blk::bench
