// FsyncCadence (run/features/fsync_cadence.h): a flush after every N
// writes (reads ignored) of the file written last, taking a depth slot, and
// none after the job's last write; counted with the syncs.  Unit-level on
// on_issue(), then on a real submit loop over the null driver and over
// HoldDriver (scripted completions) to see the flush's place in the queue.
#include "tools/block_bench/run/features/fsync_cadence.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/tools/block_bench/run/loop_fixture.h"

namespace blk::bench {
namespace {

using testing::LoopFixture;
using testing::Read;
using testing::Settle;
using testing::Write;

void Issue(FsyncCadence& f, const IoUnit& u) { f.on_issue(IssuedIo{0, u, 0}); }

TEST(FsyncCadence, DueAfterEveryNWritesReadsIgnored) {
  Timeline time;
  FsyncCadence f(3, time);
  EXPECT_EQ(f.points(), unsigned(SubmitHook::kBeforeFetch | SubmitHook::kOnIssue));
  Issue(f, Write(0));
  Issue(f, Read(0));
  Issue(f, Write(4096));
  Issue(f, Read(4096));
  Issue(f, Read(8192));
  EXPECT_FALSE(f.due()) << "two writes of three";
  IoUnit trim = Write(0);
  trim.dir = Dir::kTrim;
  Issue(f, trim);
  EXPECT_FALSE(f.due()) << "a trim is not a write";
  Issue(f, Write(8192));
  EXPECT_TRUE(f.due());
}

JobOptions Job(uint32_t depth, uint32_t fsync) {
  JobOptions j;
  j.name = "f";
  j.ioengine = IoEngine::kNull;
  j.iodepth = depth;
  j.fsync = fsync;
  return j;
}

struct Rig {
  Rig(const JobOptions& j, std::vector<IoUnit> ios) : fx(j, std::move(ios)), f(j.fsync, fx.time) {}
  LoopFixture fx;
  FsyncCadence f;
};

TEST(FsyncCadence, OnALoopAFlushFollowsEveryNthWriteButNotTheLast) {
  {
    // fsync=2 over five writes: after the 2nd and the 4th.
    Rig r(Job(1, 2), {Write(0), Write(4096), Write(8192), Write(12288), Write(16384)});
    r.fx.open_null();
    r.fx.make_loop().add_hook(&r.f);
    r.fx.run();
    EXPECT_EQ(r.fx.res.syncs, 2u);
    EXPECT_EQ(r.fx.res.sync_lat.count(), 2u);
    EXPECT_EQ(r.fx.res.dir[int(Dir::kWrite)].ios, 5u);
  }
  {
    // Over four writes: after the 2nd; the 4th is the job's last (end_fsync
    // is for that).
    Rig r(Job(1, 2), {Write(0), Write(4096), Write(8192), Write(12288)});
    r.fx.open_null();
    r.fx.make_loop().add_hook(&r.f);
    r.fx.run();
    EXPECT_EQ(r.fx.res.syncs, 1u);
    EXPECT_FALSE(r.f.due());
  }
  {
    // Reads in between count for nothing.
    Rig r(Job(1, 2), {Write(0), Read(0), Read(4096), Write(4096), Read(8192), Write(8192)});
    r.fx.open_null();
    r.fx.make_loop().add_hook(&r.f);
    r.fx.run();
    EXPECT_EQ(r.fx.res.syncs, 1u);
  }
}

TEST(FsyncCadence, NoFlushPastTheRuntime) {
  Rig r(Job(1, 1), {Write(0), Write(4096)});
  r.fx.open_null();
  SubmitLoop& loop = r.fx.make_loop();
  Issue(r.f, Write(0));
  ASSERT_TRUE(r.f.due());
  r.fx.time.end_ns = 0;  // the runtime ended
  EXPECT_FALSE(r.f.before_fetch(loop));
  EXPECT_FALSE(r.f.due()) << "dropped";
}

TEST(FsyncCadence, BeforeFetchDropsTheFlushWhenNothingFollows) {
  Rig r(Job(1, 1), {});
  r.fx.open_null();
  SubmitLoop& loop = r.fx.make_loop();
  Issue(r.f, Write(0));
  ASSERT_TRUE(r.f.due());
  EXPECT_FALSE(r.f.before_fetch(loop));
  EXPECT_FALSE(r.f.due());
}

TEST(FsyncCadence, BeforeFetchKeepsTheFlushAndTheNextIoWhenMoreFollows) {
  Rig r(Job(1, 1), {Read(4096)});
  r.fx.open_null();
  SubmitLoop& loop = r.fx.make_loop();
  Issue(r.f, Write(0));
  EXPECT_TRUE(r.f.before_fetch(loop));
  EXPECT_TRUE(loop.has_pending()) << "the next I/O was fetched to know";
  EXPECT_EQ(r.fx.source.taken(), 1u);
}

// The flush takes a depth slot: with the queue full it waits for a
// completion, and goes to the file written last, before the next I/O.
TEST(FsyncCadence, TheFlushWaitsForRoomAndGoesToTheFileWrittenLast) {
  JobOptions j = Job(2, 2);
  Rig r(j, {Write(0, 4096, 1), Write(4096, 4096, 1), Write(8192, 4096, 0)});
  r.fx.open_null();  // file 0
  r.fx.open_hold();  // file 1: the writes that make the flush due
  r.fx.make_loop().add_hook(&r.f);
  r.fx.start();
  testing::HoldDriver& d = *r.fx.hold;
  ASSERT_EQ(d.arrived(), 2u);
  EXPECT_TRUE(r.f.due());
  d.complete(0);
  Settle(r.fx.ctx);
  // One slot free: the flush takes it, ahead of the third write (file 0).
  ASSERT_EQ(d.arrived(), 3u);
  EXPECT_EQ(d.request(2).kind, 'f');
  EXPECT_FALSE(r.f.due());
  d.complete(1);
  d.complete(2);
  Settle(r.fx.ctx);
  EXPECT_TRUE(r.fx.done);
  EXPECT_EQ(d.arrived(), 3u);
  EXPECT_EQ(r.fx.res.syncs, 1u);
  EXPECT_EQ(r.fx.res.dir[int(Dir::kWrite)].ios, 3u);
}

TEST(FsyncCadence, AFailedFlushIsAWriteError) {
  Rig r(Job(1, 1), {Write(0), Write(4096)});
  r.fx.open_hold();
  r.fx.make_loop().add_hook(&r.f);
  r.fx.start();
  r.fx.hold->complete(0);
  Settle(r.fx.ctx);
  ASSERT_EQ(r.fx.hold->arrived(), 2u);
  ASSERT_EQ(r.fx.hold->request(1).kind, 'f');
  r.fx.hold->complete(1, Status(-EIO));
  Settle(r.fx.ctx);
  EXPECT_TRUE(r.fx.done);
  EXPECT_EQ(r.fx.res.error, EIO);
  EXPECT_NE(r.fx.res.error_message.find("flush failed on 'hold0'"), std::string::npos)
      << r.fx.res.error_message;
  EXPECT_EQ(r.fx.hold->arrived(), 2u) << "the job ended before the second write";
}

}  // namespace
}  // namespace blk::bench
