// fio's JSON and JSON+ reports of a run, in fio 3.x's layout, keys and
// units: one object per report unit (units.h) under "jobs", then
// "disk_util".  "fio version" holds kFioVersionField, "blkstack-bench
// version" kBenchVersion; every job also has a "blkstack" object with the target spec,
// the engine, driver counters, the seed and block-bench's own figures.
// slat, clat and lat as fio splits them (see run/result.h); a driver with
// no hand-over step gives slat N=0 and lat = clat.
//
// Thread-safety: a pure function of its inputs ("time" is the run's start
// in the local time zone), except that localtime()'s static buffer makes
// two threads reporting at once race.
#pragma once

#include <nlohmann/json.hpp>

#include "tools/block_bench/run/runner.h"

namespace blk::bench {

// block-bench's version: in the JSON report and for --version.
inline constexpr const char* kBenchVersion = "block-bench-0.1";
// The "fio version" of the JSON report and the terse line: the fio release
// whose layouts they follow, then block-bench's version (fio's own test
// scripts find terse lines by their "3;fio-" start).
inline constexpr const char* kFioVersionField = "fio-3.33-block-bench-0.1";

// `plus`: fio's json+, also every latency histogram's non-empty bins.
nlohmann::ordered_json JsonReport(const RunResult& run, bool plus);

}  // namespace blk::bench
