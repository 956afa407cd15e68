// block-bench reports: fio-style text, fio-layout JSON / JSON+, and fio's
// latency / bandwidth / IOPS log files.
//
// Reporting units follow fio: every clone is reported on its own, except
// that clones of jobs with group_reporting are merged per group id (named
// after the first job of the group).  JSON keys and units are fio 3.x's
// ("fio version" is replaced by "blkstack-bench version"; every job also has
// a "blkstack" object with the target spec, driver counters and the seed).
// slat, clat and lat as fio splits them (see run/result.h); a driver with no
// hand-over step gives slat N=0 and lat = clat.
//
// Thread-safety: pure functions of their inputs (WriteLogs writes files).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/block_bench/format/format.h"  // NumToStr, for callers of this header
#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/report/logs.h"
#include "tools/block_bench/run/runner.h"
#include "util/result.h"

namespace blk::bench {

inline constexpr const char* kBenchVersion = "block-bench-0.1";

struct ReportUnit {
  CloneResult r;  // merged
  int jobs = 1;   // clones merged into it
};

std::vector<ReportUnit> ReportUnits(const RunResult& run);

// `counters`: also the driver counters of each job (--blkstack-counters);
// JSON always has them.
std::string TextReport(const RunResult& run, bool counters = false);
nlohmann::ordered_json JsonReport(const RunResult& run, bool plus);

// The results of one MPI rank (tools/block_bench/mpi), for the merged
// report on rank 0.
struct ClientRun {
  int rank = 0;
  std::string hostname;
  RunResult run;  // its clones point at the jobs of the reporting process
};

// The "All clients" units: each unit (a clone, or a group with
// group_reporting) merged over the ranks, by integer sums of counts and
// histogram buckets (min/max as such, runtime the longest).
std::vector<ReportUnit> AllClientsUnits(const std::vector<ClientRun>& clients);
// fio's client/server report layout: each rank's units (a "Client rank R
// (host):" line before them), then "All clients" units, the run status over
// them, and every rank's disk statistics.
std::string ClientsTextReport(const std::vector<ClientRun>& clients, bool counters = false);
// JSON in fio's client layout: "client_stats" holds every rank's units,
// each with "hostname", "port" (0) and "rank", then the "All clients"
// units ("jobname": "All clients", blkstack.job naming the job);
// "disk_util" entries carry "hostname" and "rank".  "jobs" holds the "All
// clients" units again under their job names, for consumers of the
// single-host layout.
nlohmann::ordered_json ClientsJsonReport(const std::vector<ClientRun>& clients, bool plus);

}  // namespace blk::bench
