// The statistics of the verdicts, over per-run values (one value per run
// and metric; see results.h for why the run is the sampling unit).
//
// Thread-safety: pure functions; the bootstrap's generator is seeded by the
// caller, so the same inputs give the same interval.
#pragma once

#include <cstdint>
#include <span>

namespace blk::bench::verdict {

// Median (the mean of the two middle values for an even count).
// REQUIRES: !v.empty().
double Median(std::span<const double> v);

// Run-to-run spread: interquartile range / median (quartiles linear between
// neighbours), e.g. 0.02 for runs whose middle half lies within 2 % of the
// median.  NaN for fewer than 2 values or a median of 0.
double Spread(std::span<const double> v);

struct Interval {
  double lo = 0, hi = 0;
};

// Percentile-bootstrap confidence interval of median(b) / median(a) - 1 (the
// relative change from a to b): `resamples` times, each side is resampled
// with replacement on its own and the ratio of the two medians taken; the
// interval is the central `confidence` part of those ratios.  Resamples
// whose a-median is 0 are dropped.
// REQUIRES: a, b non-empty; 0 < confidence < 1; resamples >= 100.
Interval BootstrapChange(std::span<const double> a, std::span<const double> b, double confidence,
                         int resamples, uint64_t seed);

// Two-sided p-value of the Mann-Whitney U test (normal approximation with
// continuity and tie corrections).  1 when either side has fewer than 2
// values or all values are tied.
double MannWhitneyP(std::span<const double> a, std::span<const double> b);

}  // namespace blk::bench::verdict
