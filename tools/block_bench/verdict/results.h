// Benchmark results as the verdicts read them: one JSON document of
// block-bench (--output-format=json or json+) or of fio (3.x,
// --output-format=json), reduced to one value per job, direction and metric.
//
// The sampling unit of a verdict is the run: per-I/O latencies within one
// run are not independent samples, so each result file contributes one
// value per metric (its p99, its IOPS, ...), and repetitions are files.
//
// Jobs are matched by name; a name that occurs k > 1 times in one document
// (numjobs without group_reporting) is keyed "name[1]" ... "name[k]".  A
// direction with no I/O in a job is left out.
//
// Thread-safety: pure functions (LoadResults reads files).
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <blkstack/util/result.h>

namespace blk::bench::verdict {

// kSchedP50/kSchedP99: latency from the due time of paced jobs (trace
// replay, rate=): block-bench's "sched_lat_ns", free of coordinated omission.
enum class Metric : int { kIops = 0, kBw, kClatMean, kP50, kP99, kP999, kSchedP50, kSchedP99 };
inline constexpr int kNumMetrics = 8;

struct MetricInfo {
  Metric metric;
  const char* name;       // as in --metric=: "iops", "bw", "mean", "p50", "p99", "p99.9",
                          // "sched_p50", "sched_p99"
  const char* title;      // for tables: "IOPS", "BW", "clat mean", ...
  bool higher_is_better;  // IOPS and bandwidth; latencies are better lower
  bool is_latency;        // ns in the input
};

const MetricInfo& Info(Metric m);
std::span<const MetricInfo> AllMetrics();

// "p99" or "iops,p99": a non-empty comma-separated list without duplicates.
// The error names the unknown metric and lists the known ones.
Expected<std::vector<Metric>> ParseMetrics(std::string_view list);

// One job's one direction in one result document.
struct Sample {
  std::string job;  // name, or "name[i]" (see above)
  int dir = 0;      // 0 read, 1 write, 2 trim, 3 mixed
  std::array<double, kNumMetrics> value{};
  std::array<bool, kNumMetrics> has{};  // whether the document gave the metric
  // The completion-latency distribution as (percentile 0..100, ns) points,
  // ascending: from the histogram bins of a json+ document when present
  // (every bin, at the middle of its share: a bin holding the k-th of N
  // completions alone sits at (k - 0.5) / N, so the maximum of N
  // completions is drawn at 1 - 0.5/N, not at 100 %), else from its
  // percentile list.  For plots.
  std::vector<std::pair<double, double>> curve;
};

const char* DirName(int dir);  // "read", "write", "trim", "mixed" (unified_rw_reporting)

struct ResultDoc {
  std::string path;  // where it was read from ("-" for text given directly)
  std::string tool;  // "block-bench" or "fio"
  // Whether the run reported an error (a job's "error" or "total_err"):
  // its numbers cover a run that did not do what was asked.
  bool failed = false;
  std::string failure;  // e.g. "job 'a': error=5, total_err=3"
  // Whether a job of the run was stopped early by a signal (block-bench's
  // "blkstack": {"interrupted": true}: SIGINT, SIGTERM, also ab's
  // --timeout): its numbers cover part of the run.
  bool interrupted = false;
  std::string interruption;  // e.g. "job 'a' was interrupted (stopped early by a signal)"
  std::vector<Sample> samples;
};

// Parses one JSON document.  Text before the first '{' is skipped (fio
// prints notes such as "note: both iodepth >= 1 and synchronous I/O engine
// are selected" ahead of its JSON on the same stream).  Errors name `path`
// and what is missing or malformed.
Expected<ResultDoc> ParseResultJson(std::string_view text, const std::string& path);

// The largest result document read (a json+ document of a few hundred
// jobs with histogram bins is a few MB); a fixed limit.
inline constexpr uint64_t kResultMaxBytes = uint64_t(256) << 20;

// The text of one result file, within kResultMaxBytes: a device such as
// /dev/zero is refused at once, a pipe read up to the limit
// (util/input_file.h).  Errors name the path.
Expected<std::string> ReadResultFile(const std::string& path);

// Each argument is a result file or a directory, whose *.json files are read
// in name order (each with ReadResultFile).  At least one document in all;
// errors name the path.
Expected<std::vector<ResultDoc>> LoadResults(const std::vector<std::string>& paths);

}  // namespace blk::bench::verdict
