#include "tools/block_bench/verdict/results.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include <blkstack/util/input_file.h>
#include <blkstack/util/quote.h>

namespace blk::bench::verdict {
namespace {

constexpr MetricInfo kMetrics[kNumMetrics] = {
    {Metric::kIops, "iops", "IOPS", true, false},
    {Metric::kBw, "bw", "BW (B/s)", true, false},
    {Metric::kClatMean, "mean", "clat mean", false, true},
    {Metric::kP50, "p50", "clat p50", false, true},
    {Metric::kP99, "p99", "clat p99", false, true},
    {Metric::kP999, "p99.9", "clat p99.9", false, true},
    {Metric::kSchedP50, "sched_p50", "sched lat p50", false, true},
    {Metric::kSchedP99, "sched_p99", "sched lat p99", false, true},
};

// "mixed": fio's unified_rw_reporting sum of the directions.
constexpr const char* kDirs[4] = {"read", "write", "trim", "mixed"};

using Json = nlohmann::json;

Error Bad(const std::string& path, const std::string& what) {
  return Error{-EINVAL, path + ": " + what};
}

// A number at obj[key], if there is one.
bool Number(const Json& obj, const char* key, double* out) {
  if (!obj.is_object()) return false;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return false;
  *out = it->get<double>();
  return true;
}

// The percentile `want` (e.g. 99.0) from a fio "percentile" object, whose
// keys are "99.000000"-style strings.
bool Percentile(const Json& lat, double want, double* out) {
  if (!lat.is_object()) return false;
  auto it = lat.find("percentile");
  if (it == lat.end() || !it->is_object()) return false;
  for (auto& [k, v] : it->items()) {
    char* end = nullptr;
    const double p = std::strtod(k.c_str(), &end);
    if (end == k.c_str() || *end != '\0') continue;
    if (std::abs(p - want) < 1e-6 && v.is_number()) {
      *out = v.get<double>();
      return true;
    }
  }
  return false;
}

// The latency distribution of a clat_ns/lat_ns object: every histogram bin
// ("bins": {"ns": count}) as the percentile of I/Os at or below it, else
// the percentile list.
void Curve(const Json& lat, std::vector<std::pair<double, double>>* out) {
  if (!lat.is_object()) return;
  auto bins = lat.find("bins");
  if (bins != lat.end() && bins->is_object()) {
    std::vector<std::pair<double, double>> b;  // ns, count
    double total = 0;
    for (auto& [k, v] : bins->items()) {
      char* end = nullptr;
      const double ns = std::strtod(k.c_str(), &end);
      if (end == k.c_str() || *end || !v.is_number() || !(v.get<double>() > 0)) continue;
      b.push_back({ns, v.get<double>()});
      total += v.get<double>();
    }
    if (total > 0 && std::isfinite(total)) {
      std::sort(b.begin(), b.end());
      double cum = 0;
      for (auto [ns, n] : b) {
        out->push_back({100 * (cum + n / 2) / total, ns});
        cum += n;
      }
      return;
    }
  }
  auto it = lat.find("percentile");
  if (it == lat.end() || !it->is_object()) return;
  for (auto& [k, v] : it->items()) {
    char* end = nullptr;
    const double p = std::strtod(k.c_str(), &end);
    if (end == k.c_str() || *end || !v.is_number()) continue;
    out->push_back({p, v.get<double>()});
  }
  std::sort(out->begin(), out->end());
}

// Reads one direction object ("read": {...}) into a sample; false when the
// direction did no I/O.
bool ReadDir(const Json& d, Sample* s) {
  double ios = 0;
  if (!Number(d, "total_ios", &ios)) {
    // fio before 3.x writes no total_ios; io_bytes says the same.
    if (!Number(d, "io_bytes", &ios)) return false;
  }
  if (ios <= 0) return false;
  // put(m, found): `found` is evaluated (and sets v) before the body reads v.
  double v = 0;
  auto put = [&](Metric m, bool found) {
    s->has[int(m)] = found;
    s->value[int(m)] = found ? v : 0;
  };
  put(Metric::kIops, Number(d, "iops", &v));
  put(Metric::kBw, Number(d, "bw_bytes", &v));
  // Completion latency; fio with clat_percentiles=0 and lat_percentiles=1
  // has percentiles under lat_ns only.
  const Json* clat = d.contains("clat_ns") ? &d["clat_ns"] : nullptr;
  const Json* lat = d.contains("lat_ns") ? &d["lat_ns"] : nullptr;
  put(Metric::kClatMean, clat && Number(*clat, "mean", &v));
  const std::pair<Metric, double> pcts[] = {
      {Metric::kP50, 50.0}, {Metric::kP99, 99.0}, {Metric::kP999, 99.9}};
  for (auto [m, p] : pcts) {
    bool ok = clat && Percentile(*clat, p, &v);
    if (!ok) ok = lat && Percentile(*lat, p, &v);
    put(m, ok);
  }
  const Json* sched = d.contains("sched_lat_ns") ? &d["sched_lat_ns"] : nullptr;
  put(Metric::kSchedP50, sched && Percentile(*sched, 50.0, &v));
  put(Metric::kSchedP99, sched && Percentile(*sched, 99.0, &v));
  Curve(clat && clat->contains("bins") ? *clat : (clat && clat->contains("percentile") ? *clat
                                                  : lat ? *lat : Json()),
        &s->curve);
  return true;
}

}  // namespace

const MetricInfo& Info(Metric m) { return kMetrics[int(m)]; }
std::span<const MetricInfo> AllMetrics() { return kMetrics; }
const char* DirName(int dir) { return kDirs[dir]; }

Expected<std::vector<Metric>> ParseMetrics(std::string_view list) {
  std::vector<Metric> out;
  size_t pos = 0;
  while (true) {
    const size_t comma = list.find(',', pos);
    const std::string_view name =
        list.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    const MetricInfo* found = nullptr;
    for (const MetricInfo& m : kMetrics)
      if (name == m.name) found = &m;
    if (!found) {
      std::string known;
      for (const MetricInfo& m : kMetrics) known += std::string(known.empty() ? "" : ", ") + m.name;
      return Error{-EINVAL, "unknown metric " + QuoteInput(name) + " (known: " + known + ")"};
    }
    if (std::find(out.begin(), out.end(), found->metric) != out.end())
      return Error{-EINVAL, "metric '" + std::string(found->name) + "' given twice"};
    out.push_back(found->metric);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

Expected<ResultDoc> ParseResultJson(std::string_view text, const std::string& path) {
  const size_t brace = text.find('{');
  if (brace == std::string_view::npos) return Bad(path, "no JSON object in it");
  // Depth-limited: a hostile document must not exhaust the stack.
  int depth = 0, max_depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = brace; i < text.size(); i++) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') max_depth = std::max(max_depth, ++depth);
    else if (c == '}' || c == ']') depth--;
  }
  if (max_depth > 64) return Bad(path, "JSON nested deeper than 64 levels");
  Json doc = Json::parse(text.substr(brace), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Bad(path, "not valid JSON");
  if (!doc.is_object()) return Bad(path, "not a JSON object");
  ResultDoc out;
  out.path = path;
  if (doc.contains("blkstack-bench version")) out.tool = "block-bench";
  else if (doc.contains("fio version")) out.tool = "fio";
  else return Bad(path, "neither a block-bench nor a fio JSON result (no \"fio version\")");
  auto jobs = doc.find("jobs");
  if (jobs == doc.end() || !jobs->is_array()) return Bad(path, "no \"jobs\" array");
  if (jobs->empty()) return Bad(path, "\"jobs\" is empty");

  std::map<std::string, int> count;
  for (const Json& j : *jobs) {
    if (!j.is_object() || !j.contains("jobname") || !j["jobname"].is_string())
      return Bad(path, "a job without a \"jobname\"");
    count[j["jobname"].get<std::string>()]++;
  }
  std::map<std::string, int> seen;
  for (const Json& j : *jobs) {
    const std::string name = j["jobname"].get<std::string>();
    std::string key = name;
    if (count[name] > 1) key += "[" + std::to_string(++seen[name]) + "]";
    double err = 0, total_err = 0;
    Number(j, "error", &err);
    Number(j, "total_err", &total_err);
    if (err != 0 || total_err != 0) {
      out.failed = true;
      if (out.failure.empty()) {
        std::ostringstream m;
        m << "job " << QuoteInput(key) << ": error=" << err << ", total_err=" << total_err;
        out.failure = m.str();
      }
    }
    if (auto bs = j.find("blkstack"); bs != j.end() && bs->is_object()) {
      auto in = bs->find("interrupted");
      if (in != bs->end() && in->is_boolean() && in->get<bool>() && !out.interrupted) {
        out.interrupted = true;
        out.interruption = "job " + QuoteInput(key) + " was interrupted (stopped early by a signal)";
      }
    }
    bool any = false;
    for (int d = 0; d < 4; d++) {
      auto it = j.find(kDirs[d]);
      if (it == j.end()) continue;
      if (!it->is_object()) return Bad(path, "job " + QuoteInput(key) + ": \"" + kDirs[d] +
                                                 "\" is not an object");
      Sample s;
      s.job = key;
      s.dir = d;
      if (!ReadDir(*it, &s)) continue;
      any = true;
      out.samples.push_back(std::move(s));
    }
    (void)any;  // a job without I/O contributes nothing (e.g. a pure fsync job)
  }
  return out;
}

Expected<std::string> ReadResultFile(const std::string& path) {
  InputLimit limit;
  limit.max_bytes = kResultMaxBytes;
  limit.what = "a result document";
  return ReadInputFile(path, limit);
}

Expected<std::vector<ResultDoc>> LoadResults(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> in_dir;
      for (const auto& e : fs::directory_iterator(p, ec))
        if (e.path().extension() == ".json") in_dir.push_back(e.path().string());
      if (ec) return Error{-EIO, p + ": " + ec.message()};
      if (in_dir.empty()) return Error{-ENOENT, p + ": no *.json result files in this directory"};
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else {
      files.push_back(p);
    }
  }
  if (files.empty()) return Error{-EINVAL, "no result files given"};
  std::vector<ResultDoc> docs;
  for (const std::string& f : files) {
    auto text = ReadResultFile(f);
    if (!text) return text.error();
    auto doc = ParseResultJson(*text, f);
    if (!doc) return doc.error();
    docs.push_back(std::move(doc.value()));
  }
  return docs;
}

}  // namespace blk::bench::verdict
