#include <blkstack/util/histogram.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace blk {
namespace {

using H = LatencyHistogram;
constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// fio's default percentile list plus some odd ones.
const std::vector<double> kPercentiles = {
    1e-6, 0.01, 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95,
    99, 99.5, 99.9, 99.95, 99.99, 99.999, 33.333, 66.6667, 100 - 1e-9};

// Exact nearest-rank percentile under the rule the histogram documents:
// the smallest k with k >= p / 100 * n.
uint64_t ExactPercentile(const std::vector<uint64_t>& sorted, double p) {
  const uint64_t n = sorted.size();
  const long double target = static_cast<long double>(p) / 100.0L * n;
  uint64_t k = static_cast<uint64_t>(std::ceil(target));
  k = std::clamp<uint64_t>(k, 1, n);
  return sorted[k - 1];
}

// Histogram and exact percentile must agree within 1/128 relative (the
// layout's bound; the requirement is 1 %).
void ExpectPercentilesAccurate(const std::vector<uint64_t>& values, const std::string& what) {
  H h;
  for (uint64_t v : values) h.record(v);
  std::vector<uint64_t> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(h.count(), sorted.size());
  EXPECT_EQ(h.min(), sorted.front()) << what;
  EXPECT_EQ(h.max(), sorted.back()) << what;
  EXPECT_EQ(h.percentile(0), sorted.front()) << what;
  EXPECT_EQ(h.percentile(100), sorted.back()) << what;
  long double worst = 0;
  for (double p : kPercentiles) {
    const uint64_t exact = ExactPercentile(sorted, p);
    const uint64_t got = h.percentile(p);
    const long double err =
        std::fabs(static_cast<long double>(got) - static_cast<long double>(exact));
    const long double rel = exact == 0 ? err : err / exact;
    worst = std::max(worst, rel);
    EXPECT_LE(rel, 1.0L / 128) << what << " p=" << p << " exact=" << exact << " got=" << got;
    EXPECT_GE(got, h.min());
    EXPECT_LE(got, h.max());
  }
  EXPECT_LE(worst, 0.01L) << what;
}

// Reference mean and sample stddev, two-pass in long double.
void ExactMoments(const std::vector<uint64_t>& v, long double* mean, long double* sd) {
  long double s = 0;
  for (uint64_t x : v) s += x;
  *mean = s / v.size();
  long double m2 = 0;
  for (uint64_t x : v) m2 += (x - *mean) * (x - *mean);
  *sd = v.size() < 2 ? 0 : std::sqrt(m2 / (v.size() - 1));
}

std::vector<uint64_t> Lognormal(std::mt19937_64& rng, size_t n, double mu, double sigma) {
  std::lognormal_distribution<double> d(mu, sigma);
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = static_cast<uint64_t>(std::min(d(rng), 1e18));
  return v;
}

TEST(HistogramLayout, BucketsTileTheWholeRange) {
  EXPECT_EQ(H::bucket_count(), H::kBuckets);
  EXPECT_EQ(H::bucket_lower(0), 0u);
  EXPECT_EQ(H::bucket_upper(H::kBuckets - 1), kMax);
  EXPECT_EQ(H::bucket_index(kMax), H::kBuckets - 1);
  for (size_t i = 0; i < H::kBuckets; ++i) {
    const uint64_t lo = H::bucket_lower(i);
    const uint64_t hi = H::bucket_upper(i);
    ASSERT_LE(lo, hi) << i;
    ASSERT_EQ(H::bucket_index(lo), i) << i;
    ASSERT_EQ(H::bucket_index(hi), i) << i;
    ASSERT_EQ(H::bucket_index(lo + (hi - lo) / 2), i) << i;
    ASSERT_GE(H::bucket_value(i), lo);
    ASSERT_LE(H::bucket_value(i), hi);
    if (i + 1 < H::kBuckets) {
      ASSERT_EQ(H::bucket_lower(i + 1), hi + 1) << i;
    }
    // Resolution: width <= lower / 64 above the exact range.
    if (i >= H::kExactLimit) {
      ASSERT_LE(H::bucket_width(i) * 64, lo) << i;
    }
  }
}

TEST(HistogramLayout, ExactBelow128AndFioRepresentative) {
  for (uint64_t v = 0; v < 128; ++v) {
    EXPECT_EQ(H::bucket_index(v), v);
    EXPECT_EQ(H::bucket_value(v), v);
  }
  // fio: plat_idx_to_val(128) = 128 + 0.5 * 2 = 129.
  EXPECT_EQ(H::bucket_index(128), 128u);
  EXPECT_EQ(H::bucket_index(129), 128u);
  EXPECT_EQ(H::bucket_index(130), 129u);
  EXPECT_EQ(H::bucket_value(128), 129u);
  EXPECT_EQ(H::bucket_index(256), 192u);
  EXPECT_EQ(H::bucket_width(192), 4u);
}

TEST(HistogramLayout, SizeIsAFewTensOfKB) {
  EXPECT_LE(sizeof(H), 32u * 1024);
}

TEST(Histogram, Empty) {
  H h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.stddev(), 0.0);
  for (double p : {0.0, 1.0, 50.0, 99.9, 100.0}) EXPECT_EQ(h.percentile(p), 0u) << p;
  int calls = 0;
  h.for_each_bucket([&](size_t, uint64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(Histogram, SingleValue) {
  H h;
  h.record(123456789);
  EXPECT_EQ(h.count(), 1u);
  EXPECT_EQ(h.min(), 123456789u);
  EXPECT_EQ(h.max(), 123456789u);
  EXPECT_EQ(h.mean(), 123456789.0);
  EXPECT_EQ(h.stddev(), 0.0);
  // The clamp to [min, max] makes every percentile exact here.
  for (double p : {0.0, 1e-9, 50.0, 99.99, 100.0}) EXPECT_EQ(h.percentile(p), 123456789u) << p;
}

TEST(Histogram, ZeroIsAValue) {
  H h;
  h.record(0);
  h.record(0);
  EXPECT_EQ(h.count(), 2u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.bucket_hits(0), 2u);
  EXPECT_EQ(h.percentile(50), 0u);
}

TEST(Histogram, PercentileArguments) {
  H h;
  for (uint64_t v = 1; v <= 100; ++v) h.record(v * 1000);
  EXPECT_EQ(h.percentile(0), 1000u);
  EXPECT_EQ(h.percentile(-5), 1000u);
  EXPECT_EQ(h.percentile(100), 100000u);
  EXPECT_EQ(h.percentile(250), 100000u);
  EXPECT_EQ(h.percentile(std::nan("")), 0u);
  // p=50 of 1000..100000: rank 50 -> 50000 (within a bucket of width 512).
  EXPECT_NEAR(static_cast<double>(h.percentile(50)), 50000.0, 50000.0 / 128);
  EXPECT_NEAR(static_cast<double>(h.percentile(50.5)), 51000.0, 51000.0 / 128);
}

TEST(Histogram, SmallIntegersAreExact) {
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<uint64_t> d(0, 127);
  std::vector<uint64_t> v(100000);
  for (auto& x : v) x = d(rng);
  H h;
  for (uint64_t x : v) h.record(x);
  std::sort(v.begin(), v.end());
  for (double p : kPercentiles) EXPECT_EQ(h.percentile(p), ExactPercentile(v, p)) << p;
}

TEST(Histogram, PercentileErrorLognormalNsToSeconds) {
  std::mt19937_64 rng(42);
  // Median 100 us, sigma 3: spans ~1 ns to tens of seconds.
  ExpectPercentilesAccurate(Lognormal(rng, 200000, std::log(1e5), 3.0), "lognormal wide");
  // Median 20 us, tight.
  ExpectPercentilesAccurate(Lognormal(rng, 200000, std::log(2e4), 0.3), "lognormal tight");
}

TEST(Histogram, PercentileErrorOtherDistributions) {
  std::mt19937_64 rng(7);
  {
    std::uniform_int_distribution<uint64_t> d(0, 10'000'000);
    std::vector<uint64_t> v(150000);
    for (auto& x : v) x = d(rng);
    ExpectPercentilesAccurate(v, "uniform 0..10ms");
  }
  {
    std::exponential_distribution<double> d(1.0 / 250000);
    std::vector<uint64_t> v(150000);
    for (auto& x : v) x = static_cast<uint64_t>(d(rng));
    ExpectPercentilesAccurate(v, "exponential");
  }
  {
    // Bimodal: cache hits at ~3 us, misses at ~8 ms, plus rare 2 s stalls.
    std::normal_distribution<double> hit(3000, 300), miss(8e6, 1e6);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<uint64_t> v(150000);
    for (auto& x : v) {
      const double r = u(rng);
      const double s = r < 0.7 ? hit(rng) : r < 0.9999 ? miss(rng) : 2e9;
      x = static_cast<uint64_t>(std::max(s, 0.0));
    }
    ExpectPercentilesAccurate(v, "bimodal");
  }
  {
    // The whole uint64 range, log-uniform.
    std::uniform_int_distribution<int> bits(0, 63);
    std::vector<uint64_t> v(150000);
    for (auto& x : v) x = rng() >> bits(rng);
    ExpectPercentilesAccurate(v, "log-uniform 64-bit");
  }
}

TEST(Histogram, MeanAndStddevAgainstExact) {
  std::mt19937_64 rng(3);
  for (double sigma : {0.1, 1.0, 2.5}) {
    const std::vector<uint64_t> v = Lognormal(rng, 100000, std::log(5e4), sigma);
    H h;
    for (uint64_t x : v) h.record(x);
    long double mean, sd;
    ExactMoments(v, &mean, &sd);
    EXPECT_NEAR(h.mean(), static_cast<double>(mean), static_cast<double>(mean) * 1e-13) << sigma;
    EXPECT_NEAR(h.stddev(), static_cast<double>(sd), static_cast<double>(sd) * 1e-12) << sigma;
  }
}

TEST(Histogram, StddevIsSampleStddev) {
  H h;
  h.record(1);
  EXPECT_EQ(h.stddev(), 0.0);  // count < 2
  h.record(3);
  EXPECT_DOUBLE_EQ(h.mean(), 2.0);
  EXPECT_DOUBLE_EQ(h.stddev(), std::sqrt(2.0));  // divides by n - 1
  for (uint64_t v : {2, 4, 4, 4, 5, 5, 7, 9}) h.record(v);
  // {1,3,2,4,4,4,5,5,7,9}: mean 4.4, sum of squared deviations 48.4.
  EXPECT_DOUBLE_EQ(h.mean(), 4.4);
  EXPECT_DOUBLE_EQ(h.stddev(), std::sqrt(48.4 / 9));
}

TEST(Histogram, NoCancellationWithLargeMeanSmallSpread) {
  // sum of squares ~ 1e36 while the spread is 1: a double or long double
  // sum-of-squares formula returns garbage here.
  H h;
  const uint64_t base = 1'000'000'000'000'000'000ULL;
  for (int i = 0; i < 1000; ++i) {
    h.record(base);
    h.record(base + 1);
    h.record(base + 2);
  }
  EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(base + 1));
  // Deviations -1, 0, 1: sum of squares 2000 over n - 1 = 2999.
  EXPECT_DOUBLE_EQ(h.stddev(), std::sqrt(2000.0 / 2999.0));
}

TEST(Histogram, HugeValues) {
  H h;
  for (int i = 0; i < 3; ++i) h.record(kMax);
  EXPECT_EQ(h.count(), 3u);
  EXPECT_EQ(h.min(), kMax);
  EXPECT_EQ(h.max(), kMax);
  EXPECT_EQ(h.mean(), static_cast<double>(kMax));
  EXPECT_EQ(h.stddev(), 0.0);
  EXPECT_EQ(h.percentile(50), kMax);
  EXPECT_EQ(h.bucket_hits(H::kBuckets - 1), 3u);

  H two;
  two.record(0);
  two.record(kMax);
  // mean M/2, sample variance M^2/2.
  EXPECT_DOUBLE_EQ(two.mean(), static_cast<double>(kMax) / 2);
  EXPECT_DOUBLE_EQ(two.stddev(), static_cast<double>(kMax) / std::sqrt(2.0));
  EXPECT_EQ(two.percentile(50), 0u);
  // Top bucket's midpoint, within 1/128 of the value.
  EXPECT_EQ(two.percentile(50.1), H::bucket_value(H::kBuckets - 1));
  EXPECT_GE(static_cast<double>(two.percentile(50.1)), static_cast<double>(kMax) * (1 - 1.0 / 128));
}

TEST(Histogram, HugeCountsOfHugeValuesStayExact) {
  // n = 2^63 values: 2^63 - 1 of them UINT64_MAX and one 0.  The sum needs
  // 127 bits and the sum of squares 191.
  H h;
  h.record_n(kMax, (uint64_t{1} << 63) - 1);
  EXPECT_EQ(h.mean(), static_cast<double>(kMax));
  EXPECT_EQ(h.stddev(), 0.0);
  h.record(0);
  EXPECT_EQ(h.count(), uint64_t{1} << 63);
  // mean = M (n-1)/n, sample variance = M^2 / n  ->  stddev = M / 2^31.5.
  const long double M = static_cast<long double>(kMax);
  const long double n = std::ldexp(1.0L, 63);
  EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(M - M / n));
  EXPECT_DOUBLE_EQ(h.stddev(), static_cast<double>(M / std::sqrt(n)));
  EXPECT_EQ(h.percentile(1e-17), 0u);
  EXPECT_EQ(h.percentile(50), H::bucket_value(H::kBuckets - 1));
}

TEST(Histogram, RecordNEqualsRepeatedRecord) {
  H a, b;
  const std::vector<std::pair<uint64_t, uint64_t>> vn = {
      {5, 3}, {1000, 1}, {123456789, 17}, {0, 2}, {kMax, 4}, {77, 0}};
  for (auto [v, n] : vn) {
    a.record_n(v, n);
    for (uint64_t i = 0; i < n; ++i) b.record(v);
  }
  EXPECT_EQ(a.count(), b.count());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_EQ(a.mean(), b.mean());
  EXPECT_EQ(a.stddev(), b.stddev());
  for (size_t i = 0; i < H::kBuckets; ++i) ASSERT_EQ(a.bucket_hits(i), b.bucket_hits(i)) << i;
  EXPECT_EQ(a.min(), 0u);  // record_n(77, 0) recorded nothing, 0 did count
  EXPECT_EQ(a.bucket_hits(77), 0u);
}

void ExpectSame(const H& a, const H& b) {
  EXPECT_EQ(a.count(), b.count());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_EQ(a.mean(), b.mean());
  EXPECT_EQ(a.stddev(), b.stddev());
  for (size_t i = 0; i < H::kBuckets; ++i) ASSERT_EQ(a.bucket_hits(i), b.bucket_hits(i)) << i;
  for (double p : kPercentiles) EXPECT_EQ(a.percentile(p), b.percentile(p)) << p;
}

TEST(Histogram, MergeEqualsRecordingAllIntoOne) {
  std::mt19937_64 rng(11);
  const std::vector<uint64_t> v = Lognormal(rng, 200000, std::log(1e5), 2.0);
  H all;
  H parts[4];
  std::uniform_int_distribution<int> pick(0, 2);  // parts[3] stays empty
  for (uint64_t x : v) {
    all.record(x);
    parts[pick(rng)].record(x);
  }
  H merged;
  for (const H& p : parts) merged.merge(p);
  ExpectSame(merged, all);

  // Merging into a non-empty one, in another order.
  H merged2 = parts[2];
  merged2.merge(parts[3]);
  merged2.merge(parts[0]);
  merged2.merge(parts[1]);
  ExpectSame(merged2, all);
}

TEST(Histogram, MergeEmptyAndSelf) {
  H a;
  a.record(10);
  a.record(1000);
  H empty;
  a.merge(empty);
  EXPECT_EQ(a.count(), 2u);
  EXPECT_EQ(a.min(), 10u);

  // An empty histogram takes min/max from what it merges.
  empty.merge(a);
  EXPECT_EQ(empty.min(), 10u);
  EXPECT_EQ(empty.max(), 1000u);

  H twice;
  twice.record_n(10, 2);
  twice.record_n(1000, 2);
  a.merge(a);
  ExpectSame(a, twice);
}

TEST(Histogram, MergeCarriesSumOfSquares) {
  // Each side alone is near 2^128 in sum of squares; the merge must carry.
  H a, b, all;
  a.record_n(kMax, 3);
  b.record_n(kMax - 5, 3);
  b.record(1);
  all.record_n(kMax, 3);
  all.record_n(kMax - 5, 3);
  all.record(1);
  a.merge(b);
  ExpectSame(a, all);
  EXPECT_GT(a.stddev(), 1e18);
}

TEST(Histogram, ResetForgetsEverything) {
  H h;
  for (uint64_t v = 0; v < 5000; v += 7) h.record(v * 1013);
  h.reset();
  ExpectSame(h, H());
  h.record(42);
  EXPECT_EQ(h.min(), 42u);
  EXPECT_EQ(h.max(), 42u);
  EXPECT_EQ(h.count(), 1u);
}

TEST(Histogram, ForEachBucketVisitsNonEmptyInOrder) {
  H h;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 10000; ++i) h.record(rng() >> (rng() % 64));
  uint64_t total = 0;
  size_t prev = 0;
  bool first = true;
  h.for_each_bucket([&](size_t i, uint64_t hits) {
    EXPECT_GT(hits, 0u);
    EXPECT_EQ(hits, h.bucket_hits(i));
    if (!first) {
      EXPECT_GT(i, prev);
    }
    first = false;
    prev = i;
    total += hits;
  });
  EXPECT_EQ(total, h.count());
}

TEST(Histogram, TotalsAndBucketsRestoreAnIdenticalHistogram) {
  H h;
  std::mt19937_64 rng(11);
  // Large values too: the 128-bit sum and 192-bit sum of squares carry.
  for (int i = 0; i < 20000; ++i) h.record(rng() >> (rng() % 64));
  h.record(UINT64_MAX);
  std::vector<std::pair<size_t, uint64_t>> b;
  h.for_each_bucket([&](size_t i, uint64_t hits) { b.emplace_back(i, hits); });
  H r;
  ASSERT_TRUE(r.restore(h.totals(), b.data(), b.size()));
  ExpectSame(r, h);
  // Merging restored copies is merging the originals.
  H twice = h;
  twice.merge(h);
  H r2 = r;
  r2.merge(r);
  ExpectSame(r2, twice);
}

TEST(Histogram, RestoreRefusesInconsistentState) {
  H h;
  h.record(5);
  h.record(500);
  std::vector<std::pair<size_t, uint64_t>> b;
  h.for_each_bucket([&](size_t i, uint64_t hits) { b.emplace_back(i, hits); });
  H r;
  H::Totals t = h.totals();
  t.count = 3;  // the buckets hold 2
  EXPECT_FALSE(r.restore(t, b.data(), b.size()));
  ExpectSame(r, H());
  auto bad = b;
  bad[0].first = H::bucket_count();  // out of range
  EXPECT_FALSE(r.restore(h.totals(), bad.data(), bad.size()));
  bad = b;
  bad[1].first = bad[0].first;  // the same bucket twice
  EXPECT_FALSE(r.restore(h.totals(), bad.data(), bad.size()));
  ExpectSame(r, H());
}

// An empty histogram holds no counters (a job clone's results carry 17
// histograms and use two or three: 30 KB each would be half a megabyte per
// clone, 2.5 GB for 5000 clones); the first value allocates them, reset()
// frees them, copies and moves keep every count.
TEST(LatencyHistogram, EmptyHoldsNoCounters) {
  EXPECT_LT(sizeof(H), 256u);
  H h;
  EXPECT_FALSE(h.has_buckets());
  EXPECT_EQ(h.bucket_hits(7), 0u);
  EXPECT_EQ(h.percentile(50), 0u);
  int visited = 0;
  h.for_each_bucket([&](size_t, uint64_t) { visited++; });
  EXPECT_EQ(visited, 0);
  H merged;
  merged.merge(h);
  EXPECT_FALSE(merged.has_buckets());
  h.record(1000);
  h.record_n(7, 3);
  EXPECT_TRUE(h.has_buckets());
  H copy = h;
  ExpectSame(copy, h);
  H assigned;
  assigned.record(1);
  assigned = h;
  ExpectSame(assigned, h);
  assigned = H();
  EXPECT_FALSE(assigned.has_buckets());
  ExpectSame(assigned, H());
  H moved = std::move(copy);
  ExpectSame(moved, h);
  EXPECT_FALSE(copy.has_buckets());  // NOLINT: moved-from is empty, as documented
  ExpectSame(copy, H());
  merged.merge(h);
  ExpectSame(merged, h);
  h.reset();
  EXPECT_FALSE(h.has_buckets());
  ExpectSame(h, H());
}

}  // namespace
}  // namespace blk
