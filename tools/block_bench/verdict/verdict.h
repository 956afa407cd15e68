// Comparing two sets of runs (BASE and NEW) and deciding better / same /
// worse / unknown, per job, direction and metric, and overall.
//
// For each job and direction present on both sides and each metric:
//   change   = median(NEW) / median(BASE) - 1 over the runs' values;
//   interval = percentile-bootstrap confidence interval of that change
//              (stats.h), at `confidence`;
//   verdict  = "same"    when the whole interval lies within +-threshold
//                        (whatever the change is, it is inside the noise band);
//              "worse"   otherwise, when the whole interval lies on the worse
//                        side of 0 (latency up, IOPS or bandwidth down) and
//                        the Mann-Whitney U test rejects "no change" at
//                        p < (1 - confidence) / 2 (two-sided; 0.025 at 95 %):
//                        the change is real and not shown to be negligible
//                        (the rank test needs 5 runs a side to get there);
//              "better"  likewise on the better side;
//              "same"    also when the interval straddles 0 but its worse end
//                        is within the band: a regression beyond the band is
//                        ruled out (note "may be better" when the better end
//                        lies beyond the band);
//              "unknown" otherwise (a regression beyond the band is possible
//                        but not shown: more runs narrow the interval), and
//                        whenever either side has fewer than `min_runs` runs.
// The deciding metrics give the overall verdict: worse if any is
// worse, else unknown if any is unknown, else better if any is better, else
// same.  A run that failed (its JSON reports an error) or was interrupted
// (block-bench's "interrupted": true) is left out of the samples and
// reported as a problem; the overall verdict is then unknown, as it is when
// a job or direction is on one side only or no deciding value exists (and a
// side left with fewer than `min_runs` runs has every row unknown).
//
// Which metrics decide: those named (`metrics`), or, when none are named,
// one chosen by its measured run-to-run spread (Spread in stats.h: IQR /
// median of the runs' values, the larger of BASE's and NEW's, the largest
// over jobs and directions).  A metric whose spread exceeds
// kNoisyFactor x threshold is "too noisy to decide": its interval cannot
// shrink into the band within the rounds ab runs (the half-width of the
// change's interval is about 2.6 x spread / sqrt(runs): 10 % of spread needs
// ~30 runs a side to fit a +-5 % band).  The candidates, in order of
// preference: sched_p99 and sched_p50 (paced jobs only: latency from the
// due time), then clat p99 and p50; the first not too noisy decides, else
// the least noisy.  The choice is never made on the change itself (only on
// each side's own spread), so it does not bias the verdict towards "worse".
// With named metrics, a named one that is too noisy gets a note
// recommending the least noisy candidate that is not.
//
// Exit codes (ExitCode) follow `git bisect run`: 0 same or better, 1 worse,
// 125 unknown ("cannot test this commit": git skips it); never 126-255.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "tools/block_bench/verdict/results.h"
#include "tools/block_bench/verdict/stats.h"

namespace blk::bench::verdict {

enum class Verdict { kBetter, kSame, kWorse, kUnknown };
const char* Name(Verdict v);  // "better", "same", "worse", "unknown"

// 0 for better and same, 1 for worse, 125 for unknown.
int ExitCode(Verdict v);

// Spread above kNoisyFactor x threshold: too noisy to decide (see above).
inline constexpr double kNoisyFactor = 2;

struct CompareOptions {
  std::vector<Metric> metrics;  // the deciding ones; empty: chosen by spread
  double threshold = 0.05;                       // the noise band, +-5 %
  double confidence = 0.95;
  int min_runs = 5;     // per side, for any verdict but unknown
  int resamples = 4000;  // bootstrap
  uint64_t seed = 1;    // bootstrap; fixed so that a verdict repeats
};

struct Row {
  std::string job;
  int dir = 0;
  Metric metric = Metric::kP99;
  bool deciding = false;
  std::vector<double> base, neu;  // per-run values, in input order
  double base_median = 0, new_median = 0;  // of a side that has values
  double change = 0;              // new/base - 1 (NaN if base median is 0)
  Interval ci;                    // of change
  double p_value = 1;             // Mann-Whitney U, two-sided (for reference)
  double spread = NAN;            // run-to-run, the larger side's (Spread)
  Verdict verdict = Verdict::kUnknown;
  std::string note;  // why unknown, when it is for a reason other than noise
};

struct Comparison {
  std::vector<Row> rows;  // job, direction, then metric order
  Verdict overall = Verdict::kUnknown;
  // Why the overall verdict is unknown beyond the rows: failed or
  // interrupted runs (left out), unmatched jobs, no deciding values.
  std::vector<std::string> problems;
  size_t base_runs = 0, new_runs = 0;  // the runs counted (not left out)
  std::vector<Metric> deciding;  // named, or chosen by spread
  bool chosen = false;           // chosen by spread (no metric named)
  // How the metric was chosen, or why a named one cannot decide, e.g.
  // "p99 too noisy to decide: run-to-run spread 58.0 % (limit 10.0 %)".
  std::vector<std::string> notes;
};

Comparison Compare(const std::vector<ResultDoc>& base, const std::vector<ResultDoc>& neu,
                   const CompareOptions& opts);

// The table people read: one line per job, direction and metric, then the
// problems and the overall verdict.  A side without the metric (fio's JSON
// has no sched lat) shows "—", the other side its median.
std::string TextReport(const Comparison& c, const CompareOptions& opts);

// The same as JSON: {"options": {...}, "rows": [...], "problems": [...],
// "verdict": "...", "exit_code": N}.
nlohmann::ordered_json JsonReport(const Comparison& c, const CompareOptions& opts);

}  // namespace blk::bench::verdict
