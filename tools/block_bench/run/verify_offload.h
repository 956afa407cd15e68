// VerifyOffload: verify_async=N, fio's verification threads, for one clone.
//
// fio normally checks a read-back block on the thread that reaped it;
// with verify_async=N it queues the io_u to N threads (pinned to
// verify_async_cpus) and keeps submitting, the io_u not freed until its
// block is checked.  Here the check is a function run on one of N
// IOThreads (util/iothread.h): run() moves the calling coroutine to the
// least busy of them, calls the function there and resumes on the clone's
// loop with its result.  The clone's loop keeps the request's slot taken
// meanwhile (hook.h's settle), so the buffer the function reads is not
// reused until it returns.  The threads' CPU time counts in the clone's
// usr/sys/ctx (add_usage), as fio's verify threads count in its job's.
//
// Thread-safety: Start(), run() (up to its first suspension and after it
// resumes), add_usage() and the destructor on the clone's loop thread; the
// function passed to run() on a verify thread, touching nothing the loop
// changes meanwhile.
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tools/block_bench/run/result.h"
#include <blkstack/util/aio_context.h>
#include <blkstack/util/iothread.h>
#include <blkstack/util/result.h>
#include <blkstack/util/task.h>

namespace blk::bench {

class VerifyOffload {
 public:
  // Starts `threads` threads named NAME-verifyI (I from 0), each bound to
  // `cpus` (empty: not bound).  Errors: a thread that cannot be started;
  // EINVAL naming verify_async_cpus when the threads cannot run there.
  // REQUIRES: threads >= 1.
  static Expected<std::unique_ptr<VerifyOffload>> Start(const std::string& name, uint32_t threads,
                                                        const std::vector<uint32_t>& cpus);
  // Stops the threads.  REQUIRES: no run() in progress.
  ~VerifyOffload();
  VerifyOffload(const VerifyOffload&) = delete;
  VerifyOffload& operator=(const VerifyOffload&) = delete;

  // fn() on the verify thread with the fewest calls in progress (the first
  // such), resuming on `home` (the caller's loop) with what it returned.
  Task<std::string> run(AioContext& home, std::function<std::string()> fn);

  uint32_t threads() const { return uint32_t(workers_.size()); }
  // Calls of run() that went to thread i (tests; loop thread).
  uint64_t calls(uint32_t i) const { return workers_[i].calls; }
  // Adds the threads' CPU usage since Start() to `out`.
  void add_usage(CloneResult* out) const;

 private:
  struct Worker {
    std::unique_ptr<IOThread> thread;
    rusage ru0{};
    uint32_t busy = 0;   // run() calls on it now
    uint64_t calls = 0;  // run() calls so far
  };
  VerifyOffload() = default;
  std::vector<Worker> workers_;
};

}  // namespace blk::bench
