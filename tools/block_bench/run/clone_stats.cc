#include "tools/block_bench/run/clone_stats.h"

#include <algorithm>

namespace blk::bench {
namespace {

double Sec(const timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; }

}  // namespace

void AddUsage(const rusage& from, const rusage& to, CloneResult* out) {
  out->usr_s += Sec(to.ru_utime) - Sec(from.ru_utime);
  out->sys_s += Sec(to.ru_stime) - Sec(from.ru_stime);
  out->ctx += uint64_t((to.ru_nvcsw - from.ru_nvcsw) + (to.ru_nivcsw - from.ru_nivcsw));
  out->majf += uint64_t(to.ru_majflt - from.ru_majflt);
  out->minf += uint64_t(to.ru_minflt - from.ru_minflt);
}

void CloneStats::sync_done(int64_t t0, int64_t t1, bool measured) {
  if (!measured) return;
  res_->syncs++;
  res_->sync_lat.record(uint64_t(t1 - t0));
}

void CloneStats::sync_range_done(int64_t t0, int64_t t1, bool measured) {
  if (measured) res_->sync_lat.record(uint64_t(t1 - t0));
}

void CloneStats::record_prio(DirResult& r, int d, const Latency& l, const IoUnit& u) {
  if (d == int(Dir::kTrim)) return;
  if (r.prios.empty()) {  // the first measured I/O, or after restart()
    for (uint16_t p : prio_->priorities(Dir(d))) r.prios.push_back(PrioLatency{p, {}});
  }
  for (PrioLatency& p : r.prios) {
    if (p.ioprio == u.ioprio) {
      p.lat.record(job_.lat_percentiles ? l.lat : l.clat);
      return;
    }
  }
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
