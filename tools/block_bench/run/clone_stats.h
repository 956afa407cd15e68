// CloneStats: what a clone counts of its completed requests.
//
// For every completed request (complete()): the live counters the progress
// line reads, the raw counts since the start (the minimum-rate guard reads
// them), and, for a request issued after the ramp (measured), the
// direction's I/O count, bytes or errors, its latencies split at the
// driver's hand-over (slat + clat = lat, run/result.h) and, for a paced
// I/O, its latency from the due time (sched_lat).
//
// Requests without a hand-over stamp (the null driver, the thread pool)
// are recorded once, in an "unsplit" histogram per direction, and merged
// into both clat and lat when the results are read (merge_unsplit): one
// record per I/O instead of two.
//
// Thread-safety: the clone's loop thread; LiveCounters are read by the
// coordinator.
#pragma once

#include <algorithm>
#include <sys/resource.h>

#include <atomic>
#include <cstdint>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/cmdprio.h"
#include "tools/block_bench/run/result.h"
#include "tools/block_bench/run/source.h"
#include <blkstack/util/histogram.h>
#include <blkstack/util/result.h>

namespace blk::bench {

// Counters a clone publishes for the progress line (single writer: the
// clone's thread; the coordinator reads).
struct LiveCounters {
  std::atomic<uint64_t> ios[kNumDirs] = {};
  std::atomic<uint64_t> bytes[kNumDirs] = {};
  std::atomic<uint64_t> lat_ns_sum{0};  // completion latencies of the I/Os in ios
  std::atomic<int64_t> start_ns{0};
  std::atomic<int64_t> planned_ns{0};  // ramp+runtime, 0: size based
  std::atomic<uint64_t> planned_bytes{0};
  std::atomic<bool> done{false};
};

// Adds a thread's CPU time, context switches and faults between two
// getrusage(RUSAGE_THREAD) readings to `out`.
void AddUsage(const rusage& from, const rusage& to, CloneResult* out);

class CloneStats {
 public:
  CloneStats(const JobOptions& job, CloneResult* res, LiveCounters* live)
      : job_(job), res_(res), live_(live) {}

  // A request's latencies: lat = slat + clat; split: the driver marked a
  // hand-over (else slat is 0 and clat is lat).
  struct Latency {
    uint64_t lat, clat, slat;
    bool split;
  };
  // Accounts request `u`, issued at t0 and completed at t1 with `st`
  // (not a cancelled one, not a flush).  handed: when the driver handed it
  // over (0: no mark); due: when its schedule wanted it (0: unpaced).
  // Inline: it runs for every request.
  [[gnu::always_inline]] Latency complete(const IoUnit& u, int64_t t0, int64_t t1, int64_t handed, int64_t due,
                   bool measured, Status st) {
    const int d = int(u.dir);
    const uint64_t lat = uint64_t(t1 - t0);
    last_done_ns_ = t1;
    live_->lat_ns_sum.store(raw_lat_sum_ += lat, std::memory_order_relaxed);
    live_->ios[d].store(++raw_ios_[d], std::memory_order_relaxed);
    if (st.ok() && counts_bytes_)
      live_->bytes[d].store(raw_bytes_[d] += u.len, std::memory_order_relaxed);
    const bool split = handed != 0;
    const uint64_t slat = split ? uint64_t(std::clamp(handed, t0, t1) - t0) : 0;
    const Latency l{lat, lat - slat, slat, split};
    if (measured) record(d, l, t1, due, u, st.ok());
    return l;
  }
  // false: the requests' lengths are not counted as bytes (cpuio, exec
  // move no data; fio's FIO_NOIO), only the I/Os and their latencies.
  void set_counts_bytes(bool on) { counts_bytes_ = on; }
  // false: requests are counted (I/Os, bytes) but their latencies are not
  // recorded (fio's FIO_NOSTATS: the file-system engines time their calls
  // instead, call_done()).
  void set_latency_samples(bool on) { latency_samples_ = on; }
  // A file-system engine's call (run/fs_calls.h) took `ns`: a completion
  // latency of direction `d` when measured (fio's add_clat_sample).
  void call_done(Dir d, uint64_t ns, bool measured) {
    // fio's engines time the call unless disable_lat, and record it as clat.
    if (measured && !job_.disable_lat) res_->dir[int(d)].clat.record(ns);
  }
  // Splits the measured latencies by I/O priority (cmdprio on): from now
  // on every request's latency is also recorded under its IoUnit::ioprio
  // in DirResult::prios.  `p` outlives this.
  void split_by_priority(const CmdPrio* p) { prio_ = p; }
  // A flush issued at t0 completed at t1 (fsync=, a trace's, not
  // cancelled): counted with the syncs when measured.
  void sync_done(int64_t t0, int64_t t1, bool measured);
  // A sync_file_range(2) issued at t0 completed at t1: its latency with
  // the syncs', not in their total (fio's sync total_ios counts fsyncs).
  void sync_range_done(int64_t t0, int64_t t1, bool measured);
  // The last completion (of any kind).
  void note_done(int64_t t1) { last_done_ns_ = t1; }
  int64_t last_done_ns() const { return last_done_ns_; }
  // Since the clone started, ramp included, successful and failed.
  uint64_t raw_ios(int d) const { return raw_ios_[d]; }
  uint64_t raw_bytes(int d) const { return raw_bytes_[d]; }
  // The unsplit records of direction d (clat as the report will have it is
  // res->dir[d].clat plus these).
  const LatencyHistogram& unsplit(int d) const { return unsplit_[d]; }
  // Into `out`: the unsplit records as clat and lat, as the statistics kept
  // say.  For a snapshot (a copy), or once at the end (then clear_unsplit()).
  void merge_unsplit(CloneResult* out) const;
  void clear_unsplit();
  // Drops what was measured so far, as at the end of a ramp (latency_target
  // found its depth): directions (errors stay counted), depth, submit and
  // complete buckets, syncs.
  void restart();

 private:
  // The measured part of complete().
  [[gnu::always_inline]] void record(int d, const Latency& l, int64_t t1, int64_t due, const IoUnit& u, bool ok) {
    const uint64_t len = u.len;
    DirResult& r = res_->dir[d];
    r.ios++;
    if (!latency_samples_) {
      // fio's FIO_NOSTATS: no latency of the request itself.
    } else if (l.split) {
      if (!job_.disable_slat) r.slat.record(l.slat);
      if (!job_.disable_clat) r.clat.record(l.clat);
      if (!job_.disable_lat) r.lat.record(l.lat);
    } else if (!job_.disable_clat || !job_.disable_lat) {
      unsplit_[d].record(l.lat);
    }
    if (prio_ && latency_samples_) record_prio(r, d, l, u);
    if (due) r.sched_lat.record(uint64_t(std::max<int64_t>(0, t1 - due)));
    if (!ok) r.errors++;
    else if (counts_bytes_) r.bytes += len;
  }

  // The latency fio's clat_prio keeps (lat with lat_percentiles, else clat)
  // under the request's priority.
  void record_prio(DirResult& r, int d, const Latency& l, const IoUnit& u);

  const JobOptions& job_;
  const CmdPrio* prio_ = nullptr;
  bool counts_bytes_ = true;
  bool latency_samples_ = true;
  CloneResult* res_;
  LiveCounters* live_;
  int64_t last_done_ns_ = 0;
  uint64_t raw_ios_[kNumDirs] = {}, raw_bytes_[kNumDirs] = {}, raw_lat_sum_ = 0;
  LatencyHistogram unsplit_[kNumDirs];
};

}  // namespace blk::bench
