// The report library's internals, shared by its outputs and not included
// from outside tools/block_bench/report: printf into a string, the figures
// the text and JSON reports derive from a report unit (rates, sample
// statistics, latency buckets, group bandwidths), and the per-unit blocks
// of text.cc and json.cc that clients.cc puts together for the multi-host
// report.
//
// Thread-safety: pure functions, except LocalDate (and TopJson and the
// text blocks' callers, which use it): localtime() keeps its result in a
// static buffer, so two threads formatting dates at once race.
#pragma once

#include <cstdint>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/report/units.h"
#include "tools/block_bench/run/runner.h"

namespace blk::bench::report_internal {

using ojson = nlohmann::ordered_json;

inline constexpr const char* kDirName[] = {"read", "write", "trim"};

// printf into a string, cut at 511 bytes.
std::string Fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));

// Of samples: the mean, and the standard deviation with n-1 (0 for fewer
// than two).
double Mean(const std::vector<double>& v);
double Stddev(const std::vector<double>& v);

// The runtime in milliseconds, as fio's: whole microseconds rounded up (a
// job of 0.3 ms ran 1 ms).
uint64_t RuntimeMs(const CloneResult& r);

// Per second, over the exact runtime.  fio divides by whole milliseconds;
// the nanosecond runtime gives the same figure for runs of a second or more
// (within 0.1 %) and a true one for runs shorter than a millisecond, which
// RuntimeMs (and fio) call 1 ms.
double PerSec(uint64_t count, const CloneResult& r);

// Whether direction `x` of `r` ran as fio counts it: it has I/O and its
// engine moves data (fio keeps a runtime, and with it a direction block, a
// group line and a rate, only for bytes moved: none for cpuio and exec).
bool DirRan(const CloneResult& r, const DirResult& x);

// How many of the direction's priorities (DirResult::prios, cmdprio) have
// samples: fio splits the latencies by priority only from two on.
size_t PriosWithSamples(const DirResult& x);

// The directions a job's report shows: read, write, trim, and (index
// kNumDirs) "mixed", their sum, as unified_rw_reporting says.
std::vector<int> ShownDirs(const JobOptions& job);
// The "mixed" direction: the three summed.
DirResult Mixed(const CloneResult& r);

// Per direction, the bandwidth of each group id (bytes/s, the sum over its
// units): the base of bw_agg and per=.
using GroupBws = std::map<int, double>[kNumDirs];
void FillGroupBws(const std::vector<ReportUnit>& units, GroupBws& gbw);
// 0 for a group not in `m`.
double GroupBwOf(const std::map<int, double>& m, int groupid);

// Latency bucket percentages as fio's latency_ns/us/ms maps.
struct LatBuckets {
  double ns[10] = {}, us[10] = {}, ms[12] = {};
};
inline constexpr uint64_t kLatEdges[10] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000};
inline constexpr uint64_t kMsEdges[11] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000};
LatBuckets Buckets(const LatencyHistogram& h);
// The completion latencies of all directions together.
LatencyHistogram AllLat(const CloneResult& r);

// The buckets of fio's IO depth and submit/complete batch distributions.
inline constexpr const char* kDepthKeys[] = {"1", "2", "4", "8", "16", "32", ">=64"};
inline constexpr const char* kBatchKeys[] = {"0", "4", "8", "16", "32", "64", ">=64"};

// `t` in the local time zone, as fio's reports print dates:
// "Tue Nov 14 22:13:20 2023".
std::string LocalDate(time_t t);

// A trace replay's duration error: how much longer (+) or shorter the
// replay took than the trace's span, in %; 0 without a span.
double DurationErrorPct(const ScheduleResult& sc);

// text.cc's blocks.
// One report unit's text block; `name`: the job's, or "All clients".
// `counters`: the driver counters too; `when` and `pid` go on the first
// line.
std::string UnitText(const ReportUnit& u, const std::string& name, const GroupBws& gbw,
                     bool counters, const std::string& when, int pid);
// Run status groups, as fio: over the report units (each clone, or the
// whole group with group_reporting, whose range is then that one value).
// `groups` (StatusGroups): ids that get their heading even with no unit
// (every job of the group had stats=0).
std::string StatusText(const std::vector<ReportUnit>& units, const std::vector<int>& groups = {});
// fio's "Disk stats" lines; `prefix` before each device name.
std::string DiskText(const std::vector<DiskUtil>& disks, const std::string& prefix);

// json.cc's blocks.
// The document's top keys: versions and the run's start time.
ojson TopJson(int64_t start_unix_ms);
// One "disk_util" entry.
ojson DiskJson(const DiskUtil& d);
// One report unit's JSON object; `name`: the job's, or "All clients".
ojson UnitJson(const ReportUnit& u, const std::string& name, const GroupBws& gbw, bool plus);

}  // namespace blk::bench::report_internal
