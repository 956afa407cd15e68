#include "tools/block_bench/run/sampler.h"

#include <algorithm>

#include "tools/block_bench/run/clone_source.h"
#include <blkstack/util/clock.h>

namespace blk::bench {

Sampler::Sampler(const JobOptions& job, CloneResult* res, const Timeline& time,
                 const CloneStats& stats, const IoSource& dirs)
    : job_(job),
      res_(res),
      time_(time),
      stats_(stats),
      dirs_(dirs),
      lat_log_(job.write_lat_log.has_value()),
      bw_log_(job.write_bw_log.has_value()),
      iops_log_(job.write_iops_log.has_value()) {
  periods_[kBwSample].every_ns = int64_t(job.bw_window_ms()) * 1000000;
  periods_[kIopsSample].every_ns = int64_t(job.iops_window_ms()) * 1000000;
  if (lat_log_) periods_[kLatWindow].every_ns = int64_t(job.log_avg_msec) * 1000000;
}

Sampler::~Sampler() = default;

bool Sampler::logs_per_request() const {
  return lat_log_ || ((bw_log_ || iops_log_) && !job_.log_avg_msec);
}

void Sampler::on_complete(const DoneIo& io) {
  if (!io.measured) return;
  const int d = int(io.u.dir);
  if (lat_log_) log_latency(d, io.t1, io.u, io.lat, io.clat, io.slat);
  if ((bw_log_ || iops_log_) && !job_.log_avg_msec && io.st.ok()) {
    // As fio without log_avg_msec: one entry per I/O, the bandwidth being
    // bytes over its clat in fio's unit (bytes/ms, "KiB/s").
    const uint64_t msec = time_.msec(io.t1);
    // fio: the bw entry unless disable_bw_measurement, the iops entry
    // unless gtod_reduce (every statistic off).
    if (bw_log_ && !job_.disable_bw)
      res_->bw_log.push_back(
          LogEntry{msec, io.clat ? io.u.len * 1000000 / io.clat : 0, d, io.u.len, io.u.offset, io.u.ioprio});
    if (iops_log_ && !job_.stats_reduced())
      res_->iops_log.push_back(LogEntry{msec, 1, d, io.u.len, io.u.offset, io.u.ioprio});
  }
}

void Sampler::log_latency(int d, int64_t t1, const IoUnit& u, uint64_t lat, uint64_t clat,
                          const uint64_t* slat) {
  const uint64_t v[3] = {lat, clat, slat ? *slat : 0};
  // As fio: a statistic it does not keep is not logged either.
  const bool keep[3] = {!job_.disable_lat, !job_.disable_clat, slat && !job_.disable_slat};
  if (job_.log_avg_msec == 0) {
    std::vector<LogEntry>* logs[3] = {&res_->lat_log, &res_->clat_log, &res_->slat_log};
    const uint64_t msec = time_.msec(t1);
    for (int k = 0; k < 3; k++)
      if (keep[k]) logs[k]->push_back(LogEntry{msec, v[k], d, u.len, u.offset, u.ioprio});
    return;
  }
  for (int k = 0; k < 3; k++) {
    if (!keep[k]) continue;
    win_.sum[k][d] += v[k];
    win_.max[k][d] = std::max(win_.max[k][d], v[k]);
    win_.n[k][d]++;
  }
}

void Sampler::start(AioContext& ctx, std::function<void(int64_t)> tick) {
  tick_ = std::move(tick);
  timer_ = std::make_unique<Timer>(ctx, [this] {
    const int64_t now = NowNs();
    sample(now);
    if (tick_) tick_(now);
    timer_->arm_at(next_sample_ns(now));
  });
  timer_->arm_at(next_sample_ns(NowNs()));
  if (job_.write_hist_log && job_.log_hist_msec) {
    const int64_t every = int64_t(job_.log_hist_msec) * 1000000;
    hist_timer_ = std::make_unique<Timer>(ctx, [this, every] {
      hist_sample(NowNs());
      hist_timer_->arm_in(every);
    });
    hist_timer_->arm_in(every);
  }
}

void Sampler::begin_measuring(int64_t now) {
  for (Period& p : periods_) {
    p.last_ns = now;
    for (uint64_t& v : p.last) v = 0;
  }
  // Samples cover whole intervals of the measured phase: a tick left over
  // from the ramp would add a short, noisy one.
  if (timer_) timer_->arm_at(next_sample_ns(now));
}

void Sampler::finish(int64_t stop_ns) {
  if (timer_) timer_->cancel();
  if (hist_timer_) {
    hist_timer_->cancel();
    hist_sample(stop_ns);  // the completions since the last entry
  }
  // A last partial sample, when at least half an interval is left.
  if (time_.measuring) sample(stop_ns, /*last=*/true);
}

void Sampler::close() {
  timer_.reset();
  hist_timer_.reset();
}

void Sampler::sample(int64_t now, bool last) {
  if (!time_.measuring) return;
  const uint64_t msec = time_.msec(now);
  for (int k = 0; k < kKinds; k++) {
    Period& p = periods_[k];
    const int64_t span = now - p.last_ns;
    if (!p.every_ns || span <= 0 || span < (last ? p.every_ns / 2 : p.every_ns)) continue;
    const double secs = double(span) / 1e9;
    for (int d = 0; d < kNumDirs; d++)
      if (dirs_.has_dir(Dir(d))) take(Kind(k), d, msec, secs);
    p.last_ns = now;
  }
}

void Sampler::take(Kind k, int d, uint64_t msec, double secs) {
  Period& p = periods_[k];
  DirResult& r = res_->dir[d];
  if (k == kBwSample) {
    // Kept whatever the reductions say, as fio 3.33 does.
    const double bw = double(r.bytes - p.last[d]) / secs;
    r.bw_samples.push_back(bw);
    // Without log_avg_msec the bw log is per I/O (on_complete).
    if (bw_log_ && job_.log_avg_msec)
      res_->bw_log.push_back(LogEntry{msec, uint64_t(bw / 1024), d, 0, 0});
    p.last[d] = r.bytes;
  } else if (k == kIopsSample) {
    const double io = double(r.ios - p.last[d]) / secs;
    r.iops_samples.push_back(io);
    if (iops_log_ && job_.log_avg_msec)
      res_->iops_log.push_back(LogEntry{msec, uint64_t(io), d, 0, 0});
    p.last[d] = r.ios;
  } else {
    std::vector<LogEntry>* logs[3] = {&res_->lat_log, &res_->clat_log, &res_->slat_log};
    for (int l = 0; l < 3; l++) {
      if (!win_.n[l][d]) continue;
      const uint64_t value = job_.log_max_value ? win_.max[l][d] : win_.sum[l][d] / win_.n[l][d];
      logs[l]->push_back(LogEntry{msec, value, d, 0, 0});
      win_.sum[l][d] = win_.max[l][d] = win_.n[l][d] = 0;
    }
  }
}

int64_t Sampler::next_sample_ns(int64_t now) const {
  int64_t next = INT64_MAX;
  for (const Period& p : periods_) {
    if (!p.every_ns) continue;
    // Before the measured phase (a ramp) the periods have not started.
    next = std::min(next, time_.measuring ? std::max(now, p.last_ns + p.every_ns)
                                          : now + p.every_ns);
  }
  return next;
}

void Sampler::hist_sample(int64_t now) {
  // fio's FIO_IO_U_PLAT_NR: the same layout as LatencyHistogram's first
  // buckets (util/histogram.h); slower completions land in the last one.
  constexpr size_t kFioBins = 1856;
  if (!time_.measuring) return;
  const uint64_t msec = time_.msec(now);
  const size_t stride = size_t{1} << job_.log_hist_coarseness;
  for (int d = 0; d < kNumDirs; d++) {
    if (!dirs_.has_dir(Dir(d))) continue;
    std::vector<uint64_t> cur(kFioBins, 0);
    // clat as the report will have it (run/result.h): split and unsplit.
    const LatencyHistogram* parts[] = {&res_->dir[d].clat, &stats_.unsplit(d)};
    for (const LatencyHistogram* h : parts)
      h->for_each_bucket([&](size_t i, uint64_t hits) { cur[std::min(i, kFioBins - 1)] += hits; });
    std::vector<uint64_t>& last = hist_last_[d];
    if (last.empty()) last.assign(kFioBins, 0);
    HistLogEntry e{msec, d, MinBlockSize(job_, Dir(d)), std::vector<uint64_t>(kFioBins / stride, 0)};
    bool any = false;
    for (size_t i = 0; i < kFioBins; i++) {
      const uint64_t n = cur[i] - last[i];
      e.bins[i / stride] += n;
      any = any || n != 0;
    }
    last = std::move(cur);
    if (any) res_->hist_log.push_back(std::move(e));
  }
}

}  // namespace blk::bench
