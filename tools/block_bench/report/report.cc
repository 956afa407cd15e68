#include "tools/block_bench/report/report.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>

#include "tools/block_bench/format/format.h"
#include "tools/block_bench/jobfile/render.h"

namespace blk::bench {
namespace {

using ojson = nlohmann::ordered_json;

const char* const kDirName[] = {"read", "write", "trim"};
const char* const kDirUpper[] = {"READ", "WRITE", "TRIM"};

std::string Fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
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

uint64_t RuntimeMs(const CloneResult& r) { return uint64_t((r.runtime_ns + 500000) / 1000000); }

// Per second, over the exact runtime.  fio divides by whole milliseconds;
// the nanosecond runtime gives the same figure for runs of a second or more
// (within 0.05 %) and a true one for runs shorter than a millisecond, where
// the rounded runtime is 0 or 1 ms.
double PerSec(uint64_t count, const CloneResult& r) {
  return r.runtime_ns > 0 ? double(count) * 1e9 / double(r.runtime_ns) : 0.0;
}

// Latency bucket percentages as fio's latency_ns/us/ms maps.
struct LatBuckets {
  double ns[10] = {}, us[10] = {}, ms[12] = {};
};
const uint64_t kLatEdges[10] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000};
const uint64_t kMsEdges[11] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000};

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
  for (int d = 0; d < kNumDirs; d++) h.merge(r.dir[d].clat);
  return h;
}

ojson LatJson(const LatencyHistogram& h, bool percentiles, const std::vector<double>& plist,
              bool bins) {
  ojson j;
  j["min"] = h.min();
  j["max"] = h.max();
  j["mean"] = h.mean();
  j["stddev"] = h.stddev();
  j["N"] = h.count();
  if (percentiles && h.count()) {
    ojson p = ojson::object();
    for (double q : plist) p[Fmt("%f", q)] = h.percentile(q);
    j["percentile"] = p;
  }
  if (bins && h.count()) {
    ojson b = ojson::object();
    h.for_each_bucket([&](size_t i, uint64_t hits) {
      b[std::to_string(LatencyHistogram::bucket_value(i))] = hits;
    });
    j["bins"] = b;
  }
  return j;
}

// fio's "steadystate" object: ss, duration, attained, criterion (the last
// evaluation, "%f" with '%' when relative), max_deviation, slope, and the
// window's data (bw in KiB/s as fio; lat_ns is block-bench's).
ojson SteadyJson(const SteadyStateResult& ss) {
  ojson j;
  j["ss"] = ss.ss;
  j["duration"] = int64_t(ss.duration_s);
  j["attained"] = ss.attained ? 1 : 0;
  j["criterion"] = Fmt("%f%s", ss.evaluated ? ss.last.criterion : 0.0, ss.pct ? "%" : "");
  j["max_deviation"] = ss.last.max_deviation;
  j["slope"] = ss.last.slope;
  ojson data;
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0.0 : s / double(v.size());
  };
  data["bw_mean"] = uint64_t(mean(ss.bw_kib));
  data["iops_mean"] = uint64_t(mean(ss.iops));
  data["lat_ns_mean"] = uint64_t(mean(ss.lat_ns));
  ojson iops = ojson::array(), bw = ojson::array(), lat = ojson::array();
  for (double v : ss.iops) iops.push_back(uint64_t(v));
  for (double v : ss.bw_kib) bw.push_back(uint64_t(v));
  for (double v : ss.lat_ns) lat.push_back(uint64_t(v));
  data["iops"] = iops;
  data["bw"] = bw;
  data["lat_ns"] = lat;
  j["data"] = data;
  return j;
}

std::string SteadyText(const SteadyStateResult& ss) {
  std::string limit = Fmt("%g%s", ss.limit, ss.pct ? "%" : "");
  if (!ss.attained)
    return Fmt("  steadystate  : attained=no, %s:%s, criterion=%s over %gs\n", ss.ss.c_str(),
               limit.c_str(),
               ss.evaluated ? Fmt("%f%s", ss.last.criterion, ss.pct ? "%" : "").c_str()
                            : "(window never full)",
               ss.duration_s);
  return Fmt("  steadystate  : attained=yes after %.1fs, %s:%s, criterion=%f%s over %gs\n",
             ss.attained_at_s, ss.ss.c_str(), limit.c_str(), ss.last.criterion,
             ss.pct ? "%" : "", ss.duration_s);
}

ojson JobOptionsJson(const JobOptions& job) {
  ojson o = ojson::object();
  for (const std::string& a : RenderJobArgs(job)) {
    std::string s = a.substr(a.rfind("--", 0) == 0 ? 2 : 0);
    size_t eq = s.find('=');
    if (eq == std::string::npos) o[s] = "";
    else o[s.substr(0, eq)] = s.substr(eq + 1);
  }
  return o;
}

// Sum of bw_bytes of the group (for bw_agg / per=).
std::map<int, double> GroupBw(const std::vector<ReportUnit>& units, int d) {
  std::map<int, double> m;
  for (auto& u : units) {
    m[u.r.groupid] += PerSec(u.r.dir[d].bytes, u.r);
  }
  return m;
}

ojson DirJson(const ReportUnit& u, int d, bool plus, double group_bw) {
  const CloneResult& r = u.r;
  const DirResult& x = r.dir[d];
  const JobOptions& job = *r.job;
  uint64_t ms = RuntimeMs(r);
  ojson j;
  j["io_bytes"] = x.bytes;
  j["io_kbytes"] = x.bytes / 1024;
  uint64_t bw_bytes = uint64_t(PerSec(x.bytes, r));
  j["bw_bytes"] = bw_bytes;
  j["bw"] = bw_bytes / 1024;
  j["iops"] = PerSec(x.ios, r);
  j["runtime"] = x.ios ? ms : 0;
  j["total_ios"] = x.ios;
  j["short_ios"] = x.short_ios;
  j["drop_ios"] = x.drop_ios;
  j["slat_ns"] = LatJson(x.slat, job.slat_percentiles, job.percentile_list, plus);
  j["clat_ns"] = LatJson(x.clat, job.clat_percentiles, job.percentile_list, plus);
  j["lat_ns"] = LatJson(x.lat, job.lat_percentiles, job.percentile_list, false);
  if (x.sched_lat.count())
    j["sched_lat_ns"] = LatJson(x.sched_lat, job.clat_percentiles, job.percentile_list, false);
  std::vector<double> bwk;
  for (double b : x.bw_samples) bwk.push_back(b / 1024);
  bool any = x.ios > 0 && !bwk.empty();
  j["bw_min"] = any ? uint64_t(*std::min_element(bwk.begin(), bwk.end())) : 0;
  j["bw_max"] = any ? uint64_t(*std::max_element(bwk.begin(), bwk.end())) : 0;
  j["bw_agg"] = group_bw > 0 && any ? 100.0 * double(bw_bytes) / group_bw : 0.0;
  j["bw_mean"] = any ? Mean(bwk) : 0.0;
  j["bw_dev"] = any ? Stddev(bwk) : 0.0;
  j["bw_samples"] = any ? bwk.size() : 0;
  const bool any_iops = x.ios > 0 && !x.iops_samples.empty();  // kept without bw's
  j["iops_min"] = any_iops ? uint64_t(*std::min_element(x.iops_samples.begin(), x.iops_samples.end())) : 0;
  j["iops_max"] = any_iops ? uint64_t(*std::max_element(x.iops_samples.begin(), x.iops_samples.end())) : 0;
  j["iops_mean"] = any_iops ? Mean(x.iops_samples) : 0.0;
  j["iops_stddev"] = any_iops ? Stddev(x.iops_samples) : 0.0;
  j["iops_samples"] = any_iops ? x.iops_samples.size() : 0;
  return j;
}

// The schedule-keeping of a paced job (trace replay or rate=): see
// ScheduleResult.  Percentiles of lateness: 50, 99, 99.9.
const double kLatenessPercentiles[] = {50, 99, 99.9};

double DurationErrorPct(const ScheduleResult& sc) {
  if (sc.trace_span_ns <= 0) return 0;
  return 100.0 * double(sc.replay_span_ns - sc.trace_span_ns) / double(sc.trace_span_ns);
}

ojson ScheduleJson(const ScheduleResult& sc) {
  ojson j;
  j["kind"] = sc.kind == ScheduleResult::Kind::kTrace ? "trace" : "rate";
  if (sc.kind == ScheduleResult::Kind::kTrace) {
    j["trace"] = sc.trace;
    j["trace_ios"] = sc.trace_ios;
    j["no_stall"] = sc.no_stall ? 1 : 0;
    j["skipped"] = sc.skipped;
    j["folded"] = sc.folded;
    j["too_large"] = sc.too_large;
    j["bad_records"] = sc.trace_bad;
    j["trace_span_ns"] = sc.trace_span_ns;
    j["replay_span_ns"] = sc.replay_span_ns;
    j["duration_error_pct"] = DurationErrorPct(sc);
  }
  j["depth"] = sc.depth;
  j["held_back"] = sc.held_back;
  j["late_100us"] = sc.late_100us;
  j["late_1ms"] = sc.late_1ms;
  j["lateness_ns"] = LatJson(sc.lateness, true,
                             std::vector<double>(std::begin(kLatenessPercentiles),
                                                 std::end(kLatenessPercentiles)),
                             false);
  return j;
}

std::string ScheduleText(const ScheduleResult& sc) {
  std::string o;
  const auto& h = sc.lateness;
  if (sc.kind == ScheduleResult::Kind::kTrace) {
    o += Fmt("  replay       : trace=%s, ios=%llu, depth=%u, held_back=%llu, folded=%llu, skipped=%llu%s\n",
             sc.trace.c_str(), (unsigned long long)sc.trace_ios, sc.depth,
             (unsigned long long)sc.held_back, (unsigned long long)sc.folded,
             (unsigned long long)(sc.skipped + sc.too_large), sc.no_stall ? ", no_stall" : "");
  } else {
    o += Fmt("  schedule     : rate, depth=%u, held_back=%llu\n", sc.depth,
             (unsigned long long)sc.held_back);
  }
  const double n = h.count() ? double(h.count()) : 1.0;
  o += Fmt("     lateness  : min=%.1f, avg=%.1f, p50=%.1f, p99=%.1f, p99.9=%.1f, max=%.1f (usec), "
           ">100us=%llu (%.2f%%), >1ms=%llu (%.2f%%)\n",
           double(h.min()) / 1000, h.mean() / 1000, double(h.percentile(50)) / 1000,
           double(h.percentile(99)) / 1000, double(h.percentile(99.9)) / 1000,
           double(h.max()) / 1000, (unsigned long long)sc.late_100us, 100.0 * double(sc.late_100us) / n,
           (unsigned long long)sc.late_1ms, 100.0 * double(sc.late_1ms) / n);
  if (sc.kind == ScheduleResult::Kind::kTrace && !sc.no_stall) {
    o += Fmt("     duration  : trace=%.6fs, replay=%.6fs, error=%+.4f%%\n",
             double(sc.trace_span_ns) / 1e9, double(sc.replay_span_ns) / 1e9, DurationErrorPct(sc));
  }
  return o;
}

// The I/O engine a graph spec really runs on (the file driver's aio mode,
// null, rbd), whatever ioengine= asked (libaio with direct=0 runs on the
// thread pool).
std::string EngineOf(const std::string& spec) {
  if (spec.find("aio=native") != std::string::npos) return "libaio";
  if (spec.find("aio=io_uring") != std::string::npos) return "io_uring";
  if (spec.find("aio=threads") != std::string::npos) return "threads";
  if (spec.find("aio=sync") != std::string::npos) return "sync";
  if (spec.rfind("driver=null", 0) == 0) return "null";
  if (spec.rfind("driver=rbd", 0) == 0) return "rbd";
  return "blockdev";
}

// How the target file was set up (run/target.h).
std::string LayoutText(const CloneResult& r) {
  std::string parts;
  auto add = [&](const std::string& p) { parts += (parts.empty() ? "" : ", ") + p; };
  const std::string size = NumToStr(r.layout_bytes, 4, true, "B");
  if (r.layout == "write") add("laid out " + size + Fmt(" before the job (%.2fs)", r.layout_seconds));
  else if (r.layout == "allocate") add("created, " + size + " preallocated");
  else if (r.layout == "sparse") add("created sparse (" + size + ")");
  if (r.invalidated) add("page cache dropped");
  if (r.pre_read_bytes) add("pre-read " + NumToStr(r.pre_read_bytes, 4, true, "B"));
  if (r.filled) add("filled: the device ran out of space (fill_device)");
  return "  file         : " + parts + "\n";
}

const char* const kUnitName[] = {"nsec", "usec", "msec"};
const uint64_t kUnitDiv[] = {1, 1000, 1000000};

void TextLat(std::string& o, const char* name, const LatencyHistogram& h) {
  // fio's display_lat: msec when min and mean exceed 1 ms, usec when they
  // exceed 1 us, else nsec.
  double mn = double(h.min()), mean = h.mean();
  int u = (mn > 1e6 && mean > 1e6) ? 2 : (mn > 1000 && mean > 1000) ? 1 : 0;
  const uint64_t div = kUnitDiv[u];
  // min and max as whole units, truncated, as fio's nsec_to_usec.
  o += Fmt("    %s (%s): min=%s, max=%s, avg=%.2f, stdev=%.2f\n", name, kUnitName[u],
           NumToStr(h.min() / div, 6, false).c_str(), NumToStr(h.max() / div, 6, false).c_str(),
           h.mean() / double(div), h.stddev() / double(div));
}

void TextPercentiles(std::string& o, const char* name, const LatencyHistogram& h,
                     const std::vector<double>& plist) {
  if (plist.empty() || !h.count()) return;
  // fio's show_clat_percentiles scaling.
  uint64_t minv = h.percentile(plist.front()), maxv = h.percentile(plist.back());
  int u = (minv > 2000000 && maxv > 99999999ull) ? 2 : (minv > 2000 && maxv > 99999) ? 1 : 0;
  double div = kUnitDiv[u];
  o += Fmt("    %s percentiles (%s):\n", name, kUnitName[u]);
  for (size_t i = 0; i < plist.size(); i++) {
    if (i % 4 == 0) o += "     |";
    // Two decimals as fio, more when the percentile has them: 99.999 must
    // not print as 100.00.
    int prec = 2;
    while (prec < 6 && std::fabs(std::round(plist[i] * std::pow(10, prec)) / std::pow(10, prec) -
                                 plist[i]) > 1e-9)
      prec++;
    o += Fmt(" %5.*fth=[%5llu]", prec, plist[i],
             (unsigned long long)std::llround(double(h.percentile(plist[i])) / div));
    if (i + 1 < plist.size()) o += ",";
    if (i % 4 == 3 || i + 1 == plist.size()) o += "\n";
  }
}

// Whether the report's figures come in IEC units first (KiB, MiB), as
// fio's i2p: kb_base=1024; with kb_base=1000, SI units first.
bool IecFirst(const JobOptions& job) { return job.kb_base == 1024; }

// A bandwidth in the job's digits, in bytes or (unit_base=1) bits a second.
std::string Rate(uint64_t bytes_per_s, const JobOptions& job, bool iec) {
  if (job.unit_bits) return NumToStr(bytes_per_s * 8, int(job.sig_figs), iec, "bit/s");
  return NumToStr(bytes_per_s, int(job.sig_figs), iec, "B/s");
}
// fio's "7813KiB/s (8000kB/s)": in the units of kb_base first, then the
// others.
std::string Bw(uint64_t bytes_per_s, const JobOptions& job) {
  const bool iec = IecFirst(job);
  return Rate(bytes_per_s, job, iec) + " (" + Rate(bytes_per_s, job, !iec) + ")";
}

void TextBuckets(std::string& o, const LatencyHistogram& h) {
  LatBuckets b = Buckets(h);
  auto line = [&](const char* unit, const double* v, const uint64_t* edges, int n, bool ms) {
    std::vector<std::string> items;
    for (int i = 0; i < n; i++) {
      if (v[i] <= 0) continue;
      std::string key = (ms && i == n - 1) ? ">=2000" : std::to_string(edges[i]);
      items.push_back(Fmt("%s=%.2f%%", key.c_str(), std::max(v[i], 0.01)));
    }
    for (size_t i = 0; i < items.size(); i += 5) {
      o += Fmt("  lat (%s)   : ", unit);
      for (size_t k = i; k < items.size() && k < i + 5; k++) o += (k > i ? ", " : "") + items[k];
      o += "\n";
    }
  };
  line("nsec", b.ns, kLatEdges, 10, false);
  line("usec", b.us, kLatEdges, 10, false);
  line("msec", b.ms, kMsEdges, 12, true);
}

std::string Dist(const uint64_t* v, const char* const* keys) {
  uint64_t total = 0;
  for (int i = 0; i < 7; i++) total += v[i];
  std::string s;
  for (int i = 0; i < 7; i++)
    s += Fmt("%s%s=%.1f%%", i ? ", " : "", keys[i], total ? 100.0 * double(v[i]) / double(total) : 0.0);
  return s;
}
const char* const kDepthKeys[] = {"1", "2", "4", "8", "16", "32", ">=64"};
const char* const kBatchKeys[] = {"0", "4", "8", "16", "32", "64", ">=64"};

ojson DistJson(const uint64_t* v, const char* const* keys) {
  uint64_t total = 0;
  for (int i = 0; i < 7; i++) total += v[i];
  ojson j = ojson::object();
  for (int i = 0; i < 7; i++) j[keys[i]] = total ? 100.0 * double(v[i]) / double(total) : 0.0;
  return j;
}

}  // namespace

std::vector<ReportUnit> ReportUnits(const RunResult& run) {
  std::vector<ReportUnit> units;
  std::map<int, size_t> group_unit;
  for (const CloneResult& c : run.clones) {
    if (c.not_run) continue;
    if (c.job->group_reporting) {
      auto it = group_unit.find(c.groupid);
      if (it != group_unit.end()) {
        units[it->second].r.merge(c);
        units[it->second].jobs++;
        continue;
      }
      group_unit[c.groupid] = units.size();
    }
    units.push_back(ReportUnit{c, 1});
  }
  return units;
}

// The directions a job's report shows: read, write, trim, and (index
// kNumDirs) "mixed", their sum, as unified_rw_reporting says.
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

namespace {

using GroupBws = std::map<int, double>[kNumDirs];

void FillGroupBws(const std::vector<ReportUnit>& units, GroupBws& gbw) {
  for (int d = 0; d < kNumDirs; d++) gbw[d] = GroupBw(units, d);
}

double GroupBwOf(const std::map<int, double>& m, int groupid) {
  auto it = m.find(groupid);
  return it == m.end() ? 0.0 : it->second;
}

std::string Now() {
  time_t now = time(nullptr);
  char tbuf[64];
  strftime(tbuf, sizeof tbuf, "%a %b %e %H:%M:%S %Y", localtime(&now));
  return tbuf;
}

// One report unit's text block; `name`: the job's, or "All clients".
std::string UnitText(const ReportUnit& u, const std::string& name, const GroupBws& gbw,
                     bool counters, const std::string& when, int pid) {
  std::string o;
  {
    const CloneResult& r = u.r;
    const JobOptions& job = *r.job;
    o += Fmt("%s: (groupid=%d, jobs=%d): err=%2d: pid=%d: %s\n", name.c_str(), r.groupid,
             u.jobs, r.error, pid, when.c_str());
    if (r.error) o += "  error: " + r.error_message + "\n";
    uint64_t ms = RuntimeMs(r);
    const int sig = int(job.sig_figs);
    // unified_rw_reporting: "mixed" (index kNumDirs) sums the directions.
    const DirResult mixed = Mixed(r);
    for (int d : ShownDirs(job)) {
      const DirResult& x = d < kNumDirs ? r.dir[d] : mixed;
      if (!x.ios) continue;
      double iops = PerSec(x.ios, r);
      double bw = PerSec(x.bytes, r);
      o += Fmt("  %s: IOPS=%s, BW=%s(%s/%llumsec)\n", d < kNumDirs ? kDirName[d] : "mixed",
               NumToStr(uint64_t(iops), sig, false).c_str(), Bw(uint64_t(bw), job).c_str(),
               NumToStr(x.bytes, sig, IecFirst(job), "B").c_str(), (unsigned long long)ms);
      // As fio: a line only for what was measured (slat needs a driver
      // hand-over; disable_*/gtod_reduce keep none).
      if (x.slat.count()) TextLat(o, "slat", x.slat);
      if (x.clat.count()) TextLat(o, "clat", x.clat);
      if (x.lat.count()) TextLat(o, " lat", x.lat);
      if (job.slat_percentiles) TextPercentiles(o, "slat", x.slat, job.percentile_list);
      if (job.clat_percentiles) TextPercentiles(o, "clat", x.clat, job.percentile_list);
      if (job.lat_percentiles) TextPercentiles(o, " lat", x.lat, job.percentile_list);
      if (x.sched_lat.count()) {
        TextLat(o, "sched lat", x.sched_lat);
        if (job.clat_percentiles) TextPercentiles(o, "sched lat", x.sched_lat, job.percentile_list);
      }
      if (!x.bw_samples.empty()) {
        // fio's samples are whole KiB/s; the line scales them as fio's
        // show_ddir_status: times 8 for bits, and by kb_base once more
        // (MiB/s, Mibit/s) when the mean is above kb_base^2.  min and max
        // print as whole numbers (truncated), as fio's.
        std::vector<double> k;
        for (double b : x.bw_samples) k.push_back(std::floor(b / 1024));
        double gb = 0;
        for (int k = 0; k < kNumDirs; k++)
          if (d == kNumDirs || k == d) gb += GroupBwOf(gbw[k], r.groupid);
        const bool iec = IecFirst(job);
        const char* unit = job.unit_bits ? (iec ? "Kibit" : "kbit") : (iec ? "KiB" : "kB");
        double mn = *std::min_element(k.begin(), k.end());
        double mx = *std::max_element(k.begin(), k.end());
        double mean = Mean(k), dev = Stddev(k);
        const double scale = job.unit_bits ? 8.0 : 1.0;
        mn *= scale, mx *= scale, mean *= scale, dev *= scale;
        const double kb = double(job.kb_base);
        if (mean > kb * kb) {
          mn = std::floor(mn / kb), mx = std::floor(mx / kb), mean /= kb, dev /= kb;
          unit = job.unit_bits ? "Mibit" : "MiB";
        }
        o += Fmt("   bw (%5s/s): min=%5llu, max=%5llu, per=%3.2f%%, avg=%5.02f, stdev=%5.02f, "
                 "samples=%zu\n",
                 unit, (unsigned long long)mn, (unsigned long long)mx,
                 gb > 0 ? 100.0 * bw / gb : 0.0, mean, dev, k.size());
      }
      // Kept without the bandwidth samples (disable_bw_measurement), as fio.
      if (const auto& io = x.iops_samples; !io.empty()) {
        o += Fmt("   iops        : min=%5llu, max=%5llu, avg=%5.02f, stdev=%5.02f, samples=%zu\n",
                 (unsigned long long)*std::min_element(io.begin(), io.end()),
                 (unsigned long long)*std::max_element(io.begin(), io.end()), Mean(io), Stddev(io),
                 io.size());
      }
    }
    TextBuckets(o, AllLat(r));
    double rt = double(r.runtime_ns > 0 ? r.runtime_ns : r.elapsed_ns) / 1e9 * u.jobs;
    o += Fmt("  cpu          : usr=%.2f%%, sys=%.2f%%, ctx=%llu, majf=%llu, minf=%llu\n",
             rt > 0 ? 100.0 * r.usr_s / rt : 0.0, rt > 0 ? 100.0 * r.sys_s / rt : 0.0,
             (unsigned long long)r.ctx, (unsigned long long)r.majf, (unsigned long long)r.minf);
    o += "  IO depths    : " + Dist(r.depth, kDepthKeys) + "\n";
    o += "     submit    : " + Dist(r.submit, kBatchKeys) + "\n";
    o += "     complete  : " + Dist(r.complete, kBatchKeys) + "\n";
    o += Fmt("     issued rwts: total=%llu,%llu,%llu,%llu short=%llu,%llu,%llu,0 dropped=%llu,%llu,%llu,0\n",
             (unsigned long long)r.dir[0].ios, (unsigned long long)r.dir[1].ios,
             (unsigned long long)r.dir[2].ios, (unsigned long long)r.syncs,
             (unsigned long long)r.dir[0].short_ios, (unsigned long long)r.dir[1].short_ios,
             (unsigned long long)r.dir[2].short_ios, (unsigned long long)r.dir[0].drop_ios,
             (unsigned long long)r.dir[1].drop_ios, (unsigned long long)r.dir[2].drop_ios);
    o += Fmt("     latency   : target=%llu, window=%llu, percentile=%.2f%%, depth=%u\n",
             (unsigned long long)job.latency_target.count() * 1000,
             (unsigned long long)job.latency_window.count(), job.latency_percentile,
             r.latency_depth ? r.latency_depth : job.iodepth);
    // fio prints this line only with continue_on_error; errors are never
    // hidden here, so it also appears whenever a request failed.
    if (job.continue_on_error != ContinueOnError::kNone || r.total_errors) {
      o += Fmt("  errors    : total=%llu, first_error=%d/<%s>\n",
               (unsigned long long)r.total_errors, r.first_error,
               r.first_error ? std::strerror(r.first_error) : "Success");
    }
    if (job.verify != VerifyMethod::kNone)
      o += Fmt("  verify       : checked=%llu, errors=%llu, not_verified=%llu\n",
               (unsigned long long)r.verified, (unsigned long long)r.verify_errors,
               (unsigned long long)r.verify_not_verified);
    if (r.steadystate) o += SteadyText(*r.steadystate);
    if (r.schedule.kind != ScheduleResult::Kind::kNone) o += ScheduleText(r.schedule);
    if (!r.layout.empty() || r.invalidated || r.pre_read_bytes || r.filled) o += LayoutText(r);
    if (r.interrupted) o += "  interrupted  : stopped early by a signal\n";
    o += "  blkstack     : " + r.target + "\n";
    if (counters && !r.counters.empty()) {
      std::string line;
      for (size_t i = 0; i < r.counters.size(); i++) {
        line += Fmt("%s%s=%llu", i % 4 ? ", " : "", r.counters[i].name.c_str(),
                    (unsigned long long)r.counters[i].value);
        if (i % 4 == 3 || i + 1 == r.counters.size()) {
          o += "     counters  : " + line + "\n";
          line.clear();
        }
      }
    }
    o += "\n";
  }
  return o;
}

// Run status groups, as fio: over the report units (each clone, or the
// whole group with group_reporting, whose range is then that one value).
std::string StatusText(const std::vector<ReportUnit>& units) {
  std::string o;
  std::map<int, std::vector<const CloneResult*>> groups;
  for (const ReportUnit& u : units) groups[u.r.groupid].push_back(&u.r);
  for (auto& [g, cl] : groups) {
    // The figures' digits and units as fio's: of the group's last unit.
    const JobOptions& job = *cl.back()->job;
    const int sig = int(job.sig_figs);
    const bool iec = IecFirst(job);
    o += Fmt("Run status group %d (all jobs):\n", g);
    for (int d = 0; d < kNumDirs; d++) {
      uint64_t bytes = 0, ios = 0, rmin = UINT64_MAX, rmax = 0;
      int64_t rmax_ns = 0;  // the aggregate rate is over the longest unit
      uint64_t bmin = UINT64_MAX, bmax = 0;  // bytes/s, whole as fio's
      for (auto* c : cl) {
        const DirResult& x = c->dir[d];
        if (!x.ios) continue;
        ios += x.ios;
        bytes += x.bytes;
        uint64_t ms = RuntimeMs(*c);
        rmin = std::min(rmin, ms);
        rmax = std::max(rmax, ms);
        rmax_ns = std::max(rmax_ns, c->runtime_ns);
        const uint64_t bw = uint64_t(PerSec(x.bytes, *c));
        bmin = std::min(bmin, bw);
        bmax = std::max(bmax, bw);
      }
      if (!ios) continue;
      const uint64_t agg = rmax_ns > 0 ? uint64_t(double(bytes) * 1e9 / double(rmax_ns)) : 0;
      o += Fmt("%7s: bw=%s, %s-%s (%s-%s), io=%s (%s), run=%llu-%llumsec\n", kDirUpper[d],
               Bw(agg, job).c_str(), Rate(bmin, job, iec).c_str(), Rate(bmax, job, iec).c_str(),
               Rate(bmin, job, !iec).c_str(), Rate(bmax, job, !iec).c_str(),
               NumToStr(bytes, sig, iec, "B").c_str(),
               NumToStr(bytes, sig, !iec, "B").c_str(), (unsigned long long)rmin,
               (unsigned long long)rmax);
    }
  }
  return o;
}

// fio's "Disk stats" lines; `prefix` before each device name.
std::string DiskText(const std::vector<DiskUtil>& disks, const std::string& prefix) {
  std::string o;
  for (const DiskUtil& d : disks) {
    const DiskCounters& c = d.delta;
    o += Fmt("  %s%s: ios=%llu/%llu, merge=%llu/%llu, ticks=%llu/%llu, in_queue=%llu, util=%3.2f%%\n",
             prefix.c_str(), d.name.c_str(), (unsigned long long)c.read_ios,
             (unsigned long long)c.write_ios, (unsigned long long)c.read_merges,
             (unsigned long long)c.write_merges, (unsigned long long)c.read_ticks,
             (unsigned long long)c.write_ticks, (unsigned long long)c.in_queue, d.util);
  }
  return o;
}

}  // namespace

std::string TextReport(const RunResult& run, bool counters) {
  std::vector<ReportUnit> units = ReportUnits(run);
  GroupBws gbw;
  FillGroupBws(units, gbw);
  const std::string when = Now();
  std::string o;
  const int pid = run.pid ? run.pid : int(getpid());
  for (const ReportUnit& u : units) o += UnitText(u, u.r.job->name, gbw, counters, when, pid);
  o += StatusText(units);
  if (!run.disk_util.empty()) o += "\nDisk stats (read/write):\n" + DiskText(run.disk_util, "");
  return o;
}

namespace {

ojson TopJson(int64_t start_unix_ms) {
  ojson top;
  // fio's key too, for consumers that look for it (fio-plot, CBT): the value
  // ("block-bench-X") cannot be taken for a fio version.
  top["fio version"] = kBenchVersion;
  top["blkstack-bench version"] = kBenchVersion;
  top["timestamp"] = start_unix_ms / 1000;
  top["timestamp_ms"] = start_unix_ms;
  time_t t = time_t(start_unix_ms / 1000);
  char tbuf[64];
  strftime(tbuf, sizeof tbuf, "%a %b %e %H:%M:%S %Y", localtime(&t));
  top["time"] = tbuf;
  return top;
}

ojson DiskJson(const DiskUtil& d) {
  ojson o;
  o["name"] = d.name;
  o["read_ios"] = d.delta.read_ios;
  o["write_ios"] = d.delta.write_ios;
  o["read_merges"] = d.delta.read_merges;
  o["write_merges"] = d.delta.write_merges;
  o["read_ticks"] = d.delta.read_ticks;
  o["write_ticks"] = d.delta.write_ticks;
  o["in_queue"] = d.delta.in_queue;
  o["util"] = d.util;
  return o;
}

// One report unit's JSON object; `name`: the job's, or "All clients".
ojson UnitJson(const ReportUnit& u, const std::string& name, const GroupBws& gbw, bool plus) {
  {
    const CloneResult& r = u.r;
    const JobOptions& job = *r.job;
    ojson j;
    j["jobname"] = name;
    j["groupid"] = r.groupid;
    j["error"] = r.error;
    j["total_err"] = r.total_errors;
    j["first_error"] = r.first_error;
    j["eta"] = 0;
    j["elapsed"] = (r.elapsed_ns + 999999999) / 1000000000;
    j["job options"] = JobOptionsJson(job);
    for (int d : ShownDirs(job)) {
      if (d < kNumDirs) {
        j[kDirName[d]] = DirJson(u, d, plus, GroupBwOf(gbw[d], r.groupid));
        continue;
      }
      ReportUnit m = u;  // "mixed": the directions summed, as fio's
      m.r.dir = {Mixed(r), DirResult{}, DirResult{}};
      double gb = 0;
      for (int k = 0; k < kNumDirs; k++) gb += GroupBwOf(gbw[k], r.groupid);
      j["mixed"] = DirJson(m, 0, plus, gb);
    }
    ojson sync;
    sync["total_ios"] = r.syncs;
    sync["lat_ns"] = LatJson(r.sync_lat, false, {}, false);
    j["sync"] = sync;
    uint64_t ms = RuntimeMs(r);
    j["job_runtime"] = ms;
    double rt = double(r.runtime_ns > 0 ? r.runtime_ns : r.elapsed_ns) / 1e9 * u.jobs;
    j["usr_cpu"] = rt > 0 ? 100.0 * r.usr_s / rt : 0.0;
    j["sys_cpu"] = rt > 0 ? 100.0 * r.sys_s / rt : 0.0;
    j["ctx"] = r.ctx;
    j["majf"] = r.majf;
    j["minf"] = r.minf;
    j["iodepth_level"] = DistJson(r.depth, kDepthKeys);
    j["iodepth_submit"] = DistJson(r.submit, kBatchKeys);
    j["iodepth_complete"] = DistJson(r.complete, kBatchKeys);
    LatBuckets b = Buckets(AllLat(r));
    ojson ns = ojson::object(), us = ojson::object(), msj = ojson::object();
    for (int i = 0; i < 10; i++) {
      ns[std::to_string(kLatEdges[i])] = b.ns[i];
      us[std::to_string(kLatEdges[i])] = b.us[i];
    }
    for (int i = 0; i < 11; i++) msj[std::to_string(kMsEdges[i])] = b.ms[i];
    msj[">=2000"] = b.ms[11];
    j["latency_ns"] = ns;
    j["latency_us"] = us;
    j["latency_ms"] = msj;
    j["latency_depth"] = r.latency_depth ? r.latency_depth : job.iodepth;
    j["latency_target"] = uint64_t(job.latency_target.count()) * 1000;  // ns, as fio
    j["latency_percentile"] = job.latency_percentile;
    j["latency_window"] = uint64_t(job.latency_window.count());  // us, as fio
    if (r.steadystate) j["steadystate"] = SteadyJson(*r.steadystate);
    if (r.schedule.kind != ScheduleResult::Kind::kNone) j["schedule"] = ScheduleJson(r.schedule);
    ojson bs;
    bs["target"] = r.target;
    bs["engine"] = EngineOf(r.target);
    if (!r.layout.empty() || r.invalidated || r.pre_read_bytes || r.filled) {
      ojson l;
      l["action"] = r.layout.empty() ? "none" : r.layout;
      l["bytes"] = r.layout_bytes;
      l["seconds"] = r.layout_seconds;
      l["invalidated"] = r.invalidated;
      l["pre_read_bytes"] = r.pre_read_bytes;
      l["filled"] = r.filled;
      bs["file"] = l;
    }
    bs["jobs"] = u.jobs;
    bs["seed"] = r.seed;
    bs["runtime_ns"] = r.runtime_ns;
    bs["first_io_monotonic_ns"] = r.first_io_ns;
    bs["measure_start_monotonic_ns"] = r.measure_start_ns;
    if (!r.error_message.empty()) bs["error_message"] = r.error_message;
    if (!r.first_error_message.empty()) bs["first_error_message"] = r.first_error_message;
    bs["interrupted"] = r.interrupted;
    bs["slat"] = "until the driver handed the request over (io_submit, io_uring_enter, "
                 "rbd_aio_* returned); none where the driver has no such step (null, "
                 "threads): then clat = lat";
    if (job.verify != VerifyMethod::kNone) {
      bs["verified"] = r.verified;
      bs["verify_errors"] = r.verify_errors;
      bs["verify_not_verified"] = r.verify_not_verified;
    }
    ojson cn = ojson::object();
    for (auto& c : r.counters) cn[c.name] = c.value;
    bs["counters"] = cn;
    if (name != job.name) bs["job"] = job.name;
    j["blkstack"] = bs;
    return j;
  }
}

}  // namespace

nlohmann::ordered_json JsonReport(const RunResult& run, bool plus) {
  std::vector<ReportUnit> units = ReportUnits(run);
  ojson top = TopJson(run.start_unix_ms);
  GroupBws gbw;
  FillGroupBws(units, gbw);
  ojson jobs = ojson::array();
  for (const ReportUnit& u : units) jobs.push_back(UnitJson(u, u.r.job->name, gbw, plus));
  top["jobs"] = jobs;
  if (!run.disk_util.empty()) {
    ojson disks = ojson::array();
    for (const DiskUtil& d : run.disk_util) disks.push_back(DiskJson(d));
    top["disk_util"] = std::move(disks);
  }
  return top;
}

std::vector<ReportUnit> AllClientsUnits(const std::vector<ClientRun>& clients) {
  // A unit is one clone, or one group with group_reporting: the same on
  // every rank, which ran the same jobs.
  std::vector<ReportUnit> all;
  std::map<std::pair<int64_t, int64_t>, size_t> index;
  for (const ClientRun& c : clients) {
    for (const ReportUnit& u : ReportUnits(c.run)) {
      const auto key = u.r.job->group_reporting
                           ? std::pair<int64_t, int64_t>{-1, u.r.groupid}
                           : std::pair<int64_t, int64_t>{u.r.job_index, u.r.clone};
      auto it = index.find(key);
      if (it == index.end()) {
        index[key] = all.size();
        all.push_back(u);
        continue;
      }
      all[it->second].r.merge(u.r);
      all[it->second].jobs += u.jobs;
    }
  }
  return all;
}

std::string ClientsTextReport(const std::vector<ClientRun>& clients, bool counters) {
  const std::string when = Now();
  std::string o;
  for (const ClientRun& c : clients) {
    std::vector<ReportUnit> units = ReportUnits(c.run);
    GroupBws gbw;
    FillGroupBws(units, gbw);
    o += Fmt("Client rank %d (%s):\n", c.rank, c.hostname.c_str());
    for (const ReportUnit& u : units) o += UnitText(u, u.r.job->name, gbw, counters, when, c.run.pid);
  }
  const std::vector<ReportUnit> all = AllClientsUnits(clients);
  GroupBws gbw;
  FillGroupBws(all, gbw);
  for (const ReportUnit& u : all) {
    const std::string name = all.size() == 1 ? "All clients" : "All clients [" + u.r.job->name + "]";
    o += UnitText(u, name, gbw, counters, when, clients.empty() ? 0 : clients.front().run.pid);
  }
  o += StatusText(all);
  std::string disks;
  for (const ClientRun& c : clients)
    disks += DiskText(c.run.disk_util, c.hostname + "[" + std::to_string(c.rank) + "]:");
  if (!disks.empty()) o += "\nDisk stats (read/write):\n" + disks;
  return o;
}

nlohmann::ordered_json ClientsJsonReport(const std::vector<ClientRun>& clients, bool plus) {
  ojson top = TopJson(clients.empty() ? 0 : clients.front().run.start_unix_ms);
  ojson stats = ojson::array();
  ojson disks = ojson::array();
  for (const ClientRun& c : clients) {
    std::vector<ReportUnit> units = ReportUnits(c.run);
    GroupBws gbw;
    FillGroupBws(units, gbw);
    for (const ReportUnit& u : units) {
      ojson j = UnitJson(u, u.r.job->name, gbw, plus);
      j["hostname"] = c.hostname;
      j["port"] = 0;
      j["rank"] = c.rank;
      stats.push_back(std::move(j));
    }
    for (const DiskUtil& d : c.run.disk_util) {
      ojson o = DiskJson(d);
      o["hostname"] = c.hostname;
      o["rank"] = c.rank;
      disks.push_back(std::move(o));
    }
  }
  const std::vector<ReportUnit> all = AllClientsUnits(clients);
  GroupBws gbw;
  FillGroupBws(all, gbw);
  ojson jobs = ojson::array();
  for (const ReportUnit& u : all) {
    ojson j = UnitJson(u, "All clients", gbw, plus);
    j["blkstack"]["ranks"] = clients.size();
    stats.push_back(j);
    j["jobname"] = u.r.job->name;
    j["blkstack"].erase("job");
    jobs.push_back(std::move(j));
  }
  // The merged units also where single-host consumers look (fio's own
  // client output has no "jobs"; fio_jsonplus_clat2csv reads only "jobs").
  top["jobs"] = std::move(jobs);
  top["client_stats"] = std::move(stats);
  if (!disks.empty()) top["disk_util"] = std::move(disks);
  return top;
}

}  // namespace blk::bench
