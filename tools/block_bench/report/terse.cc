#include "tools/block_bench/report/terse.h"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace blk::bench {
namespace {

using nlohmann::json;

std::string F(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string F(const char* fmt, ...) {
  char buf[128];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

double Num(const json& o, const char* key) {
  if (!o.is_object()) return 0;
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : 0;
}

uint64_t U64(const json& o, const char* key) {
  if (!o.is_object()) return 0;
  auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return 0;
  return it->is_number_unsigned() ? it->get<uint64_t>() : uint64_t(std::max(0.0, it->get<double>()));
}

// min;max;mean;stdev of a *_ns object, in microseconds as fio prints them
// (min and max truncated to integers).
std::string LatUs(const json& lat) {
  if (U64(lat, "N") == 0 && Num(lat, "max") == 0) return ";0;0;0.000000;0.000000";
  return F(";%" PRIu64 ";%" PRIu64 ";%f;%f", U64(lat, "min") / 1000, U64(lat, "max") / 1000,
           Num(lat, "mean") / 1000, Num(lat, "stddev") / 1000);
}

// The 20 percentile fields, "P%=us", in the order of fio's percentile_list
// (the JSON object's keys are "%f" strings, which sort in that order only
// by value).
std::string Percentiles(const json& lat) {
  std::vector<std::pair<double, uint64_t>> p;
  if (lat.is_object()) {
    auto it = lat.find("percentile");
    if (it != lat.end() && it->is_object()) {
      for (auto& [k, v] : it->items()) p.emplace_back(std::stod(k), v.get<uint64_t>());
    }
  }
  std::sort(p.begin(), p.end());
  std::string out;
  for (size_t i = 0; i < 20; i++) {
    if (i < p.size()) out += F(";%f%%=%" PRIu64, p[i].first, p[i].second / 1000);
    else out += ";0%=0";
  }
  return out;
}

std::string Direction(const json& d, int version) {
  const uint64_t runtime = U64(d, "runtime");
  const uint64_t bytes = U64(d, "io_bytes");
  const uint64_t ios = U64(d, "total_ios");
  const uint64_t bw = runtime ? (1000 * bytes / runtime) / 1024 : 0;
  const uint64_t iops = runtime ? 1000 * ios / runtime : 0;
  std::string out = F(";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64, bytes >> 10, bw, iops, runtime);
  const json& clat = d.contains("clat_ns") ? d["clat_ns"] : json();
  out += LatUs(d.contains("slat_ns") ? d["slat_ns"] : json());
  out += LatUs(clat);
  // fio prints the total-latency percentiles with lat_percentiles=1, also
  // when clat_percentiles=1 gives clat_ns its own (show_ddir_status_terse
  // asks lat_percentiles first).
  const json& lat = d.contains("lat_ns") ? d["lat_ns"] : json();
  out += Percentiles(lat.contains("percentile") ? lat : clat);
  out += LatUs(lat);
  const uint64_t bw_samples = U64(d, "bw_samples");
  if (bw_samples > 0) {
    out += F(";%" PRIu64 ";%" PRIu64 ";%f%%;%f;%f", U64(d, "bw_min"), U64(d, "bw_max"),
             Num(d, "bw_agg"), Num(d, "bw_mean"), Num(d, "bw_dev"));
  } else {
    out += ";0;0;0.000000%;0.000000;0.000000";
  }
  if (version == 5) {
    out += F(";%" PRIu64, bw_samples);
    out += F(";%" PRIu64 ";%" PRIu64 ";%f;%f;%" PRIu64, U64(d, "iops_min"), U64(d, "iops_max"),
             Num(d, "iops_mean"), Num(d, "iops_stddev"), U64(d, "iops_samples"));
  }
  return out;
}

std::string Buckets(const json& o, std::initializer_list<const char*> keys, const char* fmt) {
  std::string out;
  for (const char* k : keys) out += F(fmt, Num(o, k));
  return out;
}

std::string JobLine(const json& job, const json& disks, const std::string& fio_version,
                    int version) {
  std::string out = F("%d;", version) + fio_version + ";" + job.value("jobname", std::string()) +
                    F(";%" PRIu64 ";%" PRIu64, U64(job, "groupid"), U64(job, "error"));
  if (job.contains("mixed")) {
    out += Direction(job["mixed"], version);
  } else {
    out += Direction(job.value("read", json::object()), version);
    out += Direction(job.value("write", json::object()), version);
    if (version != 3) out += Direction(job.value("trim", json::object()), version);
  }
  out += F(";%f%%;%f%%;%" PRIu64 ";%" PRIu64 ";%" PRIu64, Num(job, "usr_cpu"), Num(job, "sys_cpu"),
           U64(job, "ctx"), U64(job, "majf"), U64(job, "minf"));
  const json none = json::object();
  out += Buckets(job.value("iodepth_level", none), {"1", "2", "4", "8", "16", "32", ">=64"},
                 ";%3.1f%%");
  // As fio's terse line: the nanosecond buckets are folded into "<= 2 us".
  json lat_us = job.value("latency_us", none);
  double sub_us = 0;
  const json lat_ns = job.value("latency_ns", none);
  for (auto& [k, v] : lat_ns.items()) {
    if (v.is_number()) sub_us += v.get<double>();
  }
  lat_us["2"] = Num(lat_us, "2") + sub_us;
  out += Buckets(lat_us, {"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"},
                 ";%3.2f%%");
  out += Buckets(job.value("latency_ms", none),
                 {"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"},
                 ";%3.2f%%");
  // fio appends every disk of the run to each job's line.
  if (disks.is_array()) {
    for (const json& d : disks) {
      out += ";" + d.value("name", std::string()) +
             F(";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64
               ";%3.2f%%",
               U64(d, "read_ios"), U64(d, "write_ios"), U64(d, "read_merges"),
               U64(d, "write_merges"), U64(d, "read_ticks"), U64(d, "write_ticks"),
               U64(d, "in_queue"), Num(d, "util"));
    }
  }
  const json bs = job.value("blkstack", none);
  if (bs.is_object() && bs.value("continue_on_error", false)) {
    out += F(";%" PRIu64 ";%" PRIu64, U64(job, "total_err"), U64(job, "first_error"));
  }
  if (job.contains("desc") && job["desc"].is_string()) {
    out += ";" + job["desc"].get<std::string>();
  }
  return out + "\n";
}

}  // namespace

std::string TerseReport(const json& doc, int version) {
  const std::string fio_version = doc.value("fio version", std::string("block-bench"));
  std::string out;
  if (doc.contains("jobs")) {
    const json disks = doc.value("disk_util", json::array());
    for (const json& job : doc["jobs"]) out += JobLine(job, disks, fio_version, version);
  }
  return out;
}

}  // namespace blk::bench
