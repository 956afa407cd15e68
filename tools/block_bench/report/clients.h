// The merged report of a multi-host run (tools/block_bench/mpi): rank 0
// reports the results every rank sent it (run/result_codec.h), in fio's
// client/server layout: each rank's units, then the "All clients" units,
// merged over the ranks.
//
// Thread-safety: as text.h and json.h (localtime()'s static buffer: not
// from two threads at once); AllClientsUnits is pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/block_bench/report/units.h"
#include "tools/block_bench/run/runner.h"

namespace blk::bench {

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
