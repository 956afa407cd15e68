// ThreadPool: worker threads for blocking calls a loop must not make
// itself: the file driver's preadv/pwritev in aio=threads mode, and in every
// mode fdatasync, fallocate and the BLKDISCARD/BLKZEROOUT ioctls; the rbd
// driver's rbd_diff_iterate2 (block status).
//
// A job lives in the awaiting coroutine's frame (ThreadPool::run returns an
// awaitable that holds it): no allocation per job.  A worker runs the job's
// function and hands the coroutine back to the loop it came from with
// AioContext::post_resume(); the coroutine never resumes on a worker.
//
// Threading: run()/submit() on any loop thread; workers start in the
// constructor and are joined by the destructor.
#pragma once

#include <condition_variable>
#include <coroutine>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <blkstack/util/aio_context.h>
#include <blkstack/util/result.h>

namespace blk {

class ThreadPool {
 public:
  // One unit of work.  `fn` runs on a worker and returns a byte count or a
  // negative errno, stored in `res`; then `waiter` is resumed on `ctx`, or,
  // if set, `complete` runs on the worker instead (the job is the caller's
  // again from its first instruction: the worker no longer touches it).
  struct Job {
    int64_t (*fn)(Job* self) = nullptr;
    int64_t res = 0;
    AioContext* ctx = nullptr;
    std::coroutine_handle<> waiter;
    void (*complete)(Job* self) = nullptr;
    Job* next = nullptr;
  };

  // A pool of up to `threads` workers (at least 1).  No thread starts here:
  // start() or the first submit() starts them.
  explicit ThreadPool(int threads);
  // Starts the workers not running yet.  An error naming errno (EAGAIN: the
  // thread limit) if not all of them could start; those that did keep
  // running.
  Expected<void> start();
  // REQUIRES: no job queued or running.  Joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues `job`; a worker runs it.  `job` must stay valid until its waiter
  // is resumed.  Starts the workers first if none runs yet; if none can
  // start, the job fails at once with that negative errno (its waiter is
  // still resumed through the loop, never inside submit()).
  void submit(Job* job);

  // Awaitable running `f()` (returning int64_t) on a worker; the awaiting
  // coroutine resumes on `ctx` with the result.  `f` is stored in the
  // awaitable (the coroutine frame) and must not need the loop.
  template <class F>
  auto run(AioContext& ctx, F f) {
    struct Awaiter : Job {
      ThreadPool* pool;
      F f;
      Awaiter(ThreadPool* p, AioContext* c, F fn) : pool(p), f(std::move(fn)) {
        this->ctx = c;
        this->fn = [](Job* j) -> int64_t { return static_cast<Awaiter*>(j)->f(); };
      }
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<> h) {
        this->waiter = h;
        pool->submit(this);
      }
      int64_t await_resume() const noexcept { return this->res; }
    };
    return Awaiter(this, &ctx, std::move(f));
  }

  // Jobs run so far (read on any thread; approximate while running).
  uint64_t jobs_run() const;
  // Workers started.  The owning thread.
  int threads() const { return int(threads_.size()); }

 private:
  void worker();

  int want_threads_;
  int start_errno_ = 0;  // last thread start failure (loop thread only)
  mutable std::mutex mu_;
  std::condition_variable cv_;
  Job* head_ = nullptr;  // guarded by mu_
  Job* tail_ = nullptr;  // guarded by mu_
  bool stop_ = false;    // guarded by mu_
  uint64_t jobs_run_ = 0;  // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace blk
