// What one job clone measured: the runner fills it, the reports read it.
//
// Measurement semantics (see docs/block-bench.md):
//  * A request starts just before it is handed to the block layer
//    (BlockBackend::read/write/discard) and ends when its coroutine resumes
//    with the result, on the worker's loop thread: lat is the whole time.
//  * slat: from the start until the driver handed the request over
//    (io_submit / io_uring_enter / rbd_aio_* returned; util/submit_stamp.h),
//    as fio's slat; clat: from there to the end.  slat + clat = lat for
//    every request that has both.
//  * A request no driver handed over separately (the null driver, the
//    thread pool, whose system calls return when the I/O is done; a request
//    refused before it reached the driver) has no slat: its whole time is
//    its clat and its lat, as for fio's synchronous engines.
//  * Nothing issued before ramp_time ends is counted.
//
// Thread-safety: filled on the clone's thread, read after it joined.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <blkstack/block/driver.h>
#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/steady.h"
#include <blkstack/util/histogram.h>

namespace blk::bench {

// With cmdprio: the latencies of one I/O priority (fio's clat_prio): clat,
// or lat with lat_percentiles.
struct PrioLatency {
  uint16_t ioprio = 0;  // class << 13 | level
  LatencyHistogram lat;
};

struct DirResult {
  uint64_t ios = 0;        // completed, successful or not
  uint64_t bytes = 0;      // of successful I/Os
  uint64_t errors = 0;
  uint64_t short_ios = 0;
  uint64_t drop_ios = 0;
  // ns.  slat.count() <= clat.count() == lat.count() == ios (once the
  // worker finished).
  LatencyHistogram slat, clat, lat;
  // Paced jobs (a trace's times, rate=/rate_iops=): from the instant the
  // schedule said the I/O was due until it completed, ns.  Free of
  // coordinated omission: time an I/O waited to be issued is included.
  LatencyHistogram sched_lat;
  // Per-sample (bw_sample_msec) rates: bytes/s and I/O/s.
  std::vector<double> bw_samples;
  std::vector<double> iops_samples;
  // With cmdprio_percentage / cmdprio_bssplit: by priority, the job's own
  // first (CmdPrio::priorities order); empty otherwise.
  std::vector<PrioLatency> prios;

  void merge(const DirResult& o) {
    for (const PrioLatency& p : o.prios) {
      auto it = std::find_if(prios.begin(), prios.end(),
                             [&p](const PrioLatency& q) { return q.ioprio == p.ioprio; });
      if (it == prios.end()) prios.push_back(p);
      else it->lat.merge(p.lat);
    }
    ios += o.ios;
    bytes += o.bytes;
    errors += o.errors;
    short_ios += o.short_ios;
    drop_ios += o.drop_ios;
    slat.merge(o.slat);
    clat.merge(o.clat);
    lat.merge(o.lat);
    sched_lat.merge(o.sched_lat);
    // Samples of clones taken at the same instants add up.
    if (bw_samples.size() < o.bw_samples.size()) bw_samples.resize(o.bw_samples.size());
    if (iops_samples.size() < o.iops_samples.size()) iops_samples.resize(o.iops_samples.size());
    for (size_t i = 0; i < o.bw_samples.size(); i++) bw_samples[i] += o.bw_samples[i];
    for (size_t i = 0; i < o.iops_samples.size(); i++) iops_samples[i] += o.iops_samples[i];
  }
};

// fio's log line: msec since the job started, value, direction, bs, offset,
// the I/O's priority (ioprio value; 0 for averaged entries).
struct LogEntry {
  uint64_t msec;
  uint64_t value;
  int dir;
  uint64_t bs;
  uint64_t offset;
  uint16_t prio = 0;
};

// One line of fio's histogram log: the completion latencies of one
// direction over one log_hist_msec interval, in fio's 1856 latency bins
// (merged 2^log_hist_coarseness at a time).
struct HistLogEntry {
  uint64_t msec;  // end of the interval, since the job started
  int dir;
  uint64_t bs;
  std::vector<uint64_t> bins;
};

// fio's IO depth bucket boundaries: 1, 2, 4, 8, 16, 32, >=64.
inline int DepthBucket(uint32_t depth) {
  if (depth >= 64) return 6;
  if (depth <= 1) return 0;
  int b = 32 - __builtin_clz(depth - 1);  // ceil(log2)
  return b > 5 ? 5 : b;
}
// fio's submit/complete buckets: 0, 4, 8, 16, 32, 64, >=64 (count per call).
inline int BatchBucket(uint32_t n) {
  if (n == 0) return 0;
  if (n <= 4) return 1;
  if (n <= 8) return 2;
  if (n <= 16) return 3;
  if (n <= 32) return 4;
  if (n <= 64) return 5;
  return 6;
}

// How closely a paced job kept its schedule (a replayed trace, or rate=):
// lateness is issue time minus due time of every measured I/O.
struct ScheduleResult {
  enum class Kind { kNone, kTrace, kRate };
  Kind kind = Kind::kNone;
  // Paced I/Os held by the pacer until their due time, and for how long
  // (ns): the schedule at work, not a delay.
  LatencyHistogram pacer_held;
  // Issue - due (ns), the delay after the due time: the device (no room in
  // the queue) or the host (timer, loop); never the pacer's holding.
  LatencyHistogram lateness;
  uint64_t late_100us = 0;    // issued more than 100 us late
  uint64_t late_1ms = 0;      // ... more than 1 ms late
  uint64_t held_back = 0;     // due while iodepth was full
  uint32_t depth = 0;         // the cap in effect
  // Trace replay: the trace's outstanding count when the replay's depth cap
  // (kReplayDepthCap) cut it to `depth`; 0: not capped.
  uint32_t depth_capped_from = 0;
  // Trace replay only.
  std::string trace;            // the path
  uint64_t trace_ios = 0;       // records to be replayed
  uint64_t skipped = 0;         // replay_skip and empty records
  uint64_t folded = 0;          // offsets folded into the target
  uint64_t too_large = 0;       // records longer than the target
  uint64_t trace_bad = 0;       // malformed records skipped (trace_skip_bad)
  int64_t trace_span_ns = 0;    // first to last record, after replay_time_scale
  int64_t replay_span_ns = 0;   // first to last issue
  bool no_stall = false;        // replay_no_stall: timing not replayed

  void merge(const ScheduleResult& o) {
    if (kind == Kind::kNone) kind = o.kind;
    pacer_held.merge(o.pacer_held);
    lateness.merge(o.lateness);
    late_100us += o.late_100us;
    late_1ms += o.late_1ms;
    held_back += o.held_back;
    depth = std::max(depth, o.depth);
    depth_capped_from = std::max(depth_capped_from, o.depth_capped_from);
    if (trace.empty()) trace = o.trace;
    trace_ios += o.trace_ios;
    skipped += o.skipped;
    folded += o.folded;
    too_large += o.too_large;
    trace_bad += o.trace_bad;
    trace_span_ns = std::max(trace_span_ns, o.trace_span_ns);
    replay_span_ns = std::max(replay_span_ns, o.replay_span_ns);
    no_stall = no_stall || o.no_stall;
  }
};

struct CloneResult {
  const JobOptions* job = nullptr;
  uint32_t job_index = 0;      // position in the job list
  uint32_t clone = 0;          // 0..numjobs-1
  uint32_t thread_number = 0;  // 1-based over all clones (log file names)
  // The thread number fio's random seeds use (run/fio_rand.h): 0 means
  // thread_number.  MPI rank R > 0 numbers its clones after every rank
  // before it, as if all ranks' clones were threads of one fio run, so
  // ranks do not repeat each other's offsets; rank 0's are fio's.
  uint32_t rand_thread = 0;
  int groupid = 0;
  std::string target;          // the graph spec opened
  bool not_run = false;        // the run was interrupted before this clone started
  bool interrupted = false;    // stopped early by an interrupt (SIGINT/SIGTERM)
  // The error that ended the job (positive errno), 0 when none did.
  int error = 0;
  std::string error_message;
  // Every failed request, also those continue_on_error went past, and bad
  // verify blocks (fio's total_err / first_error).
  uint64_t total_errors = 0;
  int first_error = 0;  // positive errno of the first, 0 when none
  std::string first_error_message;
  PerDir<DirResult> dir;
  uint64_t syncs = 0;
  LatencyHistogram sync_lat;
  uint64_t verified = 0;
  uint64_t verify_errors = 0;
  // Blocks written with verify data that were never read back and checked
  // (their write failed, or the job ended before the verify phase did).
  uint64_t verify_not_verified = 0;
  // CLOCK_MONOTONIC when the first I/O was issued (0: none); comparable
  // only between processes on one host (MPI start skew).
  int64_t first_io_ns = 0;
  // CLOCK_MONOTONIC when the measured phase started (the first I/O after
  // ramp_time), 0 if it did not; the same caveat.
  int64_t measure_start_ns = 0;
  int64_t runtime_ns = 0;  // measured phase
  int64_t elapsed_ns = 0;  // whole clone incl. ramp and startdelay
  double usr_s = 0, sys_s = 0;
  uint64_t ctx = 0, majf = 0, minf = 0;
  uint64_t depth[7] = {};
  uint64_t submit[7] = {};
  uint64_t complete[7] = {};
  std::vector<DriverCounter> counters;
  // write_lat_log's three logs; slat_log holds only requests with a slat.
  std::vector<LogEntry> lat_log, clat_log, slat_log, bw_log, iops_log;
  std::vector<HistLogEntry> hist_log;
  // Added to every log entry's msec when the file is written: the job's
  // start in ms on log_alternate_epoch_clock_id with log_unix_epoch or
  // log_alternate_epoch, else 0.
  uint64_t log_epoch_ms = 0;
  uint64_t seed = 0;
  // With ss_dur: the steady state of the unit this clone heads (the clone
  // itself, or its group with group_reporting; steady.h).
  std::optional<SteadyStateResult> steadystate;
  ScheduleResult schedule;
  // How the target file was set up before the job (run/target.h): "write"
  // (laid out), "allocate", "sparse", or empty when it existed in full.
  std::string layout;
  uint64_t layout_bytes = 0;
  double layout_seconds = 0;
  bool invalidated = false;   // cached pages dropped before the job
  uint64_t pre_read_bytes = 0;
  bool filled = false;        // fill_device: the device filled up (ENOSPC)
  uint32_t latency_depth = 0;  // latency_target: the depth found; 0: no search

  void merge(const CloneResult& o);
};

// The thread number fio's random seeds use for `r` (rand_thread, else
// thread_number).
inline uint32_t RandThread(const CloneResult& r) {
  return r.rand_thread ? r.rand_thread : r.thread_number;
}

inline void CloneResult::merge(const CloneResult& o) {
  for (int d = 0; d < kNumDirs; d++) dir[d].merge(o.dir[d]);
  syncs += o.syncs;
  sync_lat.merge(o.sync_lat);
  verified += o.verified;
  verify_errors += o.verify_errors;
  verify_not_verified += o.verify_not_verified;
  not_run = not_run && o.not_run;
  interrupted = interrupted || o.interrupted;
  total_errors += o.total_errors;
  if (!first_error && o.first_error) {
    first_error = o.first_error;
    first_error_message = o.first_error_message;
  }
  if (!steadystate && o.steadystate) steadystate = o.steadystate;
  schedule.merge(o.schedule);
  if (layout.empty()) layout = o.layout;
  layout_bytes += o.layout_bytes;
  layout_seconds = std::max(layout_seconds, o.layout_seconds);
  invalidated = invalidated || o.invalidated;
  pre_read_bytes += o.pre_read_bytes;
  filled = filled || o.filled;
  if (!latency_depth) latency_depth = o.latency_depth;
  if (o.first_io_ns && (!first_io_ns || o.first_io_ns < first_io_ns)) first_io_ns = o.first_io_ns;
  if (o.measure_start_ns && (!measure_start_ns || o.measure_start_ns < measure_start_ns))
    measure_start_ns = o.measure_start_ns;
  if (o.runtime_ns > runtime_ns) runtime_ns = o.runtime_ns;
  if (o.elapsed_ns > elapsed_ns) elapsed_ns = o.elapsed_ns;
  usr_s += o.usr_s;
  sys_s += o.sys_s;
  ctx += o.ctx;
  majf += o.majf;
  minf += o.minf;
  for (int i = 0; i < 7; i++) {
    depth[i] += o.depth[i];
    submit[i] += o.submit[i];
    complete[i] += o.complete[i];
  }
  for (const auto& c : o.counters) {
    bool found = false;
    for (auto& m : counters)
      if (m.name == c.name) { m.value += c.value; found = true; break; }
    if (!found) counters.push_back(c);
  }
  if (!error && o.error) {
    error = o.error;
    error_message = o.error_message;
  }
}

}  // namespace blk::bench
