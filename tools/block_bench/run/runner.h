// Running block-bench jobs.
//
// RunJobs runs `jobs` as fio does:
//  * each job is cloned numjobs times; every clone runs on its own IOThread
//    (its own AioContext loop) with its own backend opened from JobTarget();
//  * jobs are split into stonewall segments (a job with stonewall=1 waits for
//    all jobs before it); the segments run one after another, the clones in a
//    segment concurrently;
//  * group ids follow fio: a job with stonewall or new_group starts a new
//    group;
//  * per clone, one submitter coroutine keeps up to iodepth requests in
//    flight: it refills when the depth drops to iodepth_low, submitting up to
//    iodepth_batch_submit requests inside one plug/unplug, obeying rate,
//    rate_iops (linear or poisson), thinktime and fsync/fdatasync; each
//    request is a coroutine that records its completion latency;
//  * end conditions: runtime (after ramp_time), time_based, io_size/size,
//    number_ios, an I/O error not covered by continue_on_error, RequestStop().
// The calling thread only waits (and calls on_progress about once a second).
//
// Thread-safety: RunJobs is not reentrant; RequestStop() is async-signal-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "tools/block_bench/job.h"
#include "tools/block_bench/run/generator.h"
#include "tools/block_bench/run/result.h"

namespace blk::bench {

struct ProgressSnapshot {
  int running = 0;         // clones running now
  int total = 0;           // clones in this run
  double percent = 0;      // of the current segment, 0..100
  double bw_bytes[kNumDirs] = {};  // over the last interval
  double iops[kNumDirs] = {};
  double eta_s = 0;        // of the current segment
  std::string modes;       // fio-like: "r(2)" or "w(1)R(1)"
};

struct RunOptions {
  // Test hook, called on the worker thread for every I/O just before it is
  // handed to the backend (not for flushes).  Keep it cheap.
  std::function<void(const CloneResult&, const IoUnit&)> on_issue;
  // Called on the calling thread about once a second while jobs run.
  std::function<void(const ProgressSnapshot&)> on_progress;
  // Informational messages (not errors of jobs: those are in CloneResult).
  FILE* messages = stderr;
};

struct RunResult {
  std::vector<CloneResult> clones;  // job order, then clone order
  int64_t start_unix_ms = 0;
  // Any clone ended with an error.
  bool failed() const {
    for (auto& c : clones)
      if (c.error) return true;
    return false;
  }
};

// fio's group id of every job.
std::vector<int> GroupIds(const std::vector<JobOptions>& jobs);

// Runs the jobs (kept alive by the caller: results point into them).
RunResult RunJobs(const std::vector<JobOptions>& jobs, const RunOptions& opts = {});

// Asks running jobs to stop as soon as possible (SIGINT).  Any thread.
void RequestStop();

}  // namespace blk::bench
