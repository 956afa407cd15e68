// ThreadQueue: aio=threads as a KernelQueue, so the worker pool sits under
// the same policy as libaio and io_uring (QueueEngine: plug batching,
// completion peeks, the poll governor, resuming coroutines).  Each request
// is a preadv / pwritev / fdatasync on a ThreadPool worker (the syscall is
// retried on EINTR; a short count is the caller's to handle).  A finished
// request goes on a completion list in user memory; fetch() takes it from
// there, and ready() is one atomic load, so the loop's busy polling can spin
// on it like on a kernel ring.  The eventfd gets one write when the list
// goes from empty to not empty (QueueEngine watches it edge-triggered and
// never reads it; every write is a new edge).
//
// At most `capacity` requests are with the workers at once (each needs a
// slot); more wait in QueueEngine's queue.
//
// Threading: as KernelQueue (the loop's thread); the workers touch only
// their slot and the completion list (under its lock).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include <blkstack/block/file/kernel_queue.h>
#include <blkstack/util/thread_pool.h>
#include <blkstack/util/result.h>

namespace blk {

class ThreadQueue final : public KernelQueue {
 public:
  // `threads` workers (started here: an error names the thread that could
  // not start), `capacity` slots, an eventfd.
  static Expected<std::unique_ptr<ThreadQueue>> Create(int threads, int capacity);
  // REQUIRES: no request with the workers.  Joins them.
  ~ThreadQueue() override;
  ThreadQueue(const ThreadQueue&) = delete;
  ThreadQueue& operator=(const ThreadQueue&) = delete;

  const char* name() const override { return "threads"; }
  int event_fd() const override { return efd_; }
  int capacity() const override { return int(slots_.size()); }
  int submit(IoRequest* const* reqs, int n) override;
  int fetch(IoCompletion* out, int max) override;
  bool user_space_ring() const override { return true; }
  // Off by default: a request is with a worker until its system call
  // returns, like fio's synchronous engines (no slat).  set_hands_over(true):
  // the request's submission ends when submit() queued it for a worker, as
  // fio's asynchronous engines that run on threads (posixaio's aio_read,
  // libaio's buffered io_submit) return after queueing it: slat is then
  // the time to queue it, clat the rest.
  bool hands_over() const override { return hands_over_; }
  void set_hands_over(bool on) { hands_over_ = on; }
  bool ready() const override { return done_count_.load(std::memory_order_acquire) > 0; }
  void counters(std::vector<DriverCounter>* out) const override;

 private:
  struct Slot : ThreadPool::Job {
    ThreadQueue* queue = nullptr;
    IoRequest* req = nullptr;
    Slot* link = nullptr;  // free list (loop thread) or completion list (under mu_)
  };
  ThreadQueue(int threads, int capacity);
  static int64_t Run(ThreadPool::Job* job);       // on a worker
  static void Complete(ThreadPool::Job* job);     // on a worker, after Run

  std::vector<Slot> slots_;
  Slot* free_ = nullptr;  // loop thread
  int efd_ = -1;
  bool hands_over_ = false;
  std::mutex mu_;
  Slot* done_head_ = nullptr;  // guarded by mu_
  Slot* done_tail_ = nullptr;  // guarded by mu_
  std::atomic<int> done_count_{0};
  std::atomic<uint64_t> wakeups_{0};  // eventfd writes
  uint64_t jobs_ = 0;                 // loop thread
  // Joined first by the destructor: a worker may still be inside Complete()
  // (writing the eventfd) after the loop has taken its completion.
  std::unique_ptr<ThreadPool> pool_;
};

}  // namespace blk
