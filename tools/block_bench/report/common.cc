#include "tools/block_bench/report/common.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace blk::bench::report_internal {
namespace {

// Sum of bw_bytes of the group (for bw_agg / per=).
std::map<int, double> GroupBw(const std::vector<ReportUnit>& units, int d) {
  std::map<int, double> m;
  for (auto& u : units) {
    m[u.r.groupid] += PerSec(u.r.dir[d].bytes, u.r);
  }
  return m;
}

}  // namespace

std::string Fmt(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}
double Stddev(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double m = Mean(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / double(v.size() - 1));
}

uint64_t RuntimeMs(const CloneResult& r) {
  // fio's update_runtime: whole microseconds, rounded up to milliseconds.
  return r.runtime_ns > 0 ? (uint64_t(r.runtime_ns) / 1000 + 999) / 1000 : 0;
}

bool DirRan(const CloneResult& r, const DirResult& x) {
  return x.ios > 0 && !MovesNoData(r.job->ioengine);
}

size_t PriosWithSamples(const DirResult& x) {
  size_t n = 0;
  for (const PrioLatency& p : x.prios) n += p.lat.count() ? 1 : 0;
  return n;
}

double PerSec(uint64_t count, const CloneResult& r) {
  return r.runtime_ns > 0 ? double(count) * 1e9 / double(r.runtime_ns) : 0.0;
}

std::vector<int> ShownDirs(const JobOptions& job) {
  std::vector<int> v;
  if (job.unified_rw != UnifiedRw::kMixed) v = {0, 1, 2};
  if (job.unified_rw != UnifiedRw::kNone) v.push_back(kNumDirs);
  return v;
}

DirResult Mixed(const CloneResult& r) {
  DirResult m = r.dir[0];
  m.merge(r.dir[1]);
  m.merge(r.dir[2]);
  return m;
}

void FillGroupBws(const std::vector<ReportUnit>& units, GroupBws& gbw) {
  for (int d = 0; d < kNumDirs; d++) gbw[d] = GroupBw(units, d);
}

double GroupBwOf(const std::map<int, double>& m, int groupid) {
  auto it = m.find(groupid);
  return it == m.end() ? 0.0 : it->second;
}

LatBuckets Buckets(const LatencyHistogram& h) {
  LatBuckets b;
  if (!h.count()) return b;
  const double total = double(h.count());
  auto idx = [](uint64_t v, const uint64_t* edges, int n) {
    for (int i = 0; i < n; i++)
      if (v < edges[i]) return i;
    return n;  // only for ms: >=2000
  };
  h.for_each_bucket([&](size_t i, uint64_t hits) {
    uint64_t v = LatencyHistogram::bucket_value(i);
    double pct = 100.0 * double(hits) / total;
    if (v < 1000) b.ns[idx(v, kLatEdges, 10)] += pct;
    else if (v < 1000000) b.us[idx(v / 1000, kLatEdges, 10)] += pct;
    else b.ms[idx(v / 1000000, kMsEdges, 11)] += pct;
  });
  return b;
}

LatencyHistogram AllLat(const CloneResult& r) {
  LatencyHistogram h;
  // fio marks the buckets per request (io_u_mark_latency), which its
  // file-system engines' FIO_NOSTATS skips: their calls' clat is no bucket.
  if (TimesFileCalls(r.job->ioengine)) return h;
  for (int d = 0; d < kNumDirs; d++) h.merge(r.dir[d].clat);
  return h;
}

std::string LocalDate(time_t t) {
  char tbuf[64];
  strftime(tbuf, sizeof tbuf, "%a %b %e %H:%M:%S %Y", localtime(&t));
  return tbuf;
}

double DurationErrorPct(const ScheduleResult& sc) {
  if (sc.trace_span_ns <= 0) return 0;
  return 100.0 * double(sc.replay_span_ns - sc.trace_span_ns) / double(sc.trace_span_ns);
}

}  // namespace blk::bench::report_internal
