#include "util/histogram.h"

#include <cmath>
#include <cstring>
#include <utility>

namespace blk {
namespace {

__extension__ typedef unsigned __int128 u128;

// Unsigned 192-bit integer, little-endian words.  Only what stddev() and
// record_n() need.
struct U192 {
  uint64_t w[3] = {0, 0, 0};
};

U192 from_parts(u128 lo, uint64_t hi) {
  return U192{{static_cast<uint64_t>(lo), static_cast<uint64_t>(lo >> 64), hi}};
}

// a * b, exact.
U192 mul(u128 a, uint64_t b) {
  const u128 p0 = static_cast<u128>(static_cast<uint64_t>(a)) * b;
  const u128 p1 = static_cast<u128>(static_cast<uint64_t>(a >> 64)) * b;
  // p0 + (p1 << 64); the middle word can carry into the top one.
  const u128 mid = (p0 >> 64) + static_cast<uint64_t>(p1);
  return U192{{static_cast<uint64_t>(p0), static_cast<uint64_t>(mid),
               static_cast<uint64_t>(p1 >> 64) + static_cast<uint64_t>(mid >> 64)}};
}

// a - b.  REQUIRES: a >= b.
U192 sub(const U192& a, const U192& b) {
  U192 r;
  uint64_t borrow = 0;
  for (int i = 0; i < 3; ++i) {
    const u128 d = static_cast<u128>(a.w[i]) - b.w[i] - borrow;
    r.w[i] = static_cast<uint64_t>(d);
    borrow = static_cast<uint64_t>(d >> 64) ? 1 : 0;
  }
  return r;
}

long double to_ld(const U192& a) {
  constexpr long double k64 = 18446744073709551616.0L;  // 2^64
  return (static_cast<long double>(a.w[2]) * k64 + a.w[1]) * k64 + a.w[0];
}

}  // namespace

LatencyHistogram::LatencyHistogram(const LatencyHistogram& o) { *this = o; }

LatencyHistogram& LatencyHistogram::operator=(const LatencyHistogram& o) {
  if (this == &o) return *this;
  if (o.counts_ == nullptr) {
    delete[] counts_;
    counts_ = nullptr;
  } else {
    if (counts_ == nullptr) counts_ = new uint64_t[kBuckets];
    std::memcpy(counts_, o.counts_, kBuckets * sizeof(uint64_t));
  }
  count_ = o.count_;
  min_ = o.min_;
  max_ = o.max_;
  sum_ = o.sum_;
  sumsq_lo_ = o.sumsq_lo_;
  sumsq_hi_ = o.sumsq_hi_;
  return *this;
}

LatencyHistogram::LatencyHistogram(LatencyHistogram&& o) noexcept { *this = std::move(o); }

LatencyHistogram& LatencyHistogram::operator=(LatencyHistogram&& o) noexcept {
  if (this == &o) return *this;
  delete[] counts_;
  counts_ = std::exchange(o.counts_, nullptr);
  count_ = o.count_;
  min_ = o.min_;
  max_ = o.max_;
  sum_ = o.sum_;
  sumsq_lo_ = o.sumsq_lo_;
  sumsq_hi_ = o.sumsq_hi_;
  o.reset();
  return *this;
}

void LatencyHistogram::reset() {
  delete[] counts_;
  counts_ = nullptr;
  count_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
  sum_ = 0;
  sumsq_lo_ = 0;
  sumsq_hi_ = 0;
}

void LatencyHistogram::record_n(uint64_t v, uint64_t n) {
  if (n == 0) return;
  if (counts_ == nullptr) allocate();
  counts_[bucket_index(v)] += n;
  count_ += n;
  sum_ += static_cast<u128>(v) * n;
  // v^2 * n can need 192 bits.
  const U192 sq = mul(static_cast<u128>(v) * v, n);
  const u128 lo = (static_cast<u128>(sq.w[1]) << 64) | sq.w[0];
  sumsq_lo_ += lo;
  sumsq_hi_ += sq.w[2] + (sumsq_lo_ < lo);
  if (v < min_) min_ = v;
  if (v > max_) max_ = v;
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
  if (o.count_ == 0) return;
  // Read o's scalars before writing ours: o may be *this.
  const u128 o_lo = o.sumsq_lo_;
  const uint64_t o_hi = o.sumsq_hi_;
  if (counts_ == nullptr) allocate();  // o has its own: it is not empty
  for (size_t i = 0; i < kBuckets; ++i) counts_[i] += o.counts_[i];
  count_ += o.count_;
  sum_ += o.sum_;
  sumsq_lo_ += o_lo;
  sumsq_hi_ += o_hi + (sumsq_lo_ < o_lo);
  if (o.min_ < min_) min_ = o.min_;
  if (o.max_ > max_) max_ = o.max_;
}

LatencyHistogram::Totals LatencyHistogram::totals() const {
  Totals t;
  t.count = count_;
  t.min = min_;
  t.max = max_;
  t.sum[0] = static_cast<uint64_t>(sum_);
  t.sum[1] = static_cast<uint64_t>(sum_ >> 64);
  t.sumsq[0] = static_cast<uint64_t>(sumsq_lo_);
  t.sumsq[1] = static_cast<uint64_t>(sumsq_lo_ >> 64);
  t.sumsq[2] = sumsq_hi_;
  return t;
}

bool LatencyHistogram::restore(const Totals& t, const std::pair<size_t, uint64_t>* buckets,
                               size_t n) {
  reset();
  if (n > 0) allocate();
  uint64_t hits = 0;
  for (size_t k = 0; k < n; ++k) {
    const auto [i, h] = buckets[k];
    if (i >= kBuckets || counts_[i] != 0 || h == 0 || hits + h < hits) {
      reset();
      return false;
    }
    counts_[i] = h;
    hits += h;
  }
  if (hits != t.count || (t.count && t.min > t.max)) {
    reset();
    return false;
  }
  count_ = t.count;
  if (t.count) {
    min_ = t.min;
    max_ = t.max;
  }
  sum_ = (static_cast<u128>(t.sum[1]) << 64) | t.sum[0];
  sumsq_lo_ = (static_cast<u128>(t.sumsq[1]) << 64) | t.sumsq[0];
  sumsq_hi_ = t.sumsq[2];
  return true;
}

double LatencyHistogram::mean() const {
  if (count_ == 0) return 0;
  // Split into quotient and remainder so that no precision is lost before
  // the final division.
  const uint64_t q = static_cast<uint64_t>(sum_ / count_);
  const uint64_t r = static_cast<uint64_t>(sum_ % count_);
  return static_cast<double>(static_cast<long double>(q) +
                             static_cast<long double>(r) / count_);
}

double LatencyHistogram::stddev() const {
  if (count_ < 2) return 0;
  // M2 = sum((v - mean)^2) = sumsq - sum^2 / n.  With sum = q*n + r:
  //   sum^2 / n = q^2*n + 2*q*r + r^2/n,
  // so the integer part is computed exactly in 192 bits (no cancellation
  // error however small the spread is next to the mean) and only r^2/n < n
  // is fractional.  q <= max() fits 64 bits; r < n.
  const uint64_t n = count_;
  const uint64_t q = static_cast<uint64_t>(sum_ / n);
  const uint64_t r = static_cast<uint64_t>(sum_ % n);
  U192 m2 = from_parts(sumsq_lo_, sumsq_hi_);
  m2 = sub(m2, mul(static_cast<u128>(q) * q, n));
  m2 = sub(m2, mul(static_cast<u128>(q) * r, 2));
  long double m2_ld = to_ld(m2) - static_cast<long double>(static_cast<u128>(r) * r) / n;
  if (m2_ld < 0) m2_ld = 0;  // rounding of the fractional part only
  return static_cast<double>(std::sqrt(m2_ld / (n - 1)));
}

uint64_t LatencyHistogram::percentile(double p) const {
  if (count_ == 0 || std::isnan(p)) return 0;
  if (p <= 0) return min_;
  if (p >= 100) return max_;
  // fio's rule (stat.c calc_clat_percentiles), in long double as fio does.
  const long double target = static_cast<long double>(p) / 100.0L * count_;
  // Buckets outside [min, max] are empty; skip them.
  const size_t first = bucket_index(min_);
  const size_t last = bucket_index(max_);
  uint64_t cum = 0;
  for (size_t i = first; i <= last; ++i) {
    cum += counts_[i];
    if (static_cast<long double>(cum) >= target) {
      const uint64_t v = bucket_value(i);
      return v < min_ ? min_ : v > max_ ? max_ : v;
    }
  }
  return max_;
}

}  // namespace blk
