// RatePacer (run/pacer.h) with a fake clock: per-direction rates in a
// read/write mix (choose(), fio's rate_ddir), driven through the real
// IoGenerator (run/generator.h) of a parsed job.  Nothing sleeps: a
// simulated clone issues each I/O at its due time, or at once when that is
// past, and spends kIssueNs of host time per I/O; the device takes every
// I/O at once.
#include "tools/block_bench/run/pacer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/tools/block_bench/run/bench_test_util.h"
#include "tools/block_bench/run/generator.h"

namespace blk::bench {
namespace {

using testing::ParseJob;

constexpr int R = int(Dir::kRead);
constexpr int W = int(Dir::kWrite);
constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kIssueNs = 1'000;  // host time per issued I/O

// Asks the pacer at the simulated clock's time.
struct FakeClockChooser final : DirChooser {
  FakeClockChooser(const RatePacer& p, const int64_t& now) : pacer(p), clock(now) {}
  Dir choose(Dir drawn) override { return pacer.choose(drawn, clock); }
  const RatePacer& pacer;
  const int64_t& clock;
};

struct SimRun {
  uint64_t ios[kNumDirs] = {}, bytes[kNumDirs] = {};
  int64_t max_late = 0;    // issue - due, the worst
  uint64_t held = 0;       // I/Os that waited for their due time
};

// `span` ns of a clone of `args` (1 GiB target); `choose`: the pacer picks
// the mix's direction (else the mix alone, as before the per-direction
// choice).  Stops early after `max_ios`.
SimRun Simulate(const std::vector<std::string>& args, int64_t span, bool choose = true,
             uint64_t max_ios = 2'000'000) {
  const JobOptions job = ParseJob(args);
  auto g = IoGenerator::Create(job, uint64_t(1) << 30, 7);
  EXPECT_TRUE(g.ok());
  SimRun r;
  if (!g.ok()) return r;
  g->set_unlimited(true);
  RatePacer pacer(job, 7);
  int64_t now = 0;
  pacer.start(now);
  FakeClockChooser chooser(pacer, now);
  if (choose) g->set_dir_chooser(&chooser);
  for (uint64_t n = 0; n < max_ios; n++) {
    IoUnit u;
    if (!g->next(&u)) break;
    const int64_t due = pacer.due(u);
    const bool held = due > now;
    if (held) now = due;
    if (now >= span) break;
    r.held += held;
    if (due) r.max_late = std::max(r.max_late, now - due);
    r.ios[int(u.dir)]++;
    r.bytes[int(u.dir)] += u.len;
    now += kIssueNs;
  }
  return r;
}

std::vector<std::string> Mix(std::vector<std::string> extra) {
  std::vector<std::string> a = {"--name=x", "--rw=randrw", "--size=1g", "--bs=4k"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// Within 1 % of `want` and never ahead of the schedule (want + 1).
void ExpectRate(uint64_t got, double want, const char* what) {
  EXPECT_LE(double(got), want + 1) << what;
  EXPECT_GE(double(got), 0.99 * want) << what;
}

TEST(RatePacerChoose, FiosRateDdir) {
  const JobOptions job = ParseJob(Mix({"--rate_iops=1000,500"}));  // 1 ms, 2 ms apart
  RatePacer p(job, 1);
  p.start(0);
  IoUnit r, w;
  r.dir = Dir::kRead;
  w.dir = Dir::kWrite;
  r.len = w.len = 4096;
  EXPECT_EQ(p.next_due(Dir::kRead), 0);
  EXPECT_EQ(p.due(r), 0);
  EXPECT_EQ(p.due(w), 0);
  EXPECT_EQ(p.next_due(Dir::kRead), 1'000'000);
  EXPECT_EQ(p.next_due(Dir::kWrite), 2'000'000);
  // The drawn direction when it is due, even if the other is due too.
  EXPECT_EQ(p.choose(Dir::kRead, 2'000'000), Dir::kRead);
  EXPECT_EQ(p.choose(Dir::kWrite, 2'000'000), Dir::kWrite);
  // Drawn ahead of its rate, the other due: the other.
  EXPECT_EQ(p.choose(Dir::kWrite, 1'500'000), Dir::kRead);
  // Both ahead: whichever is due first; the drawn one on a tie.
  EXPECT_EQ(p.choose(Dir::kWrite, 500'000), Dir::kRead);
  EXPECT_EQ(p.choose(Dir::kRead, 500'000), Dir::kRead);
  EXPECT_EQ(p.due(r), 1'000'000);
  EXPECT_EQ(p.next_due(Dir::kRead), 2'000'000);
  EXPECT_EQ(p.choose(Dir::kWrite, 0), Dir::kWrite);
  // choose() reserves nothing.
  EXPECT_EQ(p.next_due(Dir::kWrite), 2'000'000);
}

TEST(RatePacerChoose, ADirectionWithoutALimitIsAlwaysDue) {
  const JobOptions job = ParseJob(Mix({"--rate_iops=,500"}));
  RatePacer p(job, 1);
  p.start(0);
  IoUnit w;
  w.dir = Dir::kWrite;
  w.len = 4096;
  EXPECT_EQ(p.due(w), 0);
  EXPECT_EQ(p.next_due(Dir::kRead), 0);
  EXPECT_EQ(p.choose(Dir::kWrite, 1), Dir::kRead);
  EXPECT_EQ(p.choose(Dir::kRead, 1), Dir::kRead);
}

// The issue's case: a 70/30 mix capped at 8000 reads/s and 3000 writes/s
// gets both rates (fio 3.33: 7998 and 2999 on the null engine), and no I/O
// is later than the one issued just before it.  By the mix alone the reads
// ran at the writes' pace (30 % of the draws at 3000/s: 7000 reads/s) and
// fell further behind their schedule every second.
TEST(RatePacerChoose, EachDirectionMeetsItsRateInAMix) {
  const SimRun r = Simulate(Mix({"--rwmixread=70", "--rate_iops=8000,3000"}), 2 * kSecond);
  ExpectRate(r.ios[R], 16000, "reads");
  ExpectRate(r.ios[W], 6000, "writes");
  EXPECT_LE(r.max_late, kIssueNs);

  const SimRun old = Simulate(Mix({"--rwmixread=70", "--rate_iops=8000,3000"}), 2 * kSecond, false);
  EXPECT_LT(old.ios[R], 0.9 * 16000);
  EXPECT_GT(old.max_late, 100'000'000);  // 0.1 s behind after 2 s
}

TEST(RatePacerChoose, WhicheverDirectionTheMixFavours) {
  // The mix favours reads, the rates writes: each gets its own.
  const SimRun r = Simulate(Mix({"--rwmixread=80", "--rate_iops=1000,3000"}), kSecond);
  ExpectRate(r.ios[R], 1000, "reads");
  ExpectRate(r.ios[W], 3000, "writes");
  EXPECT_LE(r.max_late, kIssueNs);
}

TEST(RatePacerChoose, BytesPerSecondWithBssplit) {
  // rate= counts bytes: 4k/16k halves, 32 MiB/s of reads and 12 MiB/s of
  // writes.
  const SimRun r = Simulate(Mix({"--rwmixread=70", "--rate=32m,12m", "--bssplit=4k/50:16k/50"}),
                         2 * kSecond);
  // Never ahead by more than the last I/O's bytes.
  for (int d : {R, W}) {
    const double want = 2.0 * (d == R ? 32 : 12) * 1048576;
    EXPECT_LE(double(r.bytes[d]), want + 16384) << d;
    EXPECT_GE(double(r.bytes[d]), 0.99 * want) << d;
  }
  EXPECT_LE(r.max_late, kIssueNs);
}

TEST(RatePacerChoose, IopsWithBssplitAreBytesAtTheSmallestSize) {
  // fio 3.33's rate_iops is rate_iops x min_bs bytes per second: with 4k/16k
  // halves (10k on average) 8000,3000 gives 3200 reads/s and 1200 writes/s.
  const SimRun r = Simulate(
      Mix({"--rwmixread=70", "--rate_iops=8000,3000", "--bssplit=4k/50:16k/50"}), 2 * kSecond);
  for (int d : {R, W}) {
    const double want = 2.0 * (d == R ? 8000 : 3000) * 4096;
    EXPECT_LE(double(r.bytes[d]), want + 16384) << d;
    EXPECT_GE(double(r.bytes[d]), 0.99 * want) << d;
  }
  EXPECT_NEAR(double(r.ios[R]), 2 * 3200, 2 * 3200 * 0.05);
  EXPECT_NEAR(double(r.ios[W]), 2 * 1200, 2 * 1200 * 0.05);
}

TEST(RatePacerChoose, RateWinsOverRateIops) {
  // fio's __setup_rate takes rate= when both are given.
  const SimRun r =
      Simulate({"--name=x", "--rw=randread", "--size=1g", "--bs=4k", "--rate=4m", "--rate_iops=100"},
               kSecond);
  ExpectRate(r.ios[R], 1024, "reads");
}

TEST(RatePacerChoose, Poisson) {
  // Exponential gaps with the rate's mean: over 10 s within 1 %, and the
  // direction behind its schedule goes first.
  const SimRun r = Simulate(Mix({"--rwmixread=70", "--rate_iops=8000,3000", "--rate_process=poisson"}),
                         10 * kSecond);
  EXPECT_NEAR(double(r.ios[R]), 80000, 800);
  EXPECT_NEAR(double(r.ios[W]), 30000, 300);
  // Gaps shorter than an issue add up now and then.
  EXPECT_LE(r.max_late, 10 * kIssueNs);
}

TEST(RatePacerChoose, AnUnlimitedDirectionFillsTheRest) {
  // Writes capped, reads not: fio issues reads whenever the writes are
  // ahead of their rate.
  const SimRun r = Simulate(Mix({"--rwmixread=70", "--rate_iops=,3000"}), kSecond);
  ExpectRate(r.ios[W], 3000, "writes");
  EXPECT_GT(r.ios[R], 900'000u);  // the rest of 1 s at 1 us an I/O
}

TEST(RatePacerChoose, OnlyDirectionsTheMixIssues) {
  // rwmixread=100: no writes, however far behind their rate.
  const SimRun r = Simulate(Mix({"--rwmixread=100", "--rate_iops=8000,3000"}), kSecond);
  ExpectRate(r.ios[R], 8000, "reads");
  EXPECT_EQ(r.ios[W], 0u);
}

TEST(RatePacerChoose, OneDirectionKeepsItsSchedule) {
  // Without a mix the chooser is never asked: the n-th read at n / rate.
  const SimRun r = Simulate({"--name=x", "--rw=randread", "--size=1g", "--bs=4k", "--rate_iops=8000"},
                         kSecond);
  EXPECT_EQ(r.ios[R], 8000u);
  EXPECT_EQ(r.held, 7999u);  // every one but the first waited for its time
}

}  // namespace
}  // namespace blk::bench
