// --trace-info: statistics of a trace and their text and JSON forms.
#include "tools/block_bench/trace/info.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <cinttypes>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "tools/block_bench/format/format.h"
#include <blkstack/util/quote.h>

namespace blk::bench::trace {
namespace {

constexpr int64_t kNsPerSec = 1000000000;
constexpr uint64_t kBlock = 4096;

const char* const kOpNames[] = {"read", "write", "trim", "flush"};

// Distinct 4 KiB blocks covered by the data records, in bytes.
uint64_t Footprint(const Trace& t) {
  std::vector<std::pair<uint64_t, uint64_t>> spans;  // [first, last] block
  spans.reserve(t.records.size());
  for (const Record& r : t.records)
    if (r.op != Op::kFlush && r.len) spans.push_back({r.offset / kBlock, (r.offset + r.len - 1) / kBlock});
  std::sort(spans.begin(), spans.end());
  uint64_t blocks = 0;
  bool open = false;
  uint64_t lo = 0, hi = 0;
  for (const auto& [a, b] : spans) {
    if (open && a <= hi + 1) {
      hi = std::max(hi, b);
      continue;
    }
    if (open) blocks += hi - lo + 1;
    lo = a, hi = b, open = true;
  }
  if (open) blocks += hi - lo + 1;
  return blocks > UINT64_MAX / kBlock ? UINT64_MAX : blocks * kBlock;
}

// Per-second IOPS and bandwidth (walks the sorted records once; seconds with
// no I/O count as zero without being stored).
void Rates(const Trace& t, TraceInfo* info) {
  if (t.records.empty()) return;
  const uint64_t seconds = uint64_t(t.span_ns() / kNsPerSec) + 1;
  info->series_step_s = (seconds + TraceInfo::kSeriesPoints - 1) / TraceInfo::kSeriesPoints;
  const uint64_t points = (seconds + info->series_step_s - 1) / info->series_step_s;
  info->iops_series.assign(points, 0);
  uint64_t occupied = 0, total_bytes = 0;
  double max_iops = 0, max_bw = 0, min_iops = 1e300, min_bw = 1e300;
  size_t i = 0;
  while (i < t.records.size()) {
    const uint64_t sec = uint64_t(t.records[i].t_ns / kNsPerSec);
    uint64_t n = 0, bytes = 0;
    for (; i < t.records.size() && uint64_t(t.records[i].t_ns / kNsPerSec) == sec; i++) {
      n++;
      bytes += t.records[i].len;
    }
    occupied++;
    total_bytes += bytes;
    max_iops = std::max(max_iops, double(n));
    max_bw = std::max(max_bw, double(bytes));
    min_iops = std::min(min_iops, double(n));
    min_bw = std::min(min_bw, double(bytes));
    info->iops_series[sec / info->series_step_s] += double(n);
  }
  const bool gaps = occupied < seconds;
  info->iops = {gaps ? 0 : min_iops, double(t.records.size()) / double(seconds), max_iops};
  info->bw_bytes = {gaps ? 0 : min_bw, double(total_bytes) / double(seconds), max_bw};
  for (size_t p = 0; p < points; p++) {
    const uint64_t first = p * info->series_step_s;
    const uint64_t width = std::min(info->series_step_s, seconds - first);
    info->iops_series[p] /= double(width);
  }
}

void Gaps(const Trace& t, TraceInfo* info) {
  if (t.records.size() < 2) return;
  std::vector<int64_t> d(t.records.size() - 1);
  long double sum = 0;
  for (size_t i = 1; i < t.records.size(); i++) {
    d[i - 1] = t.records[i].t_ns - t.records[i - 1].t_ns;
    sum += d[i - 1];
  }
  TraceInfo::Gaps g;
  g.mean = double(sum / d.size());
  auto pct = [&](double p) {
    const size_t k = std::min(d.size() - 1, size_t(p * double(d.size() - 1) + 0.5));
    std::nth_element(d.begin(), d.begin() + k, d.end());
    return d[k];
  };
  g.p50 = pct(0.50);
  g.p99 = pct(0.99);
  g.min = *std::min_element(d.begin(), d.end());
  g.max = *std::max_element(d.begin(), d.end());
  info->interarrival_ns = g;
}

std::string Bytes(double b) { return FormatScaled(b, kIecBytes); }

std::string Count(double v) { return FormatScaled(v, kSiCount); }

std::string Duration(double ns) { return FormatScaled(ns, kSecondsFixed); }

}  // namespace

TraceInfo ComputeInfo(const Trace& t, std::string_view name) {
  TraceInfo info;
  info.name = name;
  info.format = t.format;
  info.span_ns = t.span_ns();
  info.ios = t.records.size();
  info.files = t.files;
  info.bad = t.bad;
  info.filtered = t.filtered;
  info.ignored = t.ignored;
  info.max_outstanding = t.max_outstanding;
  info.mean_outstanding = t.mean_outstanding;
  uint64_t last_end[3] = {0, 0, 0};
  bool seen[3] = {false, false, false};
  uint64_t data_ios = 0, sequential = 0;
  for (const Record& r : t.records) {
    const int op = int(r.op);
    info.ops[op].count++;
    info.ops[op].bytes += r.len;
    info.fua += r.fua;
    if (r.op == Op::kFlush) continue;
    data_ios++;
    info.sizes[r.len ? 31 - __builtin_clz(r.len) : 0]++;
    info.max_end = std::max(info.max_end, r.offset + r.len);
    if (seen[op] && r.offset == last_end[op]) sequential++;
    seen[op] = true;
    last_end[op] = r.offset + r.len;
  }
  info.sequential = data_ios ? double(sequential) / double(data_ios) : 0;
  info.footprint_bytes = Footprint(t);
  Rates(t, &info);
  Gaps(t, &info);
  return info;
}

std::string RenderText(const TraceInfo& in) {
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s: format=%s, ios=%" PRIu64 ", span=%s\n",
                ShortenInput(in.name).c_str(), std::string(Name(in.format)).c_str(), in.ios,
                Duration(double(in.span_ns)).c_str());
  out += buf;
  for (int op = 0; op < 4; op++) {
    if (!in.ops[op].count) continue;
    std::snprintf(buf, sizeof buf, "  %-6s: ios=%" PRIu64 " (%.1f%%), bytes=%s%s\n", kOpNames[op],
                  in.ops[op].count, 100.0 * double(in.ops[op].count) / double(in.ios ? in.ios : 1),
                  Bytes(double(in.ops[op].bytes)).c_str(),
                  op == 1 && in.fua ? (", fua=" + std::to_string(in.fua)).c_str() : "");
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "  iops  : min=%s, mean=%s, max=%s (per second)\n",
                Count(in.iops.min).c_str(), Count(in.iops.mean).c_str(), Count(in.iops.max).c_str());
  out += buf;
  std::snprintf(buf, sizeof buf, "  bw    : min=%s/s, mean=%s/s, max=%s/s\n",
                Bytes(in.bw_bytes.min).c_str(), Bytes(in.bw_bytes.mean).c_str(),
                Bytes(in.bw_bytes.max).c_str());
  out += buf;
  out += "  series: iops per " + std::to_string(in.series_step_s) + "s:";
  for (double v : in.iops_series) out += " " + Count(v);
  out += "\n  sizes :";
  uint64_t data_ios = in.ios - in.ops[3].count;
  for (size_t i = 0; i < in.sizes.size(); i++) {
    if (!in.sizes[i]) continue;
    std::snprintf(buf, sizeof buf, " %s=%.1f%%", Bytes(double(uint64_t(1) << i)).c_str(),
                  100.0 * double(in.sizes[i]) / double(data_ios));
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "\n  space : footprint=%s (4KiB blocks), highest end=%s\n",
                Bytes(double(in.footprint_bytes)).c_str(), Bytes(double(in.max_end)).c_str());
  out += buf;
  std::snprintf(buf, sizeof buf, "  order : sequential=%.1f%%\n", 100.0 * in.sequential);
  out += buf;
  if (in.interarrival_ns) {
    const auto& g = *in.interarrival_ns;
    std::snprintf(buf, sizeof buf, "  gaps  : min=%s, mean=%s, p50=%s, p99=%s, max=%s\n",
                  Duration(double(g.min)).c_str(), Duration(g.mean).c_str(),
                  Duration(double(g.p50)).c_str(), Duration(double(g.p99)).c_str(),
                  Duration(double(g.max)).c_str());
    out += buf;
  }
  if (in.max_outstanding) {
    std::snprintf(buf, sizeof buf, "  depth : max=%u, mean=%.2f (outstanding)\n",
                  *in.max_outstanding, in.mean_outstanding.value_or(0));
    out += buf;
  }
  if (!in.files.empty()) {
    out += "  files :";
    for (const std::string& f : in.files) out += " " + ShortenInput(f);
    out += "\n";
  }
  std::snprintf(buf, sizeof buf,
                "  skipped: bad=%" PRIu64 ", other devices=%" PRIu64 ", not I/O=%" PRIu64 "\n",
                in.bad, in.filtered, in.ignored);
  out += buf;
  return out;
}

std::string RenderJson(const TraceInfo& in) {
  using nlohmann::json;
  json j;
  j["file"] = in.name;
  j["format"] = std::string(Name(in.format));
  j["span_ns"] = in.span_ns;
  j["ios"] = in.ios;
  for (int op = 0; op < 4; op++)
    j[kOpNames[op]] = {{"ios", in.ops[op].count}, {"bytes", in.ops[op].bytes}};
  j["fua"] = in.fua;
  json sizes = json::object();
  for (size_t i = 0; i < in.sizes.size(); i++)
    if (in.sizes[i]) sizes[std::to_string(uint64_t(1) << i)] = in.sizes[i];
  j["sizes"] = sizes;
  j["iops"] = {{"min", in.iops.min}, {"mean", in.iops.mean}, {"max", in.iops.max}};
  j["bw_bytes"] = {{"min", in.bw_bytes.min}, {"mean", in.bw_bytes.mean}, {"max", in.bw_bytes.max}};
  j["iops_series"] = {{"step_s", in.series_step_s}, {"values", in.iops_series}};
  j["footprint_bytes"] = in.footprint_bytes;
  j["max_end"] = in.max_end;
  j["sequential"] = in.sequential;
  if (in.interarrival_ns) {
    const auto& g = *in.interarrival_ns;
    j["interarrival_ns"] = {
        {"min", g.min}, {"mean", g.mean}, {"p50", g.p50}, {"p99", g.p99}, {"max", g.max}};
  }
  if (in.max_outstanding)
    j["outstanding"] = {{"max", *in.max_outstanding}, {"mean", in.mean_outstanding.value_or(0)}};
  j["files"] = in.files;
  j["bad"] = in.bad;
  j["filtered"] = in.filtered;
  j["ignored"] = in.ignored;
  // Names come from the input: invalid UTF-8 becomes U+FFFD instead of an
  // exception.
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

namespace {

// --trace-max-size=SIZE: bytes, or with a suffix k, m, g or t (powers of
// 1024, as fio's sizes; "KiB" and the like too); above 0.
Expected<uint64_t> ParseMaxSize(const std::string& v) {
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  std::string unit(end, v.data() + v.size());
  for (char& c : unit) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (unit.size() == 3 && unit.substr(1) == "ib") unit.resize(1);
  if (unit.size() == 2 && unit[1] == 'b') unit.resize(1);
  int shift = -1;
  if (unit.empty()) shift = 0;
  else if (unit.size() == 1 && std::strchr("kmgt", unit[0]))
    shift = 10 * int(std::strchr("kmgt", unit[0]) - "kmgt" + 1);
  if (ec != std::errc() || end == v.data() || shift < 0 || n == 0 || n > (UINT64_MAX >> shift))
    return MakeError(-EINVAL, "--trace-max-size=" + QuoteInput(v) +
                                  ": expected a size above 0 (e.g. 8g)");
  return n << shift;
}

}  // namespace

bool IsTraceInfoCommand(const std::vector<std::string>& args) {
  for (const std::string& a : args)
    if (a == "--trace-info" || a.rfind("--trace-info=", 0) == 0) return true;
  return false;
}

int TraceInfoMain(const std::vector<std::string>& args) {
  std::string path;
  ParseOptions opts;
  opts.how_to_raise = "--trace-max-size=";
  bool json = false;
  auto fail = [](const std::string& msg) {
    std::fprintf(stderr, "block-bench: %s\n", msg.c_str());
    return 1;
  };
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& a = args[i];
    auto value = [&](std::string_view flag, std::string* out) {
      if (a == flag && i + 1 < args.size()) {
        *out = args[++i];
        return true;
      }
      if (a.size() > flag.size() && a.compare(0, flag.size(), flag) == 0 && a[flag.size()] == '=') {
        *out = a.substr(flag.size() + 1);
        return true;
      }
      return false;
    };
    std::string v;
    if (value("--trace-info", &path)) continue;
    if (value("--trace-device", &opts.device)) continue;
    if (value("--trace-max-size", &v)) {
      auto n = ParseMaxSize(v);
      if (!n.ok()) return fail(n.error().message);
      opts.max_bytes = *n;
      continue;
    }
    if (value("--trace-format", &v)) {
      auto f = ParseFormat(v);
      if (!f.ok()) return fail(f.error().message);
      opts.format = *f;
      continue;
    }
    if (value("--output-format", &v)) {
      if (v == "json" || v == "json+") json = true;
      else if (v == "normal") json = false;
      else return fail("--output-format=" + QuoteInput(v) + ": with --trace-info, normal or json");
      continue;
    }
    return fail("--trace-info: unexpected argument " + QuoteInput(a) +
                " (--trace-format=NAME, --trace-device=DEV, --trace-max-size=SIZE and "
                "--output-format=normal|json go with it)");
  }
  if (path.empty()) return fail("--trace-info: a trace file is needed");
  auto t = LoadTrace(path, opts);
  if (!t.ok()) return fail(t.error().message);
  const TraceInfo info = ComputeInfo(*t, path);
  const std::string out = json ? RenderJson(info) + "\n" : RenderText(info);
  std::fputs(out.c_str(), stdout);
  if (std::fflush(stdout) != 0) return fail("writing the report failed");
  return 0;
}

}  // namespace blk::bench::trace
