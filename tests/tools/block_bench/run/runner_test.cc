// RunJobs end to end on the real null driver (and the file driver when it
// is built in): issued sequences, repeatability, rate limiting, errors,
// verify, groups.
#include "tools/block_bench/run/runner.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "bench_test_util.h"
#include <blkstack/block/registry.h>
#include "tests/block/file/loop_device.h"
#include "tools/block_bench/run/stop.h"
#include "tools/block_bench/run/sync.h"
#include "tools/block_bench/run/clone.h"
#include <blkstack/util/clock.h>

namespace blk::bench {
namespace {

using testing::ParseJob;
using testing::ParseJobs;

struct Recorded {
  std::mutex mu;
  std::vector<IoUnit> ios;
  std::vector<int64_t> when;
  std::vector<uint32_t> thread;
};

// Run options whose on_issue hook records every I/O into `rec`.
RunOptions Recording(Recorded* rec) {
  RunOptions o;
  o.on_issue = [rec](const CloneResult& c, const IoUnit& u) {
    std::lock_guard<std::mutex> l(rec->mu);
    rec->ios.push_back(u);
    rec->when.push_back(NowNs());
    rec->thread.push_back(c.thread_number);
  };
  return o;
}

RunResult RunRecorded(const std::vector<JobOptions>& jobs, Recorded* rec) {
  return RunJobs(jobs, Recording(rec));
}

// A RunSync standing in for the other MPI ranks: it records each call and
// answers with `answer` (empty: go).
class FakeSync : public RunSync {
 public:
  explicit FakeSync(std::string answer = "") : answer_(std::move(answer)) {}
  Expected<void> segment_ready(size_t segment, const std::string& failure) override {
    segments.push_back(segment);
    failures.push_back(failure);
    returned_ns.push_back(NowNs());
    if (answer_.empty()) return {};
    return MakeError(-ECANCELED, answer_);
  }
  // The other processes reach the end of the ramp `ramp_wait_ns` later.
  void ramp_begin() override { ramp_begun_ns.push_back(NowNs()); }
  bool ramp_done() override {
    if (NowNs() - ramp_begun_ns.back() < ramp_wait_ns) return false;
    ramp_done_ns.push_back(NowNs());
    return true;
  }
  int64_t ramp_wait_ns = 0;
  std::vector<int64_t> ramp_begun_ns, ramp_done_ns;
  std::vector<size_t> segments;
  std::vector<std::string> failures;
  std::vector<int64_t> returned_ns;

 private:
  std::string answer_;
};

TEST(Runner, SyncStartsEverySegmentAfterItsAnswer) {
  std::vector<JobOptions> jobs = ParseJobs(
      {"--name=a", "--ioengine=null", "--rw=read", "--size=1m", "--numjobs=2", "--name=b",
       "--stonewall", "--ioengine=null", "--rw=write", "--size=1m", "--startdelay=20ms"});
  FakeSync sync;
  Recorded rec;
  RunOptions o = Recording(&rec);
  o.sync = &sync;
  RunResult r = RunJobs(jobs, o);
  ASSERT_FALSE(r.failed());
  ASSERT_EQ(sync.segments, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(sync.failures, (std::vector<std::string>{"", ""}));
  ASSERT_EQ(rec.ios.size(), 3u * 256);
  for (size_t i = 0; i < rec.ios.size(); i++) {
    const size_t seg = rec.thread[i] <= 2 ? 0 : 1;
    EXPECT_GT(rec.when[i], sync.returned_ns[seg]) << "I/O " << i << " before its segment's answer";
    // The start delay counts from the common start.
    if (seg == 1) {
      EXPECT_GE(rec.when[i] - sync.returned_ns[1], 20'000'000) << i;
    }
  }
  for (const CloneResult& c : r.clones) EXPECT_EQ(c.dir[0].bytes + c.dir[1].bytes, 1u << 20);
}

TEST(Runner, SyncEndsTheRampWhenEveryProcessDidWithoutStoppingIo) {
  // Two ramp times in one segment: two agreements, in increasing order.
  std::vector<JobOptions> jobs = ParseJobs(
      {"--name=a", "--ioengine=null", "--rw=read", "--size=1g", "--rate_iops=2000",
       "--ramp_time=200ms", "--runtime=300ms", "--time_based", "--name=b", "--ioengine=null",
       "--rw=read", "--size=1g", "--rate_iops=2000", "--ramp_time=100ms", "--runtime=300ms",
       "--time_based"});
  FakeSync sync;
  sync.ramp_wait_ns = 150'000'000;  // the slowest process is 150 ms later
  Recorded rec;
  RunOptions o = Recording(&rec);
  o.sync = &sync;
  RunResult r = RunJobs(jobs, o);
  ASSERT_FALSE(r.failed());
  ASSERT_EQ(sync.ramp_begun_ns.size(), 2u);
  ASSERT_EQ(sync.ramp_done_ns.size(), 2u);
  const int64_t go = sync.returned_ns[0];
  // b's ramp (100 ms) first, then a's (200 ms), each begun on time here.
  EXPECT_GE(sync.ramp_begun_ns[0] - go, 100'000'000);
  EXPECT_GE(sync.ramp_begun_ns[1], sync.ramp_done_ns[0]);
  EXPECT_GE(sync.ramp_begun_ns[1] - go, 250'000'000);  // after b's agreement (100 + 150)
  // I/O went on while the agreement was pending.
  size_t during = 0;
  for (size_t i = 0; i < rec.when.size(); i++)
    if (rec.thread[i] == 2 && rec.when[i] > sync.ramp_begun_ns[0] && rec.when[i] < sync.ramp_done_ns[0])
      during++;
  EXPECT_GT(during, 100u);  // 150 ms at 2000 IOPS: about 300
  // The measured phase is the runtime from the agreement: 300 ms of I/O at
  // 2000 IOPS each, nothing from the ramp.
  for (const CloneResult& c : r.clones) {
    EXPECT_GE(c.runtime_ns, 290'000'000) << c.job->name;
    EXPECT_LT(c.runtime_ns, 800'000'000) << c.job->name;
    EXPECT_NEAR(double(c.dir[0].ios), 600, 200) << c.job->name;
    // Measured from the agreement on, not from the clone's own ramp end.
    const size_t a = c.job->name == "b" ? 0 : 1;
    EXPECT_GE(c.measure_start_ns, sync.ramp_done_ns[a]) << c.job->name;
  }
  EXPECT_GE(r.clones[1].elapsed_ns, 100'000'000 + 150'000'000 + 300'000'000);
}

TEST(Runner, SyncRampCountsAfterTheStartDelay) {
  // startdelay longer than ramp_time: the agreement waits for the clone's
  // own ramp, which starts after its delay (as fio's).  A ramp released
  // before the clone's clock started once held it forever.
  std::vector<JobOptions> jobs = ParseJobs(
      {"--name=a", "--ioengine=null", "--rw=read", "--size=1g", "--rate_iops=1000",
       "--startdelay=200ms", "--ramp_time=100ms", "--runtime=300ms", "--time_based"});
  FakeSync sync;
  RunOptions o;
  o.sync = &sync;
  RunResult r = RunJobs(jobs, o);
  ASSERT_FALSE(r.failed());
  ASSERT_EQ(sync.ramp_begun_ns.size(), 1u);
  EXPECT_GE(sync.ramp_begun_ns[0] - sync.returned_ns[0], 300'000'000);
  const CloneResult& c = r.clones[0];
  EXPECT_GE(c.measure_start_ns, sync.ramp_done_ns[0]);
  // The ramp ran: its 100 ms count from the clone's clock, which starts
  // before its first I/O (by 3 ms under TSan).
  EXPECT_GE(c.measure_start_ns - c.first_io_ns, 90'000'000);
  EXPECT_LT(c.first_io_ns, c.measure_start_ns);
  EXPECT_GE(c.runtime_ns, 290'000'000);
  EXPECT_LT(c.runtime_ns, 800'000'000);
}

TEST(Runner, SyncHearsOfAStopBeforeTheStart) {
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=a", "--ioengine=null", "--rw=read", "--size=1m", "--numjobs=2"});
  StopSource stop;
  stop.request(SIGINT);
  FakeSync sync;
  std::atomic<int> issued{0};
  RunOptions o;
  o.sync = &sync;
  o.stop = &stop;
  o.on_issue = [&](const CloneResult&, const IoUnit&) { issued++; };
  RunResult r = RunJobs(jobs, o);
  // Every process still takes part in the segment's agreement.
  ASSERT_EQ(sync.failures.size(), 1u);
  EXPECT_NE(sync.failures[0].find("interrupted"), std::string::npos) << sync.failures[0];
  EXPECT_EQ(issued.load(), 0);
  EXPECT_EQ(r.interrupted_by, SIGINT);
}

TEST(Runner, SyncErrorKeepsEveryCloneFromStarting) {
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=a", "--ioengine=null", "--rw=read", "--size=1m", "--numjobs=3"});
  FakeSync sync("rank 1 (h): job 'a' (clone 0): no target");
  std::atomic<int> issued{0};
  RunOptions o;
  o.sync = &sync;
  o.on_issue = [&](const CloneResult&, const IoUnit&) { issued++; };
  RunResult r = RunJobs(jobs, o);
  EXPECT_EQ(issued.load(), 0);
  ASSERT_TRUE(r.sync_error);
  EXPECT_EQ(r.sync_error->message, "rank 1 (h): job 'a' (clone 0): no target");
  EXPECT_TRUE(r.failed());
  for (const CloneResult& c : r.clones) EXPECT_TRUE(c.not_run);
}

TEST(Runner, SyncHearsWhichCloneFailedHere) {
  const std::string missing = std::string(::testing::TempDir()) + "/no-such-dir/f";
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=ok", "--ioengine=null", "--rw=read", "--size=1m", "--name=bad",
                 "--ioengine=psync", "--rw=read", "--size=1m", "--filename=" + missing});
  FakeSync sync("rank 0 (h): stop");
  RunOptions o;
  o.sync = &sync;
  RunResult r = RunJobs(jobs, o);
  ASSERT_EQ(sync.failures.size(), 1u);
  EXPECT_NE(sync.failures[0].find("job 'bad' (clone 0): "), std::string::npos) << sync.failures[0];
  EXPECT_NE(sync.failures[0].find("no-such-dir"), std::string::npos) << sync.failures[0];
  EXPECT_TRUE(r.failed());
}

TEST(Runner, SyncSetupFailureStillAnswersTheOthers) {
  // numjobs beyond the thread limit: the run cannot start, and the other
  // processes must still hear of it at their first segment.
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=a", "--ioengine=null", "--size=1m", "--numjobs=4000000"});
  FakeSync sync;
  RunOptions o;
  o.sync = &sync;
  RunResult r = RunJobs(jobs, o);
  ASSERT_TRUE(r.setup_error);
  ASSERT_EQ(sync.failures.size(), 1u);
  EXPECT_EQ(sync.failures[0], r.setup_error->message);
}

TEST(Runner, SequentialReadIssuesFioOffsets) {
  std::vector<JobOptions> jobs = ParseJobs({"--name=a", "--ioengine=null", "--rw=read",
                                            "--bs=8k", "--size=1m", "--iodepth=4"});
  Recorded rec;
  RunResult r = RunRecorded(jobs, &rec);
  ASSERT_EQ(r.clones.size(), 1u);
  EXPECT_EQ(r.clones[0].error, 0) << r.clones[0].error_message;
  ASSERT_EQ(rec.ios.size(), 128u);
  for (size_t i = 0; i < rec.ios.size(); i++) {
    EXPECT_EQ(rec.ios[i].offset, i * 8192);
    EXPECT_EQ(rec.ios[i].len, 8192u);
  }
  EXPECT_EQ(r.clones[0].dir[0].ios, 128u);
  EXPECT_EQ(r.clones[0].dir[0].bytes, 1u << 20);
  EXPECT_EQ(r.clones[0].dir[0].clat.count(), 128u);
  EXPECT_EQ(r.clones[0].target, "driver=null,size=1048576");
}

TEST(Runner, SameSeedSameSequenceTwice) {
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=a", "--ioengine=null", "--rw=randrw", "--bssplit=4k/60:64k/40",
                 "--size=4g", "--number_ios=20000", "--iodepth=16", "--randseed=7"});
  Recorded a, b;
  RunRecorded(jobs, &a);
  RunRecorded(jobs, &b);
  ASSERT_EQ(a.ios.size(), 20000u);
  EXPECT_EQ(a.ios, b.ios);
  jobs[0].randseed = 8;
  Recorded c;
  RunRecorded(jobs, &c);
  EXPECT_NE(a.ios, c.ios);
}

TEST(Runner, RandomReadCoversEveryBlockOnce) {
  std::vector<JobOptions> jobs = ParseJobs(
      {"--name=a", "--ioengine=null", "--rw=randread", "--bs=4k", "--size=4m", "--iodepth=8"});
  Recorded rec;
  RunResult r = RunRecorded(jobs, &rec);
  ASSERT_EQ(rec.ios.size(), 1024u);
  std::set<uint64_t> seen;
  for (auto& u : rec.ios) seen.insert(u.offset);
  EXPECT_EQ(seen.size(), 1024u);
  EXPECT_EQ(r.clones[0].depth[5], 0u);  // iodepth 8 never reaches the 32 bucket
  EXPECT_GT(r.clones[0].depth[3], 0u);
}

// rate_iops on an absolute schedule (run/pacing.h; the schedule itself is
// pacing_test's): the rate is kept, and linear pacing never issues early,
// so by the end of 2 s at most 2 x 5000 + 1 I/Os went out whatever the
// machine's load.
TEST(Runner, RateIopsKeepsItsSchedule) {
  for (const char* process : {"linear", "poisson"}) {
    std::vector<JobOptions> jobs =
        ParseJobs({"--name=a", "--ioengine=null", "--rw=randread", "--bs=4k", "--size=1g",
                   "--rate_iops=5000", "--runtime=2", "--time_based", "--iodepth=4",
                   std::string("--rate_process=") + process});
    RunResult r = RunJobs(jobs);
    const CloneResult& c = r.clones[0];
    double iops = double(c.dir[0].ios) / (double(c.runtime_ns) / 1e9);
    EXPECT_NEAR(iops, 5000, 5000 * 0.25) << process;
    EXPECT_NEAR(double(c.runtime_ns) / 1e9, 2.0, 2.0 * 0.25);
    EXPECT_EQ(c.schedule.kind, ScheduleResult::Kind::kRate);
    if (std::string(process) == "linear") {
      EXPECT_LE(c.dir[0].ios, 2u * 5000 + 1);
    }
  }
}

// A whole filter stack under the bench tool: throttle over error-inject over
// null.  The throttle sets the pace; injected errors are counted and, with
// continue_on_error, do not end the job.
TEST(Runner, ThrottleOverErrorInjectOverNull) {
  std::vector<JobOptions> jobs = ParseJobs(
      {"--name=a", "--rw=randread", "--bs=4k", "--iodepth=8", "--runtime=2", "--time_based",
       "--continue_on_error=read",
       "--blockdev=driver=throttle,iops-total=3000,file.driver=error-inject,file.event=read,"
       "file.after=100,file.count=7,file.file.driver=null,file.file.size=1G"});
  RunResult r = RunJobs(jobs);
  ASSERT_EQ(r.clones.size(), 1u);
  const CloneResult& c = r.clones[0];
  EXPECT_EQ(c.error, 0) << c.error_message;
  double iops = double(c.dir[0].ios) / (double(c.runtime_ns) / 1e9);
  // Never above the limit; below it only by what a loaded machine costs (an
  // unthrottled null device would do millions).
  EXPECT_LE(iops, 3000 * 1.03);
  EXPECT_GE(iops, 3000 * 0.7);
  EXPECT_EQ(c.dir[0].errors, 7u);
}

// rate= as rate_iops above: kept, and never ahead of its schedule (at most
// 2 s x 100 MiB/s + one block by the end).
TEST(Runner, RateBytesKeepsItsSchedule) {
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=a", "--ioengine=null", "--rw=write", "--bs=64k", "--size=1g",
                 "--rate=100m", "--runtime=2", "--time_based"});
  RunResult r = RunJobs(jobs);
  const CloneResult& c = r.clones[0];
  double bw = double(c.dir[1].bytes) / (double(c.runtime_ns) / 1e9);
  EXPECT_NEAR(bw / (100 << 20), 1.0, 0.25);
  EXPECT_LE(c.dir[1].bytes, 2u * (100 << 20) + (64 << 10));
}

TEST(Runner, RuntimeAndRampTime) {
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=a", "--ioengine=null", "--rw=randread", "--size=1g", "--runtime=1",
                 "--ramp_time=500ms", "--time_based", "--iodepth=8"});
  RunResult r = RunJobs(jobs);
  const CloneResult& c = r.clones[0];
  EXPECT_NEAR(double(c.runtime_ns) / 1e9, 1.0, 0.25);
  EXPECT_GE(double(c.elapsed_ns) / 1e9, 1.45);
  EXPECT_GT(c.dir[0].ios, 1000u);
  EXPECT_GT(c.usr_s + c.sys_s, 0.2);
}

// Bandwidth samples cover whole intervals of the measured phase: none left
// over from the ramp (a short one would inflate the stdev).  ramp 500 ms,
// runtime 2 s, 500 ms samples: exactly 4.
TEST(Runner, SamplesStartWithTheMeasuredPhase) {
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=a", "--ioengine=null", "--rw=randread", "--size=1g", "--runtime=2",
                 "--ramp_time=500ms", "--time_based", "--rate_iops=5000"});
  RunResult r = RunJobs(jobs);
  const CloneResult& c = r.clones[0];
  ASSERT_EQ(c.error, 0) << c.error_message;
  EXPECT_EQ(c.dir[0].iops_samples.size(), 4u);
  // A rate well inside what a sanitized build on a loaded 2-core machine
  // sustains, so that each sample is the rate.
  for (double v : c.dir[0].iops_samples) EXPECT_NEAR(v, 5000, 5000 * 0.25);
}

// cpus_allowed binds the clones' threads; split gives clone k the k-th CPU.
TEST(Runner, CpusAllowedBindsTheClones) {
  std::vector<JobOptions> jobs = ParseJobs({"--name=a", "--ioengine=null", "--size=4m",
                                            "--numjobs=2", "--cpus_allowed=0-1",
                                            "--cpus_allowed_policy=split"});
  std::mutex mu;
  std::map<uint32_t, std::set<int>> cpus;  // thread number -> CPUs seen
  RunOptions o;
  o.on_issue = [&](const CloneResult& c, const IoUnit&) {
    std::lock_guard<std::mutex> l(mu);
    cpus[c.thread_number].insert(sched_getcpu());
  };
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "SKIPPED: needs 2 CPUs";
  RunResult r = RunJobs(jobs, o);
  for (const CloneResult& c : r.clones) ASSERT_EQ(c.error, 0) << c.error_message;
  EXPECT_EQ(cpus[1], std::set<int>{0});
  EXPECT_EQ(cpus[2], std::set<int>{1});
  // A CPU the machine does not have: an error naming it, no I/O.
  std::vector<JobOptions> bad = ParseJobs({"--name=a", "--ioengine=null", "--size=4m",
                                           "--cpus_allowed=4000"});
  RunResult b = RunJobs(bad);
  EXPECT_NE(b.clones[0].error, 0);
  EXPECT_NE(b.clones[0].error_message.find("cpus_allowed (4000)"), std::string::npos)
      << b.clones[0].error_message;
  EXPECT_EQ(b.clones[0].dir[0].ios, 0u);
}

// exitall: the first job to end ends the others; exitall_on_error only when
// it ended with an error.
TEST(Runner, ExitallEndsTheOthers) {
  std::vector<JobOptions> jobs = ParseJobs({"--name=short", "--ioengine=null", "--size=1m",
                                            "--exitall", "--name=long", "--ioengine=null",
                                            "--size=1g", "--runtime=30", "--time_based"});
  const int64_t t0 = NowNs();
  RunResult r = RunJobs(jobs);
  EXPECT_LT(NowNs() - t0, 10'000'000'000) << "exitall did not end the long job";
  EXPECT_EQ(r.clones[1].error, 0);
  EXPECT_FALSE(r.clones[1].interrupted);  // ended, as at its runtime's end

  std::vector<JobOptions> err = ParseJobs(
      {"--name=bad", "--rw=read", "--exitall_on_error",
       "--blockdev=driver=error-inject,event=read,errno=5,after=10,file.driver=null,file.size=1m",
       "--name=long", "--ioengine=null", "--size=1g", "--runtime=30", "--time_based"});
  const int64_t t1 = NowNs();
  RunResult e = RunJobs(err);
  EXPECT_LT(NowNs() - t1, 10'000'000'000) << "exitall_on_error did not end the long job";
  EXPECT_NE(e.clones[0].error, 0);
}

// exit_what (read from the job that ends): group (default) ends only its
// group, stonewall every job running, all also the later segments.
TEST(Runner, ExitWhatChoosesWhichJobsEnd) {
  auto jobs = [](const std::string& what) {
    return ParseJobs({"--name=short", "--ioengine=null", "--size=1m", "--exitall",
                      "--exit_what=" + what, "--name=long", "--new_group", "--ioengine=null",
                      "--size=1g", "--runtime=" + std::string(what == "group" ? "2" : "30"),
                      "--time_based", "--name=after", "--stonewall", "--ioengine=null",
                      "--size=64k"});
  };
  // group: "long" is in another group and runs its 2 s.
  RunResult g = RunJobs(jobs("group"));
  EXPECT_GE(g.clones[1].runtime_ns, 1'500'000'000);
  EXPECT_FALSE(g.clones[2].not_run);
  for (const char* what : {"stonewall", "all"}) {
    const int64_t t0 = NowNs();
    RunResult r = RunJobs(jobs(what));
    EXPECT_LT(NowNs() - t0, 10'000'000'000) << what << " did not end the long job";
    EXPECT_EQ(r.clones[1].error, 0) << what;
    EXPECT_EQ(r.clones[2].not_run, std::string(what) == "all") << what;
  }
}

// flow=: the jobs of one flow_id issue in the ratio of their weights while
// they all run.  Counted in issue order (on_issue), when the heavier job
// issues its last I/O: the lighter has issued its share of that.
size_t IssuedBy(const Recorded& rec, uint32_t thread, size_t upto) {
  size_t n = 0;
  for (size_t i = 0; i < upto; i++) n += rec.thread[i] == thread;
  return n;
}
size_t LastOf(const Recorded& rec, uint32_t thread) {
  size_t last = 0;
  for (size_t i = 0; i < rec.thread.size(); i++)
    if (rec.thread[i] == thread) last = i;
  return last;
}

TEST(Runner, FlowKeepsEachGroupToItsWeights) {
  for (const char* sleep : {"--flow_sleep=0", "--flow_sleep=50"}) {
    // Group 7: a (weight 3) and b (1); group 0: c and d (1 each).  3 MiB of
    // 4k each: 768 I/Os.
    std::vector<JobOptions> jobs;
    for (const char* j : {"a:7:3", "b:7:1", "c:0:1", "d:0:1"}) {
      const std::string spec = j;
      for (JobOptions& o : ParseJobs({"--name=" + spec.substr(0, 1), "--ioengine=null",
                                      "--rw=randread", "--bs=4k", "--size=3m",
                                      "--flow_id=" + spec.substr(2, 1),
                                      "--flow=" + spec.substr(4, 1), sleep}))
        jobs.push_back(o);
    }
    Recorded rec;
    RunResult r = RunRecorded(jobs, &rec);
    ASSERT_FALSE(r.failed());
    for (const CloneResult& c : r.clones) EXPECT_EQ(c.dir[0].ios, 768u) << sleep;
    const uint32_t a = r.clones[0].thread_number, b = r.clones[1].thread_number;
    const uint32_t c = r.clones[2].thread_number, d = r.clones[3].thread_number;
    // When a ends, b has about a third of a's 768; c and d run 1:1.
    const size_t b_then = IssuedBy(rec, b, LastOf(rec, a));
    EXPECT_NEAR(double(b_then), 256.0, 26.0) << sleep;
    const size_t first_end = std::min(LastOf(rec, c), LastOf(rec, d));
    const size_t c_then = IssuedBy(rec, c, first_end), d_then = IssuedBy(rec, d, first_end);
    EXPECT_NEAR(double(c_then) / double(d_then), 1.0, 0.1) << c_then << " vs " << d_then;
  }
}

// A flow member in a later stonewall segment has not joined yet, so it
// holds nobody back (fio 3.33 spins forever on this job file).
TEST(Runner, FlowMembersOfLaterSegmentsHoldNobodyBack) {
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=a", "--ioengine=null", "--size=4m", "--flow=3", "--name=b",
                 "--ioengine=null", "--size=4m", "--flow=1", "--stonewall"});
  const int64_t t0 = NowNs();
  RunResult r = RunJobs(jobs);
  EXPECT_LT(NowNs() - t0, 10'000'000'000);
  ASSERT_FALSE(r.failed());
  EXPECT_EQ(r.clones[0].dir[0].ios, 1024u);
  EXPECT_EQ(r.clones[1].dir[0].ios, 1024u);
}

// fio's butterfly example: flow=2 and flow=-2 in one group.  The weights
// are fio's unsigned ints, so the total wraps to 0, and neither job waits:
// both run to the end, interleaved.
TEST(Runner, FlowWeightsThatWrapToZeroHoldNobodyBack) {
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=f", "--ioengine=null", "--size=4m", "--flow=2", "--name=b",
                 "--ioengine=null", "--size=4m", "--rw=read:-8k", "--flow=-2"});
  const int64_t t0 = NowNs();
  RunResult r = RunJobs(jobs);
  EXPECT_LT(NowNs() - t0, 10'000'000'000);
  ASSERT_FALSE(r.failed());
  EXPECT_EQ(r.clones[0].dir[0].ios, 1024u);
  EXPECT_GT(r.clones[1].dir[0].ios, 0u);
}

// latency_target on a device whose latency grows with the depth: a
// throttle of 500 IOPS over null completes the k-th queued request about
// k x 2 ms after it was issued, so 20 ms allows a depth of about 10.
TEST(Runner, LatencyTargetFindsTheDepthThatKeepsWithinIt) {
  // Milliseconds, not microseconds, and a wide margin: a sanitized run on a
  // loaded 2-core machine adds a p95 of several milliseconds of wake-up to
  // every completion (at 2000 IOPS and 5 ms, .ci/run's TSan stage once
  // found depth 2), so depth 3 (6 ms queued) must stay found under 14 ms
  // of extra delay.
  const std::string dev = "--blockdev=driver=throttle,iops-total=500,file.driver=null,file.size=1g";
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=a", dev, "--rw=randread", "--iodepth=64", "--latency_target=20ms", "--latency_percentile=95",
                 "--latency_window=200ms", "--time_based", "--runtime=60"});
  const int64_t t0 = NowNs();
  RunResult r = RunJobs(jobs);
  ASSERT_FALSE(r.failed()) << r.clones[0].error_message;
  const CloneResult& c = r.clones[0];
  EXPECT_GE(c.latency_depth, 3u);
  EXPECT_LE(c.latency_depth, 10u);
  // Found, then one more window measured alone; the job ends long before
  // its runtime.
  EXPECT_LT(NowNs() - t0, 30'000'000'000);
  EXPECT_GE(c.runtime_ns, 80'000'000);  // about one window
  EXPECT_LT(c.runtime_ns, 20'000'000'000);
  EXPECT_GT(c.dir[0].ios, 0u);
  // The report covers the final windows at the depth found: no I/O was
  // issued deeper than twice that depth (a ramp-down may follow a pass).
  const uint64_t deep = c.depth[5] + c.depth[6];  // 32..63, >= 64
  EXPECT_EQ(deep, 0u);

  // A target every depth meets: the whole iodepth.
  std::vector<JobOptions> easy =
      ParseJobs({"--name=a", dev, "--rw=randread", "--iodepth=8", "--latency_target=100ms",
                 "--latency_window=80ms", "--time_based", "--runtime=20"});
  RunResult e = RunJobs(easy);
  ASSERT_FALSE(e.failed()) << e.clones[0].error_message;
  EXPECT_EQ(e.clones[0].latency_depth, 8u);
}

// As fio: with latency_percentile=100, an I/O over the target at depth 1
// ends the job with ETIMEDOUT; max_latency ends it at the first I/O over.
TEST(Runner, LatencyOverTheTargetAtDepthOneAndMaxLatencyEndTheJob) {
  std::vector<JobOptions> jobs = ParseJobs(
      {"--name=a", "--blockdev=driver=null,size=1g,latency-ns=2000000", "--rw=randread",
       "--iodepth=4", "--latency_target=500us", "--time_based", "--runtime=20"});
  RunResult r = RunJobs(jobs);
  EXPECT_EQ(r.clones[0].error, ETIMEDOUT);
  EXPECT_NE(r.clones[0].error_message.find("latency_target=500000 ns"), std::string::npos)
      << r.clones[0].error_message;

  std::vector<JobOptions> max = ParseJobs(
      {"--name=a", "--blockdev=driver=null,size=1g,latency-ns=2000000", "--rw=randread",
       "--max_latency=1ms", "--time_based", "--runtime=20"});
  RunResult m = RunJobs(max);
  EXPECT_EQ(m.clones[0].error, ETIMEDOUT);
  EXPECT_NE(m.clones[0].error_message.find("max_latency=1000000 ns"), std::string::npos)
      << m.clones[0].error_message;
  EXPECT_EQ(m.clones[0].total_errors, 1u);
  // Reads only: a write limit does not apply to them.
  std::vector<JobOptions> wmax = ParseJobs(
      {"--name=a", "--blockdev=driver=null,size=1g,latency-ns=2000000", "--rw=randread",
       "--max_latency=0,1ms", "--size=64k"});
  RunResult w = RunJobs(wmax);
  EXPECT_FALSE(w.failed()) << w.clones[0].error_message;
}

// rate_min / rate_iops_min: checked every rate_cycle after fio's 2 s of
// settling; a device at 200 IOPS of 4k (800 KiB/s) misses 1 MiB/s and ends
// the job with EIO naming the rate, and meets 100 IOPS.
TEST(Runner, RateMinimumEndsASlowJob) {
  const std::string dev = "--blockdev=driver=throttle,iops-total=200,file.driver=null,file.size=1g";
  std::vector<JobOptions> slow = ParseJobs({"--name=a", dev, "--rw=randread", "--rate_min=1m",
                                            "--rate_cycle=200", "--time_based", "--runtime=20"});
  const int64_t t0 = NowNs();
  RunResult r = RunJobs(slow);
  EXPECT_LT(NowNs() - t0, 6'000'000'000);
  EXPECT_EQ(r.clones[0].error, EIO);
  EXPECT_NE(r.clones[0].error_message.find("rate_min=1048576 B/s not met for reads"),
            std::string::npos)
      << r.clones[0].error_message;

  std::vector<JobOptions> ok =
      ParseJobs({"--name=a", dev, "--rw=randread", "--rate_iops_min=100", "--rate_cycle=200",
                 "--time_based", "--runtime=3"});
  RunResult k = RunJobs(ok);
  EXPECT_FALSE(k.failed()) << k.clones[0].error_message;
  std::vector<JobOptions> iops =
      ParseJobs({"--name=a", dev, "--rw=randread", "--rate_iops_min=400", "--rate_cycle=200",
                 "--time_based", "--runtime=20"});
  RunResult i = RunJobs(iops);
  EXPECT_EQ(i.clones[0].error, EIO);
  EXPECT_NE(i.clones[0].error_message.find("rate_iops_min=400 not met for reads"), std::string::npos)
      << i.clones[0].error_message;
}

// --status-interval: on_status gets the results so far every interval,
// cumulative (each at least the one before), the running clones' from their
// own loops; stonewall segments after the running one are still empty.
TEST(Runner, StatusIntervalReportsTheResultsSoFar) {
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=a", "--ioengine=null", "--rw=randread", "--iodepth=4", "--numjobs=2",
                 "--time_based", "--runtime=1", "--name=b", "--ioengine=null", "--size=1m",
                 "--stonewall"});
  RunOptions o;
  std::vector<RunResult> seen;
  o.status_interval_ns = 200'000'000;
  o.on_status = [&](const RunResult& r) { seen.push_back(r); };
  RunResult r = RunJobs(jobs, o);
  ASSERT_FALSE(r.failed());
  ASSERT_GE(seen.size(), 3u);
  uint64_t last = 0;
  for (const RunResult& s : seen) {
    ASSERT_EQ(s.clones.size(), 3u);
    const uint64_t ios = s.clones[0].dir[0].ios + s.clones[1].dir[0].ios;
    EXPECT_GT(ios, last);
    last = ios;
    EXPECT_GT(s.clones[0].runtime_ns, 0);
    EXPECT_EQ(s.clones[0].dir[0].clat.count(), s.clones[0].dir[0].ios);  // latencies merged
    EXPECT_EQ(s.clones[2].dir[0].ios, 0u);  // segment b has not started
  }
  EXPECT_LE(last, r.clones[0].dir[0].ios + r.clones[1].dir[0].ios);
}

TEST(Runner, NumjobsClonesAndStonewallSerialises) {
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=a", "--ioengine=null", "--rw=read", "--size=1m", "--numjobs=2",
                 "--name=b", "--ioengine=null", "--rw=write", "--size=1m", "--stonewall"});
  Recorded rec;
  RunResult r = RunRecorded(jobs, &rec);
  ASSERT_EQ(r.clones.size(), 3u);
  EXPECT_EQ(r.clones[0].groupid, 0);
  EXPECT_EQ(r.clones[1].groupid, 0);
  EXPECT_EQ(r.clones[2].groupid, 1);
  int64_t last_a = 0, first_b = INT64_MAX;
  for (size_t i = 0; i < rec.ios.size(); i++) {
    if (rec.thread[i] <= 2) last_a = std::max(last_a, rec.when[i]);
    else first_b = std::min(first_b, rec.when[i]);
  }
  EXPECT_LT(last_a, first_b);
  EXPECT_EQ(r.clones[0].dir[0].ios + r.clones[1].dir[0].ios, 512u);
  EXPECT_EQ(r.clones[2].dir[1].ios, 256u);
}

TEST(Runner, IoErrorEndsTheJobWithDeviceOffsetLengthErrno) {
  std::vector<JobOptions> jobs = ParseJobs(
      {"--name=a", "--rw=read", "--bs=4k",
       "--blockdev=driver=error-inject,event=read,errno=5,offset=1m,length=4k,"
       "file.driver=null,file.size=16m"});
  RunResult r = RunJobs(jobs);
  ASSERT_TRUE(r.failed());
  const CloneResult& c = r.clones[0];
  EXPECT_EQ(c.error, 5);
  EXPECT_NE(c.error_message.find("read error"), std::string::npos) << c.error_message;
  EXPECT_NE(c.error_message.find("driver=error-inject"), std::string::npos) << c.error_message;
  EXPECT_NE(c.error_message.find("offset 1048576 length 4096"), std::string::npos)
      << c.error_message;
  EXPECT_NE(c.error_message.find(ErrnoString(-5)), std::string::npos) << c.error_message;
  EXPECT_LT(c.dir[0].ios, 4096u);  // stopped early
}

// continue_on_error goes past EIO, but the error is counted and the run
// fails (exit status 1, as fio's).
TEST(Runner, ContinueOnErrorKeepsGoingButCountsTheError) {
  std::vector<JobOptions> jobs = ParseJobs(
      {"--name=a", "--rw=read", "--bs=4k", "--continue_on_error=read",
       "--blockdev=driver=error-inject,event=read,errno=5,offset=1m,length=4k,"
       "file.driver=null,file.size=16m"});
  RunResult r = RunJobs(jobs);
  const CloneResult& c = r.clones[0];
  EXPECT_EQ(c.error, 0) << c.error_message;  // not the job's end
  EXPECT_EQ(c.dir[0].ios, 4096u);
  EXPECT_EQ(c.dir[0].errors, 1u);
  EXPECT_EQ(c.total_errors, 1u);
  EXPECT_EQ(c.first_error, EIO);
  EXPECT_NE(c.first_error_message.find("offset 1048576"), std::string::npos)
      << c.first_error_message;
  EXPECT_TRUE(r.failed());
}

// As fio: continue_on_error covers only EIO and EILSEQ; ENOSPC ends the job
// even with continue_on_error=all, and is counted.
TEST(Runner, ContinueOnErrorDoesNotGoPastEnospc) {
  std::vector<JobOptions> jobs = ParseJobs(
      {"--name=a", "--rw=write", "--bs=64k", "--continue_on_error=all",
       "--blockdev=driver=error-inject,event=write,errno=28,after=128,"
       "file.driver=null,file.size=16m"});
  RunResult r = RunJobs(jobs);
  const CloneResult& c = r.clones[0];
  EXPECT_EQ(c.error, ENOSPC);
  EXPECT_EQ(c.first_error, ENOSPC);
  EXPECT_GE(c.total_errors, 1u);
  EXPECT_EQ(c.dir[1].bytes, 128u * 65536);
  EXPECT_LT(c.dir[1].ios, 256u);  // stopped early
  EXPECT_TRUE(r.failed());
}

// A file of `size` zero bytes in TEST_TMPDIR (a disk filesystem), removed on
// destruction.
class ScratchFile {
 public:
  explicit ScratchFile(off_t size) {
    const char* tmp = getenv("TEST_TMPDIR");
    path_ = std::string(tmp && *tmp ? tmp : "/var/tmp") + "/bbscratchXXXXXX";
    int fd = mkstemp(path_.data());
    EXPECT_GE(fd, 0) << path_;
    EXPECT_EQ(ftruncate(fd, size), 0);
    close(fd);
  }
  ~ScratchFile() { unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Failed writes under continue_on_error hold no verify data: they are counted
// as not verified (and as errors), never passed off as verified.
TEST(Runner, FailedWritesAreCountedAsNotVerified) {
  if (!FindDriver("file")) GTEST_SKIP() << "SKIPPED: file driver not built in";
  ScratchFile f(8 << 20);
  std::vector<JobOptions> jobs = ParseJobs(
      {"--name=a", "--rw=write", "--bs=4k", "--size=8m", "--verify=crc32c",
       "--continue_on_error=all",
       "--blockdev=driver=error-inject,event=write,after=100,count=5,file.driver=file,"
       "file.filename=" + f.path()});
  RunResult r = RunJobs(jobs);
  const CloneResult& c = r.clones[0];
  EXPECT_EQ(c.error, 0) << c.error_message;
  EXPECT_EQ(c.total_errors, 5u);
  EXPECT_EQ(c.first_error, EIO);
  EXPECT_EQ(c.verified, 2048u - 5);
  EXPECT_EQ(c.verify_errors, 0u);
  EXPECT_EQ(c.verify_not_verified, 5u);
  EXPECT_TRUE(r.failed());
}

// randrw + verify with reads and writes of the same blocks in flight at
// once: a read is checked only against a write that completed before it was
// issued and not overwritten while it ran, and blocks written by overlapping
// writes (either may land last) are not checked but counted as not
// verified.  No false verify errors (there were thousands).
TEST(Runner, VerifyUnderOverlappingReadsAndWritesHasNoFalseErrors) {
  if (!FindDriver("file")) GTEST_SKIP() << "SKIPPED: file driver not built in";
  ScratchFile f(64 << 10);
  RunResult r = RunJobs(ParseJobs({"--name=o", "--ioengine=psync", "--filename=" + f.path(),
                                   "--rw=randrw", "--bs=4k", "--size=64k", "--iodepth=16",
                                   "--io_size=96m", "--norandommap", "--verify=crc32c"}));
  const CloneResult& c = r.clones[0];
  EXPECT_EQ(c.verify_errors, 0u) << c.error_message;
  EXPECT_EQ(c.error, 0) << c.error_message;
  // An amount of I/O, not a time: a slow (sanitized, loaded) run checks as
  // many reads as a fast one.  About half of the 24576 are reads, about a
  // quarter of those are checked (the rest overlapped a write in flight).
  EXPECT_GE(c.dir[0].ios + c.dir[1].ios, 24576u);
  EXPECT_GT(c.verified, 1000u);
  EXPECT_LE(c.verify_not_verified, 16u);  // at most every block of the region
}

// A write+verify job needs blocks that hold the verify header (fio: EINVAL,
// "Blocksize too small"); it is an error, not a job that verified nothing.
TEST(Runner, VerifyWithBlocksSmallerThanItsHeaderIsAnError) {
  RunResult r = RunJobs(ParseJobs({"--name=a", "--ioengine=null", "--rw=write", "--bs=16",
                                   "--size=64k", "--verify=crc32c"}));
  ASSERT_TRUE(r.failed());
  const CloneResult& c = r.clones[0];
  EXPECT_EQ(c.error, EINVAL);
  EXPECT_NE(c.error_message.find("at least 44 bytes"), std::string::npos) << c.error_message;
  EXPECT_EQ(c.dir[1].ios, 0u);
  RunResult split = RunJobs(ParseJobs({"--name=a", "--ioengine=null", "--rw=write",
                                       "--bssplit=4k/90:16/10", "--size=64k",
                                       "--verify=crc32c"}));
  EXPECT_EQ(split.clones[0].error, EINVAL) << split.clones[0].error_message;
}

// Every wait ends with the runtime: a rate that allows one I/O per hour, an
// hour of think time, a device latency of an hour.
TEST(Runner, WaitsEndWithTheRuntime) {
  struct Case {
    std::vector<std::string> args;
    double max_s;
  };
  const Case cases[] = {
      {{"--ioengine=null", "--size=1m", "--rate=1", "--runtime=1"}, 1.6},
      {{"--ioengine=null", "--size=1m", "--rate=1k", "--runtime=1"}, 1.6},
      {{"--ioengine=null", "--size=1m", "--thinktime=3600s", "--runtime=1"}, 1.6},
      {{"--blockdev=driver=null,size=1m,latency-ns=3600000000000", "--runtime=1"},
       1.0 + double(kEndGraceNs) / 1e9 + 0.6},
      {{"--blockdev=driver=throttle,iops-total=1,file.driver=null,file.size=1m", "--iodepth=4",
        "--runtime=1"},
       1.0 + double(kEndGraceNs) / 1e9 + 0.6},
  };
  for (const Case& k : cases) {
    std::vector<std::string> args = {"--name=a", "--rw=randread", "--bs=4k"};
    args.insert(args.end(), k.args.begin(), k.args.end());
    const int64_t t0 = NowNs();
    RunResult r = RunJobs(ParseJobs(args));
    const double s = double(NowNs() - t0) / 1e9;
    EXPECT_LT(s, k.max_s) << k.args[0] << " " << k.args[k.args.size() - 1];
    EXPECT_GE(s, 0.95) << k.args[0];
    EXPECT_FALSE(r.failed()) << r.clones[0].error_message;
  }
  // The cancelled requests are dropped, not counted as I/O or errors.
  RunResult r = RunJobs(ParseJobs({"--name=a", "--rw=randread", "--iodepth=2", "--runtime=1",
                                   "--blockdev=driver=null,size=1m,latency-ns=3600000000000"}));
  EXPECT_EQ(r.clones[0].dir[0].ios, 0u);
  EXPECT_EQ(r.clones[0].dir[0].drop_ios, 2u);
  EXPECT_EQ(r.clones[0].total_errors, 0u);
  // Also when they wait on the submitter's loop (io_submit_mode=offload).
  const int64_t t0 = NowNs();
  r = RunJobs(ParseJobs({"--name=a", "--rw=randread", "--iodepth=3", "--runtime=1",
                         "--io_submit_mode=offload",
                         "--blockdev=driver=null,size=1m,latency-ns=3600000000000"}));
  EXPECT_LT(double(NowNs() - t0) / 1e9, 1.0 + double(kEndGraceNs) / 1e9 + 0.6);
  EXPECT_EQ(r.clones[0].dir[0].ios, 0u);
  EXPECT_EQ(r.clones[0].dir[0].drop_ios, 3u);
  EXPECT_EQ(r.clones[0].total_errors, 0u);
}

// A stop request (SIGINT) interrupts a running job within a fraction of a
// second, also one that waits on an hour-long latency, a rate or a start
// delay; later stonewall segments do not run.
TEST(Runner, StopRequestInterruptsAtOnce) {
  const std::vector<std::vector<std::string>> cases = {
      {"--name=a", "--ioengine=null", "--rw=randread", "--size=1g", "--runtime=60",
       "--time_based", "--iodepth=8"},
      {"--name=a", "--rw=randread", "--blockdev=driver=null,size=1m,latency-ns=3600000000000"},
      // The wait is on the submitter's loop: the cancel is posted there.
      {"--name=a", "--rw=randread", "--io_submit_mode=offload",
       "--blockdev=driver=null,size=1m,latency-ns=3600000000000"},
      {"--name=a", "--ioengine=null", "--rw=read", "--size=1m", "--rate=1"},
      {"--name=a", "--ioengine=null", "--rw=read", "--size=1m", "--startdelay=3600"},
      {"--name=a", "--ioengine=null", "--rw=read", "--size=1m", "--rate=1", "--name=b",
       "--ioengine=null", "--rw=read", "--size=1m", "--stonewall"},
  };
  for (const auto& args : cases) {
    std::vector<JobOptions> jobs = ParseJobs(args);
    StopSource stop;
    RunOptions o;
    o.stop = &stop;
    std::atomic<int64_t> asked{0};
    std::thread t([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      asked = NowNs();
      stop.request(SIGINT);
    });
    RunResult r = RunJobs(jobs, o);
    const int64_t end = NowNs();
    t.join();
    // From the request to the result: well under a second alone; 2 s leaves
    // a loaded sanitized run its teardown (the waits are hours long).
    EXPECT_LT(double(end - asked.load()) / 1e9, 2.0) << args[3];
    EXPECT_EQ(r.interrupted_by, SIGINT);
    EXPECT_TRUE(r.clones[0].interrupted) << args[3];
    EXPECT_FALSE(r.clones[0].not_run);
    EXPECT_EQ(r.clones[0].error, 0) << r.clones[0].error_message;
    if (r.clones.size() > 1) {
      EXPECT_TRUE(r.clones[1].not_run);
    }
  }
}

// An interrupted write+verify job says how many written blocks it did not
// verify.
TEST(Runner, InterruptedVerifyCountsWhatWasNotVerified) {
  std::vector<JobOptions> jobs = ParseJobs(
      {"--name=a", "--rw=write", "--bs=4k", "--size=64m", "--verify=crc32c", "--rate=4m",
       "--blockdev=driver=null,size=64m"});
  StopSource stop;
  RunOptions o;
  o.stop = &stop;
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop.request(SIGINT);
  });
  RunResult r = RunJobs(jobs, o);
  t.join();
  const CloneResult& c = r.clones[0];
  EXPECT_TRUE(c.interrupted);
  EXPECT_EQ(c.verified, 0u);
  EXPECT_GT(c.verify_not_verified, 0u);
  EXPECT_EQ(c.verify_not_verified, c.dir[1].ios);
}

// numjobs beyond what the process may start is one clear error before
// anything runs (it used to abort in eventfd() or in std::bad_alloc).
TEST(Runner, NumjobsBeyondTheLimitsIsAnErrorBeforeStarting) {
  RunResult r = RunJobs(ParseJobs({"--name=t", "--ioengine=null", "--size=64k",
                                   "--numjobs=4294967295"}));
  ASSERT_TRUE(r.setup_error.has_value());
  EXPECT_TRUE(r.failed());
  EXPECT_TRUE(r.clones.empty());
  EXPECT_NE(r.setup_error->message.find("4294967295 clones"), std::string::npos)
      << r.setup_error->message;
}

TEST(Runner, UnopenableTargetIsAnError) {
  // A valid spec (an unknown driver is now a parse error) naming a file
  // that cannot be opened.
  std::vector<JobOptions> jobs = ParseJobs(
      {"--name=a", "--rw=read", "--blockdev=driver=file,filename=/nonexistent/blkstack/no-such-file"});
  RunResult r = RunJobs(jobs);
  ASSERT_TRUE(r.failed());
  EXPECT_NE(r.clones[0].error_message.find("no-such-file"), std::string::npos)
      << r.clones[0].error_message;
}

TEST(Runner, MissingDeviceIsAnErrorNotAFileCreatedInDev) {
  std::vector<JobOptions> jobs =
      ParseJobs({"--name=a", "--rw=read", "--ioengine=libaio", "--direct=1", "--size=1m",
                 "--filename=/dev/blkstack-no-such-device"});
  RunResult r = RunJobs(jobs);
  ASSERT_TRUE(r.failed());
  EXPECT_NE(r.clones[0].error_message.find("no such device"), std::string::npos)
      << r.clones[0].error_message;
  struct stat st;
  EXPECT_NE(::stat("/dev/blkstack-no-such-device", &st), 0) << "a file was created in /dev";
}

// filename=a:b: both files get their share of the job, each I/O within its
// file; the second file's driver counters carry a "file1." prefix.
TEST(Runner, SeveralFilesInOneJobShareIt) {
  const std::string dir = ::testing::TempDir();
  const std::string a = dir + "/multi-a", b = dir + "/multi-b";
  std::vector<JobOptions> jobs = ParseJobs({"--name=a", "--rw=write", "--ioengine=psync",
                                            "--bs=4k", "--size=128k", "--filename=" + a + ":" + b});
  ASSERT_EQ(jobs[0].nrfiles, 2u);
  RunResult r = RunJobs(jobs);
  ASSERT_FALSE(r.failed()) << r.clones[0].error_message;
  EXPECT_EQ(r.clones[0].dir[int(Dir::kWrite)].ios, 32u);
  struct stat st;
  ASSERT_EQ(stat(a.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 65536);
  ASSERT_EQ(stat(b.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 65536);
  bool second = false;
  for (const DriverCounter& c : r.clones[0].counters) second |= c.name.rfind("file1.", 0) == 0;
  EXPECT_TRUE(second);
  unlink(a.c_str());
  unlink(b.c_str());
}

// Clones of one job share its file and set it up one at a time (fio's
// create_serialize): with offset_increment each needs a different length,
// and a clone sizing the file for its own segment must not cut off the
// segment another clone just laid out.  Run a few times: the clones start
// together on their threads.
TEST(Runner, ClonesSetUpTheirSharedFileOneAtATime) {
  const std::string f = ::testing::TempDir() + "/serial-setup";
  for (const char* rw : {"--rw=write", "--rw=read"}) {
    for (int round = 0; round < 4; round++) {
      unlink(f.c_str());
      std::vector<JobOptions> jobs =
          ParseJobs({"--name=a", rw, "--ioengine=psync", "--bs=4k", "--size=256k",
                     "--numjobs=8", "--offset_increment=256k", "--filename=" + f});
      RunResult r = RunJobs(jobs);
      for (const CloneResult& c : r.clones)
        ASSERT_EQ(c.error, 0) << rw << " round " << round << " clone " << c.clone << ": "
                              << c.error_message;
      struct stat st;
      ASSERT_EQ(stat(f.c_str(), &st), 0);
      EXPECT_EQ(st.st_size, 8 * 256 * 1024) << rw << " round " << round;
    }
  }
  unlink(f.c_str());
}

// iodepth_batch_complete_min=N: the submitter refills only after N
// completions, so every wake-up sees at least N (fio's "complete" buckets).
TEST(Runner, BatchCompleteMinGroupsCompletions) {
  auto run = [](const char* min) {
    std::vector<JobOptions> jobs =
        ParseJobs({"--name=a", "--ioengine=null", "--rw=randread", "--bs=4k", "--size=64m",
                   "--iodepth=16", "--number_ios=4000",
                   std::string("--iodepth_batch_complete_min=") + min});
    return RunJobs(jobs);
  };
  RunResult one = run("1");
  ASSERT_FALSE(one.failed());
  EXPECT_GT(one.clones[0].complete[1], 0u);  // wake-ups after 1-4 completions
  RunResult eight = run("8");
  ASSERT_FALSE(eight.failed());
  const auto& c = eight.clones[0].complete;
  EXPECT_EQ(c[1], 0u) << "a wake-up saw fewer than 5 completions";
  EXPECT_GT(c[2] + c[3], 0u);
}

TEST(Runner, FsyncEveryNWrites) {
  std::vector<JobOptions> jobs = ParseJobs(
      {"--name=a", "--ioengine=null", "--rw=write", "--size=1m", "--fsync=16", "--iodepth=4"});
  RunResult r = RunJobs(jobs);
  // 256 writes: a flush after every 16th but the last, as fio (63 for
  // fsync=8 over 512 writes in fio_parity's sync.fio).
  EXPECT_EQ(r.clones[0].syncs, 15u);
  // time_based: the flushes keep coming while writes do.
  std::vector<JobOptions> tb = ParseJobs({"--name=a", "--ioengine=null", "--rw=write", "--size=1m",
                                          "--fsync=16", "--time_based", "--runtime=200ms"});
  RunResult t = RunJobs(tb);
  EXPECT_GE(t.clones[0].syncs, t.clones[0].dir[1].ios / 16 - 1);
  EXPECT_LE(t.clones[0].syncs, t.clones[0].dir[1].ios / 16);
}

bool FileDriverAvailable() { return FindDriver("file") != nullptr; }

uint64_t CounterOf(const CloneResult& c, const std::string& name) {
  for (const auto& d : c.counters) {
    if (d.name == name) return d.value;
  }
  return UINT64_MAX;
}

// userspace_reap=1 with iodepth_batch_complete_min=0 (fio's spinning
// reaper): the file driver is opened with aio-poll=on and the loop spins on
// the ring instead of sleeping, so nearly every completion is found by the
// poll handler (the eventfd only during the first few waits, while the
// adaptive window grows).  Without it the device's completions come by
// eventfd.  The device: a loop device (direct-io=on) over a file on
// TEST_TMPDIR's disk filesystem, which completes reads after io_submit
// returns (the file itself would not: this machine's virtio disk completes
// nearly every O_DIRECT read inside io_submit).  At depth 1 the loop's worker
// thread still finishes about half of them before io_submit returns (the
// peek right after it reaps those); the other half, about 900 of 2000, are
// what the assertions count, and at least 200 are needed.
TEST(Runner, UserspaceReapWithBatchCompleteMinZeroSpins) {
  if (!FileDriverAvailable()) GTEST_SKIP() << "file driver not built in";
  const char* tmp = getenv("TEST_TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/var/tmp") + "/bbureapXXXXXX";
  int fd = mkstemp(path.data());
  ASSERT_GE(fd, 0);
  // Written out, not sparse: O_DIRECT reads of a hole need no disk I/O.
  std::vector<char> data(8 << 20, 'x');
  ASSERT_EQ(write(fd, data.data(), data.size()), ssize_t(data.size()));
  ASSERT_EQ(fsync(fd), 0);
  close(fd);
  struct Unlink {
    std::string p;
    ~Unlink() { unlink(p.c_str()); }
  } unlink_at_end{path};
  test::LoopDevice loop(path, /*direct_io=*/true);
  ASSERT_FALSE(loop.dev().empty()) << loop.why();
  auto run = [&](bool ureap) {
    std::vector<std::string> args = {"--name=a", "--ioengine=libaio", "--direct=1",
                                     "--filename=" + loop.dev(), "--rw=randread", "--bs=4k",
                                     "--size=8m", "--iodepth=1", "--number_ios=2000"};
    if (ureap) {
      args.push_back("--userspace_reap=1");
      args.push_back("--iodepth_batch_complete_min=0");
    }
    return RunJobs(ParseJobs(args));
  };
  RunResult spin = run(true);
  ASSERT_FALSE(spin.failed()) << spin.clones[0].error_message;
  const CloneResult& s = spin.clones[0];
  EXPECT_NE(s.target.find("aio-poll=on"), std::string::npos) << s.target;
  const uint64_t poll = CounterOf(s, "aio_reaped_poll"), efd = CounterOf(s, "aio_reaped_eventfd");
  ASSERT_GE(poll + efd, 200u) << 2000 - poll - efd << " of 2000 O_DIRECT reads on "
                               << loop.dev() << " completed inside io_submit";
  EXPECT_GT(poll, 4 * efd) << "poll " << poll << " eventfd " << efd;
  RunResult plain = run(false);
  ASSERT_FALSE(plain.failed()) << plain.clones[0].error_message;
  EXPECT_EQ(plain.clones[0].target.find("aio-poll"), std::string::npos);
}

// zero_buffers: the data written is zeros; by default it is random bytes.
TEST(Runner, ZeroBuffersWritesZeros) {
  if (!FileDriverAvailable()) GTEST_SKIP() << "file driver not built in";
  char path[] = "/tmp/bbzeroXXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::vector<char> data(1 << 20, 'x');
  ASSERT_EQ(write(fd, data.data(), data.size()), ssize_t(data.size()));
  auto count_zeros = [&] {
    std::vector<char> got(1 << 20);
    EXPECT_EQ(pread(fd, got.data(), got.size(), 0), ssize_t(got.size()));
    return std::count(got.begin(), got.end(), 0);
  };
  std::vector<std::string> args = {"--name=w", "--ioengine=psync", std::string("--filename=") + path,
                                   "--rw=write", "--bs=4k", "--size=1m"};
  RunResult scrambled = RunJobs(ParseJobs(args));
  ASSERT_FALSE(scrambled.failed()) << scrambled.clones[0].error_message;
  // scramble_buffers (the default) stamps offsets (mostly zero high bytes)
  // into the buffers: at most 8 x 8 + 8 bytes of each 512 are not random.
  EXPECT_LT(count_zeros(), (1 << 20) / 512 * 72);
  args.push_back("--scramble_buffers=0");
  RunResult random = RunJobs(ParseJobs(args));
  ASSERT_FALSE(random.failed()) << random.clones[0].error_message;
  EXPECT_LT(count_zeros(), 1 << 14);  // random bytes: about 1 in 256 is zero
  args.pop_back();
  args.push_back("--zero_buffers");
  RunResult zeros = RunJobs(ParseJobs(args));
  ASSERT_FALSE(zeros.failed()) << zeros.clones[0].error_message;
  EXPECT_EQ(count_zeros(), 1 << 20);
  close(fd);
  unlink(path);
}

TEST(Runner, VerifyPassesThenCatchesCorruption) {
  if (!FileDriverAvailable()) GTEST_SKIP() << "file driver not built in";
  char path[] = "/tmp/bbverifyXXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 1 << 20), 0);
  // Write with verify, read back in the same job.
  auto w = ParseJobs({"--name=w", "--ioengine=psync", std::string("--filename=") + path,
                      "--rw=randwrite", "--bs=4k", "--size=1m", "--verify=crc32c",
                      "--iodepth=8"});
  RunResult r1 = RunJobs(w);
  EXPECT_FALSE(r1.failed()) << r1.clones[0].error_message;
  EXPECT_EQ(r1.clones[0].verified, 256u);
  EXPECT_EQ(r1.clones[0].verify_errors, 0u);
  // A read job with verify checks every block it reads.
  auto rd = ParseJobs({"--name=r", "--ioengine=psync", std::string("--filename=") + path,
                       "--rw=read", "--bs=4k", "--size=1m", "--verify=crc32c"});
  RunResult r2 = RunJobs(rd);
  EXPECT_FALSE(r2.failed()) << r2.clones[0].error_message;
  EXPECT_EQ(r2.clones[0].verified, 256u);
  // Corrupt one byte of the block at 12k behind the tool's back.
  char junk = 0x5a;
  ASSERT_EQ(pwrite(fd, &junk, 1, 12288 + 100), 1);
  // Move a whole block: the header then names the wrong offset.
  char blk[4096];
  ASSERT_EQ(pread(fd, blk, sizeof blk, 40960), 4096);
  ASSERT_EQ(pwrite(fd, blk, sizeof blk, 45056), 4096);
  fsync(fd);
  RunResult r3 = RunJobs(rd);
  ASSERT_TRUE(r3.failed());
  const CloneResult& c = r3.clones[0];
  EXPECT_EQ(c.error, EILSEQ);
  EXPECT_EQ(c.verify_errors, 2u);
  EXPECT_NE(c.error_message.find("offset 12288"), std::string::npos) << c.error_message;
  EXPECT_NE(c.error_message.find("crc32c"), std::string::npos) << c.error_message;
  EXPECT_NE(c.error_message.find(path), std::string::npos) << c.error_message;
  // verify_fatal stops at the first bad block.
  rd[0].verify_fatal = true;
  RunResult r4 = RunJobs(rd);
  EXPECT_EQ(r4.clones[0].verify_errors, 1u);
  close(fd);
  unlink(path);
}

// trim_percentage + trim_backlog on a real file: the trims punch holes,
// the verify phase reads every block back and the trimmed ones as zeros.
// The sequence is fio 3.33's (write_iolog of the same job): 4 writes, the 4
// trimmed; then one trim after each of the next writes while a batch
// lasts.  A block written behind the tool's back after its trim is
// reported with the offset of its first non-zero byte.
TEST(Runner, TrimBacklogTrimsAndVerifiesZeros) {
  if (!FileDriverAvailable()) GTEST_SKIP() << "file driver not built in";
  char path[] = "/tmp/bbtrimXXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  auto jobs = ParseJobs({"--name=t", "--ioengine=psync", std::string("--filename=") + path,
                         "--rw=write", "--bs=4k", "--size=64k", "--verify=crc32c",
                         "--trim_percentage=100", "--trim_backlog=4"});
  Recorded rec;
  RunResult r = RunRecorded(jobs, &rec);
  ASSERT_FALSE(r.failed()) << r.clones[0].error_message;
  const CloneResult& c = r.clones[0];
  EXPECT_EQ(c.dir[0].ios, 16u);
  EXPECT_EQ(c.dir[1].ios, 16u);
  EXPECT_EQ(c.dir[2].ios, 16u);
  EXPECT_EQ(c.verified, 16u);
  EXPECT_EQ(c.verify_errors, 0u);
  std::string seq;
  for (const IoUnit& u : rec.ios) seq += "rwt"[int(u.dir)] + std::to_string(u.offset / 4096) + " ";
  EXPECT_EQ(seq.substr(0, seq.find(" r0 ")),
            "w0 w1 w2 w3 t0 t1 t2 t3 w4 t4 w5 w6 w7 t5 t6 t7 w8 t8 w9 t9 w10 w11 t10 t11 w12 t12 "
            "w13 t13 w14 t14 w15 t15");
  // The holes are real: every byte of the file reads as zero.
  std::vector<char> all(65536, 1);
  ASSERT_EQ(pread(fd, all.data(), all.size(), 0), 65536);
  EXPECT_EQ(std::count(all.begin(), all.end(), 0), 65536);

  // trim_verify_zero=0: trimmed blocks are not read back (fio: one read,
  // the last block, still queued for a trim at the end).
  jobs[0].trim_verify_zero = false;
  RunResult r0 = RunJobs(jobs);
  ASSERT_FALSE(r0.failed()) << r0.clones[0].error_message;
  EXPECT_EQ(r0.clones[0].dir[0].ios, 1u);
  EXPECT_EQ(r0.clones[0].dir[2].ios, 15u);
  EXPECT_EQ(r0.clones[0].verify_not_verified, 0u);

  // A trimmed block that is not zero when read back: an error naming it.
  jobs[0].trim_verify_zero = true;
  RunOptions o;
  o.on_issue = [fd](const CloneResult&, const IoUnit& u) {
    if (u.dir != Dir::kRead || u.offset != 8192) return;
    const char junk = 0x5a;
    ASSERT_EQ(pwrite(fd, &junk, 1, 8192 + 100), 1);
  };
  RunResult bad = RunJobs(jobs, o);
  ASSERT_TRUE(bad.failed());
  const CloneResult& b = bad.clones[0];
  EXPECT_EQ(b.error, EILSEQ);
  EXPECT_EQ(b.verify_errors, 1u);
  EXPECT_NE(b.error_message.find("trim verify failed"), std::string::npos) << b.error_message;
  EXPECT_NE(b.error_message.find("at offset 8292"), std::string::npos) << b.error_message;
  EXPECT_NE(b.error_message.find("block offset 100"), std::string::npos) << b.error_message;
  close(fd);
  unlink(path);
}

// The names of this process's threads (/proc/self/task/*/comm).
std::vector<std::string> ThreadNames() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream in(e.path() / "comm");
    std::string n;
    if (std::getline(in, n)) names.push_back(n);
  }
  return names;
}

// io_submit_mode=offload issues the same I/O as inline (same seed: same
// offsets, same counts), through a submitter thread of the clone that lives
// while the job runs and is gone after it.  A think time makes the job last
// (about 0.3 s) for the watcher to see the thread; not a rate: a
// rate-capped mix takes each direction by the clock (fio's rate_ddir), so
// its sequence depends on the timing, not only on the seed.
TEST(Runner, OffloadIssuesTheSameIoThroughASubmitterThread) {
  const std::vector<std::string> base = {"--name=offl", "--ioengine=null", "--rw=randrw",
                                         "--bs=4k", "--size=2m", "--iodepth=8",
                                         "--thinktime=600us"};
  Recorded inl, off;
  RunResult ri = RunRecorded(ParseJobs(base), &inl);
  ASSERT_FALSE(ri.failed()) << ri.clones[0].error_message;
  auto args = base;
  args.push_back("--io_submit_mode=offload");
  std::atomic<bool> seen{false}, done{false};
  std::thread watch([&] {
    while (!done.load()) {
      for (const std::string& n : ThreadNames())
        if (n == "offl-submit") seen = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  RunResult ro = RunRecorded(ParseJobs(args), &off);
  done = true;
  watch.join();
  ASSERT_FALSE(ro.failed()) << ro.clones[0].error_message;
  EXPECT_TRUE(seen.load()) << "no thread 'offl-submit' while the offloaded job ran";
  for (const std::string& n : ThreadNames()) EXPECT_NE(n, "offl-submit") << "still running";
  ASSERT_EQ(off.ios.size(), inl.ios.size());
  EXPECT_TRUE(off.ios == inl.ios) << "offload changed the I/O sequence";
  for (int d = 0; d < 2; d++) {
    EXPECT_EQ(ro.clones[0].dir[d].ios, ri.clones[0].dir[d].ios) << d;
    EXPECT_EQ(ro.clones[0].dir[d].bytes, ri.clones[0].dir[d].bytes) << d;
  }
  EXPECT_EQ(ro.clones[0].dir[0].ios + ro.clones[0].dir[1].ios, 512u);
}

// Offloaded to the submitter, the file driver's requests still carry the
// hand-over split (slat, clat and lat for every I/O), the written blocks
// verify, and fsync= and end_fsync flushes go through the submitter too.
TEST(Runner, OffloadSplitsLatencyVerifiesAndFlushes) {
  if (!FileDriverAvailable()) GTEST_SKIP() << "file driver not built in";
  char path[] = "/tmp/bboffloadXXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  auto jobs = ParseJobs({"--name=w", "--ioengine=libaio", "--direct=1",
                         std::string("--filename=") + path,
                         "--rw=randwrite", "--bs=4k", "--size=1m", "--verify=crc32c",
                         "--iodepth=8", "--fsync=16", "--end_fsync=1",
                         "--io_submit_mode=offload"});
  RunResult r = RunJobs(jobs);
  unlink(path);
  ASSERT_FALSE(r.failed()) << r.clones[0].error_message;
  const CloneResult& c = r.clones[0];
  EXPECT_EQ(c.dir[1].ios, 256u);
  EXPECT_EQ(c.verified, 256u);
  EXPECT_EQ(c.verify_errors, 0u);
  EXPECT_EQ(c.dir[1].slat.count(), 256u);
  EXPECT_EQ(c.dir[1].clat.count(), 256u);
  EXPECT_EQ(c.dir[1].lat.count(), 256u);
  EXPECT_EQ(c.syncs, 15u);  // after every 16th write but the last, as inline
}

// The gaps of at least `min_ns` between consecutive issues: the indexes of
// the I/Os issued after them.
std::vector<size_t> PausesBefore(const Recorded& rec, int64_t min_ns) {
  std::vector<size_t> at;
  for (size_t i = 1; i < rec.when.size(); i++)
    if (rec.when[i] - rec.when[i - 1] >= min_ns) at.push_back(i);
  return at;
}

// The thinktime decisions (blocks issued or completed, iotime) are
// features/think_time_test's; here the pauses of whole runs.
// thinktime_iotime: a pause every iotime + thinktime from the start (no
// blocks count without thinktime_blocks); rate_ignore_thinktime: the rate
// goes on after a pause instead of catching up (fio 3.33, same jobs: 902
// and 699 I/Os).
TEST(Runner, ThinktimeIotimeAndRateIgnoreThinktime) {
  Recorded rec;
  RunResult r = RunRecorded(
      ParseJobs({"--name=t", "--ioengine=null", "--rw=read", "--bs=4k", "--size=1g",
                 "--rate_iops=1000", "--runtime=1", "--time_based", "--thinktime=100ms",
                 "--thinktime_iotime=200ms"}),
      &rec);
  ASSERT_FALSE(r.failed()) << r.clones[0].error_message;
  // Decisions at 300, 600 and 900 ms; the last pause runs into the end.
  const auto p = PausesBefore(rec, 80'000'000);
  EXPECT_EQ(p.size(), 2u);
  // The rate catches up after each pause: about 1000 I/Os, less the last one.
  EXPECT_GT(r.clones[0].dir[0].ios, 750u);
  const auto run = [](const std::string& ignore) {
    return RunJobs(ParseJobs({"--name=t", "--ioengine=null", "--rw=read", "--bs=4k",
                              "--size=1g", "--rate_iops=1000", "--runtime=1", "--time_based",
                              "--thinktime=50ms", "--thinktime_blocks=100",
                              "--rate_ignore_thinktime=" + ignore}));
  };
  RunResult catchup = run("0"), ignore = run("1");
  // Catching up: about 1000; ignoring: 100 I/Os per 150 ms, about 667 (the
  // decisions themselves are think_time_test's).
  EXPECT_GT(catchup.clones[0].dir[0].ios, 750u);
  EXPECT_NEAR(double(ignore.clones[0].dir[0].ios), 667, 667 * 0.25);
  EXPECT_LT(double(ignore.clones[0].dir[0].ios), 0.85 * double(catchup.clones[0].dir[0].ios));
}

// thinktime_spin: the pause is spent on the CPU (here all of it), and the
// clone's CPU time shows it.
TEST(Runner, ThinktimeSpinSpendsThePauseOnTheCpu) {
  Recorded rec;
  RunResult r = RunRecorded(ParseJobs({"--name=t", "--ioengine=null", "--rw=read", "--bs=4k",
                                       "--size=128k", "--thinktime=20ms",
                                       "--thinktime_spin=20ms", "--thinktime_blocks=4"}),
                            &rec);
  ASSERT_FALSE(r.failed()) << r.clones[0].error_message;
  EXPECT_EQ(PausesBefore(rec, 18'000'000).size(), 7u);
  // 8 pauses of 20 ms spun, against the same pauses slept: on a loaded
  // machine the spinning thread may get only part of a CPU, so the bound
  // is loose (an eighth of what it spun, and well above sleeping).
  RunResult slept = RunJobs(ParseJobs({"--name=t", "--ioengine=null", "--rw=read", "--bs=4k",
                                       "--size=128k", "--thinktime=20ms",
                                       "--thinktime_blocks=4"}));
  const double spun_cpu = r.clones[0].usr_s + r.clones[0].sys_s;
  const double slept_cpu = slept.clones[0].usr_s + slept.clones[0].sys_s;
  EXPECT_GT(spun_cpu, 0.02);
  EXPECT_GT(spun_cpu, 4 * slept_cpu) << "slept: " << slept_cpu;
}

}  // namespace
}  // namespace blk::bench
