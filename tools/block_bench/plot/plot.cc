#include "tools/block_bench/plot/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <blkstack/util/input_file.h>
#include <blkstack/util/quote.h>

namespace blk::bench::plot {
namespace {

using verdict::Info;
using verdict::ResultDoc;

// The "nines" axis: x = -log10(1 - p/100), so 50 %, 90 %, 99 %, 99.9 % ...
// fall at 0.3, 1, 2, 3.  p = 100 (the maximum) is drawn at 99.9999 %.
double Nines(double p) { return -std::log10(std::max(1e-6, 1 - p / 100)); }

Axis NinesAxis() {
  Axis a;
  a.title = "percentile of completions";
  a.ticks = {0, Nines(50), 1, 2, 3, 4, 5, 6};
  a.format = [](double x) -> std::string {
    if (x <= 0) return "0%";
    const double p = 100 * (1 - std::pow(10, -x));
    char b[32];
    std::snprintf(b, sizeof b, "%.*f%%", x < 2 ? 0 : int(std::round(x)) - 2, p);
    return b;
  };
  return a;
}

Axis LatencyAxis(const std::string& title) {
  Axis a;
  a.title = title;
  a.log = true;
  a.format = Duration;
  return a;
}

std::vector<std::pair<double, double>> CurvePoints(const verdict::Sample& s) {
  std::vector<std::pair<double, double>> pts;
  for (auto [p, ns] : s.curve) pts.push_back({Nines(p), ns});
  return pts;
}

std::string Base(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// Averages a long series into at most `n` buckets of equal time.
std::vector<std::pair<double, double>> Thin(std::vector<std::pair<double, double>> pts, size_t n) {
  if (pts.size() <= 2 * n) return pts;
  std::sort(pts.begin(), pts.end());
  const double t0 = pts.front().first, t1 = pts.back().first;
  std::vector<double> sum(n), cnt(n), tsum(n);
  for (auto [t, v] : pts) {
    size_t i = t1 > t0 ? size_t((t - t0) / (t1 - t0) * double(n - 1)) : 0;
    i = std::min(i, n - 1);
    sum[i] += v, cnt[i] += 1, tsum[i] += t;
  }
  std::vector<std::pair<double, double>> out;
  for (size_t i = 0; i < n; i++)
    if (cnt[i] > 0) out.push_back({tsum[i] / cnt[i], sum[i] / cnt[i]});
  return out;
}

// A log (NAME_lat.N.log ...) within kLogMaxBytes; util/input_file.h says
// what else is refused.
Expected<std::string> ReadLogFile(const std::string& path) {
  InputLimit limit;
  limit.max_bytes = kLogMaxBytes;
  limit.what = "a log file";
  return ReadInputFile(path, limit);
}

}  // namespace

Expected<LogData> ParseLog(std::string_view text, const std::string& path) {
  LogData d;
  d.name = Base(path);
  const std::string n = d.name;
  auto has = [&](const char* kind) {
    const std::string k = std::string("_") + kind + ".";
    return n.find(k) != std::string::npos;
  };
  if (has("iops")) d.kind = LogData::kIops;
  else if (has("bw")) d.kind = LogData::kBandwidth;
  else if (has("lat") || has("clat") || has("slat")) d.kind = LogData::kLatency;
  else
    return Error{-EINVAL, path + ": not a log file name (NAME_lat.N.log, NAME_clat.N.log, "
                                 "NAME_iops.N.log or NAME_bw.N.log)"};
  size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(pos, end - pos));
    pos = end + 1;
    line_no++;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    double f[3] = {0, 0, 0};
    int got = 0;
    const char* c = line.c_str();
    while (got < 3) {
      char* e = nullptr;
      errno = 0;
      const double v = std::strtod(c, &e);
      if (e == c || errno || !std::isfinite(v)) break;
      f[got++] = v;
      while (*e == ' ' || *e == '\t') e++;
      if (*e != ',') break;
      c = e + 1;
    }
    if (got < 2)
      return Error{-EINVAL, path + ":" + std::to_string(line_no) +
                                ": expected 'msec, value, direction, ...', got " + QuoteInput(line)};
    if (d.points.size() >= 50'000'000)
      return Error{-EFBIG, path + ": more than 50 million entries"};
    // fio's direction: 0 read, 1 write, 2 trim (3: sync in some versions).
    if (got == 3 && !(f[2] >= 0 && f[2] <= 3 && f[2] == std::floor(f[2])))
      return Error{-EINVAL, path + ":" + std::to_string(line_no) +
                                ": the direction (third field) must be 0, 1, 2 or 3, got " +
                                QuoteInput(line)};
    d.points.push_back({f[0], f[1], got == 3 ? int(f[2]) : 0});
  }
  return d;
}

Panel PercentilePanel(const std::vector<ResultDoc>& docs, const std::vector<std::string>& labels) {
  Panel p;
  p.title = "Completion latency by percentile";
  p.x = NinesAxis();
  p.y = LatencyAxis("completion latency");
  int color = 0;
  for (size_t i = 0; i < docs.size(); i++) {
    for (const verdict::Sample& s : docs[i].samples) {
      Series ser;
      ser.label = (i < labels.size() ? labels[i] : Base(docs[i].path)) + " " + s.job + " " +
                  verdict::DirName(s.dir);
      ser.points = CurvePoints(s);
      ser.color = color++;
      p.series.push_back(std::move(ser));
    }
  }
  return p;
}

std::vector<Panel> TimePanels(const std::vector<LogData>& logs) {
  std::vector<Panel> out;
  const std::pair<LogData::Kind, const char*> kinds[] = {
      {LogData::kLatency, "Latency over time"},
      {LogData::kIops, "IOPS over time"},
      {LogData::kBandwidth, "Bandwidth over time"}};
  for (auto [kind, title] : kinds) {
    Panel p;
    p.title = title;
    p.x.title = "time (s)";
    if (kind == LogData::kLatency) {
      p.y = LatencyAxis("latency");
    } else {
      p.y.title = kind == LogData::kIops ? "IOPS" : "KiB/s";
    }
    int color = 0;
    for (const LogData& l : logs) {
      if (l.kind != kind) continue;
      std::map<int, std::vector<std::pair<double, double>>> by_dir;
      for (const auto& pt : l.points) by_dir[pt.dir].push_back({pt.ms / 1000, pt.value});
      for (auto& [dir, pts] : by_dir) {
        Series s;
        s.label = l.name + (by_dir.size() > 1 ? std::string(" ") +
                                                    (dir >= 0 && dir < 3 ? verdict::DirName(dir) : "?")
                                              : "");
        s.points = Thin(std::move(pts), 1000);
        s.color = color++;
        s.width = 1;
        p.series.push_back(std::move(s));
      }
    }
    if (!p.series.empty()) out.push_back(std::move(p));
  }
  return out;
}

std::string ComparisonPlot(const verdict::Comparison& c, const verdict::CompareOptions& o,
                           const std::vector<ResultDoc>& base, const std::vector<ResultDoc>& neu,
                           const std::string& title) {
  std::vector<Panel> panels;
  std::vector<std::pair<std::string, int>> curves;  // job, dir of deciding rows
  for (const verdict::Row& r : c.rows) {
    if (!r.deciding) continue;
    Panel p;
    const verdict::MetricInfo& mi = Info(r.metric);
    p.title = r.job + " " + verdict::DirName(r.dir) + ": " + mi.title + " per run";
    char sub[256];
    std::snprintf(sub, sizeof sub, "change %+.1f%%, %.0f%% interval [%+.1f%%, %+.1f%%]: %s",
                  100 * r.change, 100 * o.confidence, 100 * r.ci.lo, 100 * r.ci.hi,
                  verdict::Name(r.verdict));
    p.subtitle = sub;
    p.x.title = "run (in input order; ab: round)";
    p.y.title = mi.title;
    if (mi.is_latency) p.y.format = Duration;
    Series b, n;
    b.label = "BASE";
    n.label = "NEW";
    b.color = 0;
    n.color = 1;
    b.dots = n.dots = true;
    b.width = n.width = 1;
    for (size_t i = 0; i < r.base.size(); i++) b.points.push_back({double(i + 1), r.base[i]});
    for (size_t i = 0; i < r.neu.size(); i++) n.points.push_back({double(i + 1), r.neu[i]});
    p.series = {b, n};
    if (!r.base.empty()) p.hlines.push_back({r.base_median, 0, "BASE median"});
    if (!r.neu.empty()) p.hlines.push_back({r.new_median, 1, "NEW median"});
    panels.push_back(std::move(p));
    if (std::find(curves.begin(), curves.end(), std::make_pair(r.job, r.dir)) == curves.end())
      curves.push_back({r.job, r.dir});
  }
  for (auto& [job, dir] : curves) {
    Panel p;
    p.title = job + " " + verdict::DirName(dir) + ": completion latency by percentile, every run";
    p.x = NinesAxis();
    p.y = LatencyAxis("completion latency");
    for (int side = 0; side < 2; side++) {
      bool first = true;
      for (const ResultDoc& d : side ? neu : base)
        for (const verdict::Sample& s : d.samples) {
          if (s.job != job || s.dir != dir) continue;
          Series ser;
          ser.label = first ? (side ? "NEW" : "BASE") : "";
          first = false;
          ser.points = CurvePoints(s);
          ser.color = side;
          ser.width = 1;
          ser.opacity = 0.45;
          p.series.push_back(std::move(ser));
        }
    }
    panels.push_back(std::move(p));
  }
  return RenderSvg(title, panels);
}

int PlotMain(const std::vector<std::string>& args) {
  std::string output, title = "block-bench";
  std::vector<std::string> files;
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      std::fputs(
          "usage: block-bench plot [--output=FILE.svg] [--title=TEXT] FILE...\n"
          "FILE: block-bench or fio JSON results (json+ for whole histograms): their\n"
          "completion-latency percentile curves, overlaid; or fio-format logs\n"
          "(NAME_lat.N.log, _clat, _iops, _bw from write_lat_log, write_iops_log,\n"
          "write_bw_log): values over time.  Writes SVG to FILE.svg or stdout.\n",
          stdout);
      return 0;
    }
    if (a.rfind("--output=", 0) == 0) output = a.substr(9);
    else if (a.rfind("--title=", 0) == 0) title = a.substr(8);
    else if (!a.empty() && a[0] == '-')
      return std::fprintf(stderr, "block-bench plot: unknown option %s (see --help)\n",
                          QuoteInput(a).c_str()),
             1;
    else files.push_back(a);
  }
  if (files.empty()) {
    std::fprintf(stderr, "block-bench plot: no input files (see --help)\n");
    return 1;
  }
  std::vector<ResultDoc> docs;
  std::vector<LogData> logs;
  for (const std::string& f : files) {
    const bool is_log = std::filesystem::path(f).extension() == ".log";
    auto text = is_log ? ReadLogFile(f) : verdict::ReadResultFile(f);
    if (!text) {
      std::fprintf(stderr, "block-bench plot: %s\n", text.error().message.c_str());
      return 1;
    }
    if (is_log) {
      auto l = ParseLog(*text, f);
      if (!l) {
        std::fprintf(stderr, "block-bench plot: %s\n", l.error().message.c_str());
        return 1;
      }
      logs.push_back(std::move(*l));
    } else {
      auto d = verdict::ParseResultJson(*text, f);
      if (!d) {
        std::fprintf(stderr, "block-bench plot: %s\n", d.error().message.c_str());
        return 1;
      }
      docs.push_back(std::move(*d));
    }
  }
  std::vector<Panel> panels;
  if (!docs.empty()) panels.push_back(PercentilePanel(docs, {}));
  for (Panel& p : TimePanels(logs)) panels.push_back(std::move(p));
  const std::string svg = RenderSvg(title, panels);
  FILE* out = output.empty() ? stdout : std::fopen(output.c_str(), "w");
  if (!out) {
    std::fprintf(stderr, "block-bench plot: --output=%s: %s\n", output.c_str(), std::strerror(errno));
    return 1;
  }
  const bool ok = std::fwrite(svg.data(), 1, svg.size(), out) == svg.size();
  if (!ok || (out != stdout ? std::fclose(out) : std::fflush(out)) != 0) {
    std::fprintf(stderr, "block-bench plot: writing %s: %s\n", output.empty() ? "stdout" : output.c_str(),
                 std::strerror(errno));
    return 1;
  }
  return 0;
}

}  // namespace blk::bench::plot
