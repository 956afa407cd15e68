#include "tools/block_bench/run/result_codec.h"

#include <nlohmann/json.hpp>
#include <utility>

namespace blk::bench {
namespace {

using json = nlohmann::json;

// Bumped whenever the layout changes: ranks of one run are one binary, but
// a stale binary on one host must be an error, not a misread.
constexpr int kCodecVersion = 1;

json Hist(const LatencyHistogram& h) {
  const LatencyHistogram::Totals t = h.totals();
  json b = json::array();
  h.for_each_bucket([&](size_t i, uint64_t hits) { b.push_back({i, hits}); });
  return {{"n", t.count},
          {"min", t.min},
          {"max", t.max},
          {"sum", {t.sum[0], t.sum[1]}},
          {"sq", {t.sumsq[0], t.sumsq[1], t.sumsq[2]}},
          {"b", std::move(b)}};
}

void Hist(const json& j, LatencyHistogram* h) {
  LatencyHistogram::Totals t;
  t.count = j.at("n").get<uint64_t>();
  t.min = j.at("min").get<uint64_t>();
  t.max = j.at("max").get<uint64_t>();
  for (int i = 0; i < 2; i++) t.sum[i] = j.at("sum").at(i).get<uint64_t>();
  for (int i = 0; i < 3; i++) t.sumsq[i] = j.at("sq").at(i).get<uint64_t>();
  std::vector<std::pair<size_t, uint64_t>> b;
  for (const json& e : j.at("b")) b.emplace_back(e.at(0).get<size_t>(), e.at(1).get<uint64_t>());
  if (!h->restore(t, b.data(), b.size())) throw std::invalid_argument("inconsistent histogram");
}

template <size_t N>
json Array(const uint64_t (&v)[N]) {
  return std::vector<uint64_t>(v, v + N);
}
template <size_t N>
void Array(const json& j, uint64_t (&v)[N]) {
  if (j.size() != N) throw std::invalid_argument("array length");
  for (size_t i = 0; i < N; i++) v[i] = j.at(i).get<uint64_t>();
}

json Dir(const DirResult& d) {
  return {{"ios", d.ios},        {"bytes", d.bytes},           {"errors", d.errors},
          {"short", d.short_ios}, {"drop", d.drop_ios},        {"clat", Hist(d.clat)},
          {"sched", Hist(d.sched_lat)}, {"bw", d.bw_samples}, {"iops", d.iops_samples}};
}
void Dir(const json& j, DirResult* d) {
  d->ios = j.at("ios");
  d->bytes = j.at("bytes");
  d->errors = j.at("errors");
  d->short_ios = j.at("short");
  d->drop_ios = j.at("drop");
  Hist(j.at("clat"), &d->clat);
  Hist(j.at("sched"), &d->sched_lat);
  d->bw_samples = j.at("bw").get<std::vector<double>>();
  d->iops_samples = j.at("iops").get<std::vector<double>>();
}

json Schedule(const ScheduleResult& s) {
  return {{"kind", int(s.kind)},       {"lateness", Hist(s.lateness)},
          {"late_100us", s.late_100us}, {"late_1ms", s.late_1ms},
          {"held_back", s.held_back},   {"depth", s.depth},
          {"trace", s.trace},           {"trace_ios", s.trace_ios},
          {"skipped", s.skipped},       {"folded", s.folded},
          {"too_large", s.too_large},   {"trace_bad", s.trace_bad},
          {"trace_span", s.trace_span_ns}, {"replay_span", s.replay_span_ns},
          {"no_stall", s.no_stall}};
}
void Schedule(const json& j, ScheduleResult* s) {
  const int kind = j.at("kind");
  if (kind < 0 || kind > int(ScheduleResult::Kind::kRate)) throw std::invalid_argument("schedule kind");
  s->kind = ScheduleResult::Kind(kind);
  Hist(j.at("lateness"), &s->lateness);
  s->late_100us = j.at("late_100us");
  s->late_1ms = j.at("late_1ms");
  s->held_back = j.at("held_back");
  s->depth = j.at("depth");
  s->trace = j.at("trace");
  s->trace_ios = j.at("trace_ios");
  s->skipped = j.at("skipped");
  s->folded = j.at("folded");
  s->too_large = j.at("too_large");
  s->trace_bad = j.at("trace_bad");
  s->trace_span_ns = j.at("trace_span");
  s->replay_span_ns = j.at("replay_span");
  s->no_stall = j.at("no_stall");
}

json Eval(const SteadyEvaluation& e) {
  return {e.mean, e.max_deviation, e.slope, e.criterion, e.attained};
}
void Eval(const json& j, SteadyEvaluation* e) {
  e->mean = j.at(0);
  e->max_deviation = j.at(1);
  e->slope = j.at(2);
  e->criterion = j.at(3);
  e->attained = j.at(4);
}

json Steady(const SteadyStateResult& s) {
  return {{"ss", s.ss},           {"limit", s.limit},     {"pct", s.pct},
          {"dur", s.duration_s},  {"attained", s.attained}, {"last", Eval(s.last)},
          {"evaluated", s.evaluated}, {"iops", s.iops},  {"bw", s.bw_kib},
          {"lat", s.lat_ns},      {"at", s.attained_at_s}};
}
SteadyStateResult Steady(const json& j) {
  SteadyStateResult s;
  s.ss = j.at("ss");
  s.limit = j.at("limit");
  s.pct = j.at("pct");
  s.duration_s = j.at("dur");
  s.attained = j.at("attained");
  Eval(j.at("last"), &s.last);
  s.evaluated = j.at("evaluated");
  s.iops = j.at("iops").get<std::vector<double>>();
  s.bw_kib = j.at("bw").get<std::vector<double>>();
  s.lat_ns = j.at("lat").get<std::vector<double>>();
  s.attained_at_s = j.at("at");
  return s;
}

json Clone(const CloneResult& c) {
  json dirs = json::array();
  for (const DirResult& d : c.dir) dirs.push_back(Dir(d));
  json counters = json::array();
  for (const DriverCounter& k : c.counters) counters.push_back({k.name, k.value});
  json j = {{"job", c.job_index},
            {"clone", c.clone},
            {"thread", c.thread_number},
            {"group", c.groupid},
            {"target", c.target},
            {"not_run", c.not_run},
            {"interrupted", c.interrupted},
            {"error", c.error},
            {"error_message", c.error_message},
            {"total_errors", c.total_errors},
            {"first_error", c.first_error},
            {"first_error_message", c.first_error_message},
            {"dir", std::move(dirs)},
            {"syncs", c.syncs},
            {"sync_lat", Hist(c.sync_lat)},
            {"verified", c.verified},
            {"verify_errors", c.verify_errors},
            {"verify_not_verified", c.verify_not_verified},
            {"first_io", c.first_io_ns},
            {"runtime", c.runtime_ns},
            {"elapsed", c.elapsed_ns},
            {"usr", c.usr_s},
            {"sys", c.sys_s},
            {"ctx", c.ctx},
            {"majf", c.majf},
            {"minf", c.minf},
            {"depth", Array(c.depth)},
            {"submit", Array(c.submit)},
            {"complete", Array(c.complete)},
            {"counters", std::move(counters)},
            {"seed", c.seed},
            {"schedule", Schedule(c.schedule)},
            {"layout", c.layout},
            {"layout_bytes", c.layout_bytes},
            {"layout_seconds", c.layout_seconds},
            {"invalidated", c.invalidated},
            {"pre_read", c.pre_read_bytes},
            {"filled", c.filled}};
  if (c.steadystate) j["steady"] = Steady(*c.steadystate);
  return j;
}

void Clone(const json& j, const std::vector<JobOptions>& jobs, CloneResult* c) {
  c->job_index = j.at("job");
  if (c->job_index >= jobs.size()) throw std::invalid_argument("job index out of range");
  c->job = &jobs[c->job_index];
  c->clone = j.at("clone");
  c->thread_number = j.at("thread");
  c->groupid = j.at("group");
  c->target = j.at("target");
  c->not_run = j.at("not_run");
  c->interrupted = j.at("interrupted");
  c->error = j.at("error");
  c->error_message = j.at("error_message");
  c->total_errors = j.at("total_errors");
  c->first_error = j.at("first_error");
  c->first_error_message = j.at("first_error_message");
  const json& dirs = j.at("dir");
  if (dirs.size() != kNumDirs) throw std::invalid_argument("directions");
  for (int d = 0; d < kNumDirs; d++) Dir(dirs.at(d), &c->dir[d]);
  c->syncs = j.at("syncs");
  Hist(j.at("sync_lat"), &c->sync_lat);
  c->verified = j.at("verified");
  c->verify_errors = j.at("verify_errors");
  c->verify_not_verified = j.at("verify_not_verified");
  c->first_io_ns = j.at("first_io");
  c->runtime_ns = j.at("runtime");
  c->elapsed_ns = j.at("elapsed");
  c->usr_s = j.at("usr");
  c->sys_s = j.at("sys");
  c->ctx = j.at("ctx");
  c->majf = j.at("majf");
  c->minf = j.at("minf");
  Array(j.at("depth"), c->depth);
  Array(j.at("submit"), c->submit);
  Array(j.at("complete"), c->complete);
  for (const json& k : j.at("counters"))
    c->counters.push_back(DriverCounter{k.at(0).get<std::string>(), k.at(1).get<uint64_t>()});
  c->seed = j.at("seed");
  Schedule(j.at("schedule"), &c->schedule);
  c->layout = j.at("layout");
  c->layout_bytes = j.at("layout_bytes");
  c->layout_seconds = j.at("layout_seconds");
  c->invalidated = j.at("invalidated");
  c->pre_read_bytes = j.at("pre_read");
  c->filled = j.at("filled");
  if (j.contains("steady")) c->steadystate = Steady(j.at("steady"));
}

json Disk(const DiskUtil& d) {
  const DiskCounters& c = d.delta;
  return {{"name", d.name},
          {"c", {c.read_ios, c.read_merges, c.read_ticks, c.write_ios, c.write_merges,
                 c.write_ticks, c.io_ticks, c.in_queue}},
          {"util", d.util}};
}
DiskUtil Disk(const json& j) {
  DiskUtil d;
  d.name = j.at("name");
  const json& c = j.at("c");
  DiskCounters& k = d.delta;
  uint64_t* f[] = {&k.read_ios,  &k.read_merges, &k.read_ticks, &k.write_ios,
                   &k.write_merges, &k.write_ticks, &k.io_ticks, &k.in_queue};
  if (c.size() != 8) throw std::invalid_argument("disk counters");
  for (size_t i = 0; i < 8; i++) *f[i] = c.at(i).get<uint64_t>();
  d.util = j.at("util");
  return d;
}

}  // namespace

std::string EncodeRun(const RunResult& run) {
  json clones = json::array();
  for (const CloneResult& c : run.clones) clones.push_back(Clone(c));
  json disks = json::array();
  for (const DiskUtil& d : run.disk_util) disks.push_back(Disk(d));
  json j = {{"v", kCodecVersion},
            {"clones", std::move(clones)},
            {"disks", std::move(disks)},
            {"start_ms", run.start_unix_ms},
            {"pid", run.pid},
            {"interrupted_by", run.interrupted_by}};
  if (run.setup_error) j["setup_error"] = {run.setup_error->code, run.setup_error->message};
  if (run.sync_error) j["sync_error"] = {run.sync_error->code, run.sync_error->message};
  const std::vector<uint8_t> bytes = json::to_cbor(j);
  return std::string(bytes.begin(), bytes.end());
}

Expected<RunResult> DecodeRun(const std::string& bytes, const std::vector<JobOptions>& jobs) {
  RunResult run;
  try {
    const json j = json::from_cbor(bytes);
    if (j.at("v").get<int>() != kCodecVersion) {
      return MakeError(-EINVAL, "results of layout version " + j.at("v").dump() + ", expected " +
                                    std::to_string(kCodecVersion) +
                                    " (the same block-bench on every host?)");
    }
    for (const json& c : j.at("clones")) {
      run.clones.emplace_back();
      Clone(c, jobs, &run.clones.back());
    }
    for (const json& d : j.at("disks")) run.disk_util.push_back(Disk(d));
    run.start_unix_ms = j.at("start_ms");
    run.pid = j.at("pid");
    run.interrupted_by = j.at("interrupted_by");
    if (j.contains("setup_error")) {
      const json& e = j.at("setup_error");
      run.setup_error = MakeError(e.at(0).get<int>(), e.at(1).get<std::string>());
    }
    if (j.contains("sync_error")) {
      const json& e = j.at("sync_error");
      run.sync_error = MakeError(e.at(0).get<int>(), e.at(1).get<std::string>());
    }
  } catch (const std::exception& e) {
    return MakeError(-EINVAL, std::string("cannot decode a run's results: ") + e.what());
  }
  return run;
}

}  // namespace blk::bench
