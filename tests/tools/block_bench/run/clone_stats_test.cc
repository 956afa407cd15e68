// CloneStats and LiveCounters (run/clone_stats.h): what a completed
// request adds, split at the driver's hand-over or not, measured or ramp,
// and what restart() and merge_unsplit() do.  Times are plain numbers (ns).
#include "tools/block_bench/run/clone_stats.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace blk::bench {
namespace {

constexpr int R = int(Dir::kRead);
constexpr int W = int(Dir::kWrite);

IoUnit Unit(Dir d, uint64_t len = 4096) {
  IoUnit u;
  u.dir = d;
  u.offset = 8192;
  u.len = len;
  return u;
}

struct Fixture {
  JobOptions job;
  CloneResult res;
  LiveCounters live;
  CloneStats stats{job, &res, &live};
};

TEST(CloneStats, AnUnsplitRequestIsRecordedOnceAndMergedAsClatAndLat) {
  Fixture f;
  const CloneStats::Latency l =
      f.stats.complete(Unit(Dir::kRead), 1000, 5000, /*handed=*/0, /*due=*/0, true, Status());
  EXPECT_FALSE(l.split);
  EXPECT_EQ(l.lat, 4000u);
  EXPECT_EQ(l.clat, 4000u);
  EXPECT_EQ(l.slat, 0u);
  const DirResult& r = f.res.dir[R];
  EXPECT_EQ(r.ios, 1u);
  EXPECT_EQ(r.bytes, 4096u);
  // Kept aside until the results are read.
  EXPECT_EQ(r.clat.count(), 0u);
  EXPECT_EQ(r.lat.count(), 0u);
  EXPECT_EQ(r.slat.count(), 0u);
  EXPECT_EQ(f.stats.unsplit(R).count(), 1u);

  CloneResult copy = f.res;
  f.stats.merge_unsplit(&copy);
  EXPECT_EQ(copy.dir[R].clat.count(), 1u);
  EXPECT_EQ(copy.dir[R].lat.count(), 1u);
  EXPECT_EQ(copy.dir[R].clat.min(), 4000u);
  EXPECT_EQ(copy.dir[R].lat.max(), 4000u);
  EXPECT_EQ(copy.dir[R].slat.count(), 0u);
  // The clone's own result is untouched (a snapshot merges into a copy).
  EXPECT_EQ(f.res.dir[R].clat.count(), 0u);
  EXPECT_EQ(f.stats.unsplit(R).count(), 1u);
  f.stats.clear_unsplit();
  EXPECT_EQ(f.stats.unsplit(R).count(), 0u);
}

TEST(CloneStats, ASplitRequestHasSlatPlusClatEqualLat) {
  Fixture f;
  const CloneStats::Latency l =
      f.stats.complete(Unit(Dir::kWrite), 1000, 11000, /*handed=*/3500, 0, true, Status());
  EXPECT_TRUE(l.split);
  EXPECT_EQ(l.slat, 2500u);
  EXPECT_EQ(l.clat, 7500u);
  EXPECT_EQ(l.lat, 10000u);
  EXPECT_EQ(l.slat + l.clat, l.lat);
  const DirResult& r = f.res.dir[W];
  EXPECT_EQ(r.slat.count(), 1u);
  EXPECT_EQ(r.clat.count(), 1u);
  EXPECT_EQ(r.lat.count(), 1u);
  EXPECT_EQ(r.slat.min(), 2500u);
  EXPECT_EQ(r.clat.min(), 7500u);
  EXPECT_EQ(r.lat.min(), 10000u);
  EXPECT_EQ(f.stats.unsplit(W).count(), 0u);
}

// A hand-over stamp outside [t0, t1] is clamped into it.
TEST(CloneStats, AHandOverOutsideTheRequestIsClamped) {
  Fixture f;
  CloneStats::Latency early = f.stats.complete(Unit(Dir::kRead), 1000, 2000, 500, 0, true, Status());
  EXPECT_TRUE(early.split);
  EXPECT_EQ(early.slat, 0u);
  EXPECT_EQ(early.clat, 1000u);
  CloneStats::Latency late = f.stats.complete(Unit(Dir::kRead), 1000, 2000, 9000, 0, true, Status());
  EXPECT_EQ(late.slat, 1000u);
  EXPECT_EQ(late.clat, 0u);
}

TEST(CloneStats, DisabledStatisticsAreNotKept) {
  {
    Fixture f;
    f.job.disable_slat = true;
    f.stats.complete(Unit(Dir::kRead), 0, 100, 40, 0, true, Status());
    EXPECT_EQ(f.res.dir[R].slat.count(), 0u);
    EXPECT_EQ(f.res.dir[R].clat.count(), 1u);
    EXPECT_EQ(f.res.dir[R].lat.count(), 1u);
  }
  {
    Fixture f;
    f.job.disable_clat = true;
    f.stats.complete(Unit(Dir::kRead), 0, 100, 40, 0, true, Status());
    f.stats.complete(Unit(Dir::kRead), 0, 100, 0, 0, true, Status());  // unsplit
    EXPECT_EQ(f.res.dir[R].slat.count(), 1u);
    EXPECT_EQ(f.res.dir[R].clat.count(), 0u);
    EXPECT_EQ(f.res.dir[R].lat.count(), 1u);
    f.stats.merge_unsplit(&f.res);
    EXPECT_EQ(f.res.dir[R].clat.count(), 0u);
    EXPECT_EQ(f.res.dir[R].lat.count(), 2u);
  }
  {
    Fixture f;
    f.job.disable_lat = true;
    f.stats.complete(Unit(Dir::kRead), 0, 100, 0, 0, true, Status());
    f.stats.merge_unsplit(&f.res);
    EXPECT_EQ(f.res.dir[R].clat.count(), 1u);
    EXPECT_EQ(f.res.dir[R].lat.count(), 0u);
  }
  {
    // Neither clat nor lat: an unsplit request has nothing to keep.
    Fixture f;
    f.job.disable_clat = f.job.disable_lat = true;
    f.stats.complete(Unit(Dir::kRead), 0, 100, 0, 0, true, Status());
    EXPECT_EQ(f.stats.unsplit(R).count(), 0u);
    EXPECT_EQ(f.res.dir[R].ios, 1u);  // still counted
  }
}

TEST(CloneStats, SchedLatRunsFromTheDueTime) {
  Fixture f;
  f.stats.complete(Unit(Dir::kWrite), 5000, 9000, 0, /*due=*/2000, true, Status());
  ASSERT_EQ(f.res.dir[W].sched_lat.count(), 1u);
  EXPECT_EQ(f.res.dir[W].sched_lat.min(), 7000u);  // completion - due, issue wait included
  // Unpaced: none.
  f.stats.complete(Unit(Dir::kWrite), 5000, 9000, 0, 0, true, Status());
  EXPECT_EQ(f.res.dir[W].sched_lat.count(), 1u);
  // Due after the completion (cannot be negative).
  f.stats.complete(Unit(Dir::kWrite), 5000, 9000, 0, 10000, true, Status());
  EXPECT_EQ(f.res.dir[W].sched_lat.count(), 2u);
  EXPECT_EQ(f.res.dir[W].sched_lat.min(), 0u);
}

TEST(CloneStats, RampRequestsFeedOnlyTheRawAndLiveCounters) {
  Fixture f;
  f.stats.complete(Unit(Dir::kRead), 0, 700, 200, 100, /*measured=*/false, Status());
  f.stats.complete(Unit(Dir::kRead, 8192), 0, 300, 0, 0, /*measured=*/false, Status());
  const DirResult& r = f.res.dir[R];
  EXPECT_EQ(r.ios, 0u);
  EXPECT_EQ(r.bytes, 0u);
  EXPECT_EQ(r.lat.count() + r.clat.count() + r.slat.count() + r.sched_lat.count(), 0u);
  EXPECT_EQ(f.stats.unsplit(R).count(), 0u);
  EXPECT_EQ(f.stats.raw_ios(R), 2u);
  EXPECT_EQ(f.stats.raw_bytes(R), 4096u + 8192u);
  EXPECT_EQ(f.live.ios[R].load(), 2u);
  EXPECT_EQ(f.live.bytes[R].load(), 4096u + 8192u);
  EXPECT_EQ(f.live.lat_ns_sum.load(), 1000u);
  EXPECT_EQ(f.stats.last_done_ns(), 300);
}

TEST(CloneStats, AFailedRequestCountsAnErrorAndNoBytes) {
  Fixture f;
  f.stats.complete(Unit(Dir::kWrite), 0, 100, 0, 0, true, Status(-EIO));
  f.stats.complete(Unit(Dir::kWrite), 0, 100, 0, 0, true, Status());
  const DirResult& r = f.res.dir[W];
  EXPECT_EQ(r.ios, 2u);  // completed, successful or not
  EXPECT_EQ(r.errors, 1u);
  EXPECT_EQ(r.bytes, 4096u);
  EXPECT_EQ(f.stats.raw_ios(W), 2u);
  EXPECT_EQ(f.stats.raw_bytes(W), 4096u);
  EXPECT_EQ(f.live.ios[W].load(), 2u);
  EXPECT_EQ(f.live.bytes[W].load(), 4096u);
  // Its latency is kept like any other.
  EXPECT_EQ(f.stats.unsplit(W).count(), 2u);
}

TEST(CloneStats, RestartDropsTheMeasuredButKeepsErrors) {
  Fixture f;
  f.stats.complete(Unit(Dir::kRead), 0, 100, 50, 10, true, Status());
  f.stats.complete(Unit(Dir::kRead), 0, 100, 0, 0, true, Status(-EIO));
  f.stats.sync_done(0, 100, true);
  for (int i = 0; i < 7; i++) f.res.depth[i] = f.res.submit[i] = f.res.complete[i] = 3;
  f.res.dir[R].bw_samples.push_back(1.0);
  f.stats.restart();
  const DirResult& r = f.res.dir[R];
  EXPECT_EQ(r.errors, 1u);
  EXPECT_EQ(r.ios, 0u);
  EXPECT_EQ(r.bytes, 0u);
  EXPECT_EQ(r.lat.count() + r.clat.count() + r.slat.count() + r.sched_lat.count(), 0u);
  EXPECT_TRUE(r.bw_samples.empty());
  EXPECT_EQ(f.stats.unsplit(R).count(), 0u);
  for (int i = 0; i < 7; i++) {
    EXPECT_EQ(f.res.depth[i], 0u);
    EXPECT_EQ(f.res.submit[i], 0u);
    EXPECT_EQ(f.res.complete[i], 0u);
  }
  EXPECT_EQ(f.res.syncs, 0u);
  EXPECT_EQ(f.res.sync_lat.count(), 0u);
  // The raw counts since the start stay (the minimum-rate guard's).
  EXPECT_EQ(f.stats.raw_ios(R), 2u);
}

TEST(CloneStats, SyncsCountWhenMeasured) {
  Fixture f;
  f.stats.sync_done(100, 600, /*measured=*/false);
  EXPECT_EQ(f.res.syncs, 0u);
  EXPECT_EQ(f.res.sync_lat.count(), 0u);
  f.stats.sync_done(100, 600, /*measured=*/true);
  f.stats.sync_done(100, 300, /*measured=*/true);
  EXPECT_EQ(f.res.syncs, 2u);
  EXPECT_EQ(f.res.sync_lat.count(), 2u);
  EXPECT_EQ(f.res.sync_lat.min(), 200u);
  EXPECT_EQ(f.res.sync_lat.max(), 500u);
  // Flushes are not I/Os of any direction.
  EXPECT_EQ(f.res.dir[W].ios, 0u);
  EXPECT_EQ(f.stats.raw_ios(W), 0u);
}

TEST(CloneStats, LastDoneFollowsEveryKindOfCompletion) {
  Fixture f;
  EXPECT_EQ(f.stats.last_done_ns(), 0);
  f.stats.complete(Unit(Dir::kRead), 0, 400, 0, 0, true, Status());
  EXPECT_EQ(f.stats.last_done_ns(), 400);
  f.stats.note_done(900);
  EXPECT_EQ(f.stats.last_done_ns(), 900);
}

TEST(CloneStats, DirectionsAreKeptApart) {
  Fixture f;
  f.stats.complete(Unit(Dir::kRead), 0, 100, 0, 0, true, Status());
  f.stats.complete(Unit(Dir::kWrite, 512), 0, 100, 0, 0, true, Status());
  f.stats.complete(Unit(Dir::kTrim, 65536), 0, 100, 0, 0, true, Status());
  EXPECT_EQ(f.res.dir[R].bytes, 4096u);
  EXPECT_EQ(f.res.dir[W].bytes, 512u);
  EXPECT_EQ(f.res.dir[int(Dir::kTrim)].bytes, 65536u);
  EXPECT_EQ(f.live.bytes[int(Dir::kTrim)].load(), 65536u);
  EXPECT_EQ(f.live.lat_ns_sum.load(), 300u);
}

}  // namespace
}  // namespace blk::bench
