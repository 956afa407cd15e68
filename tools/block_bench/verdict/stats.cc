#include "tools/block_bench/verdict/stats.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace blk::bench::verdict {
namespace {

double MedianInPlace(std::vector<double>& v) {
  const size_t n = v.size(), mid = n / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  const double upper = v[mid];
  if (n % 2) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + mid);
  return lower + (upper - lower) / 2;  // no overflow near DBL_MAX
}

// The q-quantile of sorted values, linear between neighbours.
double Quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * double(sorted.size() - 1);
  const size_t i = size_t(pos);
  if (i + 1 >= sorted.size()) return sorted.back();
  return sorted[i] + (pos - double(i)) * (sorted[i + 1] - sorted[i]);
}

}  // namespace

double Spread(std::span<const double> v) {
  if (v.size() < 2) return NAN;
  std::vector<double> sorted(v.begin(), v.end());
  std::sort(sorted.begin(), sorted.end());
  const double median = Quantile(sorted, 0.5);
  if (median == 0) return NAN;
  return (Quantile(sorted, 0.75) - Quantile(sorted, 0.25)) / std::fabs(median);
}

double Median(std::span<const double> v) {
  std::vector<double> c(v.begin(), v.end());
  return MedianInPlace(c);
}

Interval BootstrapChange(std::span<const double> a, std::span<const double> b, double confidence,
                         int resamples, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick_a(0, a.size() - 1), pick_b(0, b.size() - 1);
  std::vector<double> ra(a.size()), rb(b.size()), changes;
  changes.reserve(size_t(resamples));
  for (int r = 0; r < resamples; r++) {
    for (double& x : ra) x = a[pick_a(rng)];
    for (double& x : rb) x = b[pick_b(rng)];
    const double ma = MedianInPlace(ra);
    if (ma == 0) continue;
    changes.push_back(MedianInPlace(rb) / ma - 1);
  }
  if (changes.empty()) return {NAN, NAN};
  std::sort(changes.begin(), changes.end());
  const double tail = (1 - confidence) / 2;
  return {Quantile(changes, tail), Quantile(changes, 1 - tail)};
}

double MannWhitneyP(std::span<const double> a, std::span<const double> b) {
  const size_t n1 = a.size(), n2 = b.size();
  if (n1 < 2 || n2 < 2) return 1;
  std::vector<std::pair<double, int>> all;
  for (double x : a) all.push_back({x, 0});
  for (double x : b) all.push_back({x, 1});
  std::sort(all.begin(), all.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  const double n = double(n1 + n2);
  double rank_sum_a = 0, tie_term = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) j++;
    const double rank = (double(i) + double(j) + 1) / 2;  // mean of ranks i+1..j
    const double t = double(j - i);
    tie_term += t * t * t - t;
    for (size_t k = i; k < j; k++)
      if (all[k].second == 0) rank_sum_a += rank;
    i = j;
  }
  const double u = rank_sum_a - double(n1) * double(n1 + 1) / 2;
  const double mean = double(n1) * double(n2) / 2;
  const double var = double(n1) * double(n2) / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (var <= 0) return 1;
  const double z = (std::abs(u - mean) - 0.5) / std::sqrt(var);
  if (z <= 0) return 1;
  return std::erfc(z / std::sqrt(2.0));
}

}  // namespace blk::bench::verdict
