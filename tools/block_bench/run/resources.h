// What a block-bench run needs from the process's limits at once, checked
// before anything starts: a run that cannot get its threads, file
// descriptors or I/O buffers ends with one clear error instead of an abort
// halfway (or an allocation of billions of clones).
//
// The needs are lower estimates per clone (a run refused here could not
// have run); the clones of one stonewall segment run together, so each
// segment is checked on its own:
//   threads: 1 loop thread; + thread-pool-size (16) for aio=threads files
//            (ioengine=psync/sync/pvsync/pvsync2); + 8 for librbd
//   fds:     2 for the loop (epoll, eventfd); + 1 per file, + 1 for the
//            libaio eventfd; + 4 for librbd (monitor and OSD sockets)
//   memory:  the queue's depth (QueueShapeOf: 1 for the synchronous
//            engines) x the largest block size, rounded up to 4096 (the
//            I/O buffers); + kVerifyEntryBytes per block of the job's size
//            with verify= (what was written, for the read-back); + a bit
//            per smallest block of the job's size for the random map
// Memory is checked against a limit the user can set
// (--blkstack-max-memory=SIZE, RunOptions::max_memory), by default
// kDefaultMemoryPercent of MemAvailable.  The buffers are only mapped, not
// touched (run/slot_pool.h): the estimate is what a job may come to use,
// not what a read-only job takes.  What the preflight cannot know (a
// replay's depth and block sizes come from its trace) is charged again
// when each clone maps its buffers (MemoryBudget, shared by the run).
//
// Thread-safety: pure, except ResourceLimits::FromSystem (reads /proc);
// MemoryBudget from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include <blkstack/util/result.h>

namespace blk::bench {

// The memory limit's default: this share of MemAvailable.
inline constexpr uint64_t kDefaultMemoryPercent = 50;
// Verify state per block written (a map entry: offset, length, generation).
inline constexpr uint64_t kVerifyEntryBytes = 80;

struct ResourceLimits {
  uint64_t fds = UINT64_MAX;      // file descriptors this process may still open
  uint64_t fd_limit = UINT64_MAX; // RLIMIT_NOFILE, for the message
  uint64_t threads = UINT64_MAX;  // threads that may still start (kernel.threads-max)
  uint64_t memory = UINT64_MAX;   // bytes a run's buffers and verify state may take
  // Where `memory` comes from, for the messages.
  std::string memory_source = "the limit";
  // The limits of this process now: RLIMIT_NOFILE minus the descriptors
  // open, kernel.threads-max minus the threads running, and `max_memory`
  // (--blkstack-max-memory) or, when 0, kDefaultMemoryPercent of
  // MemAvailable.
  static ResourceLimits FromSystem(uint64_t max_memory = 0);
};

// The memory limit of a run, charged by each clone as it maps its buffers
// (run/slot_pool.h) and credited when it frees them.
class MemoryBudget {
 public:
  // `limit` bytes (UINT64_MAX: none); `source` says where the limit comes
  // from, in the messages (ResourceLimits::memory_source).
  explicit MemoryBudget(uint64_t limit = UINT64_MAX, std::string source = "the limit")
      : limit_(limit), source_(std::move(source)) {}
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;
  // Takes `bytes` from the budget, or fails with -ENOMEM, taking nothing:
  //   WHAT need 3119 MiB; with what the run holds (0 MiB) that is more
  //   than the limit of 2048 MiB (--blkstack-max-memory=2g): lower
  //   iodepth, bs or numjobs, or raise --blkstack-max-memory
  Expected<void> charge(uint64_t bytes, const std::string& what);
  void release(uint64_t bytes) { used_.fetch_sub(bytes); }
  uint64_t used() const { return used_.load(); }
  uint64_t limit() const { return limit_; }

 private:
  const uint64_t limit_;
  const std::string source_;
  std::atomic<uint64_t> used_{0};
};

struct CloneNeeds {
  uint64_t threads = 0;
  uint64_t fds = 0;
  uint64_t memory = 0;
};

// The lower estimate for one clone of `job`.
CloneNeeds EstimateClone(const JobOptions& job);

// Checks each stonewall segment of `jobs` (numjobs clones per job) against
// `limits`.  The error (-EMFILE, -EAGAIN or -ENOMEM) names the first job of
// the segment, the clone count, what is needed and the limit, e.g.
//   jobs starting with 't' (600 clones at once) need at least 1200 file
//   descriptors; 1014 more may be opened (ulimit -n 1024): raise the limit
//   or lower numjobs
//   jobs starting with 'j' (1 clone at once) need at least 4096 MiB of I/O
//   buffers and verify state (iodepth x block size); the limit is 2048 MiB
//   (50% of MemAvailable; --blkstack-max-memory=SIZE sets it): lower
//   iodepth, bs or numjobs, or raise --blkstack-max-memory
Expected<void> CheckResources(const std::vector<JobOptions>& jobs, const ResourceLimits& limits);

}  // namespace blk::bench
