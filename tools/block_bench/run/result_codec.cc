#include "tools/block_bench/run/result_codec.h"

#include <nlohmann/json.hpp>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace blk::bench {
namespace {

using json = nlohmann::json;

// Bumped whenever the layout changes: ranks of one run are one binary, but
// a stale binary on one host must be an error, not a misread.
constexpr int kCodecVersion = 1;

// Typed reads that refuse what EncodeRun never writes (a float where an
// integer belongs, a value out of range, a wrong type): the bytes come from
// another process.
template <class T>
T As(const json& j) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!j.is_boolean()) throw std::invalid_argument("expected a boolean");
    return j.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    if (!j.is_number_integer()) throw std::invalid_argument("expected an integer");
    if (j.is_number_unsigned()) {
      const uint64_t v = j.get<uint64_t>();
      if (v > uint64_t(std::numeric_limits<T>::max())) throw std::invalid_argument("integer out of range");
      return T(v);
    }
    const int64_t v = j.get<int64_t>();
    if (v < int64_t(std::numeric_limits<T>::min()) ||
        (v > 0 && uint64_t(v) > uint64_t(std::numeric_limits<T>::max())))
      throw std::invalid_argument("integer out of range");
    return T(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!j.is_number()) throw std::invalid_argument("expected a number");
    return j.get<T>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!j.is_string()) throw std::invalid_argument("expected a string");
    return j.get<std::string>();
  } else {
    static_assert(std::is_same_v<T, std::vector<double>>);
    if (!j.is_array()) throw std::invalid_argument("expected an array");
    std::vector<double> v;
    for (const json& e : j) v.push_back(As<double>(e));
    return v;
  }
}

// Parses CBOR into a json value, refusing nesting deeper than EncodeRun's
// (a hostile input must not exhaust the stack of the recursive reader).
class DepthLimitedSax : public nlohmann::detail::json_sax_dom_parser<json> {
 public:
  explicit DepthLimitedSax(json& j) : json_sax_dom_parser(j, false) {}
  bool start_object(std::size_t n) {
    return ++depth_ <= kMaxDepth && json_sax_dom_parser::start_object(n);
  }
  bool end_object() {
    --depth_;
    return json_sax_dom_parser::end_object();
  }
  bool start_array(std::size_t n) {
    return ++depth_ <= kMaxDepth && json_sax_dom_parser::start_array(n);
  }
  bool end_array() {
    --depth_;
    return json_sax_dom_parser::end_array();
  }

 private:
  static constexpr int kMaxDepth = 16;
  int depth_ = 0;
};

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
  t.count = As<uint64_t>(j.at("n"));
  t.min = As<uint64_t>(j.at("min"));
  t.max = As<uint64_t>(j.at("max"));
  for (int i = 0; i < 2; i++) t.sum[i] = As<uint64_t>(j.at("sum").at(i));
  for (int i = 0; i < 3; i++) t.sumsq[i] = As<uint64_t>(j.at("sq").at(i));
  std::vector<std::pair<size_t, uint64_t>> b;
  for (const json& e : j.at("b")) b.emplace_back(As<size_t>(e.at(0)), As<uint64_t>(e.at(1)));
  if (!h->restore(t, b.data(), b.size())) throw std::invalid_argument("inconsistent histogram");
}

template <size_t N>
json Array(const uint64_t (&v)[N]) {
  return std::vector<uint64_t>(v, v + N);
}
template <size_t N>
void Array(const json& j, uint64_t (&v)[N]) {
  if (j.size() != N) throw std::invalid_argument("array length");
  for (size_t i = 0; i < N; i++) v[i] = As<uint64_t>(j.at(i));
}

json Dir(const DirResult& d) {
  return {{"ios", d.ios},        {"bytes", d.bytes},           {"errors", d.errors},
          {"short", d.short_ios}, {"drop", d.drop_ios},
          {"slat", Hist(d.slat)}, {"clat", Hist(d.clat)},    {"lat", Hist(d.lat)},
          {"sched", Hist(d.sched_lat)}, {"bw", d.bw_samples}, {"iops", d.iops_samples}};
}
void Dir(const json& j, DirResult* d) {
  d->ios = As<std::remove_cvref_t<decltype(d->ios)>>(j.at("ios"));
  d->bytes = As<std::remove_cvref_t<decltype(d->bytes)>>(j.at("bytes"));
  d->errors = As<std::remove_cvref_t<decltype(d->errors)>>(j.at("errors"));
  d->short_ios = As<std::remove_cvref_t<decltype(d->short_ios)>>(j.at("short"));
  d->drop_ios = As<std::remove_cvref_t<decltype(d->drop_ios)>>(j.at("drop"));
  Hist(j.at("slat"), &d->slat);
  Hist(j.at("clat"), &d->clat);
  Hist(j.at("lat"), &d->lat);
  Hist(j.at("sched"), &d->sched_lat);
  d->bw_samples = As<std::remove_cvref_t<decltype(d->bw_samples)>>(As<std::vector<double>>(j.at("bw")));
  d->iops_samples = As<std::remove_cvref_t<decltype(d->iops_samples)>>(As<std::vector<double>>(j.at("iops")));
}

json Schedule(const ScheduleResult& s) {
  return {{"kind", int(s.kind)},       {"lateness", Hist(s.lateness)},
          {"late_100us", s.late_100us}, {"late_1ms", s.late_1ms},
          {"held_back", s.held_back},   {"depth", s.depth},
          {"trace", s.trace},           {"trace_ios", s.trace_ios},
          {"skipped", s.skipped},       {"folded", s.folded},
          {"too_large", s.too_large},   {"trace_bad", s.trace_bad},
          {"trace_span", s.trace_span_ns}, {"replay_span", s.replay_span_ns},
          {"no_stall", s.no_stall},     {"pacer_held", Hist(s.pacer_held)},
          {"depth_capped_from", s.depth_capped_from}};
}
void Schedule(const json& j, ScheduleResult* s) {
  const int kind = As<int>(j.at("kind"));
  if (kind < 0 || kind > int(ScheduleResult::Kind::kRate)) throw std::invalid_argument("schedule kind");
  s->kind = ScheduleResult::Kind(kind);
  Hist(j.at("lateness"), &s->lateness);
  if (j.contains("pacer_held")) Hist(j.at("pacer_held"), &s->pacer_held);
  s->late_100us = As<std::remove_cvref_t<decltype(s->late_100us)>>(j.at("late_100us"));
  s->late_1ms = As<std::remove_cvref_t<decltype(s->late_1ms)>>(j.at("late_1ms"));
  s->held_back = As<std::remove_cvref_t<decltype(s->held_back)>>(j.at("held_back"));
  s->depth = As<std::remove_cvref_t<decltype(s->depth)>>(j.at("depth"));
  s->trace = As<std::remove_cvref_t<decltype(s->trace)>>(j.at("trace"));
  s->trace_ios = As<std::remove_cvref_t<decltype(s->trace_ios)>>(j.at("trace_ios"));
  s->skipped = As<std::remove_cvref_t<decltype(s->skipped)>>(j.at("skipped"));
  s->folded = As<std::remove_cvref_t<decltype(s->folded)>>(j.at("folded"));
  s->too_large = As<std::remove_cvref_t<decltype(s->too_large)>>(j.at("too_large"));
  s->trace_bad = As<std::remove_cvref_t<decltype(s->trace_bad)>>(j.at("trace_bad"));
  s->trace_span_ns = As<std::remove_cvref_t<decltype(s->trace_span_ns)>>(j.at("trace_span"));
  s->replay_span_ns = As<std::remove_cvref_t<decltype(s->replay_span_ns)>>(j.at("replay_span"));
  s->no_stall = As<std::remove_cvref_t<decltype(s->no_stall)>>(j.at("no_stall"));
  if (j.contains("depth_capped_from"))
    s->depth_capped_from = As<std::remove_cvref_t<decltype(s->depth_capped_from)>>(j.at("depth_capped_from"));
}

json Eval(const SteadyEvaluation& e) {
  return {e.mean, e.max_deviation, e.slope, e.criterion, e.attained};
}
void Eval(const json& j, SteadyEvaluation* e) {
  e->mean = As<std::remove_cvref_t<decltype(e->mean)>>(j.at(0));
  e->max_deviation = As<std::remove_cvref_t<decltype(e->max_deviation)>>(j.at(1));
  e->slope = As<std::remove_cvref_t<decltype(e->slope)>>(j.at(2));
  e->criterion = As<std::remove_cvref_t<decltype(e->criterion)>>(j.at(3));
  e->attained = As<std::remove_cvref_t<decltype(e->attained)>>(j.at(4));
}

json Steady(const SteadyStateResult& s) {
  return {{"ss", s.ss},           {"limit", s.limit},     {"pct", s.pct},
          {"dur", s.duration_s},  {"attained", s.attained}, {"last", Eval(s.last)},
          {"evaluated", s.evaluated}, {"iops", s.iops},  {"bw", s.bw_kib},
          {"lat", s.lat_ns},      {"at", s.attained_at_s}};
}
SteadyStateResult Steady(const json& j) {
  SteadyStateResult s;
  s.ss = As<std::remove_cvref_t<decltype(s.ss)>>(j.at("ss"));
  s.limit = As<std::remove_cvref_t<decltype(s.limit)>>(j.at("limit"));
  s.pct = As<std::remove_cvref_t<decltype(s.pct)>>(j.at("pct"));
  s.duration_s = As<std::remove_cvref_t<decltype(s.duration_s)>>(j.at("dur"));
  s.attained = As<std::remove_cvref_t<decltype(s.attained)>>(j.at("attained"));
  Eval(j.at("last"), &s.last);
  s.evaluated = As<std::remove_cvref_t<decltype(s.evaluated)>>(j.at("evaluated"));
  s.iops = As<std::remove_cvref_t<decltype(s.iops)>>(As<std::vector<double>>(j.at("iops")));
  s.bw_kib = As<std::remove_cvref_t<decltype(s.bw_kib)>>(As<std::vector<double>>(j.at("bw")));
  s.lat_ns = As<std::remove_cvref_t<decltype(s.lat_ns)>>(As<std::vector<double>>(j.at("lat")));
  s.attained_at_s = As<std::remove_cvref_t<decltype(s.attained_at_s)>>(j.at("at"));
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
            {"measure_start", c.measure_start_ns},
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
            {"filled", c.filled},
            {"latency_depth", c.latency_depth}};
  if (c.steadystate) j["steady"] = Steady(*c.steadystate);
  return j;
}

void Clone(const json& j, const std::vector<JobOptions>& jobs, CloneResult* c) {
  c->job_index = As<std::remove_cvref_t<decltype(c->job_index)>>(j.at("job"));
  if (c->job_index >= jobs.size()) throw std::invalid_argument("job index out of range");
  c->job = &jobs[c->job_index];
  c->clone = As<std::remove_cvref_t<decltype(c->clone)>>(j.at("clone"));
  c->thread_number = As<std::remove_cvref_t<decltype(c->thread_number)>>(j.at("thread"));
  c->groupid = As<std::remove_cvref_t<decltype(c->groupid)>>(j.at("group"));
  c->target = As<std::remove_cvref_t<decltype(c->target)>>(j.at("target"));
  c->not_run = As<std::remove_cvref_t<decltype(c->not_run)>>(j.at("not_run"));
  c->interrupted = As<std::remove_cvref_t<decltype(c->interrupted)>>(j.at("interrupted"));
  c->error = As<std::remove_cvref_t<decltype(c->error)>>(j.at("error"));
  c->error_message = As<std::remove_cvref_t<decltype(c->error_message)>>(j.at("error_message"));
  c->total_errors = As<std::remove_cvref_t<decltype(c->total_errors)>>(j.at("total_errors"));
  c->first_error = As<std::remove_cvref_t<decltype(c->first_error)>>(j.at("first_error"));
  c->first_error_message = As<std::remove_cvref_t<decltype(c->first_error_message)>>(j.at("first_error_message"));
  const json& dirs = j.at("dir");
  if (dirs.size() != kNumDirs) throw std::invalid_argument("directions");
  for (int d = 0; d < kNumDirs; d++) Dir(dirs.at(d), &c->dir[d]);
  c->syncs = As<std::remove_cvref_t<decltype(c->syncs)>>(j.at("syncs"));
  Hist(j.at("sync_lat"), &c->sync_lat);
  c->verified = As<std::remove_cvref_t<decltype(c->verified)>>(j.at("verified"));
  c->verify_errors = As<std::remove_cvref_t<decltype(c->verify_errors)>>(j.at("verify_errors"));
  c->verify_not_verified = As<std::remove_cvref_t<decltype(c->verify_not_verified)>>(j.at("verify_not_verified"));
  c->first_io_ns = As<std::remove_cvref_t<decltype(c->first_io_ns)>>(j.at("first_io"));
  c->measure_start_ns = As<int64_t>(j.at("measure_start"));
  c->runtime_ns = As<std::remove_cvref_t<decltype(c->runtime_ns)>>(j.at("runtime"));
  c->elapsed_ns = As<std::remove_cvref_t<decltype(c->elapsed_ns)>>(j.at("elapsed"));
  c->usr_s = As<std::remove_cvref_t<decltype(c->usr_s)>>(j.at("usr"));
  c->sys_s = As<std::remove_cvref_t<decltype(c->sys_s)>>(j.at("sys"));
  c->ctx = As<std::remove_cvref_t<decltype(c->ctx)>>(j.at("ctx"));
  c->majf = As<std::remove_cvref_t<decltype(c->majf)>>(j.at("majf"));
  c->minf = As<std::remove_cvref_t<decltype(c->minf)>>(j.at("minf"));
  Array(j.at("depth"), c->depth);
  Array(j.at("submit"), c->submit);
  Array(j.at("complete"), c->complete);
  for (const json& k : j.at("counters"))
    c->counters.push_back(DriverCounter{As<std::string>(k.at(0)), As<uint64_t>(k.at(1))});
  c->seed = As<std::remove_cvref_t<decltype(c->seed)>>(j.at("seed"));
  Schedule(j.at("schedule"), &c->schedule);
  c->layout = As<std::remove_cvref_t<decltype(c->layout)>>(j.at("layout"));
  c->layout_bytes = As<std::remove_cvref_t<decltype(c->layout_bytes)>>(j.at("layout_bytes"));
  c->layout_seconds = As<std::remove_cvref_t<decltype(c->layout_seconds)>>(j.at("layout_seconds"));
  c->invalidated = As<std::remove_cvref_t<decltype(c->invalidated)>>(j.at("invalidated"));
  c->pre_read_bytes = As<std::remove_cvref_t<decltype(c->pre_read_bytes)>>(j.at("pre_read"));
  c->filled = As<std::remove_cvref_t<decltype(c->filled)>>(j.at("filled"));
  c->latency_depth = As<std::remove_cvref_t<decltype(c->latency_depth)>>(j.at("latency_depth"));
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
  d.name = As<std::remove_cvref_t<decltype(d.name)>>(j.at("name"));
  const json& c = j.at("c");
  DiskCounters& k = d.delta;
  uint64_t* f[] = {&k.read_ios,  &k.read_merges, &k.read_ticks, &k.write_ios,
                   &k.write_merges, &k.write_ticks, &k.io_ticks, &k.in_queue};
  if (c.size() != 8) throw std::invalid_argument("disk counters");
  for (size_t i = 0; i < 8; i++) *f[i] = As<uint64_t>(c.at(i));
  d.util = As<std::remove_cvref_t<decltype(d.util)>>(j.at("util"));
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
    json j;
    DepthLimitedSax sax(j);
    if (!json::sax_parse(bytes, &sax, json::input_format_t::cbor) || j.is_discarded())
      throw std::invalid_argument("not CBOR of a run's results (or nested too deep)");
    if (As<int>(j.at("v")) != kCodecVersion) {
      return MakeError(-EINVAL, "results of layout version " + j.at("v").dump() + ", expected " +
                                    std::to_string(kCodecVersion) +
                                    " (the same block-bench on every host?)");
    }
    for (const json& c : j.at("clones")) {
      run.clones.emplace_back();
      Clone(c, jobs, &run.clones.back());
    }
    for (const json& d : j.at("disks")) run.disk_util.push_back(Disk(d));
    run.start_unix_ms = As<std::remove_cvref_t<decltype(run.start_unix_ms)>>(j.at("start_ms"));
    run.pid = As<std::remove_cvref_t<decltype(run.pid)>>(j.at("pid"));
    run.interrupted_by = As<std::remove_cvref_t<decltype(run.interrupted_by)>>(j.at("interrupted_by"));
    if (j.contains("setup_error")) {
      const json& e = j.at("setup_error");
      run.setup_error = MakeError(As<int>(e.at(0)), As<std::string>(e.at(1)));
    }
    if (j.contains("sync_error")) {
      const json& e = j.at("sync_error");
      run.sync_error = MakeError(As<int>(e.at(0)), As<std::string>(e.at(1)));
    }
  } catch (const std::exception& e) {
    return MakeError(-EINVAL, std::string("cannot decode a run's results: ") + e.what());
  }
  return run;
}

}  // namespace blk::bench
