// FaultQueue: a KernelQueue (block/file/kernel_queue.h) that owns a real
// one (LibaioQueue, UringQueue) and forwards to it, with two seams for
// QueueEngine's tests:
//
//   Submission faults.  Each submit() call takes the next scripted Action
//   (FIFO; with the script empty, the chooser function if one is set, else
//   forward):
//     Forward()   reqs[0..n) to the real queue; its result.
//     Fail(-e)    returns -e; nothing reaches the real queue.  Per
//                 kernel_queue.h a negative errno concerns reqs[0] only
//                 (-EAGAIN: no room now, the request waits for completions).
//     Take(k)     forwards reqs[0..min(k, n)) only: the kernel took fewer
//                 than n, and the caller must send the rest again.
//   Every call is logged (Call: n, the action, the result, the requests in
//   the kernel before it, reqs[0]'s offset), so a test can derive what
//   QueueEngine must have done with each request.
//
//   Late completions.  With set_completion_delay(ns), a completion is handed
//   out by fetch() (and reported by ready()) only `ns` after its submission,
//   whenever the real device finished it: a helper thread releases each one
//   at its time and signals the eventfd, as the kernel does when a completion
//   lands.  So the completion arrives while the loop sleeps in epoll_wait,
//   later than any loop iteration, whatever the real device's speed.
//
// It also checks the queue contract on the caller's side: a request taken
// while still in the kernel (sent twice) or a completion of a request the
// kernel does not hold counts in anomalies().
//
// Threading: as KernelQueue (the loop thread), except the release thread,
// which only reads the release schedule (under a mutex), advances the
// release count (atomic) and writes the real queue's eventfd.
#pragma once

#include <sys/eventfd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <blkstack/block/file/kernel_queue.h>
#include <blkstack/block/file/libaio_queue.h>
#include <blkstack/block/file/uring_queue.h>
#include <blkstack/util/result.h>
#include <blkstack/util/clock.h>

namespace blk::test {

class FaultQueue final : public KernelQueue {
 public:
  struct Action {
    enum Kind { kForward, kFail, kTake } kind = kForward;
    int value = 0;  // kFail: the negative errno; kTake: how many at most
  };
  static Action Forward() { return {Action::kForward, 0}; }
  static Action Fail(int neg_errno) { return {Action::kFail, neg_errno}; }
  static Action Take(int k) { return {Action::kTake, k}; }

  // One submit() call as QueueEngine made it.
  struct Call {
    int n;              // requests offered
    Action action;      // what the script did
    int result;         // what submit() returned
    int in_kernel;      // requests in the kernel before the call
    uint64_t first_offset;  // reqs[0]->offset: the request an error concerns
    IoRequest::Op first_op;
  };

  explicit FaultQueue(std::unique_ptr<KernelQueue> real) : real_(std::move(real)) {}
  ~FaultQueue() override {
    if (releaser_.joinable()) {
      {
        std::lock_guard<std::mutex> l(mu_);
        stop_ = true;
      }
      cv_.notify_one();
      releaser_.join();
    }
  }
  FaultQueue(const FaultQueue&) = delete;
  FaultQueue& operator=(const FaultQueue&) = delete;

  // ---- scripting (loop thread) ----
  void push(Action a) { script_.push_back(a); }
  void push(std::initializer_list<Action> as) {
    for (const Action& a : as) script_.push_back(a);
  }
  // Chooses the action of each call once the script is empty: f(n, call).
  void set_chooser(std::function<Action(int n, size_t call)> f) { chooser_ = std::move(f); }
  // Holds every completion back until `ns` after its submission.  Once,
  // before the first submit().
  void set_completion_delay(int64_t ns) {
    delay_ns_ = ns;
    releaser_ = std::thread([this] { release_loop(); });
  }

  // ---- what happened (loop thread) ----
  const std::vector<Call>& calls() const { return calls_; }
  size_t script_left() const { return script_.size(); }
  int in_kernel() const { return int(in_kernel_.size()); }
  int max_in_kernel() const { return max_in_kernel_; }
  uint64_t taken() const { return taken_; }
  uint64_t fetched() const { return fetched_; }
  uint64_t anomalies() const { return anomalies_; }

  // ---- KernelQueue ----
  const char* name() const override { return real_->name(); }
  int event_fd() const override { return real_->event_fd(); }
  int capacity() const override { return real_->capacity(); }

  int submit(IoRequest* const* reqs, int n) override {
    Action a = Forward();
    if (!script_.empty()) {
      a = script_.front();
      script_.pop_front();
    } else if (chooser_) {
      a = chooser_(n, calls_.size());
    }
    Call c{n, a, 0, int(in_kernel_.size()), reqs[0]->offset, reqs[0]->op};
    int ret;
    switch (a.kind) {
      case Action::kFail:
        ret = a.value;
        break;
      case Action::kTake:
        ret = real_->submit(reqs, std::max(1, std::min(a.value, n)));
        break;
      default:
        ret = real_->submit(reqs, n);
        break;
    }
    c.result = ret;
    calls_.push_back(c);
    for (int i = 0; i < ret; i++) took(reqs[i]);
    max_in_kernel_ = std::max(max_in_kernel_, int(in_kernel_.size()));
    return ret;
  }

  int fetch(IoCompletion* out, int max) override {
    if (delay_ns_ == 0) {
      const int n = real_->fetch(out, max);
      for (int i = 0; i < n; i++) completed(out[i].req);
      return n;
    }
    // Everything the device finished goes to held_; out gets what the
    // release thread has released.
    IoCompletion ev[64];
    for (int n; (n = real_->fetch(ev, 64)) > 0;) {
      for (int i = 0; i < n; i++) held_.push_back({ev[i], seq_of(ev[i].req)});
    }
    const uint64_t released = released_.load(std::memory_order_acquire);
    int got = 0;
    for (size_t i = 0; i < held_.size() && got < max;) {
      if (held_[i].seq < released) {
        out[got++] = held_[i].ev;
        completed(held_[i].ev.req);
        held_.erase(held_.begin() + ptrdiff_t(i));
      } else {
        i++;
      }
    }
    return got;
  }

  bool user_space_ring() const override { return real_->user_space_ring(); }

  bool ready() const override {
    if (delay_ns_ == 0) return real_->ready();
    const uint64_t released = released_.load(std::memory_order_acquire);
    for (const Held& h : held_) {
      if (h.seq < released) return true;
    }
    // Not fetched from the device yet, but its time has come.
    return real_->ready() && released > delivered_ + held_released(released);
  }

  void counters(std::vector<DriverCounter>* out) const override { real_->counters(out); }

 private:
  struct Held {
    IoCompletion ev;
    uint64_t seq;
  };

  void took(IoRequest* r) {
    taken_++;
    if (!in_kernel_.emplace(r, next_seq_).second) anomalies_++;  // sent twice
    if (delay_ns_ > 0) {
      {
        std::lock_guard<std::mutex> l(mu_);
        release_at_.push_back(NowNs() + delay_ns_);
      }
      cv_.notify_one();
    }
    next_seq_++;
  }
  void completed(IoRequest* r) {
    fetched_++;
    if (in_kernel_.erase(r) != 1) anomalies_++;  // not in the kernel
    if (delay_ns_ > 0) delivered_++;
  }
  uint64_t seq_of(IoRequest* r) const {
    auto it = in_kernel_.find(r);
    return it == in_kernel_.end() ? UINT64_MAX : it->second;
  }
  uint64_t held_released(uint64_t released) const {
    uint64_t n = 0;
    for (const Held& h : held_) n += h.seq < released;
    return n;
  }

  // Releases the submissions in order, each at its time (submission order
  // is release order: one delay for all).
  void release_loop() {
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      cv_.wait(l, [this] { return stop_ || !release_at_.empty(); });
      if (stop_) return;
      const int64_t at = release_at_.front();
      const int64_t now = NowNs();
      if (now < at) {
        cv_.wait_for(l, std::chrono::nanoseconds(at - now), [this] { return stop_; });
        if (stop_) return;
        if (NowNs() < at) continue;
      }
      release_at_.pop_front();
      released_.fetch_add(1, std::memory_order_release);
      l.unlock();
      eventfd_write(real_->event_fd(), 1);  // a new edge: the loop wakes
      l.lock();
    }
  }

  std::unique_ptr<KernelQueue> real_;
  std::deque<Action> script_;
  std::function<Action(int, size_t)> chooser_;
  std::vector<Call> calls_;
  std::unordered_map<IoRequest*, uint64_t> in_kernel_;  // request -> submission number
  int max_in_kernel_ = 0;
  uint64_t next_seq_ = 0;
  uint64_t taken_ = 0;
  uint64_t fetched_ = 0;
  uint64_t anomalies_ = 0;

  // Late completions.
  int64_t delay_ns_ = 0;
  std::vector<Held> held_;   // finished by the device, not handed out yet
  uint64_t delivered_ = 0;   // handed out by fetch()
  std::atomic<uint64_t> released_{0};  // submissions 0..released_ may complete
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<int64_t> release_at_;  // guarded by mu_
  bool stop_ = false;               // guarded by mu_
  std::thread releaser_;
};

// The real queue a FaultQueue wraps in the tests: an io_uring or a libaio
// context of 128 entries (completions read from the ring in user space).
inline Expected<std::unique_ptr<KernelQueue>> MakeRealQueue(bool uring) {
  if (uring) {
    UringQueue::Config uc;
    uc.entries = 128;
    auto q = UringQueue::Create(uc);
    if (!q.ok()) return q.error();
    return std::unique_ptr<KernelQueue>(std::move(q.value()));
  }
  auto q = LibaioQueue::Create(128, true);
  if (!q.ok()) return q.error();
  return std::unique_ptr<KernelQueue>(std::move(q.value()));
}

}  // namespace blk::test
