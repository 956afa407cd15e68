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
//   memory:  iodepth x the largest block size (the I/O buffers)
//
// Thread-safety: pure, except ResourceLimits::FromSystem (reads /proc).
#pragma once

#include <cstdint>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "util/result.h"

namespace blk::bench {

struct ResourceLimits {
  uint64_t fds = UINT64_MAX;      // file descriptors this process may still open
  uint64_t fd_limit = UINT64_MAX; // RLIMIT_NOFILE, for the message
  uint64_t threads = UINT64_MAX;  // threads that may still start (kernel.threads-max)
  uint64_t memory = UINT64_MAX;   // bytes available (MemAvailable)
  // The limits of this process now: RLIMIT_NOFILE minus the descriptors
  // open, kernel.threads-max minus the threads running, MemAvailable.
  static ResourceLimits FromSystem();
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
Expected<void> CheckResources(const std::vector<JobOptions>& jobs, const ResourceLimits& limits);

}  // namespace blk::bench
