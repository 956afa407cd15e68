// Trace replay through RunJobs on the real null driver: the records issued
// in order on an absolute schedule, open loop up to the depth cap,
// lateness and latency from the due time (coordinated omission visible),
// write_iolog round trips, and the errors of a bad trace.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "bench_test_util.h"
#include "replay_test_util.h"
#include "tools/block_bench/run/runner.h"
#include "tools/block_bench/run/clone.h"
#include "tools/block_bench/trace/trace.h"
#include <blkstack/util/clock.h>

namespace blk::bench {
namespace {

using testing::Issued;
using testing::ParseJobs;
using testing::Rec;
using testing::RunReplay;
using testing::TempPath;
using testing::WriteIolog;

TEST(Replay, IssuesEveryRecordInOrder) {
  std::vector<Rec> recs;
  for (int i = 0; i < 200; i++)
    recs.push_back({i % 3 == 0 ? 'w' : 'r', uint64_t(i * 50), uint64_t((i * 7919) % 1000) * 4096,
                    uint64_t(4096 << (i % 3))});
  const std::string log = WriteIolog("order", recs);
  Issued rec;
  RunResult r = RunReplay({"--name=a", "--ioengine=null", "--read_iolog=" + log}, &rec);
  ASSERT_EQ(r.clones.size(), 1u);
  const CloneResult& c = r.clones[0];
  ASSERT_EQ(c.error, 0) << c.error_message;
  ASSERT_EQ(rec.ios.size(), recs.size());
  for (size_t i = 0; i < recs.size(); i++) {
    EXPECT_EQ(rec.ios[i].dir, recs[i].op == 'w' ? Dir::kWrite : Dir::kRead) << i;
    EXPECT_EQ(rec.ios[i].offset, recs[i].offset) << i;
    EXPECT_EQ(rec.ios[i].len, recs[i].len) << i;
  }
  EXPECT_EQ(c.schedule.kind, ScheduleResult::Kind::kTrace);
  EXPECT_EQ(c.schedule.trace_ios, recs.size());
  EXPECT_EQ(c.schedule.lateness.count(), recs.size());
  EXPECT_EQ(c.schedule.trace_span_ns, 199 * 50 * 1000);
  EXPECT_GE(c.schedule.replay_span_ns, c.schedule.trace_span_ns);
  EXPECT_EQ(c.dir[0].ios + c.dir[1].ios, recs.size());
  EXPECT_EQ(c.dir[0].sched_lat.count(), c.dir[0].ios);
}

TEST(Replay, FlushesAndTrimsAreReplayed) {
  const std::string log =
      WriteIolog("ops", {{'w', 0, 0, 4096}, {'s', 10, 0, 0}, {'t', 20, 8192, 4096}, {'r', 30, 0, 4096}});
  RunResult r = RunReplay({"--name=a", "--ioengine=null", "--read_iolog=" + log});
  const CloneResult& c = r.clones[0];
  ASSERT_EQ(c.error, 0) << c.error_message;
  EXPECT_EQ(c.dir[0].ios, 1u);
  EXPECT_EQ(c.dir[1].ios, 1u);
  EXPECT_EQ(c.dir[2].ios, 1u);
  EXPECT_EQ(c.syncs, 1u);
}

// The schedule is absolute: 0.3 s of I/Os every 200 us; each is issued at
// its time, and the last one is as punctual as the first (no drift).
TEST(Replay, AbsoluteScheduleDoesNotDrift) {
  std::vector<Rec> recs;
  for (int i = 0; i < 1500; i++) recs.push_back({'r', uint64_t(i * 200), uint64_t(i) * 4096, 4096});
  const std::string log = WriteIolog("drift", recs);
  Issued rec;
  RunResult r = RunReplay({"--name=a", "--ioengine=null", "--read_iolog=" + log}, &rec);
  const CloneResult& c = r.clones[0];
  ASSERT_EQ(c.error, 0) << c.error_message;
  ASSERT_EQ(rec.when.size(), recs.size());
  // Issue times relative to the first, against the trace's: never early,
  // and the median lateness small (loose bounds: a noisy 2-core VM).
  std::vector<int64_t> late;
  for (size_t i = 0; i < recs.size(); i++) {
    const int64_t want = int64_t(recs[i].t_us) * 1000;
    const int64_t got = rec.when[i] - rec.when[0];
    late.push_back(got - want);
  }
  std::vector<int64_t> sorted = late;
  std::sort(sorted.begin(), sorted.end());
  // Relative to the first I/O, which may itself have been late: with no
  // I/O issued before its due time, none is earlier than the first one's
  // lateness (at most the largest recorded) allows, plus 50 us for the
  // hook's clock reading.
  const int64_t first_late_max = int64_t(c.schedule.lateness.max());
  EXPECT_GE(sorted.front(), -50'000 - first_late_max) << "an I/O was issued early";
  EXPECT_LT(sorted[sorted.size() / 2], 1'000'000) << "median lateness";
  // The total duration: within 2 % of the trace's 0.3 s.
  const double err = std::abs(double(c.schedule.replay_span_ns - c.schedule.trace_span_ns)) /
                     double(c.schedule.trace_span_ns);
  EXPECT_LT(err, 0.02) << c.schedule.replay_span_ns << " vs " << c.schedule.trace_span_ns;
  EXPECT_EQ(c.schedule.lateness.count(), recs.size());
}

// numjobs clones take read_iolog's entries in turn; clones replaying the
// same trace share one parsed copy (TraceCache, from their threads).
TEST(Replay, ClonesTakeTheTracesInTurn) {
  const std::string a = WriteIolog("clone_a", {{'r', 0, 0, 4096}, {'r', 10, 4096, 4096}});
  const std::string b = WriteIolog("clone_b", {{'w', 0, 0, 8192}});
  RunResult r = RunReplay({"--name=a", "--ioengine=null", "--numjobs=3", "--read_iolog=" + a + ":" + b});
  ASSERT_EQ(r.clones.size(), 3u);
  for (const CloneResult& c : r.clones) ASSERT_EQ(c.error, 0) << c.error_message;
  EXPECT_EQ(r.clones[0].schedule.trace, a);
  EXPECT_EQ(r.clones[0].dir[0].ios, 2u);
  EXPECT_EQ(r.clones[1].schedule.trace, b);
  EXPECT_EQ(r.clones[1].dir[1].ios, 1u);
  EXPECT_EQ(r.clones[2].schedule.trace, a);
  EXPECT_EQ(r.clones[2].dir[0].ios, 2u);
}

TEST(Replay, NoStallIgnoresTheTimestamps) {
  const std::string log = WriteIolog("nostall", {{'r', 0, 0, 4096}, {'r', 2'000'000, 4096, 4096}});
  const int64_t t0 = NowNs();
  RunResult r = RunReplay({"--name=a", "--ioengine=null", "--read_iolog=" + log, "--replay_no_stall=1"});
  EXPECT_LT(NowNs() - t0, 1'000'000'000);
  const CloneResult& c = r.clones[0];
  ASSERT_EQ(c.error, 0) << c.error_message;
  EXPECT_EQ(c.dir[0].ios, 2u);
  EXPECT_TRUE(c.schedule.no_stall);
  EXPECT_EQ(c.schedule.lateness.count(), 0u);
}

TEST(Replay, RecordingAReplayRoundTrips) {
  std::vector<Rec> recs;
  for (int i = 0; i < 300; i++)
    recs.push_back({"rwts"[i % 4], uint64_t(i * 20), uint64_t((i * 31) % 256) * 4096, i % 4 == 3 ? 0u : 8192u});
  const std::string log = WriteIolog("rt", recs);
  const std::string out1 = TempPath("rt1"), out2 = TempPath("rt2");
  RunResult r1 = RunReplay({"--name=a", "--ioengine=null", "--read_iolog=" + log, "--write_iolog=" + out1});
  ASSERT_EQ(r1.clones[0].error, 0) << r1.clones[0].error_message;
  RunResult r2 = RunReplay({"--name=a", "--ioengine=null", "--read_iolog=" + out1, "--write_iolog=" + out2});
  ASSERT_EQ(r2.clones[0].error, 0) << r2.clones[0].error_message;
  trace::ParseOptions po;
  auto a = trace::LoadTrace(log, po), b = trace::LoadTrace(out1, po), c = trace::LoadTrace(out2, po);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  ASSERT_EQ(a->records.size(), recs.size());
  for (const auto* t : {&*b, &*c}) {
    ASSERT_EQ(t->records.size(), a->records.size());
    for (size_t i = 0; i < a->records.size(); i++) {
      EXPECT_EQ(t->records[i].op, a->records[i].op) << i;
      EXPECT_EQ(t->records[i].offset, a->records[i].offset) << i;
      EXPECT_EQ(t->records[i].len, a->records[i].len) << i;
    }
  }
  EXPECT_EQ(b->format, trace::Format::kIologV3);
}

TEST(Replay, ErrorsNameTheTrace) {
  RunResult r = RunReplay({"--name=a", "--ioengine=null", "--read_iolog=/nonexistent/trace.log"});
  EXPECT_NE(r.clones[0].error, 0);
  EXPECT_NE(r.clones[0].error_message.find("/nonexistent/trace.log"), std::string::npos)
      << r.clones[0].error_message;

  // Two files in the iolog and no target: which one is not guessed.
  const std::string path = TempPath("twofiles");
  {
    std::ofstream f(path);
    f << "fio version 3 iolog\n0 x add\n0 y add\n1 x read 0 4096\n2 y read 0 4096\n";
  }
  RunResult two = RunReplay({"--name=a", "--ioengine=psync", "--read_iolog=" + path});
  EXPECT_EQ(two.clones[0].error, EINVAL);
  EXPECT_NE(two.clones[0].error_message.find("replay_redirect"), std::string::npos)
      << two.clones[0].error_message;
  EXPECT_TRUE(r.failed());
}

// block-bench's own iolog names the graph it ran on: with no target given
// the replay opens that graph (never a regular file named after the spec),
// and the job's default engine (psync, synchronous on a file) does not cap
// the replay at one I/O in flight; iodepth= given is the cap, as in fio.
TEST(Replay, AGraphSpecInTheTraceIsTheTarget) {
  std::vector<Rec> recs;
  for (int i = 0; i < 64; i++) recs.push_back({'r', uint64_t(i / 8), uint64_t(i) * 4096, 4096});
  const std::string spec = "driver=null,size=1048576";
  const std::string log = WriteIolog("spec", recs, spec);
  struct stat st;
  ASSERT_NE(::stat(spec.c_str(), &st), 0) << "left over from an earlier run";
  RunResult r = RunReplay({"--name=a", "--read_iolog=" + log});
  const CloneResult& c = r.clones[0];
  ASSERT_EQ(c.error, 0) << c.error_message;
  EXPECT_EQ(c.target, spec);
  EXPECT_NE(::stat(spec.c_str(), &st), 0) << "a file named after the spec was created";
  EXPECT_EQ(c.dir[0].ios, recs.size());
  EXPECT_GT(c.schedule.depth, 1u);

  RunResult capped = RunReplay({"--name=a", "--iodepth=3", "--read_iolog=" + log});
  ASSERT_EQ(capped.clones[0].error, 0) << capped.clones[0].error_message;
  EXPECT_EQ(capped.clones[0].schedule.depth, 3u);
}

TEST(Replay, RateJobsReportTheirSchedule) {
  RunResult r = RunReplay({"--name=a", "--ioengine=null", "--size=4m", "--bs=4k", "--rate_iops=2000"});
  const CloneResult& c = r.clones[0];
  ASSERT_EQ(c.error, 0) << c.error_message;
  EXPECT_EQ(c.schedule.kind, ScheduleResult::Kind::kRate);
  EXPECT_EQ(c.schedule.lateness.count(), c.dir[0].ios);
  EXPECT_EQ(c.dir[0].sched_lat.count(), c.dir[0].ios);
  EXPECT_GE(c.dir[0].sched_lat.percentile(50), c.dir[0].clat.percentile(50));
}

}  // namespace
}  // namespace blk::bench
