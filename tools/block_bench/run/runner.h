// Running block-bench jobs: the coordinator.
//
// RunJobs runs `jobs` as fio does:
//  * it first checks that the clones of each stonewall segment can have
//    their threads, file descriptors and buffers at once (resources.h);
//  * each job is cloned numjobs times; every clone runs on its own IOThread
//    (its own AioContext loop) with its own backend opened from JobTarget()
//    (clone.h: the per-clone submit loop, pacing, verify, errors);
//  * jobs are split into stonewall segments (a job with stonewall=1 waits for
//    all jobs before it); the segments run one after another, the clones in a
//    segment concurrently; a job with wait_for=NAME starts (its thread
//    waits) once every clone of the earlier jobs called NAME in its segment
//    ended, as fio's;
//  * group ids follow fio: a job with stonewall or new_group starts a new
//    group;
//  * end conditions: runtime (after ramp_time), time_based, io_size/size,
//    number_ios, an I/O error not covered by continue_on_error, or a request
//    on RunOptions::stop, which interrupts every running clone at once (the
//    segments not started yet are not run).
// The calling thread only waits: for the clones, for a stop request (it
// wakes at once) and about once a second for on_progress.
//
// Thread-safety: RunJobs may run in several threads at once (no global
// state); each call owns its threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/debug_log.h"
#include "tools/block_bench/run/disk_stats.h"
#include "tools/block_bench/run/generator.h"
#include "tools/block_bench/run/result.h"
#include <blkstack/util/result.h>

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

class RunSync;
class StopSource;
struct RunResult;

struct RunOptions {
  // Interrupts the run when requested (SIGINT/SIGTERM); may be null.  Must
  // outlive RunJobs.
  const StopSource* stop = nullptr;
  // Test hook, called on the clone's thread for every I/O just before it is
  // handed to the backend (not for flushes).  Keep it cheap.
  std::function<void(const CloneResult&, const IoUnit&)> on_issue;
  // Called on the calling thread about once a second while jobs run.
  std::function<void(const ProgressSnapshot&)> on_progress;
  // fio's --status-interval: every status_interval_ns (0: never) while jobs
  // run, on_status gets the results so far, cumulative from each clone's
  // start, as the final report would show them (the running clones copy
  // theirs on their own threads; clones not started yet are empty).
  int64_t status_interval_ns = 0;
  std::function<void(const RunResult&)> on_status;
  // fio's warnings that are not errors of jobs (a failed preallocation, an
  // unlink that failed; errors of jobs are in CloneResult).  May be null.
  FILE* messages = stderr;
  // fio's informational lines, where fio prints them: "NAME: Laying out IO
  // file (1 file / 16MiB)" (once per clone that created or extended files).
  // The caller passes the normal-format output stream; null (the default,
  // and fio's choice for JSON and terse output): none.
  FILE* info = nullptr;
  // fio's --debug lines (debug_log.h); null: none.  Must outlive RunJobs.
  const DebugLog* debug = nullptr;
  // Several processes run these jobs together (MPI ranks, tools/block_bench/
  // mpi): each stonewall segment starts its I/O only once every process has
  // prepared it (run/sync.h).  Null: one process, no waiting step.  Must
  // outlive RunJobs.
  RunSync* sync = nullptr;
  // Mixed into every clone's seed when not 0 (the MPI rank): ranks of one
  // run do not repeat each other's random offsets on a shared target.
  uint64_t seed_salt = 0;
  // --blkstack-max-memory: what the I/O buffers and verify state of the
  // clones running at once may take (run/resources.h); 0: the default
  // share of MemAvailable.
  uint64_t max_memory = 0;
  // Appended to the files the clones write themselves (write_iolog): the
  // MPI rank's ".rankR", so ranks sharing a directory keep their own.
  std::string file_tag;
  // fio's --aux-path: where verify_state_save / verify_state_load keep
  // their files; empty: the working directory.
  std::string aux_path;
};

struct RunResult {
  std::vector<CloneResult> clones;  // job order, then clone order
  // fio's "Disk stats": the block devices under the targets, over the run.
  std::vector<DiskUtil> disk_util;
  int64_t start_unix_ms = 0;
  int pid = 0;  // of the process that ran the jobs
  // Set when the run could not start at all (resource limits): no clone ran.
  std::optional<Error> setup_error;
  // With RunOptions::sync: why a segment did not start on any process (one
  // of them could not prepare it); that segment and the later ones did not
  // run.
  std::optional<Error> sync_error;
  // The signal of the stop request that interrupted the run, 0 if none
  // (-1: a request without a signal).
  int interrupted_by = 0;
  // The run did not end cleanly: it could not start, a clone ended with an
  // error, or any request failed (also past continue_on_error, as fio's exit
  // status).
  bool failed() const {
    if (setup_error || sync_error) return true;
    for (auto& c : clones)
      if (c.error || c.total_errors) return true;
    return false;
  }
};

// wait_for: each job's waitee is the name of a job before it, as fio
// requires (no forward references).  An -EINVAL Error naming the job
// otherwise.  RunJobs checks it before anything starts.
Expected<void> CheckWaitFor(const std::vector<JobOptions>& jobs);

// fio's group id of every job.
std::vector<int> GroupIds(const std::vector<JobOptions>& jobs);

// Runs the jobs (kept alive by the caller: results point into them).
RunResult RunJobs(const std::vector<JobOptions>& jobs, const RunOptions& opts = {});

}  // namespace blk::bench
