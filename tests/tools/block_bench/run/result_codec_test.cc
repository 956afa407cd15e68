// EncodeRun/DecodeRun: a real run's results survive the trip exactly (the
// MPI merge depends on it), and bad bytes are an error, not a misread.
#include "tools/block_bench/run/result_codec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench_test_util.h"
#include "tools/block_bench/run/runner.h"

namespace blk::bench {
namespace {

using testing::ParseJobs;

void ExpectSameHist(const LatencyHistogram& a, const LatencyHistogram& b) {
  EXPECT_EQ(a.count(), b.count());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_EQ(a.mean(), b.mean());
  EXPECT_EQ(a.stddev(), b.stddev());
  for (size_t i = 0; i < LatencyHistogram::bucket_count(); i++)
    ASSERT_EQ(a.bucket_hits(i), b.bucket_hits(i)) << i;
}

TEST(ResultCodec, ARealRunRoundTrips) {
  // Two jobs, one with two clones, mixed directions, samples, a sync, a
  // steady-state unit and rate pacing: most of what a report reads.
  std::vector<JobOptions> jobs = ParseJobs(
      {"--name=a", "--ioengine=null", "--rw=randrw", "--bs=4k", "--size=64m", "--iodepth=4",
       "--numjobs=2", "--number_ios=3000", "--fsync=7", "--name=b", "--ioengine=null",
       "--rw=read", "--bs=8k", "--size=8m", "--rate_iops=2000", "--runtime=1", "--time_based",
       "--ss=iops:50%", "--ss_dur=1", "--ss_interval=250ms", "--log_avg_msec=100"});
  ASSERT_EQ(jobs.size(), 2u);
  RunResult run = RunJobs(jobs);
  ASSERT_FALSE(run.failed());
  ASSERT_EQ(run.clones.size(), 3u);
  run.sync_error = MakeError(-ECANCELED, "rank 2 (h): why");

  auto back = DecodeRun(EncodeRun(run), jobs);
  ASSERT_TRUE(back.ok()) << back.error().message;
  const RunResult& r = *back;
  ASSERT_EQ(r.clones.size(), run.clones.size());
  EXPECT_EQ(r.start_unix_ms, run.start_unix_ms);
  ASSERT_TRUE(r.sync_error);
  EXPECT_EQ(r.sync_error->message, "rank 2 (h): why");
  for (size_t k = 0; k < run.clones.size(); k++) {
    const CloneResult& a = run.clones[k];
    const CloneResult& b = r.clones[k];
    EXPECT_EQ(b.job, &jobs[a.job_index]);
    EXPECT_EQ(b.clone, a.clone);
    EXPECT_EQ(b.thread_number, a.thread_number);
    EXPECT_EQ(b.groupid, a.groupid);
    EXPECT_EQ(b.target, a.target);
    EXPECT_EQ(b.runtime_ns, a.runtime_ns);
    EXPECT_EQ(b.syncs, a.syncs);
    EXPECT_EQ(b.seed, a.seed);
    EXPECT_EQ(b.usr_s, a.usr_s);
    ExpectSameHist(b.sync_lat, a.sync_lat);
    for (int i = 0; i < 7; i++) EXPECT_EQ(b.depth[i], a.depth[i]);
    for (int d = 0; d < kNumDirs; d++) {
      EXPECT_EQ(b.dir[d].ios, a.dir[d].ios);
      EXPECT_EQ(b.dir[d].bytes, a.dir[d].bytes);
      EXPECT_EQ(b.dir[d].bw_samples, a.dir[d].bw_samples);
      EXPECT_EQ(b.dir[d].iops_samples, a.dir[d].iops_samples);
      ExpectSameHist(b.dir[d].clat, a.dir[d].clat);
      ExpectSameHist(b.dir[d].sched_lat, a.dir[d].sched_lat);
    }
    EXPECT_EQ(b.schedule.kind, a.schedule.kind);
    ExpectSameHist(b.schedule.lateness, a.schedule.lateness);
    ExpectSameHist(b.schedule.pacer_held, a.schedule.pacer_held);
    ASSERT_EQ(b.steadystate.has_value(), a.steadystate.has_value());
    if (a.steadystate) {
      EXPECT_EQ(b.steadystate->iops, a.steadystate->iops);
    }
    ASSERT_EQ(b.counters.size(), a.counters.size());
    for (size_t i = 0; i < a.counters.size(); i++) {
      EXPECT_EQ(b.counters[i].name, a.counters[i].name);
      EXPECT_EQ(b.counters[i].value, a.counters[i].value);
    }
  }
  EXPECT_GT(run.clones[0].syncs, 0u);
  EXPECT_GT(run.clones[2].dir[0].sched_lat.count(), 0u);
  EXPECT_GT(run.clones[2].schedule.pacer_held.count(), 0u);  // 2000 IOPS on null
}

TEST(ResultCodec, BadBytesAreAnError) {
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=a", "--ioengine=null", "--rw=read", "--size=1m"});
  RunResult run = RunJobs(jobs);
  const std::string bytes = EncodeRun(run);
  EXPECT_FALSE(DecodeRun("", jobs).ok());
  EXPECT_FALSE(DecodeRun(bytes.substr(0, bytes.size() / 2), jobs).ok());
  // A clone of a job this process does not have.
  auto none = DecodeRun(bytes, {});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("job index"), std::string::npos) << none.error().message;
}

}  // namespace
}  // namespace blk::bench
