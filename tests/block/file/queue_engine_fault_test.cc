// QueueEngine's submission error paths, over a FaultQueue (fault_queue.h)
// wrapping a real LibaioQueue or UringQueue on an O_DIRECT file: the
// contract of queue_engine.h / kernel_queue.h, checked request by request.
//   * A partial submission (the kernel took k < n): the rest is sent again.
//   * -EAGAIN with requests in flight: the refused requests wait in the
//     queue and go out after a completion; with nothing in flight (no
//     completion will ever free a slot) the first request fails -EAGAIN.
//   * Any other errno fails the first request of the batch only.
//   * max_inflight reached ("ring full"): the rest waits in the queue.
// Each case: every request completes exactly once, with its data or the
// error the FaultQueue's log says it must have; nothing is sent twice;
// in-flight returns to 0; the counters count what happened.  Plugged
// batches, unplugged immediate submission and bottom-half submission.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

#include <blkstack/block/file/queue_engine.h>
#include <blkstack/block/file/libaio_queue.h>
#include <blkstack/block/file/uring_queue.h>
#include "tests/block/file/fault_queue.h"
#include "tests/block/file/file_test_util.h"
#include <blkstack/util/xorshift.h>

namespace blk::test {
namespace {

constexpr int kBlocks = 1024;

struct Backend {
  const char* name;
  bool uring;
};
void PrintTo(const Backend& b, std::ostream* os) { *os << b.name; }

// What a write puts in byte k of `block` (differs from TempFile::Pattern).
uint8_t Written(uint64_t block, int k) { return uint8_t(block * 29 + uint64_t(k) * 13 + 5); }

struct Op {
  bool write;
  uint64_t block;  // unique per op of a test: the key of the FaultQueue log
};
struct Outcome {
  int completions = 0;
  int64_t res = 0;
};

// One request through QueueEngine, the IoRequest in this frame.
Task<void> Issue(QueueEngine& engine, int fd, Op op, uint8_t* buf, Outcome* out) {
  struct iovec iov = {buf, 4096};
  IoRequest req = op.write ? IoRequest::Write(fd, &iov, 1, op.block * 4096)
                           : IoRequest::Read(fd, &iov, 1, op.block * 4096);
  out->res = co_await engine.submit(req);
  out->completions++;
}

// Ops one after another, each after the previous completed (as a guest's
// queue slot): the next request is issued from the completion path.
Task<void> IssueSeries(QueueEngine& engine, int fd, std::vector<int> ids,
                       const std::vector<Op>* ops, std::vector<AlignedBuffer>* bufs,
                       std::vector<Outcome>* outs) {
  for (int i : ids) {
    co_await Issue(engine, fd, (*ops)[size_t(i)], (*bufs)[size_t(i)].data(), &(*outs)[size_t(i)]);
  }
}

class QueueEngineFaultTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    file_ = std::make_unique<TempFile>(uint64_t(kBlocks) * 4096);
    fd_ = open(file_->path().c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
    ASSERT_GE(fd_, 0) << file_->path() << ": O_DIRECT: " << strerror(errno);
  }
  void TearDown() override {
    engine_.reset();
    if (fd_ >= 0) close(fd_);
  }

  // A fresh QueueEngine over a FaultQueue over the real queue (128 entries).
  void Make(const QueueEngine::Config& cfg) {
    engine_.reset();
    auto real = MakeRealQueue(GetParam().uring);
    ASSERT_TRUE(real.ok()) << real.error().message;
    auto fq = std::make_unique<FaultQueue>(std::move(real.value()));
    fq_ = fq.get();
    engine_ = std::make_unique<QueueEngine>(cfg, std::move(fq));
    engine_->attach(ctx_);
  }

  uint64_t Counter(const std::string& name) const {
    std::vector<DriverCounter> v;
    engine_->counters(&v);
    for (const auto& c : v) {
      if (c.name == name) return c.value;
    }
    return UINT64_MAX;
  }

  // Buffers for `ops`: writes hold Written(block), reads are poisoned.
  void Prepare(const std::vector<Op>& ops) {
    bufs_.clear();
    outs_.assign(ops.size(), Outcome());
    for (const Op& op : ops) {
      AlignedBuffer b(4096);
      for (int k = 0; k < 4096; k++) b.data()[k] = op.write ? Written(op.block, k) : 0xee;
      bufs_.push_back(std::move(b));
    }
  }

  // Runs the loop until every op completed (or 20 s passed: a lost request
  // fails the test instead of hanging it).
  void RunUntilDone(size_t n) {
    bool timed_out = false;
    Timer t(ctx_, [&] { timed_out = true; });
    t.arm_in(20'000'000'000);
    ctx_.run_until([&] {
      if (timed_out) return true;
      for (size_t i = 0; i < n; i++) {
        if (outs_[i].completions == 0) return false;
      }
      return true;
    });
    ASSERT_FALSE(timed_out) << "requests never completed (lost)";
  }

  // Starts every op at once, inside one plug when `plugged`.
  void RunAtOnce(const std::vector<Op>& ops, bool plugged) {
    Prepare(ops);
    if (plugged) engine_->plug();
    for (size_t i = 0; i < ops.size(); i++) {
      SpawnNow(Issue(*engine_, fd_, ops[i], bufs_[i].data(), &outs_[i]));
    }
    if (plugged) engine_->unplug();
    RunUntilDone(ops.size());
  }

  // `workers` coroutines, the w-th issuing ops w, w + workers, ... one
  // after another; started inside one plug when `plugged`.
  void RunSeries(const std::vector<Op>& ops, int workers, bool plugged) {
    Prepare(ops);
    if (plugged) engine_->plug();
    for (int w = 0; w < workers; w++) {
      std::vector<int> ids;
      for (size_t i = size_t(w); i < ops.size(); i += size_t(workers)) ids.push_back(int(i));
      SpawnNow(IssueSeries(*engine_, fd_, ids, &ops, &bufs_, &outs_));
    }
    if (plugged) engine_->unplug();
    RunUntilDone(ops.size());
  }

  // The error each op must have ended with, from the FaultQueue's log: a
  // failed call fails its first request, except -EAGAIN with requests in
  // the kernel (that request waits and goes again).  0: must succeed.
  std::map<uint64_t, int64_t> ExpectedErrors() {
    std::map<uint64_t, int64_t> err;
    for (const FaultQueue::Call& c : fq_->calls()) {
      if (c.result >= 0 || (c.result == -EAGAIN && c.in_kernel > 0)) continue;
      // A request fails once: it is complete then and never sent again.
      EXPECT_TRUE(err.emplace(c.first_offset / 4096, c.result).second)
          << "block " << c.first_offset / 4096 << " failed twice";
    }
    return err;
  }

  // Everything the contract says about a finished run of `ops`.
  void CheckRun(const std::vector<Op>& ops) {
    const std::map<uint64_t, int64_t> err = ExpectedErrors();
    uint64_t failed = 0;
    for (size_t i = 0; i < ops.size(); i++) {
      const Op& op = ops[i];
      SCOPED_TRACE(testing::Message() << "op " << i << (op.write ? " write" : " read")
                                      << " block " << op.block);
      ASSERT_EQ(outs_[i].completions, 1);
      auto e = err.find(op.block);
      const int64_t want = e == err.end() ? 4096 : e->second;
      failed += e != err.end();
      ASSERT_EQ(outs_[i].res, want);
      if (!op.write && want == 4096) {
        for (int k = 0; k < 4096; k += 97) {
          ASSERT_EQ(bufs_[i].data()[k], TempFile::Pattern(op.block * 4096 + uint64_t(k))) << k;
        }
      }
    }
    // The file holds what the successful writes wrote, and the old bytes
    // where a write failed.
    AlignedBuffer r(4096);
    for (const Op& op : ops) {
      if (!op.write) continue;
      ASSERT_EQ(pread(fd_, r.data(), 4096, off_t(op.block * 4096)), 4096);
      const bool ok = !err.count(op.block);
      for (int k = 0; k < 4096; k += 97) {
        ASSERT_EQ(r.data()[k], ok ? Written(op.block, k)
                                  : TempFile::Pattern(op.block * 4096 + uint64_t(k)))
            << "block " << op.block << " byte " << k;
      }
    }
    uint64_t eagain = 0, errors = 0;
    for (const FaultQueue::Call& c : fq_->calls()) {
      eagain += c.result == -EAGAIN;
      errors += c.result < 0 && !(c.result == -EAGAIN && c.in_kernel > 0);
    }
    EXPECT_EQ(fq_->anomalies(), 0u) << "a request sent twice, or a completion of none";
    EXPECT_EQ(fq_->taken() + failed, ops.size()) << "each request taken once or failed once";
    EXPECT_EQ(fq_->fetched(), fq_->taken());
    EXPECT_EQ(engine_->in_flight(), 0);
    EXPECT_EQ(engine_->queued(), 0);
    EXPECT_EQ(Counter("aio_in_flight"), 0u);
    EXPECT_EQ(Counter("aio_submit_calls"), fq_->calls().size());
    EXPECT_EQ(Counter("aio_requests_submitted"), fq_->taken());
    EXPECT_EQ(Counter("aio_eagain"), eagain);
    EXPECT_EQ(Counter("aio_submit_errors"), errors);
    EXPECT_EQ(Counter("aio_resumed_inline") + Counter("aio_resumed_deferred") +
                  Counter("aio_resumed_direct"),
              ops.size())
        << "every request resumed once";
  }

  std::vector<int> CallSizes() const {
    std::vector<int> v;
    for (const auto& c : fq_->calls()) v.push_back(c.n);
    return v;
  }
  std::vector<int> CallResults() const {
    std::vector<int> v;
    for (const auto& c : fq_->calls()) v.push_back(c.result);
    return v;
  }

  AioContext ctx_;
  std::unique_ptr<TempFile> file_;
  int fd_ = -1;
  std::unique_ptr<QueueEngine> engine_;
  FaultQueue* fq_ = nullptr;  // owned by engine_
  std::vector<AlignedBuffer> bufs_;
  std::vector<Outcome> outs_;
};

std::vector<Op> Writes(int n, uint64_t first_block = 0) {
  std::vector<Op> ops;
  for (int i = 0; i < n; i++) ops.push_back({true, first_block + uint64_t(i)});
  return ops;
}

std::vector<Op> Reads(int n, uint64_t first_block = 0) {
  std::vector<Op> ops;
  for (int i = 0; i < n; i++) ops.push_back({false, first_block + uint64_t(i)});
  return ops;
}

// The kernel takes 5, then 1, then 10 of a plugged batch of 32: the rest
// goes out at once in the next call, each request once.
TEST_P(QueueEngineFaultTest, PartialSubmissionSendsTheRestAgain) {
  ASSERT_NO_FATAL_FAILURE(Make({}));
  fq_->push({FaultQueue::Take(5), FaultQueue::Take(1), FaultQueue::Take(10)});
  const auto ops = Writes(32);
  ASSERT_NO_FATAL_FAILURE(RunAtOnce(ops, true));
  ASSERT_NO_FATAL_FAILURE(CheckRun(ops));
  EXPECT_EQ(CallSizes(), (std::vector<int>{32, 27, 26, 16}));
  EXPECT_EQ(CallResults(), (std::vector<int>{5, 1, 10, 16}));
  EXPECT_EQ(Counter("aio_requests_per_submit_1"), 1u);
  EXPECT_EQ(Counter("aio_requests_per_submit_4-7"), 1u);
  EXPECT_EQ(Counter("aio_requests_per_submit_8-15"), 1u);
  EXPECT_EQ(Counter("aio_requests_per_submit_16-31"), 1u);
  EXPECT_EQ(Counter("aio_submit_errors"), 0u);
}

// Unplugged, bottom-half submission: the requests of one loop iteration
// leave together at its end, and a partial submission's rest right after.
TEST_P(QueueEngineFaultTest, PartialSubmissionInBottomHalfMode) {
  QueueEngine::Config cfg;
  cfg.submit_mode = QueueEngine::SubmitMode::kBottomHalf;
  ASSERT_NO_FATAL_FAILURE(Make(cfg));
  fq_->push({FaultQueue::Take(7), FaultQueue::Take(7)});
  const auto ops = Reads(24, 100);
  ASSERT_NO_FATAL_FAILURE(RunAtOnce(ops, false));
  ASSERT_NO_FATAL_FAILURE(CheckRun(ops));
  EXPECT_EQ(CallSizes(), (std::vector<int>{24, 17, 10}));
  EXPECT_EQ(CallResults(), (std::vector<int>{7, 7, 10}));
}

// An errno other than -EAGAIN fails the first request of the batch, which
// is not sent again; the others go out in the next call.
TEST_P(QueueEngineFaultTest, SubmitErrorFailsOnlyTheFirstRequestOfTheBatch) {
  for (int e : {-EIO, -EBUSY, -EINVAL, -EBADF}) {
    SCOPED_TRACE(strerror(-e));
    ASSERT_NO_FATAL_FAILURE(Make({}));
    fq_->push({FaultQueue::Take(4), FaultQueue::Fail(e)});
    const auto ops = Writes(16, 200);
    ASSERT_NO_FATAL_FAILURE(RunAtOnce(ops, true));
    ASSERT_NO_FATAL_FAILURE(CheckRun(ops));
    EXPECT_EQ(CallSizes(), (std::vector<int>{16, 12, 11}));
    EXPECT_EQ(CallResults(), (std::vector<int>{4, e, 11}));
    EXPECT_EQ(outs_[4].res, e);  // the 5th: the first of the failed call
    EXPECT_EQ(Counter("aio_submit_errors"), 1u);
    EXPECT_EQ(Counter("aio_eagain"), 0u);
  }
}

// Unplugged immediate submission: one request per call; the one whose
// submission failed completes right away (its coroutine goes on without
// suspending, or is resumed through the loop), the others are unaffected.
TEST_P(QueueEngineFaultTest, SubmitErrorOnUnpluggedRequests) {
  ASSERT_NO_FATAL_FAILURE(Make({}));
  fq_->push({FaultQueue::Forward(), FaultQueue::Fail(-EIO), FaultQueue::Forward(),
             FaultQueue::Fail(-ENOMEM), FaultQueue::Forward()});
  const auto ops = Writes(8, 300);
  ASSERT_NO_FATAL_FAILURE(RunAtOnce(ops, false));
  ASSERT_NO_FATAL_FAILURE(CheckRun(ops));
  EXPECT_EQ(CallSizes(), std::vector<int>(8, 1));
  EXPECT_EQ(outs_[1].res, -EIO);
  EXPECT_EQ(outs_[3].res, -ENOMEM);
  EXPECT_EQ(Counter("aio_submit_errors"), 2u);
  EXPECT_GE(Counter("aio_resumed_inline"), 2u);
}

// -EAGAIN with requests in the kernel: the refused requests stay queued and
// leave after a completion freed a slot (the next call comes with fewer in
// the kernel), all of them; nothing fails.
TEST_P(QueueEngineFaultTest, EagainWithRequestsInFlightWaitsForACompletion) {
  for (bool peek : {false, true}) {
    SCOPED_TRACE(peek ? "peek after submit" : "no peek");
    QueueEngine::Config cfg;
    cfg.peek_after_submit = peek;
    ASSERT_NO_FATAL_FAILURE(Make(cfg));
    fq_->push({FaultQueue::Take(4), FaultQueue::Fail(-EAGAIN)});
    const auto ops = Writes(16, 400);
    ASSERT_NO_FATAL_FAILURE(RunAtOnce(ops, true));
    ASSERT_NO_FATAL_FAILURE(CheckRun(ops));
    ASSERT_EQ(CallSizes(), (std::vector<int>{16, 12, 12}));
    EXPECT_EQ(CallResults(), (std::vector<int>{4, -EAGAIN, 12}));
    EXPECT_EQ(fq_->calls()[1].in_kernel, 4);
    EXPECT_LT(fq_->calls()[2].in_kernel, 4) << "sent again before any completion";
    EXPECT_EQ(Counter("aio_eagain"), 1u);
    EXPECT_EQ(Counter("aio_submit_errors"), 0u);
  }
}

// -EAGAIN with nothing in the kernel: no completion will free a slot, so
// the first request fails with -EAGAIN (each time), the rest go on.
TEST_P(QueueEngineFaultTest, EagainWithNothingInFlightFailsTheFirstRequest) {
  ASSERT_NO_FATAL_FAILURE(Make({}));
  fq_->push({FaultQueue::Fail(-EAGAIN), FaultQueue::Fail(-EAGAIN)});
  const auto ops = Reads(8, 500);
  ASSERT_NO_FATAL_FAILURE(RunAtOnce(ops, true));
  ASSERT_NO_FATAL_FAILURE(CheckRun(ops));
  EXPECT_EQ(CallSizes(), (std::vector<int>{8, 7, 6}));
  EXPECT_EQ(outs_[0].res, -EAGAIN);
  EXPECT_EQ(outs_[1].res, -EAGAIN);
  EXPECT_EQ(Counter("aio_eagain"), 2u);
  EXPECT_EQ(Counter("aio_submit_errors"), 2u);

  // Unplugged: the lone request fails at once.
  ASSERT_NO_FATAL_FAILURE(Make({}));
  fq_->push(FaultQueue::Fail(-EAGAIN));
  const auto one = Reads(1, 510);
  ASSERT_NO_FATAL_FAILURE(RunAtOnce(one, false));
  ASSERT_NO_FATAL_FAILURE(CheckRun(one));
  EXPECT_EQ(outs_[0].res, -EAGAIN);
}

// max_inflight 4: never more than 4 in the kernel, the rest waits in the
// queue ("ring full") and leaves as completions free slots.
TEST_P(QueueEngineFaultTest, RingFullKeepsTheRestQueued) {
  QueueEngine::Config cfg;
  cfg.max_inflight = 4;
  cfg.peek_after_submit = false;
  ASSERT_NO_FATAL_FAILURE(Make(cfg));
  const auto ops = Writes(64, 600);
  ASSERT_NO_FATAL_FAILURE(RunAtOnce(ops, true));
  ASSERT_NO_FATAL_FAILURE(CheckRun(ops));
  EXPECT_EQ(fq_->max_in_kernel(), 4);
  for (const auto& c : fq_->calls()) EXPECT_LE(c.n + c.in_kernel, 4);
  EXPECT_GE(Counter("aio_ring_full_blocks"), 1u);
  EXPECT_GE(fq_->calls().size(), 16u);
}

// Everything at once, from a seeded random script: partial submissions,
// -EAGAIN (with and without requests in flight), other errnos, a small
// max_inflight, 32 coroutines issuing series of reads and writes whose
// next request comes from the completion path.  Plugged start, unplugged
// immediate, bottom half; with and without peek after submit.
TEST_P(QueueEngineFaultTest, RandomFaultsLoseAndDoubleNothing) {
  struct Variant {
    const char* name;
    bool plugged;
    QueueEngine::SubmitMode mode;
    bool peek;
  };
  const Variant variants[] = {
      {"plugged_peek", true, QueueEngine::SubmitMode::kImmediate, true},
      {"plugged_nopeek", true, QueueEngine::SubmitMode::kImmediate, false},
      {"unplugged_peek", false, QueueEngine::SubmitMode::kImmediate, true},
      {"unplugged_nopeek", false, QueueEngine::SubmitMode::kImmediate, false},
      {"bh", false, QueueEngine::SubmitMode::kBottomHalf, true},
  };
  // Writes to blocks 0..510 (even), reads of blocks 513..1023 (odd).
  std::vector<Op> ops;
  for (int i = 0; i < 512; i++) {
    ops.push_back(i % 2 == 0 ? Op{true, uint64_t(i)} : Op{false, uint64_t(512 + i)});
  }
  uint64_t seed = 1;
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.name);
    QueueEngine::Config cfg;
    cfg.max_batch = 8;
    cfg.max_inflight = 16;
    cfg.submit_mode = v.mode;
    cfg.peek_after_submit = v.peek;
    ASSERT_NO_FATAL_FAILURE(Make(cfg));
    fq_->set_chooser([rng = XorShift64::ForWorker(seed++)](int n, size_t) mutable {
      const uint64_t r = rng.next() % 100;
      if (r < 50) return FaultQueue::Forward();
      if (r < 65) return FaultQueue::Take(1 + int(rng.next() % uint64_t(n)));
      if (r < 80) return FaultQueue::Fail(-EAGAIN);
      if (r < 90) return FaultQueue::Fail(-EIO);
      if (r < 95) return FaultQueue::Fail(-EBUSY);
      return FaultQueue::Fail(-ENOMEM);
    });
    // Restore the file's old bytes where an earlier variant wrote.
    for (int b = 0; b < 512; b += 2) {
      AlignedBuffer p(4096);
      for (int k = 0; k < 4096; k++) p.data()[k] = TempFile::Pattern(uint64_t(b) * 4096 + uint64_t(k));
      ASSERT_EQ(pwrite(fd_, p.data(), 4096, off_t(b) * 4096), 4096);
    }
    ASSERT_NO_FATAL_FAILURE(RunSeries(ops, 32, v.plugged));
    ASSERT_NO_FATAL_FAILURE(CheckRun(ops));
    // The script did reach every path.
    int partial = 0, eagain_wait = 0, eagain_fail = 0, other = 0;
    for (const auto& c : fq_->calls()) {
      partial += c.result > 0 && c.result < c.n;
      eagain_wait += c.result == -EAGAIN && c.in_kernel > 0;
      eagain_fail += c.result == -EAGAIN && c.in_kernel == 0;
      other += c.result < 0 && c.result != -EAGAIN;
    }
    EXPECT_GT(partial, 0);
    EXPECT_GT(eagain_wait, 0);
    EXPECT_GT(other, 0);
    EXPECT_LE(fq_->max_in_kernel(), 16);
    (void)eagain_fail;  // reached or not, depending on timing
  }
}

INSTANTIATE_TEST_SUITE_P(Queues, QueueEngineFaultTest,
                         ::testing::Values(Backend{"libaio", false}, Backend{"io_uring", true}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace blk::test
