// Sampler (run/sampler.h) on a fake timeline (Timeline's fields set by
// hand, times plain numbers): the report's bw/iops samples per period and
// the last half period, log_avg_msec windows, the per-request log entries,
// the statistics a job does not keep, and write_hist_log's entries.  The
// timers (start()) are not armed: sample() and hist_sample() are called as
// they would call them.
#include "tools/block_bench/run/sampler.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "tests/tools/block_bench/run/loop_fixture.h"

namespace blk::bench {
namespace {

using testing::ScriptedSource;

constexpr int R = int(Dir::kRead);
constexpr int W = int(Dir::kWrite);
constexpr int64_t kMs = 1'000'000;

IoUnit Unit(Dir d, uint64_t offset = 0, uint64_t len = 4096) {
  IoUnit u;
  u.dir = d;
  u.offset = offset;
  u.len = len;
  return u;
}

struct Fixture {
  explicit Fixture(const JobOptions& j, std::vector<Dir> dirs = {Dir::kRead}) : job(j) {
    for (Dir d : dirs) source.add_dir(d);
    time.start_ns = 1000 * kMs;  // the clock started at 1 s
    time.ramp_end_ns = time.start_ns;
  }
  // The measured phase starts `ms` after the clock.
  void measure_from(int64_t ms) {
    time.measuring = true;
    time.measure_start_ns = at(ms);
    sampler.begin_measuring(at(ms));
  }
  int64_t at(int64_t ms) const { return time.start_ns + ms * kMs; }
  // A completion at `ms`, as the submit loop reports it.
  void done(Dir d, int64_t ms, uint64_t lat, uint64_t clat, const uint64_t* slat,
            bool measured = true, Status st = Status(), uint64_t offset = 0) {
    const IoUnit u = Unit(d, offset);
    sampler.on_complete(DoneIo{0, u, at(ms), lat, clat, slat, measured, st});
  }

  JobOptions job;
  CloneResult res;
  LiveCounters live;
  Timeline time;
  CloneStats stats{job, &res, &live};
  ScriptedSource source;
  Sampler sampler{job, &res, time, stats, source};
};

TEST(Sampler, ABwAndIopsSamplePerPeriodOfTheMeasuredPhase) {
  JobOptions j;  // bwavgtime = iopsavgtime = 500 ms
  Fixture f(j);
  f.measure_from(100);
  DirResult& r = f.res.dir[R];
  r.bytes = 1 << 20;
  r.ios = 256;
  f.sampler.sample(f.at(400));  // 300 ms in: not a period yet
  EXPECT_TRUE(r.bw_samples.empty());
  f.sampler.sample(f.at(600));  // 500 ms: 1 MiB / 0.5 s
  ASSERT_EQ(r.bw_samples.size(), 1u);
  EXPECT_DOUBLE_EQ(r.bw_samples[0], 2.0 * (1 << 20));
  ASSERT_EQ(r.iops_samples.size(), 1u);
  EXPECT_DOUBLE_EQ(r.iops_samples[0], 512.0);
  // The next period counts only what came after.
  r.bytes += 1 << 19;
  r.ios += 128;
  f.sampler.sample(f.at(1100));
  ASSERT_EQ(r.bw_samples.size(), 2u);
  EXPECT_DOUBLE_EQ(r.bw_samples[1], double(1 << 20));
  EXPECT_DOUBLE_EQ(r.iops_samples[1], 256.0);
  // Only the directions the job issues get samples.
  EXPECT_TRUE(f.res.dir[W].bw_samples.empty());
  EXPECT_TRUE(f.res.dir[W].iops_samples.empty());
}

TEST(Sampler, NoSampleBeforeTheMeasuredPhase) {
  JobOptions j;
  Fixture f(j);
  f.res.dir[R].bytes = 4096;
  f.sampler.sample(f.at(5000));
  EXPECT_TRUE(f.res.dir[R].bw_samples.empty());
  // Before it, the timer fires a period from now; once measuring, at the
  // period's end from the measured phase's start.
  EXPECT_EQ(f.sampler.next_sample_ns(f.at(5000)), f.at(5500));
  f.measure_from(6000);
  EXPECT_EQ(f.sampler.next_sample_ns(f.at(6100)), f.at(6500));
  // Late: now.
  EXPECT_EQ(f.sampler.next_sample_ns(f.at(6800)), f.at(6800));
}

TEST(Sampler, TheLastSampleNeedsHalfAPeriod) {
  JobOptions j;
  j.bwavgtime = 1000;
  j.iopsavgtime = 1000;
  Fixture f(j);
  f.measure_from(0);
  DirResult& r = f.res.dir[R];
  r.bytes = 3000;
  r.ios = 3;
  f.sampler.sample(f.at(1000));
  ASSERT_EQ(r.bw_samples.size(), 1u);
  r.bytes += 400;
  r.ios += 4;
  f.sampler.sample(f.at(1499), /*last=*/true);  // 499 ms < 500 ms: dropped
  EXPECT_EQ(r.bw_samples.size(), 1u);
  f.sampler.sample(f.at(1500), /*last=*/true);  // 500 ms: taken, over 0.5 s
  ASSERT_EQ(r.bw_samples.size(), 2u);
  EXPECT_DOUBLE_EQ(r.bw_samples[1], 800.0);
  EXPECT_DOUBLE_EQ(r.iops_samples[1], 8.0);
  // Without `last`, a half period is not a sample.
  f.sampler.sample(f.at(2100));
  EXPECT_EQ(r.bw_samples.size(), 2u);
}

TEST(Sampler, WithLogAvgMsecTheBwAndIopsLogsGetOneEntryPerWindow) {
  JobOptions j;
  j.write_bw_log = "";
  j.write_iops_log = "";
  j.log_avg_msec = 200;  // bw/iops windows default to it
  Fixture f(j);
  EXPECT_FALSE(f.sampler.logs_per_request());
  f.measure_from(0);
  f.res.dir[R].bytes = 200 * 1024;  // 200 KiB in 0.2 s: 1000 KiB/s
  f.res.dir[R].ios = 50;
  f.done(Dir::kRead, 100, 10, 10, nullptr);  // no per-I/O entry with log_avg_msec
  EXPECT_TRUE(f.res.bw_log.empty());
  f.sampler.sample(f.at(200));
  ASSERT_EQ(f.res.bw_log.size(), 1u);
  EXPECT_EQ(f.res.bw_log[0].msec, 200u);
  EXPECT_EQ(f.res.bw_log[0].value, 1000u);  // KiB/s
  EXPECT_EQ(f.res.bw_log[0].dir, R);
  ASSERT_EQ(f.res.iops_log.size(), 1u);
  EXPECT_EQ(f.res.iops_log[0].value, 250u);
}

TEST(Sampler, LatencyWindowsLogTheMeanOrTheMaximum) {
  for (bool max_value : {false, true}) {
    SCOPED_TRACE(max_value ? "log_max_value" : "mean");
    JobOptions j;
    j.write_lat_log = "";
    j.log_avg_msec = 100;
    j.log_max_value = max_value;
    Fixture f(j);
    EXPECT_TRUE(f.sampler.logs_per_request());
    f.measure_from(0);
    const uint64_t s1 = 4, s2 = 8;
    f.done(Dir::kRead, 10, 100, 90, &s1);
    f.done(Dir::kRead, 20, 300, 280, &s2);
    f.done(Dir::kRead, 30, 200, 200, nullptr);  // no hand-over: no slat
    EXPECT_TRUE(f.res.lat_log.empty()) << "not before the window ends";
    f.sampler.sample(f.at(100));
    ASSERT_EQ(f.res.lat_log.size(), 1u);
    ASSERT_EQ(f.res.clat_log.size(), 1u);
    ASSERT_EQ(f.res.slat_log.size(), 1u);
    EXPECT_EQ(f.res.lat_log[0].value, max_value ? 300u : 200u);
    EXPECT_EQ(f.res.clat_log[0].value, max_value ? 280u : 190u);
    EXPECT_EQ(f.res.slat_log[0].value, max_value ? 8u : 6u);
    EXPECT_EQ(f.res.lat_log[0].msec, 100u);
    // The next window starts empty: nothing to log without completions.
    f.sampler.sample(f.at(200));
    EXPECT_EQ(f.res.lat_log.size(), 1u);
    f.done(Dir::kRead, 250, 50, 50, nullptr);
    f.sampler.sample(f.at(300));
    ASSERT_EQ(f.res.lat_log.size(), 2u);
    EXPECT_EQ(f.res.lat_log[1].value, 50u);
    EXPECT_EQ(f.res.slat_log.size(), 1u);
  }
}

TEST(Sampler, EveryRequestGetsItsOwnLatencyEntries) {
  JobOptions j;
  j.write_lat_log = "";
  Fixture f(j);
  EXPECT_TRUE(f.sampler.logs_per_request());
  f.measure_from(0);
  const uint64_t slat = 7;
  f.done(Dir::kRead, 12, 100, 93, &slat, true, Status(), 8192);
  f.done(Dir::kRead, 15, 60, 60, nullptr, true, Status(), 4096);
  f.done(Dir::kRead, 16, 999, 999, nullptr, /*measured=*/false);  // ramp: not logged
  ASSERT_EQ(f.res.lat_log.size(), 2u);
  ASSERT_EQ(f.res.clat_log.size(), 2u);
  ASSERT_EQ(f.res.slat_log.size(), 1u);  // only the request with a hand-over
  const LogEntry& e = f.res.lat_log[0];
  EXPECT_EQ(e.msec, 12u);
  EXPECT_EQ(e.value, 100u);
  EXPECT_EQ(e.dir, R);
  EXPECT_EQ(e.bs, 4096u);
  EXPECT_EQ(e.offset, 8192u);
  EXPECT_EQ(f.res.clat_log[0].value, 93u);
  EXPECT_EQ(f.res.slat_log[0].value, 7u);
  EXPECT_EQ(f.res.lat_log[1].value, 60u);
  EXPECT_EQ(f.res.lat_log[1].offset, 4096u);
}

TEST(Sampler, StatisticsTheJobDoesNotKeepAreNotLogged) {
  JobOptions j;
  j.write_lat_log = "";
  j.disable_clat = true;
  j.disable_slat = true;
  Fixture f(j);
  f.measure_from(0);
  const uint64_t slat = 3;
  f.done(Dir::kRead, 1, 10, 7, &slat);
  EXPECT_EQ(f.res.lat_log.size(), 1u);
  EXPECT_TRUE(f.res.clat_log.empty());
  EXPECT_TRUE(f.res.slat_log.empty());

  JobOptions k;
  k.write_lat_log = "";
  k.disable_lat = true;
  Fixture g(k);
  g.measure_from(0);
  g.done(Dir::kRead, 1, 10, 7, &slat);
  EXPECT_TRUE(g.res.lat_log.empty());
  EXPECT_EQ(g.res.clat_log.size(), 1u);
  EXPECT_EQ(g.res.slat_log.size(), 1u);
}

// Without log_avg_msec: one bw entry per successful request, bytes over
// its clat (bytes per ms), and one iops entry of 1.
TEST(Sampler, PerRequestBwAndIopsEntries) {
  JobOptions j;
  j.write_bw_log = "";
  j.write_iops_log = "";
  Fixture f(j, {Dir::kWrite});
  EXPECT_TRUE(f.sampler.logs_per_request());
  f.measure_from(0);
  f.done(Dir::kWrite, 40, 2 * kMs, 2 * kMs, nullptr, true, Status(), 4096);
  f.done(Dir::kWrite, 41, kMs, kMs, nullptr, true, Status(-5), 0);  // failed: none
  f.done(Dir::kWrite, 42, kMs, kMs, nullptr, /*measured=*/false);   // ramp: none
  ASSERT_EQ(f.res.bw_log.size(), 1u);
  EXPECT_EQ(f.res.bw_log[0].msec, 40u);
  EXPECT_EQ(f.res.bw_log[0].value, 2048u);  // 4096 bytes in 2 ms
  EXPECT_EQ(f.res.bw_log[0].dir, W);
  EXPECT_EQ(f.res.bw_log[0].bs, 4096u);
  EXPECT_EQ(f.res.bw_log[0].offset, 4096u);
  ASSERT_EQ(f.res.iops_log.size(), 1u);
  EXPECT_EQ(f.res.iops_log[0].value, 1u);
}

TEST(Sampler, DisableBwDropsTheBwEntriesAndGtodReduceTheIopsOnes) {
  JobOptions j;
  j.write_bw_log = "";
  j.write_iops_log = "";
  j.disable_bw = true;
  Fixture f(j);
  f.measure_from(0);
  f.done(Dir::kRead, 1, kMs, kMs, nullptr);
  EXPECT_TRUE(f.res.bw_log.empty());
  EXPECT_EQ(f.res.iops_log.size(), 1u);

  JobOptions k = j;
  k.disable_lat = k.disable_clat = k.disable_slat = true;  // gtod_reduce
  Fixture g(k);
  g.measure_from(0);
  g.done(Dir::kRead, 1, kMs, kMs, nullptr);
  EXPECT_TRUE(g.res.bw_log.empty());
  EXPECT_TRUE(g.res.iops_log.empty());
}

TEST(Sampler, ALogWithoutPerRequestEntriesNeedsNoHook) {
  JobOptions j;
  Fixture f(j);
  EXPECT_FALSE(f.sampler.logs_per_request());
  EXPECT_EQ(f.sampler.points(), unsigned(SubmitHook::kOnComplete));
}

TEST(Sampler, HistLogEntriesHoldTheCompletionsSinceTheLastOne) {
  JobOptions j;
  j.write_hist_log = "";
  j.log_hist_msec = 100;
  j.log_hist_coarseness = 1;
  Fixture f(j);
  f.measure_from(0);
  // clat as the report will have it: split records and unsplit ones.
  f.res.dir[R].clat.record(1000);
  f.res.dir[R].clat.record(1000);
  f.stats.complete(Unit(Dir::kRead), f.at(1), f.at(1) + 5000, 0, 0, true, Status());
  f.sampler.hist_sample(f.at(100));
  ASSERT_EQ(f.res.hist_log.size(), 1u);
  const HistLogEntry& e = f.res.hist_log[0];
  EXPECT_EQ(e.msec, 100u);
  EXPECT_EQ(e.dir, R);
  EXPECT_EQ(e.bs, 4096u);
  EXPECT_EQ(e.bins.size(), 1856u / 2);  // fio's 1856 bins, 2 merged at a time
  EXPECT_EQ(std::accumulate(e.bins.begin(), e.bins.end(), uint64_t{0}), 3u);
  // Nothing new: no entry.
  f.sampler.hist_sample(f.at(200));
  EXPECT_EQ(f.res.hist_log.size(), 1u);
  f.res.dir[R].clat.record(70000);
  f.sampler.hist_sample(f.at(300));
  ASSERT_EQ(f.res.hist_log.size(), 2u);
  EXPECT_EQ(std::accumulate(f.res.hist_log[1].bins.begin(), f.res.hist_log[1].bins.end(),
                            uint64_t{0}),
            1u);
  // Directions the job does not issue have none; nor does the ramp.
  for (const HistLogEntry& h : f.res.hist_log) EXPECT_EQ(h.dir, R);
}

TEST(Sampler, NoHistEntryBeforeTheMeasuredPhase) {
  JobOptions j;
  j.write_hist_log = "";
  j.log_hist_msec = 100;
  Fixture f(j);
  f.res.dir[R].clat.record(1000);
  f.sampler.hist_sample(f.at(100));
  EXPECT_TRUE(f.res.hist_log.empty());
}

}  // namespace
}  // namespace blk::bench
