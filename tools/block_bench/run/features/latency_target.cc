#include "tools/block_bench/run/features/latency_target.h"

#include <algorithm>
#include <cerrno>
#include <string>

#include "tools/block_bench/run/submit_loop.h"
#include <blkstack/util/clock.h>

namespace blk::bench {

LatencyTarget::LatencyTarget(const JobOptions& job, uint32_t max_depth, uint32_t slots,
                             CloneErrors& errors, Callbacks cb)
    : target_ns_(uint64_t(job.latency_target.count()) * 1000),
      window_ns_(int64_t(job.latency_window.count()) * 1000),
      percentile_(job.latency_percentile),
      keep_running_(job.latency_run),
      max_depth_(max_depth),
      errors_(errors),
      cb_(std::move(cb)),
      high_(max_depth),
      cycle_of_(slots, 0) {}

Task<bool> LatencyTarget::turn(SubmitLoop& loop) {
  loop.end_batch();
  co_await loop.wait_all();
  quiesced(NowNs());
  co_return true;
}

void LatencyTarget::quiesced(int64_t now) {
  quiesce_ = false;
  if (restart_stats_) {
    restart_stats_ = false;
    if (cb_.restart_stats) cb_.restart_stats(now);
  }
  window_start_ = now;
}

void LatencyTarget::new_cycle(int64_t now) {
  window_start_ = now;
  ios_ = 0;
  failed_ = 0;
  cycle_++;
}

bool LatencyTarget::ramp_down(int64_t now) {
  if (qd_ == 1) return false;
  high_ = qd_;
  if (qd_ == low_) low_--;
  qd_ = (qd_ + low_) / 2;
  quiesce_ = true;
  new_cycle(now);
  return true;
}

void LatencyTarget::pass(int64_t now) {
  const uint32_t was = qd_;
  low_ = qd_;
  // Doubling until a window fails, then bisecting below the failed depth.
  qd_ = high_ != max_depth_ ? (qd_ + high_) / 2 : qd_ * 2;
  qd_ = std::min(qd_, max_depth_);
  if (qd_ == was) {
    if (final_run_ && !keep_running_) {
      if (cb_.end_job) cb_.end_job();  // found, and measured alone: the job ends (fio's "done")
    } else if (!final_run_) {
      final_run_ = true;
      quiesce_ = true;
      restart_stats_ = true;
    }
  } else {
    quiesce_ = true;
  }
  new_cycle(now);
}

void LatencyTarget::record(uint64_t lat, int64_t now) {
  ios_++;
  if (lat > target_ns_) {
    if (percentile_ >= 100) {
      if (!ramp_down(now))
        errors_.fail(ETIMEDOUT, "an I/O took " + std::to_string(lat) +
                                    " ns at depth 1, more than latency_target=" +
                                    std::to_string(target_ns_) + " ns");
      return;
    }
    failed_++;
  }
  if (now - window_start_ < window_ns_) return;
  if (100.0 * double(ios_ - failed_) / double(ios_) >= percentile_) {
    pass(now);
  } else if (!ramp_down(now)) {
    new_cycle(now);  // depth 1 and still failing: measure again
  }
}

}  // namespace blk::bench
