// block-bench reports: fio-style text, fio-layout JSON / JSON+, and fio's
// latency / bandwidth / IOPS log files.
//
// Reporting units follow fio: every clone is reported on its own, except
// that clones of jobs with group_reporting are merged per group id (named
// after the first job of the group).  JSON keys and units are fio 3.x's
// ("fio version" is replaced by "blkstack-bench version"; every job also has
// a "blkstack" object with the target spec, driver counters and the seed).
// slat is not measured (see run/result.h): slat_ns has N=0 and lat_ns equals
// clat_ns.
//
// Thread-safety: pure functions of their inputs (WriteLogs writes files).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/block_bench/job.h"
#include "tools/block_bench/run/runner.h"
#include "util/result.h"

namespace blk::bench {

inline constexpr const char* kBenchVersion = "block-bench-0.1";

struct ReportUnit {
  CloneResult r;  // merged
  int jobs = 1;   // clones merged into it
};

std::vector<ReportUnit> ReportUnits(const RunResult& run);

// fio's num2str-like formatting: "2398k", "12.3M", "9367MiB".
std::string NumToStr(double v, int maxlen, double base, const char* const* units);

// `counters`: also the driver counters of each job (--blkstack-counters);
// JSON always has them.
std::string TextReport(const RunResult& run, bool counters = false);
nlohmann::ordered_json JsonReport(const RunResult& run, bool plus);

// Writes the log files the jobs asked for.  Files: <prefix>_lat.N.log,
// <prefix>_clat.N.log, <prefix>_bw.N.log, <prefix>_iops.N.log, N = the
// clone's thread number, prefix = the option's value or the job name.
Expected<void> WriteLogs(const RunResult& run);

// fio's --bandwidth-log: dir/agg-read_bw.log (and write, trim for the
// directions that ran): per sample interval, the bandwidth of all clones
// together, in fio's log layout (msec, KiB/s, direction, 0, 0).
Expected<void> WriteAggregateBwLogs(const RunResult& run, const std::string& dir);

}  // namespace blk::bench
