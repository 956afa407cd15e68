#include "tools/block_bench/run/steady.h"

#include <algorithm>
#include <cmath>

#include "tools/block_bench/run/clone_stats.h"

namespace blk::bench {

SteadyEvaluation SteadyCriterion(const std::vector<double>& values, double interval_s,
                                 const SteadyState& ss) {
  SteadyEvaluation e;
  const double n = double(values.size());
  double sum = 0;
  for (double v : values) sum += v;
  e.mean = sum / n;
  for (double v : values) e.max_deviation = std::max(e.max_deviation, std::abs(v - e.mean));
  // Least squares over x = 0, interval, 2 interval, ...
  double sx = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < values.size(); i++) {
    const double x = double(i) * interval_s;
    sx += x;
    sxx += x * x;
    sxy += x * values[i];
  }
  const double den = n * sxx - sx * sx;
  e.slope = den > 0 ? (n * sxy - sx * sum) / den : 0;
  const double raw = ss.slope ? std::abs(e.slope) : e.max_deviation;
  if (ss.pct) e.criterion = e.mean > 0 ? 100 * raw / e.mean : INFINITY;
  else e.criterion = raw;
  e.attained = e.criterion < ss.limit;
  return e;
}

SteadyMonitor::SteadyMonitor(const JobOptions& job, std::vector<size_t> clones)
    : job_(&job), clones_(std::move(clones)) {
  static constexpr const char* kNames[] = {"iops", "bw", "lat"};
  res_.ss = std::string(kNames[int(job.ss.metric)]) + (job.ss.slope ? "_slope" : "");
  res_.limit = job.ss.limit;
  res_.pct = job.ss.pct;
  res_.duration_s = double(job.ss_dur.count()) / 1e6;
  window_ = size_t(job.ss_dur.count() / job.ss_interval.count());
  res_.iops.assign(window_, 0);
  res_.bw_kib.assign(window_, 0);
  res_.lat_ns.assign(window_, 0);
}

bool SteadyMonitor::poll(int64_t now, const std::vector<LiveCounters>& live) {
  if (done_) return false;
  last_poll_ns_ = now;
  uint64_t ios = 0, bytes = 0, lat = 0;
  int64_t start = 0;
  bool all_done = true;
  for (size_t k : clones_) {
    const LiveCounters& l = live[k];
    const int64_t s = l.start_ns.load();
    if (s && (!start || s < start)) start = s;
    all_done = all_done && l.done.load();
    for (int d = 0; d < kNumDirs; d++) {
      ios += l.ios[d].load(std::memory_order_relaxed);
      bytes += l.bytes[d].load(std::memory_order_relaxed);
    }
    lat += l.lat_ns_sum.load(std::memory_order_relaxed);
  }
  const int64_t interval = int64_t(job_->ss_interval.count()) * 1000;
  if (!next_ns_) {
    if (!start) return false;  // not started yet: look again at the next wake-up
    start_ns_ = start;
    next_ns_ = start + int64_t(job_->ss_ramp.count()) * 1000;
  }
  if (all_done) {
    done_ = true;
    return false;
  }
  if (now < next_ns_) return false;
  if (!prev_ns_) {
    // The end of ss_ramp: the first interval starts here.
    prev_ns_ = now;
    prev_ios_ = ios, prev_bytes_ = bytes, prev_lat_ = lat;
    next_ns_ = now + interval;
    return false;
  }
  const double dt = double(now - prev_ns_) / 1e9;
  const uint64_t dios = ios - prev_ios_;
  auto push = [&](std::vector<double>& v, double x) {
    if (samples_ < window_) {
      v[samples_] = x;
      return;
    }
    v.erase(v.begin());
    v.push_back(x);
  };
  push(res_.iops, dt > 0 ? double(dios) / dt : 0);
  push(res_.bw_kib, dt > 0 ? double(bytes - prev_bytes_) / dt / 1024 : 0);
  push(res_.lat_ns, dios ? double(lat - prev_lat_) / double(dios) : 0);
  samples_++;
  prev_ns_ = now;
  prev_ios_ = ios, prev_bytes_ = bytes, prev_lat_ = lat;
  // The next boundary on the interval grid, not "now + interval": a late
  // wake-up must not stretch every later interval.
  while (next_ns_ <= now) next_ns_ += interval;
  if (samples_ < window_) return false;
  const std::vector<double>& v = job_->ss.metric == SteadyMetric::kIops ? res_.iops
                                 : job_->ss.metric == SteadyMetric::kBw ? res_.bw_kib
                                                                       : res_.lat_ns;
  res_.last = SteadyCriterion(v, double(interval) / 1e9, job_->ss);
  res_.evaluated = true;
  if (!res_.last.attained) return false;
  res_.attained = true;
  res_.attained_at_s = double(now - start_ns_) / 1e9;
  done_ = true;
  return true;
}

}  // namespace blk::bench
