#include "tools/block_bench/run/clone_stats.h"

#include <algorithm>

namespace blk::bench {

CloneStats::Latency CloneStats::complete(const IoUnit& u, int64_t t0, int64_t t1, int64_t handed,
                                         int64_t due, bool measured, Status st) {
  const int d = int(u.dir);
  const uint64_t lat = uint64_t(t1 - t0);
  last_done_ns_ = t1;
  live_->lat_ns_sum.store(raw_lat_sum_ += lat, std::memory_order_relaxed);
  live_->ios[d].store(++raw_ios_[d], std::memory_order_relaxed);
  if (st.ok()) live_->bytes[d].store(raw_bytes_[d] += u.len, std::memory_order_relaxed);
  const bool split = handed != 0;
  const uint64_t slat = split ? uint64_t(std::clamp(handed, t0, t1) - t0) : 0;
  const Latency l{lat, lat - slat, slat, split};
  if (!measured) return l;
  DirResult& r = res_->dir[d];
  r.ios++;
  if (split) {
    if (!job_.disable_slat) r.slat.record(l.slat);
    if (!job_.disable_clat) r.clat.record(l.clat);
    if (!job_.disable_lat) r.lat.record(lat);
  } else if (!job_.disable_clat || !job_.disable_lat) {
    unsplit_[d].record(lat);
  }
  if (due) r.sched_lat.record(uint64_t(std::max<int64_t>(0, t1 - due)));
  if (st.ok()) r.bytes += u.len;
  else r.errors++;
  return l;
}

void CloneStats::sync_done(int64_t t0, int64_t t1, bool measured) {
  if (!measured) return;
  res_->syncs++;
  res_->sync_lat.record(uint64_t(t1 - t0));
}

void CloneStats::merge_unsplit(CloneResult* out) const {
  for (int d = 0; d < kNumDirs; d++) {
    if (!job_.disable_clat) out->dir[d].clat.merge(unsplit_[d]);
    if (!job_.disable_lat) out->dir[d].lat.merge(unsplit_[d]);
  }
}

void CloneStats::clear_unsplit() {
  for (LatencyHistogram& h : unsplit_) h.reset();
}

void CloneStats::restart() {
  for (int d = 0; d < kNumDirs; d++) {
    const uint64_t errors = res_->dir[d].errors;
    res_->dir[d] = DirResult{};
    res_->dir[d].errors = errors;
    unsplit_[d].reset();
  }
  for (int i = 0; i < 7; i++) res_->depth[i] = res_->submit[i] = res_->complete[i] = 0;
  res_->syncs = 0;
  res_->sync_lat.reset();
}

}  // namespace blk::bench
