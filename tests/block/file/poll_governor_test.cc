// PollGovernor (block/file/poll_governor.h): whether the loop's busy polling
// of the ring pays, driven by scripted wake-ups and completions and a fake
// clock; no loop, no device, no sleeping.  (queue_engine_poll_test checks
// the same windows end to end on a late device.)
#include <blkstack/block/file/poll_governor.h>

#include <gtest/gtest.h>

namespace blk {
namespace {

using Change = PollGovernor::Change;
using Mode = PollGovernor::Mode;
using Wakeup = PollGovernor::Wakeup;

constexpr int kWindow = PollGovernor::kWindow;  // 128

// A clock the test moves by hand; counts how often it was read.
struct FakeClock {
  int64_t now = 1'000'000'000;
  int reads = 0;
  auto fn() {
    return [this] {
      reads++;
      return now;
    };
  }
};

// `n` wake-ups from `src`; the changes asked for, in order (kNone left out)
// and where (1-based index of the wake-up).
struct Changes {
  int withdraw_at = 0;
  int register_at = 0;
  int count = 0;
};
Changes Wake(PollGovernor& g, Wakeup src, int n) {
  Changes c;
  for (int i = 1; i <= n; i++) {
    const Change ch = g.on_wakeup(src);
    if (ch == Change::kNone) continue;
    c.count++;
    if (ch == Change::kWithdraw && !c.withdraw_at) c.withdraw_at = i;
    if (ch == Change::kRegister && !c.register_at) c.register_at = i;
  }
  return c;
}

// A window of eventfd wake-ups only: polling found nothing.
Changes FailingWindows(PollGovernor& g, int windows) {
  return Wake(g, Wakeup::kEventfd, windows * kWindow);
}

TEST(PollGovernorTest, OnIsAlwaysRegisteredAndWorthwhileWithoutReadingTheClock) {
  PollGovernor g(Mode::kOn);
  EXPECT_TRUE(g.attach());
  EXPECT_TRUE(g.registered());
  EXPECT_EQ(FailingWindows(g, 20).count, 0);
  FakeClock clock;
  EXPECT_TRUE(g.worthwhile(1000, 0, clock.fn()));
  EXPECT_EQ(clock.reads, 0);
  EXPECT_TRUE(g.registered());
  EXPECT_EQ(g.declined(), 0u);
}

TEST(PollGovernorTest, OffIsNeverRegistered) {
  PollGovernor g(Mode::kOff);
  EXPECT_FALSE(g.attach());
  EXPECT_FALSE(g.registered());
  EXPECT_EQ(FailingWindows(g, 300).count, 0);
  EXPECT_FALSE(g.registered());
}

TEST(PollGovernorTest, WithdrawnAtTheEndOfTheFirstWindowThatDidNotPay) {
  PollGovernor g(Mode::kAuto);
  ASSERT_TRUE(g.attach());
  const Changes c = FailingWindows(g, 1);
  EXPECT_EQ(c.withdraw_at, kWindow);
  EXPECT_EQ(c.count, 1);
  EXPECT_FALSE(g.registered());
  EXPECT_EQ(g.withdrawals(), 1u);
  EXPECT_EQ(g.retries(), 0u);
}

TEST(PollGovernorTest, AWindowPaysWhenPollingFoundAQuarter) {
  PollGovernor g(Mode::kAuto);
  g.attach();
  // 32 of 128 by polling (a quarter): pays; the eventfd closes the window.
  Wake(g, Wakeup::kPoll, kWindow / 4);
  EXPECT_EQ(Wake(g, Wakeup::kEventfd, kWindow - kWindow / 4).count, 0);
  EXPECT_TRUE(g.registered());
  // 31 of 128: does not.
  Wake(g, Wakeup::kPoll, kWindow / 4 - 1);
  const Changes c = Wake(g, Wakeup::kEventfd, kWindow - kWindow / 4 + 1);
  EXPECT_EQ(c.withdraw_at, kWindow - kWindow / 4 + 1);
  EXPECT_FALSE(g.registered());
}

TEST(PollGovernorTest, OnlyAnEventfdWakeupClosesAWindow) {
  PollGovernor g(Mode::kAuto);
  g.attach();
  Wake(g, Wakeup::kEventfd, kWindow - 10);
  // The window is full, but poll wake-ups never change the registration
  // (they run inside the loop's iteration over its poll handlers).
  EXPECT_EQ(Wake(g, Wakeup::kPoll, 20).count, 0);
  EXPECT_TRUE(g.registered());
  // The next eventfd wake-up closes it: 20 of 139 polled, under a quarter.
  EXPECT_EQ(g.on_wakeup(Wakeup::kEventfd), Change::kWithdraw);
}

TEST(PollGovernorTest, RetriedAfterEightWindowsThenTwiceAsManyWhileItKeepsFailing) {
  PollGovernor g(Mode::kAuto);
  g.attach();
  ASSERT_EQ(FailingWindows(g, 1).withdraw_at, kWindow);
  Changes c = FailingWindows(g, 8);
  EXPECT_EQ(c.register_at, 8 * kWindow);  // exactly the last wake-up
  EXPECT_EQ(c.count, 1);
  EXPECT_TRUE(g.registered());
  EXPECT_EQ(g.retries(), 1u);
  // Fails again: withdrawn after one window, retried after 16.
  ASSERT_EQ(FailingWindows(g, 1).withdraw_at, kWindow);
  c = FailingWindows(g, 16);
  EXPECT_EQ(c.register_at, 16 * kWindow);
  EXPECT_EQ(c.count, 1);
  EXPECT_EQ(g.withdrawals(), 2u);
  EXPECT_EQ(g.retries(), 2u);
}

TEST(PollGovernorTest, TheWaitStopsDoublingAt256Windows) {
  PollGovernor g(Mode::kAuto);
  g.attach();
  for (int wait : {8, 16, 32, 64, 128, 256, 256, 256}) {
    ASSERT_EQ(FailingWindows(g, 1).withdraw_at, kWindow);
    const Changes c = FailingWindows(g, wait);
    ASSERT_EQ(c.register_at, wait * kWindow) << "wait " << wait;
    ASSERT_EQ(c.count, 1);
  }
}

TEST(PollGovernorTest, AWindowThatPaysResetsTheWait) {
  PollGovernor g(Mode::kAuto);
  g.attach();
  FailingWindows(g, 1);
  FailingWindows(g, 8);  // retried; the next wait would be 16
  ASSERT_TRUE(g.registered());
  EXPECT_EQ(Wake(g, Wakeup::kPoll, kWindow).count, 0);  // all found by polling
  EXPECT_EQ(g.on_wakeup(Wakeup::kEventfd), Change::kNone);  // closes it: paid
  ASSERT_EQ(FailingWindows(g, 1).withdraw_at, kWindow);
  EXPECT_EQ(FailingWindows(g, 8).register_at, 8 * kWindow);
}

TEST(PollGovernorTest, AttachStartsANewWindow) {
  PollGovernor g(Mode::kAuto);
  g.attach();
  Wake(g, Wakeup::kEventfd, kWindow - 1);
  g.detach();
  EXPECT_FALSE(g.registered());
  EXPECT_TRUE(g.attach());
  // Counted from zero again: not withdrawn at the first wake-up.
  EXPECT_EQ(FailingWindows(g, 1).withdraw_at, kWindow);
}

// Makes the pace known: 256 completions 10 us apart while busy.
void LearnPace(PollGovernor& g, FakeClock& clock, int64_t interval_ns) {
  ASSERT_TRUE(g.worthwhile(1, 1'000'000'000, clock.fn()));  // first busy sample
  g.completed(int(CompletionPace::kWindow));
  clock.now += int64_t(CompletionPace::kWindow) * interval_ns;
  g.worthwhile(1, 1'000'000'000, clock.fn());
  ASSERT_EQ(g.pace_ns(), interval_ns);
}

TEST(PollGovernorTest, WorthwhileWhileTheQueueDrainsWithinThePollWindow) {
  PollGovernor g(Mode::kAuto);
  g.attach();
  FakeClock clock;
  // Unknown pace: worthwhile.
  EXPECT_TRUE(g.worthwhile(32, 32768, clock.fn()));
  EXPECT_EQ(clock.reads, 1);
  LearnPace(g, clock, 10'000);
  EXPECT_TRUE(g.worthwhile(3, 32768, clock.fn()));    // 30 us <= 32.768 us
  EXPECT_FALSE(g.worthwhile(4, 32768, clock.fn()));   // 40 us
  EXPECT_FALSE(g.worthwhile(32, 32768, clock.fn()));
  EXPECT_EQ(g.declined(), 2u);
  // Nothing in flight: nothing to spin for, and the clock is not read.
  const int reads = clock.reads;
  EXPECT_FALSE(g.worthwhile(0, 32768, clock.fn()));
  EXPECT_EQ(clock.reads, reads);
}

TEST(PollGovernorTest, TimeWithNothingInFlightIsNotTheDevicesPace) {
  FakeClock clock;
  PollGovernor idle(Mode::kAuto), busy(Mode::kAuto);
  idle.attach();
  busy.attach();
  for (PollGovernor* g : {&idle, &busy}) g->worthwhile(1, 32768, clock.fn());
  idle.worthwhile(0, 32768, clock.fn());  // the queue ran empty: a pause
  clock.now += 1'000'000'000;             // one second later
  for (PollGovernor* g : {&idle, &busy}) {
    g->completed(int(CompletionPace::kWindow));
    g->worthwhile(1, 32768, clock.fn());
  }
  EXPECT_EQ(idle.pace_ns(), 0);  // the span held the pause: not sampled
  EXPECT_EQ(busy.pace_ns(), 1'000'000'000 / int64_t(CompletionPace::kWindow));
}

TEST(PollGovernorTest, EventfdWakeupsAfterADeclinedSleepDoNotCount) {
  PollGovernor g(Mode::kAuto);
  g.attach();
  FakeClock clock;
  LearnPace(g, clock, 10'000);
  ASSERT_FALSE(g.worthwhile(32, 32768, clock.fn()));  // the loop sleeps
  // Whatever the eventfd brings now says nothing about polling.
  EXPECT_EQ(FailingWindows(g, 3).count, 0);
  EXPECT_TRUE(g.registered());
  // A shallow queue again: polling is worthwhile, wake-ups count.
  ASSERT_TRUE(g.worthwhile(1, 32768, clock.fn()));
  EXPECT_EQ(FailingWindows(g, 1).withdraw_at, kWindow);
}

TEST(PollGovernorTest, RegisteringAgainForgetsTheSpanSpentWithdrawn) {
  PollGovernor g(Mode::kAuto);
  g.attach();
  FakeClock clock;
  ASSERT_TRUE(g.worthwhile(1, 32768, clock.fn()));  // busy sample at t0
  ASSERT_EQ(FailingWindows(g, 1).withdraw_at, kWindow);
  // Withdrawn: the loop asks nothing; completions go on; 10 s pass.
  g.completed(int(CompletionPace::kWindow));
  clock.now += 10'000'000'000;
  ASSERT_EQ(FailingWindows(g, 8).register_at, 8 * kWindow);
  // Had the span since t0 been sampled the pace would be 39 ms per
  // completion and polling declined.
  EXPECT_TRUE(g.worthwhile(1, 32768, clock.fn()));
  EXPECT_EQ(g.pace_ns(), 0);
}

}  // namespace
}  // namespace blk
