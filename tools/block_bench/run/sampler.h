// Sampler: a clone's periodic samples and its log files' entries.
//
//  * Every bwavgtime (iopsavgtime) of the measured phase, each direction's
//    bandwidth (IOPS) over the period goes to the report's samples
//    (DirResult::bw_samples, iops_samples) and, with log_avg_msec, to the
//    bw (iops) log; a last sample at the end when at least half a period is
//    left.  Samples start with the measured phase (begin_measuring).
//  * write_lat_log: one entry per request for lat, clat and (with a
//    hand-over) slat; with log_avg_msec, their mean (log_max_value: their
//    maximum) over each window instead.
//  * write_bw_log / write_iops_log without log_avg_msec: one entry per
//    successful request, the bandwidth being bytes over its clat, as fio.
//  * write_hist_log: every log_hist_msec, the clat histogram of each
//    direction since the previous entry, in fio's 1856 bins merged
//    2^log_hist_coarseness at a time.
// As fio, a statistic the job does not keep (disable_*, gtod_reduce) is
// not logged either.
//
// The per-request logs are a SubmitHook (on_complete), registered only
// when the job writes them (logs_per_request()).  start() arms the timers
// on the clone's loop; `tick` runs at every sample timer (the minimum-rate
// guard's chance to see a stalled device).
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/clone_stats.h"
#include "tools/block_bench/run/hook.h"
#include "tools/block_bench/run/result.h"
#include "tools/block_bench/run/source.h"
#include <blkstack/util/aio_context.h>

namespace blk::bench {

class Sampler : public SubmitHook {
 public:
  // `dirs`: the directions the job issues (a sample per direction).
  Sampler(const JobOptions& job, CloneResult* res, const Timeline& time, const CloneStats& stats,
          const IoSource& dirs);
  ~Sampler() override;
  // Whether the job logs per request (then register this as a hook).
  bool logs_per_request() const;
  unsigned points() const override { return kOnComplete; }
  void on_complete(const DoneIo& io) override;

  // Arms the timers on `ctx` (the clock started).
  void start(AioContext& ctx, std::function<void(int64_t now)> tick);
  // The measured phase starts at `now`: the periods start over.
  void begin_measuring(int64_t now);
  // The I/O ended at `stop_ns`: the timers stop, the last histogram entry
  // and (measured) the last partial sample are taken.
  void finish(int64_t stop_ns);
  // Frees the timers (at the end of the clone, on its loop).
  void close();

  // Takes each sample whose period has passed since its last one; `last`:
  // the job's end, where one at least half a period long is taken.
  void sample(int64_t now, bool last = false);
  // When the sample timer fires next.
  int64_t next_sample_ns(int64_t now) const;
  // write_hist_log: one entry per direction with the completions since the
  // previous call.
  void hist_sample(int64_t now);

 private:
  enum Kind { kBwSample, kIopsSample, kLatWindow, kKinds };
  struct Period {
    int64_t every_ns = 0;  // 0: not taken
    int64_t last_ns = 0;
    uint64_t last[kNumDirs] = {};  // bytes (kBwSample) or I/Os (kIopsSample) at last_ns
  };
  // write_lat_log with log_avg_msec: the window's sums, counts and maxima
  // per [lat, clat, slat][dir].
  struct LatWindow {
    uint64_t sum[3][kNumDirs] = {}, n[3][kNumDirs] = {}, max[3][kNumDirs] = {};
  };
  void log_latency(int d, int64_t t1, const IoUnit& u, uint64_t lat, uint64_t clat,
                   const uint64_t* slat);
  void take(Kind k, int d, uint64_t msec, double secs);

  const JobOptions& job_;
  CloneResult* res_;
  const Timeline& time_;
  const CloneStats& stats_;
  const IoSource& dirs_;
  bool lat_log_, bw_log_, iops_log_;
  Period periods_[kKinds];
  LatWindow win_;
  std::vector<uint64_t> hist_last_[kNumDirs];  // fio bins at the last hist_sample
  std::unique_ptr<Timer> timer_, hist_timer_;
  std::function<void(int64_t)> tick_;
};

}  // namespace blk::bench
