#include "tools/block_bench/report/text.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <map>

#include "tools/block_bench/format/format.h"
#include "tools/block_bench/report/common.h"

namespace blk::bench {
namespace report_internal {
namespace {

const char* const kDirUpper[] = {"READ", "WRITE", "TRIM"};

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

std::string ScheduleText(const ScheduleResult& sc) {
  std::string o;
  const auto& h = sc.lateness;
  if (sc.kind == ScheduleResult::Kind::kTrace) {
    o += Fmt("  replay       : trace=%s, ios=%llu, depth=%u, held_back=%llu, folded=%llu, skipped=%llu%s\n",
             sc.trace.c_str(), (unsigned long long)sc.trace_ios, sc.depth,
             (unsigned long long)sc.held_back, (unsigned long long)sc.folded,
             (unsigned long long)(sc.skipped + sc.too_large), sc.no_stall ? ", no_stall" : "");
    if (sc.depth_capped_from)
      o += Fmt("     note      : depth capped at %u; the trace shows %u I/Os outstanding "
               "(lost completion events?); iodepth= sets the depth\n",
               sc.depth, sc.depth_capped_from);
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
  // Time before the due time is the pacer's, never lateness.
  const auto& p = sc.pacer_held;
  o += Fmt("     pacer held: %llu (%.2f%%) until due, avg=%.1f, p99=%.1f, max=%.1f (usec)\n",
           (unsigned long long)p.count(), 100.0 * double(p.count()) / n, p.mean() / 1000,
           double(p.percentile(99)) / 1000, double(p.max()) / 1000);
  if (sc.kind == ScheduleResult::Kind::kTrace && !sc.no_stall) {
    o += Fmt("     duration  : trace=%.6fs, replay=%.6fs, error=%+.4f%%\n",
             double(sc.trace_span_ns) / 1e9, double(sc.replay_span_ns) / 1e9, DurationErrorPct(sc));
  }
  return o;
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
                     const JobOptions& job) {
  const std::vector<double>& plist = job.percentile_list;
  if (plist.empty() || !h.count()) return;
  // fio's show_clat_percentiles scaling.
  uint64_t minv = h.percentile(plist.front()), maxv = h.percentile(plist.back());
  int u = (minv > 2000000 && maxv > 99999999ull) ? 2 : (minv > 2000 && maxv > 99999) ? 1 : 0;
  double div = kUnitDiv[u];
  o += Fmt("    %s percentiles (%s):\n", name, kUnitName[u]);
  // fio's: every entry with the list's precision, in that plus 3 columns,
  // four a line (three when the precision is over 3).
  const int prec = job.percentile_precision;
  const size_t per_line = prec > 3 ? 3 : 4;
  for (size_t i = 0; i < plist.size(); i++) {
    if (i % per_line == 0) o += "     |";
    o += Fmt(" %*.*fth=[%5llu]", prec + 3, prec, plist[i],
             (unsigned long long)std::llround(double(h.percentile(plist[i])) / div));
    if (i + 1 < plist.size()) o += ",";
    if (i % per_line == per_line - 1 || i + 1 == plist.size()) o += "\n";
  }
}

// Whether the report's figures come in IEC units first (KiB, MiB), as
// fio's i2p: kb_base=1024; with kb_base=1000, SI units first.
bool IecFirst(const JobOptions& job) { return job.kb_base == 1024; }

// A bandwidth in the job's digits, in bytes or (unit_base=1) bits a second.
std::string Rate(uint64_t bytes_per_s, const JobOptions& job, bool iec) {
  if (UnitBits(job)) return NumToStr(bytes_per_s * 8, int(job.sig_figs), iec, "bit/s");
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

// The bandwidth samples' line of one direction; `per`: the direction's
// share of its group's bandwidth, in %.
std::string BwSamplesText(const std::vector<double>& samples, const JobOptions& job, double per) {
  // fio's samples are whole KiB/s; the line scales them as fio's
  // show_ddir_status: times 8 for bits, and by kb_base once more
  // (MiB/s, Mibit/s) when the mean is above kb_base^2.  min and max
  // print as whole numbers (truncated), as fio's.
  std::vector<double> k;
  for (double b : samples) k.push_back(std::floor(b / 1024));
  const bool iec = IecFirst(job);
  const char* unit = UnitBits(job) ? (iec ? "Kibit" : "kbit") : (iec ? "KiB" : "kB");
  double mn = *std::min_element(k.begin(), k.end());
  double mx = *std::max_element(k.begin(), k.end());
  double mean = Mean(k), dev = Stddev(k);
  const double scale = UnitBits(job) ? 8.0 : 1.0;
  mn *= scale, mx *= scale, mean *= scale, dev *= scale;
  const double kb = double(job.kb_base);
  if (mean > kb * kb) {
    mn = std::floor(mn / kb), mx = std::floor(mx / kb), mean /= kb, dev /= kb;
    unit = UnitBits(job) ? "Mibit" : "MiB";
  }
  return Fmt("   bw (%5s/s): min=%5llu, max=%5llu, per=%3.2f%%, avg=%5.02f, stdev=%5.02f, "
             "samples=%zu\n",
             unit, (unsigned long long)mn, (unsigned long long)mx, per, mean, dev, k.size());
}

std::string IopsSamplesText(const std::vector<double>& io) {
  return Fmt("   iops        : min=%5llu, max=%5llu, avg=%5.02f, stdev=%5.02f, samples=%zu\n",
             (unsigned long long)*std::min_element(io.begin(), io.end()),
             (unsigned long long)*std::max_element(io.begin(), io.end()), Mean(io), Stddev(io),
             io.size());
}

// The latency lines of one direction, then their percentiles.
void DirLatText(std::string& o, const DirResult& x, const JobOptions& job) {
  // As fio: a line only for what was measured (slat needs a driver
  // hand-over; disable_*/gtod_reduce keep none).
  if (x.slat.count()) TextLat(o, "slat", x.slat);
  if (x.clat.count()) TextLat(o, "clat", x.clat);
  if (x.lat.count()) TextLat(o, " lat", x.lat);
  // cmdprio: per priority as fio's (two or more with samples): clat, or
  // lat with lat_percentiles, each line named "<type> prio CLASS/LEVEL".
  const bool by_prio = PriosWithSamples(x) >= 2;
  const char* prio_type = job.lat_percentiles ? "lat" : "clat";
  if (by_prio) {
    for (const PrioLatency& p : x.prios) {
      if (!p.lat.count()) continue;
      const std::string name = Fmt("%s prio %u/%u", prio_type, unsigned(p.ioprio >> 13), unsigned(p.ioprio & 7));
      TextLat(o, name.c_str(), p.lat);
    }
  }
  if (job.slat_percentiles) TextPercentiles(o, "slat", x.slat, job);
  if (job.clat_percentiles) TextPercentiles(o, "clat", x.clat, job);
  if (job.lat_percentiles) TextPercentiles(o, " lat", x.lat, job);
  if (by_prio && (job.clat_percentiles || job.lat_percentiles)) {
    const uint64_t all = job.lat_percentiles ? x.lat.count() : x.clat.count();
    for (const PrioLatency& p : x.prios) {
      if (!p.lat.count()) continue;
      const std::string name =
          Fmt("%s prio %u/%u (%.2f%% of IOs)", prio_type, unsigned(p.ioprio >> 13), unsigned(p.ioprio & 7),
              all ? 100.0 * double(p.lat.count()) / double(all) : 0.0);
      TextPercentiles(o, name.c_str(), p.lat, job);
    }
  }
  if (x.sched_lat.count()) {
    TextLat(o, "sched lat", x.sched_lat);
    if (job.clat_percentiles) TextPercentiles(o, "sched lat", x.sched_lat, job);
  }
}

// The lines of direction `d` (kNumDirs: "mixed", whose figures are `x`):
// IOPS and bandwidth, latencies, bandwidth and IOPS samples.
std::string DirText(const CloneResult& r, int d, const DirResult& x, const GroupBws& gbw) {
  const JobOptions& job = *r.job;
  const int sig = int(job.sig_figs);
  const double iops = PerSec(x.ios, r);
  const double bw = PerSec(x.bytes, r);
  std::string o = Fmt("  %s: IOPS=%s, BW=%s(%s/%llumsec)\n", d < kNumDirs ? kDirName[d] : "mixed",
                      NumToStr(uint64_t(iops), sig, false).c_str(), Bw(uint64_t(bw), job).c_str(),
                      NumToStr(x.bytes, sig, IecFirst(job), "B").c_str(),
                      (unsigned long long)RuntimeMs(r));
  DirLatText(o, x, job);
  if (!x.bw_samples.empty()) {
    double gb = 0;
    for (int k = 0; k < kNumDirs; k++)
      if (d == kNumDirs || k == d) gb += GroupBwOf(gbw[k], r.groupid);
    o += BwSamplesText(x.bw_samples, job, gb > 0 ? 100.0 * bw / gb : 0.0);
  }
  // Kept without the bandwidth samples (disable_bw_measurement), as fio.
  if (!x.iops_samples.empty()) o += IopsSamplesText(x.iops_samples);
  return o;
}

// CPU usage, IO depth distributions, issued requests and the latency
// target.
std::string CpuAndDepthsText(const ReportUnit& u) {
  const CloneResult& r = u.r;
  const JobOptions& job = *r.job;
  const double rt = double(r.runtime_ns > 0 ? r.runtime_ns : r.elapsed_ns) / 1e9 * u.jobs;
  std::string o = Fmt("  cpu          : usr=%.2f%%, sys=%.2f%%, ctx=%llu, majf=%llu, minf=%llu\n",
                      rt > 0 ? 100.0 * r.usr_s / rt : 0.0, rt > 0 ? 100.0 * r.sys_s / rt : 0.0,
                      (unsigned long long)r.ctx, (unsigned long long)r.majf,
                      (unsigned long long)r.minf);
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
  return o;
}

// The lines that appear when they apply (errors, verify, steady state,
// schedule, file set-up, interruption), then the target spec.
std::string NotesText(const CloneResult& r) {
  const JobOptions& job = *r.job;
  std::string o;
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
  return o;
}

// The driver counters, four a line.
std::string CountersText(const std::vector<DriverCounter>& counters) {
  std::string o, line;
  for (size_t i = 0; i < counters.size(); i++) {
    line += Fmt("%s%s=%llu", i % 4 ? ", " : "", counters[i].name.c_str(),
                (unsigned long long)counters[i].value);
    if (i % 4 == 3 || i + 1 == counters.size()) {
      o += "     counters  : " + line + "\n";
      line.clear();
    }
  }
  return o;
}

}  // namespace

std::string UnitText(const ReportUnit& u, const std::string& name, const GroupBws& gbw,
                     bool counters, const std::string& when, int pid) {
  const CloneResult& r = u.r;
  std::string o = Fmt("%s: (groupid=%d, jobs=%d): err=%2d: pid=%d: %s\n", name.c_str(),
                      r.groupid, u.jobs, r.error, pid, when.c_str());
  if (r.error) o += "  error: " + r.error_message + "\n";
  // unified_rw_reporting: "mixed" (index kNumDirs) sums the directions.
  const DirResult mixed = Mixed(r);
  for (int d : ShownDirs(*r.job)) {
    const DirResult& x = d < kNumDirs ? r.dir[d] : mixed;
    if (DirRan(r, x)) o += DirText(r, d, x, gbw);
  }
  TextBuckets(o, AllLat(r));
  if (r.sync_lat.count()) {
    // fio's block for fsync=, fdatasync= and sync_file_range= (whatever
    // clat_percentiles says).
    o += "  fsync/fdatasync/sync_file_range:\n";
    TextLat(o, "sync", r.sync_lat);
    TextPercentiles(o, "sync", r.sync_lat, *r.job);
  }
  o += CpuAndDepthsText(u);
  o += NotesText(r);
  if (counters) o += CountersText(r.counters);
  o += "\n";
  return o;
}

std::string StatusText(const std::vector<ReportUnit>& units, const std::vector<int>& group_ids) {
  std::string o;
  std::map<int, std::vector<const CloneResult*>> groups;
  for (int g : group_ids) groups[g];
  for (const ReportUnit& u : units) groups[u.r.groupid].push_back(&u.r);
  for (auto& [g, cl] : groups) {
    // fio's blank line before each heading (the first has the last unit's).
    if (g != groups.begin()->first) o += "\n";
    if (cl.empty()) {  // only jobs with stats=0: fio's heading alone
      o += Fmt("Run status group %d (all jobs):\n", g);
      continue;
    }
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
        if (!DirRan(*c, x)) continue;
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

}  // namespace report_internal

std::string TextReport(const RunResult& run, bool counters) {
  using namespace report_internal;
  std::vector<ReportUnit> units = ReportUnits(run);
  GroupBws gbw;
  FillGroupBws(units, gbw);
  const std::string when = LocalDate(time(nullptr));
  std::string o;
  const int pid = run.pid ? run.pid : int(getpid());
  for (const ReportUnit& u : units) o += UnitText(u, u.r.job->name, gbw, counters, when, pid);
  o += StatusText(units, StatusGroups(run));
  // Never an empty report: the clones an interrupt kept from starting are
  // counted, per job.
  for (const NotStarted& n : NotStartedClones(run)) {
    o += Fmt("\nNot started: job '%s': %u of %u clone%s (the run was interrupted before %s)\n",
             n.job->name.c_str(), n.clones, n.of, n.of == 1 ? "" : "s",
             n.clones == 1 ? "it started" : "they started");
  }
  if (!run.disk_util.empty()) o += "\nDisk stats (read/write):\n" + DiskText(run.disk_util, "");
  return o;
}

}  // namespace blk::bench
