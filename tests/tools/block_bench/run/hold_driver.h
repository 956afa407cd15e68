// HoldDriver: a block driver for the submit loop's tests (a test seam, not a
// product driver) whose requests wait until the test completes them: scripted
// completions, in the order, at the moments and with the status the test
// picks.
//
// Every read, write, flush and discard that reaches it is logged (Held) and
// suspends.  complete(i, st) resumes request i through the loop's ready
// queue (never inside the call), so the test then runs the loop (Settle) to
// let the submitter react.  A device in RAM: a write completed successfully
// lands then, a read completed successfully returns what is there then, a
// discard zeroes its range (a failed request changes nothing).
//
// Thread-safety: the loop thread only.
#pragma once

#include <coroutine>
#include <cstdint>
#include <deque>
#include <cstring>
#include <string_view>
#include <vector>

#include <blkstack/block/driver.h>
#include <blkstack/util/aio_context.h>
#include <blkstack/util/result.h>
#include <blkstack/util/task.h>

namespace blk::bench::testing {

// Runs the loop until nothing is ready: every completion, wake-up and
// coroutine that can run now has run.  Never blocks.
inline void Settle(AioContext& ctx) {
  while (ctx.run_once(false)) {
  }
}

class HoldDriver final : public BlockDriver {
 public:
  struct Held {
    char kind;  // 'r', 'w', 'f' (flush), 'd' (discard)
    uint64_t offset, bytes;
    bool done;
    Status st;
    std::coroutine_handle<> h;
    const IoVec* iov;  // reads and writes: the request's buffer
  };

  explicit HoldDriver(uint64_t size) : data_(size, 0) {}

  std::string_view name() const override { return "hold"; }
  uint64_t length() const override { return data_.size(); }
  Capabilities caps() const override {
    Capabilities c;
    c.fua = true;
    c.discard = true;
    c.write_zeroes = true;
    return c;
  }
  void attach_aio_context(AioContext& ctx) override { ctx_ = &ctx; }
  void detach_aio_context() override { ctx_ = nullptr; }
  void plug() override { plugs++; }
  void unplug() override {
    unplugs++;
    arrived_at_unplug.push_back(reqs_.size());
  }

  Task<Status> co_preadv(uint64_t offset, uint64_t bytes, const IoVec& iov, uint32_t) override {
    const Status st = co_await Hold{this, 'r', offset, bytes, &iov};
    if (st.ok()) iov.copy_from(0, data_.data() + offset, bytes);
    co_return st;
  }
  Task<Status> co_pwritev(uint64_t offset, uint64_t bytes, const IoVec& iov, uint32_t) override {
    const Status st = co_await Hold{this, 'w', offset, bytes, &iov};
    if (st.ok()) iov.copy_to(0, data_.data() + offset, bytes);
    co_return st;
  }
  Task<Status> co_flush() override {
    const Status st = co_await Hold{this, 'f', 0, 0, nullptr};
    co_return st;
  }
  Task<Status> co_pdiscard(uint64_t offset, uint64_t bytes) override {
    const Status st = co_await Hold{this, 'd', offset, bytes, nullptr};
    if (st.ok()) std::memset(data_.data() + offset, 0, bytes);
    co_return st;
  }

  // The device's bytes.
  std::vector<uint8_t>& data() { return data_; }

  // plug()/unplug() calls, and how many requests had arrived at each unplug.
  int plugs = 0, unplugs = 0;
  std::vector<size_t> arrived_at_unplug;

  // Requests that reached the driver, in arrival order.
  size_t arrived() const { return reqs_.size(); }
  const Held& request(size_t i) const { return reqs_[i]; }
  // Requests not completed yet.
  size_t held() const {
    size_t n = 0;
    for (const Held& r : reqs_) n += !r.done;
    return n;
  }
  // Completes request i with `st`.  REQUIRES: i < arrived(), not done.
  void complete(size_t i, Status st = Status()) {
    Held& r = reqs_[i];
    r.done = true;
    r.st = st;
    ctx_->defer(r.h);
  }
  // Completes the oldest request still held; false when none is.
  bool complete_oldest(Status st = Status()) {
    for (size_t i = 0; i < reqs_.size(); i++) {
      if (reqs_[i].done) continue;
      complete(i, st);
      return true;
    }
    return false;
  }

 private:
  struct Hold {
    HoldDriver* d;
    char kind;
    uint64_t offset, bytes;
    const IoVec* iov;
    size_t index = 0;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) {
      index = d->reqs_.size();
      d->reqs_.push_back(Held{kind, offset, bytes, false, Status(), h, iov});
    }
    Status await_resume() const noexcept { return d->reqs_[index].st; }
  };

  std::vector<uint8_t> data_;
  AioContext* ctx_ = nullptr;
  std::deque<Held> reqs_;
};

}  // namespace blk::bench::testing
