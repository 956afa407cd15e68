// LoopFixture: a SubmitLoop with every part it works with
// (SubmitLoop::Parts), over a scripted source and a real graph, for the
// tests of the loop and of the features that take one (test-only).
//
// The graph is the null driver (OpenBackend "driver=null,size=..."), or a
// HoldDriver (scripted completions, hold_driver.h).  The timeline starts
// at 0 with no ramp and no end: every I/O is measured.  Nothing here
// sleeps: the null driver completes in the next loop iteration, and the
// tests give no rate, trace times or think time to wait for.
//
// Thread-safety: the test's thread, which owns the loop.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <blkstack/block/backend.h>
#include <blkstack/block/node.h>
#include <blkstack/block/registry.h>
#include "tests/tools/block_bench/run/hold_driver.h"
#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/clone_files.h"
#include "tools/block_bench/run/clone_source.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/clone_stats.h"
#include "tools/block_bench/run/pacing.h"
#include "tools/block_bench/run/result.h"
#include "tools/block_bench/run/runner.h"
#include "tools/block_bench/run/sampler.h"
#include "tools/block_bench/run/slot_pool.h"
#include "tools/block_bench/run/source.h"
#include "tools/block_bench/run/submit_loop.h"
#include "tools/block_bench/run/trace_source.h"
#include <blkstack/util/aio_context.h>
#include <blkstack/util/task.h>

namespace blk::bench::testing {

inline IoUnit Io(Dir d, uint64_t offset, uint64_t len = 4096, uint32_t file = 0) {
  IoUnit u;
  u.dir = d;
  u.offset = offset;
  u.len = len;
  u.file = file;
  return u;
}
inline IoUnit Read(uint64_t offset, uint64_t len = 4096, uint32_t file = 0) {
  return Io(Dir::kRead, offset, len, file);
}
inline IoUnit Write(uint64_t offset, uint64_t len = 4096, uint32_t file = 0) {
  return Io(Dir::kWrite, offset, len, file);
}

// An IoSource handing out a fixed list of I/Os, in order.  has_dir(): the
// directions of the list, plus those add_dir() names.  resume(): true once
// for each list resume_with() queued, which it then hands out.
class ScriptedSource final : public IoSource {
 public:
  explicit ScriptedSource(std::vector<IoUnit> ios = {}) : ios_(std::move(ios)) {}
  bool next(IoUnit* u) override {
    if (next_ >= ios_.size()) return false;
    *u = ios_[next_++];
    return true;
  }
  bool has_dir(Dir d) const override {
    if (extra_[int(d)]) return true;
    return std::any_of(ios_.begin(), ios_.end(), [d](const IoUnit& u) { return u.dir == d; });
  }
  uint64_t max_bs() const override {
    uint64_t m = 4096;
    for (const IoUnit& u : ios_) m = std::max(m, u.len);
    return m;
  }
  uint64_t io_limit() const override { return 0; }
  void note_other_io(uint64_t len) override { other_bytes += len; }
  bool resume() override {
    resume_asked++;
    if (more_.empty()) return false;
    for (const IoUnit& u : more_.front()) ios_.push_back(u);
    more_.erase(more_.begin());
    return true;
  }

  void resume_with(std::vector<IoUnit> more) { more_.push_back(std::move(more)); }
  void add_dir(Dir d) { extra_[int(d)] = true; }
  void add(const IoUnit& u) { ios_.push_back(u); }
  // How many next() handed out.
  size_t taken() const { return next_; }
  const std::vector<IoUnit>& ios() const { return ios_; }

 private:
  std::vector<IoUnit> ios_;
  std::vector<std::vector<IoUnit>> more_;
  size_t next_ = 0;
  bool extra_[kNumDirs] = {};

 public:
  uint64_t other_bytes = 0;  // what note_other_io() counted
  int resume_asked = 0;
};

class LoopFixture {
 public:
  explicit LoopFixture(const JobOptions& j, std::vector<IoUnit> ios = {})
      : job(j),
        errors(&res, job.continue_on_error),
        stats(job, &res, &live),
        pacing(job, /*seed=*/1, time, sleeps, &res.schedule),
        source(std::move(ios)),
        sampler(job, &res, time, stats, source),
        files(job, &res, opts, &traces, &setup) {
    res.job = &job;
    res.seed = 1;
    opts.messages = nullptr;
  }
  ~LoopFixture() {
    // A test that failed half-way: end the loop before its parts go.
    if (started_ && !done) {
      errors.stop();
      loop->kick();
      for (int i = 0; i < 1000 && !done; i++) {
        release_held();
        Settle(ctx);
      }
    }
    release_held();
    Settle(ctx);
    loop.reset();
    blk::RunSync(ctx, files.close());
  }
  LoopFixture(const LoopFixture&) = delete;
  LoopFixture& operator=(const LoopFixture&) = delete;

  // The null driver as the next file, `size` bytes.
  void open_null(uint64_t size = 1 << 20) {
    auto b = OpenBackend(ctx, "driver=null,size=" + std::to_string(size));
    ASSERT_TRUE(b.ok()) << b.error().message;
    add_file("null" + std::to_string(files.size()), std::move(*b));
  }
  // A HoldDriver as the next file (`hold` points at it).
  void open_hold(uint64_t size = 1 << 20) {
    auto d = std::make_unique<HoldDriver>(size);
    hold = d.get();
    auto node = std::make_unique<BlockNode>(std::move(d), "hold", false);
    add_file("hold" + std::to_string(files.size()),
             std::make_unique<BlockBackend>(ctx, std::move(node)));
  }
  // The slots (one per request of the queue's depth) and the loop.
  SubmitLoop& make_loop() {
    shape = QueueShapeOf(job, nullptr);
    EXPECT_TRUE(slots.allocate(shape.depth, source.max_bs(), nullptr).ok());
    SubmitLoop::Parts parts{job, &res, opts, time, errors, stats, slots, pacing, sampler, files};
    loop = std::make_unique<SubmitLoop>(parts, shape, source, ctx);
    return *loop;
  }
  // run() to its end.
  void run() { blk::RunSync(ctx, loop->run()); }
  // With a HoldDriver, after start(): completes the oldest request held,
  // one at a time, until run() returned; false if it is stuck (nothing
  // held and not done).
  bool complete_in_order() {
    while (!done) {
      if (!hold->complete_oldest()) return false;
      Settle(ctx);
    }
    return true;
  }
  // run() started on the loop and settled; `done` says when it returned.
  void start() {
    started_ = true;
    Spawn(ctx, RunTo(*loop, &done));
    Settle(ctx);
  }

  AioContext ctx;
  JobOptions job;
  CloneResult res;
  LiveCounters live;
  RunOptions opts;
  Timeline time;
  CloneErrors errors;
  CloneStats stats;
  SlotPool slots;
  SleepGroup sleeps;
  Pacing pacing;
  ScriptedSource source;
  Sampler sampler;
  TraceCache traces;
  std::mutex setup;
  CloneFiles files;
  QueueShape shape;
  std::unique_ptr<SubmitLoop> loop;
  HoldDriver* hold = nullptr;
  bool done = false;

 private:
  static Task<void> RunTo(SubmitLoop& l, bool* done) {
    co_await l.run();
    *done = true;
  }
  void release_held() {
    if (!hold) return;
    while (hold->complete_oldest()) {
    }
  }
  void add_file(std::string name, std::unique_ptr<BlockBackend> b) {
    CloneFiles::File f;
    f.target.spec = name;
    f.target.display = name;
    f.blk = std::move(b);
    files.files().push_back(std::move(f));
  }
  bool started_ = false;
};

}  // namespace blk::bench::testing
