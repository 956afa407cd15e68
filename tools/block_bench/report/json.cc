#include "tools/block_bench/report/json.h"

#include <algorithm>
#include <ctime>
#include <iterator>
#include <map>

#include "tools/block_bench/jobfile/render.h"
#include "tools/block_bench/report/common.h"
#include "tools/block_bench/run/target.h"

namespace blk::bench {
namespace report_internal {
namespace {

// The schedule-keeping of a paced job (trace replay or rate=): see
// ScheduleResult.  Percentiles of lateness: 50, 99, 99.9.
const double kLatenessPercentiles[] = {50, 99, 99.9};

// fio's add_ddir_lat_json: "percentile" when `percentiles` asks for them and
// there are samples; json+ (`plus`) adds the histogram's non-empty "bins"
// under the same condition, so a latency gets bins exactly where fio's
// json+ has them (clat by default, slat and lat with slat_percentiles /
// lat_percentiles, the sync latencies with clat or lat percentiles).
ojson LatJson(const LatencyHistogram& h, bool percentiles, const std::vector<double>& plist,
              bool plus) {
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
  if (percentiles && plus && h.count()) {
    ojson b = ojson::object();
    h.for_each_bucket([&](size_t i, uint64_t hits) {
      b[std::to_string(LatencyHistogram::bucket_value(i))] = hits;
    });
    j["bins"] = b;
  }
  return j;
}

// fio's "steadystate" object: ss (with its limit, "%f" and '%' when
// relative), duration, attained, criterion (the last evaluation),
// max_deviation, slope, and the window's data (bw in KiB/s as fio; lat_ns
// is block-bench's; the intervals not sampled yet are 0, and the means are
// over the whole window, as fio's).
ojson SteadyJson(const SteadyStateResult& ss) {
  ojson j;
  // fio prints its limit as a float.
  j["ss"] = Fmt("%s:%f%s", ss.ss.c_str(), double(float(ss.limit)), ss.pct ? "%" : "");
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

// fio's echo of options as written (jobfile/job.h WrittenOptions).
ojson WrittenJson(const WrittenOptions::List& list) {
  ojson o = ojson::object();
  for (const auto& [name, value] : list) o[name] = value;
  return o;
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
  const bool ran = DirRan(r, x);
  j["iops"] = ran ? PerSec(x.ios, r) : 0.0;
  j["runtime"] = ran ? ms : 0;
  j["total_ios"] = x.ios;
  j["short_ios"] = x.short_ios;
  j["drop_ios"] = x.drop_ios;
  j["slat_ns"] = LatJson(x.slat, job.slat_percentiles, job.percentile_list, plus);
  j["clat_ns"] = LatJson(x.clat, job.clat_percentiles, job.percentile_list, plus);
  j["lat_ns"] = LatJson(x.lat, job.lat_percentiles, job.percentile_list, plus);
  // fio's per-priority latencies (cmdprio): only when two or more
  // priorities have samples; clat, or lat with lat_percentiles.
  if (d != int(Dir::kTrim) && PriosWithSamples(x) >= 2) {
    ojson a = ojson::array();
    for (const PrioLatency& p : x.prios) {
      if (!p.lat.count()) continue;
      ojson o;
      o["prioclass"] = p.ioprio >> 13;
      o["prio"] = p.ioprio & 7;
      o[job.lat_percentiles ? "lat_ns" : "clat_ns"] =
          LatJson(p.lat, job.clat_percentiles || job.lat_percentiles, job.percentile_list, plus);
      a.push_back(o);
    }
    j["prios"] = a;
  }
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
  if (sc.depth_capped_from) j["depth_capped_from"] = sc.depth_capped_from;
  j["held_back"] = sc.held_back;
  j["late_100us"] = sc.late_100us;
  j["late_1ms"] = sc.late_1ms;
  const std::vector<double> plist(std::begin(kLatenessPercentiles), std::end(kLatenessPercentiles));
  j["lateness_ns"] = LatJson(sc.lateness, true, plist, false);
  // Held until their due time by the pacer (or the trace): not lateness.
  j["pacer_held"] = sc.pacer_held.count();
  j["pacer_held_ns"] = LatJson(sc.pacer_held, true, plist, false);
  return j;
}

// The I/O engine the job really runs on: the file driver's aio mode
// (libaio for aio=native; threads when libaio with direct=0 runs on the
// thread pool), null, rbd, rados, nbd, else blockdev; the engines whose work is
// not the graph's I/O (cpuio, exec, net, the file-system engines) by name.
std::string EngineOf(const JobOptions& job, const std::string& spec) {
  if (MovesNoData(job.ioengine) || TimesFileCalls(job.ioengine) || IsNet(job.ioengine))
    return std::string(Name(job.ioengine));
  if (const size_t at = spec.find("aio="); at != std::string::npos) {
    const size_t from = at + 4;
    const std::string mode = spec.substr(from, spec.find(',', from) - from);
    return mode == "native" ? "libaio" : mode;
  }
  if (spec.rfind("driver=null", 0) == 0) return "null";
  if (spec.rfind("driver=rbd", 0) == 0) return "rbd";
  if (spec.rfind("driver=rados", 0) == 0) return "rados";
  if (spec.rfind("driver=nbd", 0) == 0) return "nbd";
  return "blockdev";
}

ojson DistJson(const uint64_t* v, const char* const* keys) {
  uint64_t total = 0;
  for (int i = 0; i < 7; i++) total += v[i];
  ojson j = ojson::object();
  for (int i = 0; i < 7; i++) j[keys[i]] = total ? 100.0 * double(v[i]) / double(total) : 0.0;
  return j;
}

// The directions' objects ("read", "write", "trim", "mixed") as
// ShownDirs says, each with its share of the group's bandwidth.
void AddDirsJson(ojson& j, const ReportUnit& u, const GroupBws& gbw, bool plus) {
  const CloneResult& r = u.r;
  for (int d : ShownDirs(*r.job)) {
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
}

ojson SyncJson(const CloneResult& r, bool plus) {
  const JobOptions& job = *r.job;
  ojson sync;
  sync["total_ios"] = r.syncs;
  sync["lat_ns"] = LatJson(r.sync_lat, job.clat_percentiles || job.lat_percentiles,
                           job.percentile_list, plus);
  return sync;
}

// job_runtime, CPU usage and the IO depth distributions.
void AddCpuAndDepthsJson(ojson& j, const ReportUnit& u) {
  const CloneResult& r = u.r;
  j["job_runtime"] = RuntimeMs(r);
  double rt = double(r.runtime_ns > 0 ? r.runtime_ns : r.elapsed_ns) / 1e9 * u.jobs;
  j["usr_cpu"] = rt > 0 ? 100.0 * r.usr_s / rt : 0.0;
  j["sys_cpu"] = rt > 0 ? 100.0 * r.sys_s / rt : 0.0;
  j["ctx"] = r.ctx;
  j["majf"] = r.majf;
  j["minf"] = r.minf;
  j["iodepth_level"] = DistJson(r.depth, kDepthKeys);
  j["iodepth_submit"] = DistJson(r.submit, kBatchKeys);
  j["iodepth_complete"] = DistJson(r.complete, kBatchKeys);
}

// The latency buckets (latency_ns, _us, _ms) and the latency target keys.
void AddLatencyJson(ojson& j, const CloneResult& r) {
  const JobOptions& job = *r.job;
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
}

// How the target file was set up (run/target.h).
ojson FileJson(const CloneResult& r) {
  ojson l;
  l["action"] = r.layout.empty() ? "none" : r.layout;
  l["bytes"] = r.layout_bytes;
  l["seconds"] = r.layout_seconds;
  l["invalidated"] = r.invalidated;
  l["pre_read_bytes"] = r.pre_read_bytes;
  l["filled"] = r.filled;
  return l;
}

// block-bench's own object: target, engine, file set-up, seed, exact
// times, errors, verify figures, driver counters; "job" when the unit is
// not named after its job.
ojson BlkstackJson(const ReportUnit& u, const std::string& name) {
  const CloneResult& r = u.r;
  const JobOptions& job = *r.job;
  ojson bs;
  bs["target"] = r.target;
  bs["engine"] = EngineOf(job, r.target);
  if (const std::string d = FioDifference(job); !d.empty()) bs["differs_from_fio"] = d;
  // For the terse line's error fields (fio's: whenever the option is set).
  if (job.continue_on_error != ContinueOnError::kNone) bs["continue_on_error"] = true;
  if (!r.layout.empty() || r.invalidated || r.pre_read_bytes || r.filled) bs["file"] = FileJson(r);
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
  return bs;
}

}  // namespace

ojson TopJson(int64_t start_unix_ms) {
  ojson top;
  // fio's key too, for consumers that look for it (fio-plot, CBT): the value
  // ("block-bench-X") cannot be taken for a fio version.
  top["fio version"] = kFioVersionField;
  top["blkstack-bench version"] = kBenchVersion;
  top["timestamp"] = start_unix_ms / 1000;
  top["timestamp_ms"] = start_unix_ms;
  top["time"] = LocalDate(time_t(start_unix_ms / 1000));
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

ojson UnitJson(const ReportUnit& u, const std::string& name, const GroupBws& gbw, bool plus) {
  const CloneResult& r = u.r;
  ojson j;
  j["jobname"] = name;
  j["groupid"] = r.groupid;
  j["error"] = r.error;
  j["total_err"] = r.total_errors;
  j["first_error"] = r.first_error;
  j["eta"] = 0;
  j["elapsed"] = (r.elapsed_ns + 999999999) / 1000000000;
  j["job options"] = WrittenJson(r.job->written.job);
  AddDirsJson(j, u, gbw, plus);
  j["sync"] = SyncJson(r, plus);
  AddCpuAndDepthsJson(j, u);
  AddLatencyJson(j, r);
  if (!r.job->description.empty()) j["desc"] = r.job->description;
  if (r.steadystate) j["steadystate"] = SteadyJson(*r.steadystate);
  if (r.schedule.kind != ScheduleResult::Kind::kNone) j["schedule"] = ScheduleJson(r.schedule);
  j["blkstack"] = BlkstackJson(u, name);
  return j;
}

}  // namespace report_internal

nlohmann::ordered_json JsonReport(const RunResult& run, bool plus) {
  using namespace report_internal;
  std::vector<ReportUnit> units = ReportUnits(run);
  ojson top = TopJson(run.start_unix_ms);
  // fio's, only when the jobs had a [global] section (or options before the
  // first --name).
  if (!run.clones.empty() && run.clones.front().job->written.global_section)
    top["global options"] = WrittenJson(run.clones.front().job->written.global);
  GroupBws gbw;
  FillGroupBws(units, gbw);
  ojson jobs = ojson::array();
  for (const ReportUnit& u : units) jobs.push_back(UnitJson(u, u.r.job->name, gbw, plus));
  top["jobs"] = jobs;
  // block-bench's own key: the clones an interrupt kept from starting.
  if (const std::vector<NotStarted> ns = NotStartedClones(run); !ns.empty()) {
    ojson list = ojson::array();
    for (const NotStarted& n : ns)
      list.push_back(ojson{{"jobname", n.job->name}, {"clones", n.clones}, {"numjobs", n.of}});
    top["not_started"] = std::move(list);
  }
  if (!run.disk_util.empty()) {
    ojson disks = ojson::array();
    for (const DiskUtil& d : run.disk_util) disks.push_back(DiskJson(d));
    top["disk_util"] = std::move(disks);
  }
  return top;
}

}  // namespace blk::bench
