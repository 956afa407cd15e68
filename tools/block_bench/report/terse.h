// fio's terse output (--minimal, --output-format=terse): one semicolon-
// separated line per job (per group with group_reporting), fio's layout of
// versions 3, 4 and 5 (fio's man page, "TERSE OUTPUT"):
//
//   version;fio version;jobname;groupid;error;
//   per direction (read, write; v4 and v5 also trim; with
//   unified_rw_reporting=mixed only the mixed one):
//     KiB;bw KiB/s;IOPS;runtime ms;slat min;max;mean;stdev (us);
//     clat min;max;mean;stdev (us);20 clat percentiles "P%=us" (padded with
//     "0%=0");lat min;max;mean;stdev (us);bw min;max;agg%;mean;stdev (KiB/s)
//     [v5: ;bw samples;IOPS min;max;mean;stdev;samples]
//   usr%;sys%;ctx;majf;minf;IO depths <=1..>=64 (7);latency us <=2..1000
//   (10);latency ms <=2..>=2000 (12)
//   [continue_on_error: ;total errors;first errno][description: ;text]
//
// The line is made from the job's JSON object (json.h, fio's JSON
// layout), so both carry the same numbers.  Disk utilization fields are not
// written (block-bench has no disk statistics; fio writes them only for
// jobs on block devices).
//
// Thread-safety: pure.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace blk::bench {

// `doc` is JsonReport()'s document; one line per element of doc["jobs"],
// each ending with '\n'.  `version`: 3, 4 or 5.
std::string TerseReport(const nlohmann::json& doc, int version);

}  // namespace blk::bench
