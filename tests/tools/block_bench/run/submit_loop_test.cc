// SubmitLoop (run/submit_loop.h) on a real loop: over the real null driver
// (every request completes in the next loop iteration), and over HoldDriver
// (hold_driver.h) where the test completes each request itself.  A
// recording SubmitHook checks the points of hook.h: their order, their
// counts, turns that inject or hold I/O back; and the loop's own rules: the
// depth (and a hook's cap), the refill point, stopping, errors, the
// buckets.  Nothing sleeps: no I/O here has a due time.
#include "tools/block_bench/run/submit_loop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <coroutine>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/tools/block_bench/run/bench_test_util.h"
#include "tests/tools/block_bench/run/hold_driver.h"
#include "tests/tools/block_bench/run/loop_fixture.h"
#include "tools/block_bench/run/clone_source.h"

namespace blk::bench {
namespace {

using testing::HoldDriver;
using testing::LoopFixture;
using testing::Read;
using testing::Settle;
using testing::Write;

enum class P { kBeforeFetch, kBeforeIssue, kOnIssue, kAfterIssue, kOnComplete, kOnRetire, kTurn };

struct Event {
  P p;
  int hook = 0;
  uint64_t offset = 0;  // on_issue, on_complete
  uint32_t slot = 0;    // on_issue, on_complete, on_retire
  friend bool operator==(const Event&, const Event&) = default;
};

// Logs every point it is called at; subclasses answer true where a test
// wants a turn.
class Recorder : public SubmitHook {
 public:
  explicit Recorder(std::vector<Event>* log, int id = 0) : log_(log), id_(id) {}
  unsigned points() const override {
    return kBeforeFetch | kBeforeIssue | kOnIssue | kAfterIssue | kOnComplete | kOnRetire;
  }
  bool before_fetch(SubmitLoop& l) override {
    log_->push_back({P::kBeforeFetch, id_});
    return want_fetch_turn(l);
  }
  bool before_issue(SubmitLoop& l) override {
    log_->push_back({P::kBeforeIssue, id_});
    return want_issue_turn(l);
  }
  void on_issue(const IssuedIo& io) override {
    log_->push_back({P::kOnIssue, id_, io.u.offset, io.slot});
    issued.push_back(io.u);
    if (loop) max_inflight = std::max(max_inflight, loop->inflight());
  }
  bool after_issue(SubmitLoop&, int64_t) override {
    log_->push_back({P::kAfterIssue, id_});
    return false;
  }
  void on_complete(const DoneIo& io) override {
    log_->push_back({P::kOnComplete, id_, io.u.offset, io.slot});
    completed.push_back(io.u);
    statuses.push_back(io.st);
  }
  void on_retire(uint32_t slot) override {
    log_->push_back({P::kOnRetire, id_, 0, slot});
    retired++;
  }

  SubmitLoop* loop = nullptr;
  std::vector<IoUnit> issued, completed;
  std::vector<Status> statuses;
  uint32_t max_inflight = 0;
  int retired = 0;

 protected:
  virtual bool want_fetch_turn(SubmitLoop&) { return false; }
  virtual bool want_issue_turn(SubmitLoop&) { return false; }
  std::vector<Event>* log_;
  int id_;
};

JobOptions NullJob(uint32_t depth) {
  JobOptions j;
  j.name = "t";
  j.ioengine = IoEngine::kNull;
  j.iodepth = depth;
  return j;
}

std::vector<IoUnit> Mixed(int n) {
  std::vector<IoUnit> v;
  for (int i = 0; i < n; i++) v.push_back(i % 3 == 2 ? Write(uint64_t(i) * 4096) : Read(uint64_t(i) * 4096));
  return v;
}

std::vector<uint64_t> Offsets(const std::vector<IoUnit>& v) {
  std::vector<uint64_t> o;
  for (const IoUnit& u : v) o.push_back(u.offset);
  return o;
}

// ---- the null driver ----------------------------------------------------

TEST(SubmitLoop, EverySourceIoIsIssuedAndCompletedOnceInOrder) {
  LoopFixture fx(NullJob(4), Mixed(30));
  fx.open_null();
  SubmitLoop& loop = fx.make_loop();
  std::vector<Event> log;
  Recorder r(&log);
  r.loop = &loop;
  loop.add_hook(&r);
  fx.run();

  EXPECT_EQ(Offsets(r.issued), Offsets(fx.source.ios()));
  ASSERT_EQ(r.completed.size(), 30u);
  EXPECT_EQ(r.retired, 30);
  std::vector<uint64_t> done = Offsets(r.completed);
  std::sort(done.begin(), done.end());
  EXPECT_EQ(done, Offsets(fx.source.ios()));
  for (const Status& st : r.statuses) EXPECT_TRUE(st.ok());
  EXPECT_EQ(loop.inflight(), 0u);
  // 20 reads and 10 writes of 4 KiB, all measured (no ramp).
  EXPECT_EQ(fx.res.dir[int(Dir::kRead)].ios, 20u);
  EXPECT_EQ(fx.res.dir[int(Dir::kRead)].bytes, 20u * 4096);
  EXPECT_EQ(fx.res.dir[int(Dir::kWrite)].ios, 10u);
  EXPECT_EQ(fx.res.dir[int(Dir::kWrite)].bytes, 10u * 4096);
  EXPECT_EQ(fx.res.error, 0);
  EXPECT_TRUE(fx.time.measuring);
  EXPECT_NE(fx.res.first_io_ns, 0);
}

TEST(SubmitLoop, PointsComeInTheDocumentedOrder) {
  LoopFixture fx(NullJob(2), Mixed(12));
  fx.open_null();
  SubmitLoop& loop = fx.make_loop();
  std::vector<Event> log;
  Recorder r(&log);
  loop.add_hook(&r);
  fx.run();

  int issues = 0;
  for (size_t i = 0; i < log.size(); i++) {
    const Event& e = log[i];
    if (e.p == P::kBeforeIssue) {
      // A round: before_fetch, (the I/O fetched and due, room) before_issue,
      // on_issue, after_issue, with nothing in between.
      ASSERT_GE(i, 1u);
      EXPECT_EQ(log[i - 1].p, P::kBeforeFetch) << "event " << i;
      ASSERT_LT(i + 2, log.size());
      EXPECT_EQ(log[i + 1].p, P::kOnIssue) << "event " << i;
      EXPECT_EQ(log[i + 2].p, P::kAfterIssue) << "event " << i;
      issues++;
    }
    if (e.p == P::kOnComplete) {
      // The slot is given back right after the request was accounted.
      ASSERT_LT(i + 1, log.size());
      EXPECT_EQ(log[i + 1], (Event{P::kOnRetire, 0, 0, e.slot})) << "event " << i;
      // ... and it completes after it was issued from that slot.
      auto issued = std::find_if(log.begin(), log.begin() + i, [&](const Event& x) {
        return x.p == P::kOnIssue && x.offset == e.offset;
      });
      ASSERT_NE(issued, log.begin() + i) << "completed before issued: " << e.offset;
      EXPECT_EQ(issued->slot, e.slot);
    }
    if (e.p == P::kOnIssue) {
      EXPECT_EQ(log[i - 1].p, P::kBeforeIssue);
    }
  }
  EXPECT_EQ(issues, 12);
}

TEST(SubmitLoop, HooksOfOnePointAreCalledInRegistrationOrder) {
  LoopFixture fx(NullJob(1), Mixed(3));
  fx.open_null();
  SubmitLoop& loop = fx.make_loop();
  std::vector<Event> log;
  Recorder a(&log, 1), b(&log, 2);
  loop.add_hook(&a);
  loop.add_hook(&b);
  fx.run();
  ASSERT_FALSE(log.empty());
  ASSERT_EQ(log.size() % 2, 0u);
  for (size_t i = 0; i + 1 < log.size(); i += 2) {
    EXPECT_EQ(log[i].p, log[i + 1].p) << "event " << i;
    EXPECT_EQ(log[i].hook, 1);
    EXPECT_EQ(log[i + 1].hook, 2);
  }
}

// Only the points a hook names are called.
TEST(SubmitLoop, AHookIsCalledOnlyAtItsPoints) {
  struct CompletionsOnly : SubmitHook {
    unsigned points() const override { return kOnComplete; }
    bool before_fetch(SubmitLoop&) override { calls_elsewhere++; return false; }
    bool before_issue(SubmitLoop&) override { calls_elsewhere++; return false; }
    void on_issue(const IssuedIo&) override { calls_elsewhere++; }
    bool after_issue(SubmitLoop&, int64_t) override { calls_elsewhere++; return false; }
    void on_retire(uint32_t) override { calls_elsewhere++; }
    void on_complete(const DoneIo&) override { completions++; }
    int calls_elsewhere = 0, completions = 0;
  } h;
  LoopFixture fx(NullJob(2), Mixed(5));
  fx.open_null();
  fx.make_loop().add_hook(&h);
  fx.run();
  EXPECT_EQ(h.completions, 5);
  EXPECT_EQ(h.calls_elsewhere, 0);
}

// A before_fetch turn that queues an I/O (as verify_backlog and
// trim_backlog do): it goes out before the source's next one.
TEST(SubmitLoop, AnIoInjectedByABeforeFetchTurnGoesOutBeforeTheSourcesNext) {
  class Injector : public Recorder {
   public:
    using Recorder::Recorder;
    Task<bool> turn(SubmitLoop& l) override {
      log_->push_back({P::kTurn});
      l.inject(Write(1 << 19));
      l.inject(Read(1 << 19));
      injected = true;
      co_return true;
    }
    bool injected = false;

   protected:
    // After the third issue, with nothing fetched yet.
    bool want_fetch_turn(SubmitLoop& l) override {
      return !injected && issued.size() == 3 && !l.has_pending();
    }
  };
  LoopFixture fx(NullJob(1), Mixed(6));
  fx.open_null();
  SubmitLoop& loop = fx.make_loop();
  std::vector<Event> log;
  Injector h(&log);
  loop.add_hook(&h);
  fx.run();
  EXPECT_EQ(Offsets(h.issued),
            (std::vector<uint64_t>{0, 4096, 8192, 1 << 19, 1 << 19, 12288, 16384, 20480}));
  EXPECT_EQ(h.issued[3].dir, Dir::kWrite);
  EXPECT_EQ(h.issued[4].dir, Dir::kRead);
  EXPECT_EQ(h.completed.size(), 8u);
  EXPECT_TRUE(loop.injected_empty());
}

// A before_issue turn runs before the I/O that is due: here it lets every
// request complete first, so that I/O goes out alone.
TEST(SubmitLoop, ABeforeIssueTurnHoldsTheIoBack) {
  class Holder : public Recorder {
   public:
    using Recorder::Recorder;
    Task<bool> turn(SubmitLoop& l) override {
      log_->push_back({P::kTurn});
      co_await l.wait_all();
      turns++;
      co_return true;
    }
    int turns = 0;
    size_t completed_at_fifth = 0;
    uint32_t inflight_at_fifth = 0;
    void on_issue(const IssuedIo& io) override {
      Recorder::on_issue(io);
      if (issued.size() == 5) {
        completed_at_fifth = completed.size();
        inflight_at_fifth = loop->inflight();
      }
    }

   protected:
    bool want_issue_turn(SubmitLoop&) override { return issued.size() == 4 && turns == 0; }
  };
  LoopFixture fx(NullJob(8), Mixed(10));
  fx.open_null();
  SubmitLoop& loop = fx.make_loop();
  std::vector<Event> log;
  Holder h(&log);
  h.loop = &loop;
  loop.add_hook(&h);
  fx.run();
  EXPECT_EQ(h.turns, 1);
  // The fifth I/O waited for the four before it: issued with nothing else
  // in flight (inflight() counts itself).
  EXPECT_EQ(h.completed_at_fifth, 4u);
  EXPECT_EQ(h.inflight_at_fifth, 1u);
  // ... and was not lost or doubled.
  EXPECT_EQ(Offsets(h.issued), Offsets(fx.source.ios()));
  // The round started over: before_fetch and before_issue again, then the
  // I/O.
  auto turn = std::find_if(log.begin(), log.end(), [](const Event& e) { return e.p == P::kTurn; });
  ASSERT_NE(turn, log.end());
  auto next_issue = std::find_if(turn, log.end(), [](const Event& e) { return e.p == P::kOnIssue; });
  ASSERT_NE(next_issue, log.end());
  EXPECT_EQ(next_issue->offset, 4u * 4096);
  EXPECT_EQ((next_issue - 1)->p, P::kBeforeIssue);
}

// CloneErrors::stop(): no new I/O; what is in flight completes.
TEST(SubmitLoop, AStopEndsTheLoopAfterTheRequestsInFlight) {
  class Stopper : public Recorder {
   public:
    Stopper(std::vector<Event>* log, CloneErrors* e) : Recorder(log), errors(e) {}
    void on_complete(const DoneIo& io) override {
      Recorder::on_complete(io);
      if (completed.size() == 5) errors->stop();
    }
    CloneErrors* errors;
  };
  for (uint32_t depth : {1u, 4u}) {
    SCOPED_TRACE("iodepth=" + std::to_string(depth));
    LoopFixture fx(NullJob(depth), Mixed(40));
    fx.open_null();
    SubmitLoop& loop = fx.make_loop();
    std::vector<Event> log;
    Stopper h(&log, &fx.errors);
    loop.add_hook(&h);
    fx.run();
    EXPECT_TRUE(fx.errors.stopped());
    // At depth 1 the sixth I/O waits for the fifth's completion, which
    // stops the loop: exactly five go out.
    if (depth == 1) {
      EXPECT_EQ(h.issued.size(), 5u);
    }
    EXPECT_LT(h.issued.size(), 40u);
    EXPECT_LE(h.issued.size(), 5u + depth);
    EXPECT_EQ(h.completed.size(), h.issued.size());
    EXPECT_EQ(loop.inflight(), 0u);
    EXPECT_EQ(fx.res.error, 0);  // a stop is not an error
  }
}

TEST(SubmitLoop, TheDepthCapBoundsTheRequestsInFlight) {
  // The cap moves from 2 to 8 after 20 I/Os (as latency_target's does).
  class Capper : public Recorder {
   public:
    Capper(std::vector<Event>* log, uint32_t* cap) : Recorder(log), cap_(cap) {}
    void on_issue(const IssuedIo& io) override {
      Recorder::on_issue(io);
      const uint32_t n = loop->inflight();
      if (issued.size() <= 20) max_before = std::max(max_before, n);
      else max_after = std::max(max_after, n);
      if (issued.size() == 20) *cap_ = 8;
    }
    uint32_t max_before = 0, max_after = 0;

   private:
    uint32_t* cap_;
  };
  LoopFixture fx(NullJob(8), Mixed(60));
  fx.open_null();
  SubmitLoop& loop = fx.make_loop();
  uint32_t cap = 2;
  loop.set_depth_cap(&cap);
  std::vector<Event> log;
  Capper h(&log, &cap);
  h.loop = &loop;
  loop.add_hook(&h);
  fx.run();
  EXPECT_EQ(h.max_before, 2u);
  EXPECT_EQ(h.max_after, 8u);
  EXPECT_EQ(h.issued.size(), 60u);
}

TEST(SubmitLoop, WithoutACapTheQueueFillsToIodepth) {
  LoopFixture fx(NullJob(6), Mixed(30));
  fx.open_null();
  SubmitLoop& loop = fx.make_loop();
  std::vector<Event> log;
  Recorder r(&log);
  r.loop = &loop;
  loop.add_hook(&r);
  fx.run();
  EXPECT_EQ(r.max_inflight, 6u);
  EXPECT_EQ(loop.depth(), 6u);
}

// res->depth: the depth each I/O was issued at (fio's buckets 1, 2, 4, 8,
// ...); res->submit: one per batch (per I/O at iodepth_batch_submit=1);
// res->complete: one per refill wake-up, by completions seen.
TEST(SubmitLoop, TheBucketsCountDepthsBatchesAndWakeUps) {
  {
    LoopFixture fx(NullJob(1), Mixed(10));
    fx.open_null();
    fx.make_loop();
    fx.run();
    EXPECT_EQ(fx.res.depth[0], 10u);  // always 1 in flight
    EXPECT_EQ(fx.res.submit[BatchBucket(1)], 10u);
    // Every I/O but the first waited for one completion.
    EXPECT_EQ(fx.res.complete[BatchBucket(1)], 9u);
    uint64_t all = 0;
    for (uint64_t c : fx.res.complete) all += c;
    EXPECT_EQ(all, 9u);
  }
  {
    // Four I/Os at depth 4 in one batch of 4: issued at depths 1, 2, 3, 4.
    JobOptions j = NullJob(4);
    j.iodepth_batch_submit = 0;  // the depth
    LoopFixture fx(j, Mixed(4));
    fx.open_null();
    fx.make_loop();
    fx.run();
    EXPECT_EQ(fx.res.depth[DepthBucket(1)], 1u);
    EXPECT_EQ(fx.res.depth[DepthBucket(2)], 1u);
    EXPECT_EQ(fx.res.depth[DepthBucket(4)], 2u);  // 3 and 4: fio's "4" bucket
    uint64_t batches = 0;
    for (uint64_t s : fx.res.submit) batches += s;
    EXPECT_EQ(batches, 1u);
    EXPECT_EQ(fx.res.submit[BatchBucket(4)], 1u);
    uint64_t wakeups = 0;
    for (uint64_t c : fx.res.complete) wakeups += c;
    EXPECT_EQ(wakeups, 0u);  // the queue never filled with more to issue
  }
}

// A trace's flush takes a slot and is accounted as a sync; hooks see no
// on_issue or on_complete for it, but its slot is retired.
TEST(SubmitLoop, AFlushFromTheSourceCountsAsASync) {
  std::vector<IoUnit> ios = {Write(0), Write(4096)};
  IoUnit f;
  f.dir = Dir::kWrite;
  f.flush = true;
  ios.push_back(f);
  ios.push_back(Read(0));
  LoopFixture fx(NullJob(2), ios);
  fx.open_null();
  SubmitLoop& loop = fx.make_loop();
  std::vector<Event> log;
  Recorder r(&log);
  loop.add_hook(&r);
  fx.run();
  EXPECT_EQ(r.issued.size(), 3u);
  EXPECT_EQ(r.completed.size(), 3u);
  EXPECT_EQ(r.retired, 4);
  EXPECT_EQ(fx.res.syncs, 1u);
  EXPECT_EQ(fx.res.sync_lat.count(), 1u);
  EXPECT_EQ(fx.res.dir[int(Dir::kWrite)].ios, 2u);
}

// The next phase (verify's read-back) starts once every request of the
// main phase completed.
TEST(SubmitLoop, TheNextPhaseStartsAfterTheMainPhaseCompleted) {
  class PhaseWatch : public Recorder {
   public:
    PhaseWatch(std::vector<Event>* log, const Timeline* t) : Recorder(log), time(t) {}
    void on_issue(const IssuedIo& io) override {
      Recorder::on_issue(io);
      if (io.u.dir == Dir::kRead && completed_at_first_read < 0) {
        completed_at_first_read = int(completed.size());
        verify_phase_at_first_read = time->verify_phase;
      }
    }
    const Timeline* time;
    int completed_at_first_read = -1;
    bool verify_phase_at_first_read = false;
  };
  LoopFixture fx(NullJob(4), {Write(0), Write(4096), Write(8192)});
  fx.open_null();
  SubmitLoop& loop = fx.make_loop();
  testing::ScriptedSource reads({Read(0), Read(4096)});
  int asked = 0;
  loop.set_next_phase([&]() -> IoSource& {
    asked++;
    return reads;
  });
  std::vector<Event> log;
  PhaseWatch h(&log, &fx.time);
  loop.add_hook(&h);
  fx.run();
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(Offsets(h.issued), (std::vector<uint64_t>{0, 4096, 8192, 0, 4096}));
  EXPECT_EQ(h.completed_at_first_read, 3);
  EXPECT_TRUE(h.verify_phase_at_first_read);
  EXPECT_EQ(h.completed.size(), 5u);
}

// After the read-back that followed the main source's last I/O, the source
// may go on (fio's keep_running after do_verify): the read-back's bytes
// were noted to it, the pass closed, and its new I/O read back in turn.
TEST(SubmitLoop, TheMainSourceMayResumeAfterTheReadBack) {
  LoopFixture fx(NullJob(4), {Write(0), Write(4096)});
  fx.open_null();
  SubmitLoop& loop = fx.make_loop();
  IoUnit again = Write(8192);
  again.pass = 1;
  fx.source.resume_with({again});
  std::vector<std::unique_ptr<testing::ScriptedSource>> phases;
  loop.set_next_phase([&]() -> IoSource& {
    // Each read-back reads what the main phase wrote so far.
    std::vector<IoUnit> reads;
    for (size_t i = 0; i < fx.source.taken(); i++) reads.push_back(Read(fx.source.ios()[i].offset));
    phases.push_back(std::make_unique<testing::ScriptedSource>(reads));
    return *phases.back();
  });
  std::vector<bool> closed;
  loop.set_phase_each_pass([&](bool ran) { closed.push_back(ran); });
  std::vector<Event> log;
  Recorder h(&log);
  loop.add_hook(&h);
  fx.run();
  std::vector<std::pair<Dir, uint64_t>> seen;
  for (const IoUnit& u : h.issued) seen.emplace_back(u.dir, u.offset);
  using D = Dir;
  EXPECT_EQ(seen, (std::vector<std::pair<Dir, uint64_t>>{{D::kWrite, 0}, {D::kWrite, 4096},
                                                         {D::kRead, 0}, {D::kRead, 4096},
                                                         {D::kWrite, 8192}, {D::kRead, 0},
                                                         {D::kRead, 4096}, {D::kRead, 8192}}));
  EXPECT_EQ(phases.size(), 2u);
  EXPECT_EQ(fx.source.resume_asked, 2);
  EXPECT_EQ(fx.source.other_bytes, 5u * 4096);  // both read-backs
  EXPECT_EQ(closed, std::vector<bool>{true});   // the first read-back's pass
  EXPECT_EQ(h.completed.size(), 8u);
}

// Without a read-back the source is asked once it ran out; a stopped loop
// or an ended runtime asks nothing.
TEST(SubmitLoop, ASourceWithoutANextPhaseMayResume) {
  LoopFixture fx(NullJob(2), {Read(0)});
  fx.open_null();
  fx.source.resume_with({Read(4096), Read(8192)});
  SubmitLoop& loop = fx.make_loop();
  std::vector<Event> log;
  Recorder h(&log);
  loop.add_hook(&h);
  fx.run();
  EXPECT_EQ(Offsets(h.issued), (std::vector<uint64_t>{0, 4096, 8192}));
  EXPECT_EQ(fx.source.resume_asked, 2);

  LoopFixture ended(NullJob(2), {Read(0)});
  ended.open_null();
  ended.source.resume_with({Read(4096)});
  ended.make_loop();
  ended.time.end_ns = 0;  // the runtime is over before the first I/O
  ended.run();
  EXPECT_EQ(ended.source.resume_asked, 0);
  EXPECT_EQ(ended.res.dir[int(Dir::kRead)].ios, 0u);
}

// The whole path a clone takes: a parsed job, CloneFiles::open() (the null
// target from ioengine=null), MakeCloneSource, QueueShapeOf.
TEST(SubmitLoop, AParsedNullJobRunsItsWholeSourceThroughCloneFiles) {
  JobOptions job = testing::ParseJob(
      {"--name=e2e", "--ioengine=null", "--size=1m", "--rw=randrw", "--bs=4k", "--iodepth=4"});
  AioContext ctx;
  CloneResult res;
  res.job = &job;
  res.seed = 7;
  LiveCounters live;
  RunOptions opts;
  opts.messages = nullptr;
  TraceCache traces;
  std::mutex setup;
  CloneFiles files(job, &res, opts, &traces, &setup);
  ASSERT_TRUE(files.load_trace().ok());
  auto opened = files.open(ctx, nullptr);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  EXPECT_EQ(files.size(), 1u);
  EXPECT_NE(res.target.find("driver=null"), std::string::npos) << res.target;
  auto cs = MakeCloneSource(job, &res, files, /*rate_paced=*/false);
  ASSERT_TRUE(cs.ok()) << cs.error().message;
  const uint64_t expected_ios = cs->source->io_limit() / 4096;
  ASSERT_EQ(expected_ios, 256u);  // size=1m in 4k blocks
  const QueueShape shape = QueueShapeOf(job, files.trace().get());
  ASSERT_EQ(shape.depth, 4u);

  Timeline time;
  CloneErrors errors(&res, job.continue_on_error);
  CloneStats stats(job, &res, &live);
  SlotPool slots;
  ASSERT_TRUE(slots.allocate(shape.depth, cs->source->max_bs(), nullptr).ok());
  SleepGroup sleeps;
  Pacing pacing(job, res.seed, time, sleeps, &res.schedule);
  Sampler sampler(job, &res, time, stats, *cs->source);
  SubmitLoop::Parts parts{job, &res, opts, time, errors, stats, slots, pacing, sampler, files};
  {
    SubmitLoop loop(parts, shape, *cs->source, ctx);
    std::vector<Event> log;
    Recorder r(&log);
    r.loop = &loop;
    loop.add_hook(&r);
    blk::RunSync(ctx, loop.run());
    EXPECT_EQ(r.issued.size(), expected_ios);
    EXPECT_EQ(r.completed.size(), expected_ios);
    EXPECT_EQ(r.max_inflight, 4u);
    EXPECT_EQ(res.dir[int(Dir::kRead)].ios + res.dir[int(Dir::kWrite)].ios, expected_ios);
    EXPECT_EQ(res.dir[int(Dir::kRead)].bytes + res.dir[int(Dir::kWrite)].bytes, 1u << 20);
    EXPECT_EQ(live.ios[int(Dir::kRead)].load() + live.ios[int(Dir::kWrite)].load(), expected_ios);
  }
  blk::RunSync(ctx, files.close());
}

// ---- scripted completions (HoldDriver) -----------------------------------

// A hook that holds every completed read's slot (hook.h's holds/settle, as
// verify_async does) until the test lets it go.
class Holder : public SubmitHook {
 public:
  explicit Holder(AioContext& ctx) : ctx_(ctx) {}
  unsigned points() const override { return kOnComplete | kSettle | kOnRetire; }
  void on_complete(const DoneIo& io) override {
    if (io.u.dir == Dir::kRead) holding_.push_back(io.slot);
  }
  bool holds(uint32_t slot) override {
    return std::find(holding_.begin(), holding_.end(), slot) != holding_.end();
  }
  Task<void> settle(uint32_t slot) override {
    co_await Gate{this};
    std::erase(holding_, slot);
    settled++;
  }
  void on_retire(uint32_t slot) override { retired.push_back(slot); }
  // Lets the oldest settle() waiting go on; false if none waits.
  bool release_oldest() {
    if (waiting_.empty()) return false;
    ctx_.defer(waiting_.front());
    waiting_.erase(waiting_.begin());
    return true;
  }
  size_t waiting() const { return waiting_.size(); }
  std::vector<uint32_t> retired;
  int settled = 0;

 private:
  struct Gate {
    Holder* h;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> c) const { h->waiting_.push_back(c); }
    void await_resume() const noexcept {}
  };
  AioContext& ctx_;
  std::vector<uint32_t> holding_;
  std::vector<std::coroutine_handle<>> waiting_;
};

TEST(SubmitLoopHeld, AHeldSlotStaysTakenUntilItsHookSettled) {
  LoopFixture fx(NullJob(2), {Read(0), Read(4096), Read(8192), Write(12288)});
  fx.open_hold();
  SubmitLoop& loop = fx.make_loop();
  Holder h(fx.ctx);
  loop.add_hook(&h);
  fx.start();
  HoldDriver& d = *fx.hold;
  EXPECT_EQ(d.arrived(), 2u);
  ASSERT_TRUE(d.complete_oldest());
  ASSERT_TRUE(d.complete_oldest());
  Settle(fx.ctx);
  // Both reads completed (accounted, no longer in flight) but their slots
  // are held: nothing new goes out.
  EXPECT_EQ(loop.inflight(), 0u);
  EXPECT_EQ(loop.held(), 2u);
  EXPECT_EQ(h.waiting(), 2u);
  EXPECT_TRUE(h.retired.empty());
  EXPECT_EQ(fx.res.dir[int(Dir::kRead)].ios, 2u);
  EXPECT_EQ(d.arrived(), 2u);
  // One settles: its slot comes back and the submitter, short of slots,
  // issues into it.
  ASSERT_TRUE(h.release_oldest());
  Settle(fx.ctx);
  EXPECT_EQ(h.retired.size(), 1u);
  EXPECT_EQ(loop.held(), 1u);
  EXPECT_EQ(d.arrived(), 3u);
  ASSERT_TRUE(d.complete_oldest());  // the third read: held too
  Settle(fx.ctx);
  EXPECT_EQ(d.arrived(), 3u);
  ASSERT_TRUE(h.release_oldest());
  Settle(fx.ctx);
  EXPECT_EQ(d.arrived(), 4u);
  ASSERT_TRUE(d.complete_oldest());  // the write: not held
  Settle(fx.ctx);
  // The source is done, but run() waits for the slot still held.
  EXPECT_FALSE(fx.done);
  EXPECT_EQ(loop.held(), 1u);
  ASSERT_TRUE(h.release_oldest());
  Settle(fx.ctx);
  EXPECT_TRUE(fx.done);
  EXPECT_EQ(h.settled, 3);
  EXPECT_EQ(h.retired.size(), 4u);
  EXPECT_EQ(loop.held(), 0u);
  EXPECT_EQ(fx.slots.size(), 2u);
  EXPECT_FALSE(fx.slots.empty());
}

TEST(SubmitLoopHeld, TheQueueRefillsOnlyOnceItFellToIodepthLow) {
  JobOptions j = NullJob(4);
  j.iodepth_low = 1;
  LoopFixture fx(j, Mixed(12));
  fx.open_hold();
  fx.make_loop();
  fx.start();
  HoldDriver& d = *fx.hold;
  EXPECT_EQ(d.arrived(), 4u);
  d.complete_oldest();
  d.complete_oldest();
  Settle(fx.ctx);
  EXPECT_EQ(d.arrived(), 4u) << "refilled at 2 in flight, above iodepth_low=1";
  d.complete_oldest();
  Settle(fx.ctx);
  EXPECT_EQ(d.arrived(), 7u) << "at 1 in flight the queue fills up again";
  EXPECT_EQ(d.held(), 4u);
  while (d.complete_oldest()) Settle(fx.ctx);
  Settle(fx.ctx);
  EXPECT_TRUE(fx.done);
  EXPECT_EQ(d.arrived(), 12u);
}

TEST(SubmitLoopHeld, ARefillWaitsForIodepthBatchCompleteMinCompletions) {
  JobOptions j = NullJob(4);
  j.iodepth_batch_complete_min = 2;
  LoopFixture fx(j, Mixed(8));
  fx.open_hold();
  fx.make_loop();
  fx.start();
  HoldDriver& d = *fx.hold;
  EXPECT_EQ(d.arrived(), 4u);
  d.complete_oldest();
  Settle(fx.ctx);
  EXPECT_EQ(d.arrived(), 4u) << "one completion of the two asked for";
  d.complete_oldest();
  Settle(fx.ctx);
  EXPECT_EQ(d.arrived(), 6u);
  EXPECT_EQ(fx.res.complete[BatchBucket(2)], 1u);
  while (d.complete_oldest()) Settle(fx.ctx);
  Settle(fx.ctx);
  EXPECT_TRUE(fx.done);
}

TEST(SubmitLoopHeld, AFailedReadEndsTheJobWithItsError) {
  LoopFixture fx(NullJob(1), {Read(8192), Read(0), Read(4096)});
  fx.open_hold();
  SubmitLoop& loop = fx.make_loop();
  std::vector<Event> log;
  Recorder r(&log);
  loop.add_hook(&r);
  fx.start();
  fx.hold->complete(0, Status(-EIO));
  Settle(fx.ctx);
  EXPECT_TRUE(fx.done);
  EXPECT_EQ(fx.hold->arrived(), 1u);
  EXPECT_EQ(fx.res.error, EIO);
  EXPECT_NE(fx.res.error_message.find("read error on 'hold0' at offset 8192 length 4096"),
            std::string::npos)
      << fx.res.error_message;
  EXPECT_EQ(fx.res.total_errors, 1u);
  EXPECT_EQ(fx.res.first_error, EIO);
  EXPECT_EQ(fx.res.dir[int(Dir::kRead)].errors, 1u);
  EXPECT_EQ(fx.res.dir[int(Dir::kRead)].ios, 1u);
  EXPECT_EQ(fx.res.dir[int(Dir::kRead)].bytes, 0u);
  // The hooks saw the failed request.
  ASSERT_EQ(r.statuses.size(), 1u);
  EXPECT_EQ(r.statuses[0].error(), -EIO);
}

TEST(SubmitLoopHeld, ContinueOnErrorReadGoesPastAFailedRead) {
  JobOptions j = NullJob(1);
  j.continue_on_error = ContinueOnError::kRead;
  LoopFixture fx(j, {Read(0), Read(4096), Read(8192)});
  fx.open_hold();
  fx.make_loop();
  fx.start();
  fx.hold->complete(0, Status(-EIO));
  Settle(fx.ctx);
  while (fx.hold->complete_oldest()) Settle(fx.ctx);
  Settle(fx.ctx);
  EXPECT_TRUE(fx.done);
  EXPECT_EQ(fx.hold->arrived(), 3u);
  EXPECT_EQ(fx.res.error, 0);
  EXPECT_EQ(fx.res.total_errors, 1u);
  EXPECT_EQ(fx.res.first_error, EIO);
  EXPECT_EQ(fx.res.dir[int(Dir::kRead)].errors, 1u);
  EXPECT_EQ(fx.res.dir[int(Dir::kRead)].bytes, 2u * 4096);
}

TEST(SubmitLoopHeld, RequestsCancelledAtTheEndAreDroppedNotCounted) {
  LoopFixture fx(NullJob(2), {Read(0), Write(4096)});
  fx.open_hold();
  SubmitLoop& loop = fx.make_loop();
  std::vector<Event> log;
  Recorder r(&log);
  loop.add_hook(&r);
  fx.start();
  loop.set_cancelling();
  fx.hold->complete(0, Status(-ECANCELED));
  fx.hold->complete(1, Status(-ECANCELED));
  Settle(fx.ctx);
  EXPECT_TRUE(fx.done);
  EXPECT_EQ(fx.res.dir[int(Dir::kRead)].drop_ios, 1u);
  EXPECT_EQ(fx.res.dir[int(Dir::kWrite)].drop_ios, 1u);
  EXPECT_EQ(fx.res.dir[int(Dir::kRead)].ios, 0u);
  EXPECT_EQ(fx.res.dir[int(Dir::kWrite)].ios, 0u);
  EXPECT_EQ(fx.res.total_errors, 0u);
  EXPECT_EQ(fx.res.error, 0);
  EXPECT_TRUE(r.completed.empty());  // not accounted: no on_complete
  EXPECT_EQ(r.retired, 2);           // but the slots come back
}

// Without set_cancelling(), -ECANCELED is an error like any other.
TEST(SubmitLoopHeld, ECanceledBeforeCancellingIsAnError) {
  LoopFixture fx(NullJob(1), {Read(0), Read(4096)});
  fx.open_hold();
  fx.make_loop();
  fx.start();
  fx.hold->complete(0, Status(-ECANCELED));
  Settle(fx.ctx);
  EXPECT_TRUE(fx.done);
  EXPECT_EQ(fx.res.error, ECANCELED);
  EXPECT_EQ(fx.res.dir[int(Dir::kRead)].drop_ios, 0u);
}

TEST(SubmitLoopHeld, FillDeviceEndsAtEnospcWithoutAnError) {
  JobOptions j = NullJob(1);
  j.fill_device = true;
  LoopFixture fx(j, {Write(0), Write(4096), Write(8192)});
  fx.open_hold();
  SubmitLoop& loop = fx.make_loop();
  std::vector<Event> log;
  Recorder r(&log);
  loop.add_hook(&r);
  fx.start();
  fx.hold->complete(0);
  Settle(fx.ctx);
  fx.hold->complete(1, Status(-ENOSPC));
  Settle(fx.ctx);
  EXPECT_TRUE(fx.done);
  EXPECT_EQ(fx.hold->arrived(), 2u);
  EXPECT_TRUE(fx.res.filled);
  EXPECT_EQ(fx.res.error, 0);
  EXPECT_EQ(fx.res.total_errors, 0u);
  EXPECT_EQ(fx.res.dir[int(Dir::kWrite)].ios, 1u);
  // hook.h: the ENOSPC write is not accounted (no on_complete), but its
  // slot is retired.
  EXPECT_EQ(r.completed.size(), 1u);
  EXPECT_EQ(r.retired, 2);
}

// Requests go out inside one plug/unplug of up to iodepth_batch_submit,
// and unplugged at 1.
TEST(SubmitLoopHeld, BatchesArePluggedOnlyWhenOverOne) {
  {
    JobOptions j = NullJob(8);
    j.iodepth_batch_submit = 4;
    LoopFixture fx(j, Mixed(8));
    fx.open_hold();
    fx.make_loop();
    fx.start();
    EXPECT_EQ(fx.hold->arrived(), 8u);
    EXPECT_EQ(fx.hold->plugs, 2);
    EXPECT_EQ(fx.hold->unplugs, 2);
    EXPECT_EQ(fx.hold->arrived_at_unplug, (std::vector<size_t>{4, 8}));
    EXPECT_EQ(fx.res.submit[BatchBucket(4)], 2u);
    ASSERT_TRUE(fx.complete_in_order());
    EXPECT_EQ(fx.hold->plugs, fx.hold->unplugs);
  }
  {
    LoopFixture fx(NullJob(8), Mixed(8));
    fx.open_hold();
    fx.make_loop();
    fx.start();
    EXPECT_EQ(fx.hold->arrived(), 8u);
    EXPECT_EQ(fx.hold->plugs, 0);
    EXPECT_EQ(fx.res.submit[BatchBucket(1)], 8u);
    ASSERT_TRUE(fx.complete_in_order());
  }
}

// kick(): a stop seen at once by a submitter waiting for room; the requests
// in flight are still waited for.
TEST(SubmitLoopHeld, AKickedStopIsSeenAtOnceAndInFlightRequestsAreWaitedFor) {
  LoopFixture fx(NullJob(4), Mixed(10));
  fx.open_hold();
  SubmitLoop& loop = fx.make_loop();
  fx.start();
  ASSERT_EQ(fx.hold->arrived(), 4u);
  fx.errors.stop();
  loop.kick();
  Settle(fx.ctx);
  EXPECT_FALSE(fx.done) << "four requests still in flight";
  while (fx.hold->complete_oldest()) Settle(fx.ctx);
  Settle(fx.ctx);
  EXPECT_TRUE(fx.done);
  EXPECT_EQ(fx.hold->arrived(), 4u);
  EXPECT_EQ(loop.inflight(), 0u);
}

// Completions in any order: each is accounted on its own slot.
TEST(SubmitLoopHeld, OutOfOrderCompletionsRetireTheirOwnSlots) {
  LoopFixture fx(NullJob(3), {Read(0), Read(4096), Read(8192)});
  fx.open_hold();
  SubmitLoop& loop = fx.make_loop();
  std::vector<Event> log;
  Recorder r(&log);
  loop.add_hook(&r);
  fx.start();
  ASSERT_EQ(r.issued.size(), 3u);
  fx.hold->complete(2);
  Settle(fx.ctx);
  fx.hold->complete(0);
  Settle(fx.ctx);
  fx.hold->complete(1);
  Settle(fx.ctx);
  EXPECT_TRUE(fx.done);
  EXPECT_EQ(Offsets(r.completed), (std::vector<uint64_t>{8192, 0, 4096}));
  // Slots: 0, 1, 2 in issue order (the pool's lowest first).
  std::vector<uint32_t> slot_of_completion;
  for (const Event& e : log)
    if (e.p == P::kOnComplete) slot_of_completion.push_back(e.slot);
  EXPECT_EQ(slot_of_completion, (std::vector<uint32_t>{2, 0, 1}));
}

}  // namespace
}  // namespace blk::bench
