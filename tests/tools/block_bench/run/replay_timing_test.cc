// Trace replay's open loop, asserted on timing: on a null device with 5 ms
// latency every I/O of a 4 k IOPS trace is issued on time with ~20 in
// flight, none held back by the default cap of 64.  How many are in flight
// depends on the null driver's timers firing on time, which sanitizers and a
// loaded machine change (a TSan run once held back 19): tagged "timing", it
// runs alone in the optimised build (scripts/test.sh).
#include <gtest/gtest.h>

#include "replay_test_util.h"

namespace blk::bench {
namespace {

using testing::Rec;
using testing::RunReplay;
using testing::WriteIolog;

// Open loop: on a device with 5 ms latency, I/Os due every 250 us are issued
// on time while earlier ones are in flight (up to the cap); with iodepth=1
// they are held back, and the latency from the due time shows the queueing
// that the completion latency hides.
TEST(Replay, OpenLoopUpToTheDepthCapAndHeldBackBeyond) {
  std::vector<Rec> recs;
  for (int i = 0; i < 400; i++) recs.push_back({'r', uint64_t(i * 250), uint64_t(i) * 4096, 4096});
  const std::string log = WriteIolog("open", recs);
  const std::string dev = "--blockdev=driver=null,size=16M,latency-ns=5000000";
  RunResult open = RunReplay({"--name=a", dev, "--read_iolog=" + log});
  const CloneResult& o = open.clones[0];
  ASSERT_EQ(o.error, 0) << o.error_message;
  EXPECT_EQ(o.schedule.depth, kDefaultReplayDepth);
  EXPECT_EQ(o.schedule.held_back, 0u);
  EXPECT_GT(o.depth[DepthBucket(16)], 0u) << "I/Os were not overlapped";
  EXPECT_EQ(o.dir[0].ios, recs.size());

  RunResult capped = RunReplay({"--name=a", dev, "--read_iolog=" + log, "--iodepth=1"});
  const CloneResult& k = capped.clones[0];
  ASSERT_EQ(k.error, 0) << k.error_message;
  EXPECT_EQ(k.schedule.depth, 1u);
  EXPECT_GT(k.schedule.held_back, recs.size() / 2);
  EXPECT_GT(k.schedule.late_1ms, recs.size() / 2);
  // clat stays ~5 ms; from the due time the wait adds up (400 x 5 ms queued
  // behind one slot: the last is ~1.9 s late).
  EXPECT_LT(k.dir[0].clat.percentile(50), 50'000'000u);
  EXPECT_GT(k.dir[0].sched_lat.percentile(99), 10 * k.dir[0].clat.percentile(99));
  EXPECT_GT(k.schedule.replay_span_ns, 10 * k.schedule.trace_span_ns);
}

}  // namespace
}  // namespace blk::bench
