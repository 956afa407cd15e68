#include <blkstack/util/histogram.h>

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
  if (!o.counts_) {
    counts_.reset();
  } else {
    if (!counts_) allocate();
    std::memcpy(counts_.get(), o.counts_.get(), kBuckets * sizeof(uint64_t));
  }
  s_ = o.s_;
  return *this;
}

LatencyHistogram::LatencyHistogram(LatencyHistogram&& o) noexcept { *this = std::move(o); }

LatencyHistogram& LatencyHistogram::operator=(LatencyHistogram&& o) noexcept {
  if (this == &o) return *this;
  counts_ = std::move(o.counts_);
  s_ = o.s_;
  o.reset();
  return *this;
}

void LatencyHistogram::reset() {
  counts_.reset();
  s_ = Scalars{};
}

void LatencyHistogram::record_n(uint64_t v, uint64_t n) {
  if (n == 0) return;
  if (!counts_) allocate();
  counts_[bucket_index(v)] += n;
  s_.count += n;
  s_.sum += static_cast<u128>(v) * n;
  // v^2 * n can need 192 bits.
  const U192 sq = mul(static_cast<u128>(v) * v, n);
  const u128 lo = (static_cast<u128>(sq.w[1]) << 64) | sq.w[0];
  s_.sumsq_lo += lo;
  s_.sumsq_hi += sq.w[2] + (s_.sumsq_lo < lo);
  if (v < s_.min) s_.min = v;
  if (v > s_.max) s_.max = v;
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
  if (o.s_.count == 0) return;
  // Read o's scalars before writing ours: o may be *this.
  const u128 o_lo = o.s_.sumsq_lo;
  const uint64_t o_hi = o.s_.sumsq_hi;
  if (!counts_) allocate();  // o has its own: it is not empty
  for (size_t i = 0; i < kBuckets; ++i) counts_[i] += o.counts_[i];
  s_.count += o.s_.count;
  s_.sum += o.s_.sum;
  s_.sumsq_lo += o_lo;
  s_.sumsq_hi += o_hi + (s_.sumsq_lo < o_lo);
  if (o.s_.min < s_.min) s_.min = o.s_.min;
  if (o.s_.max > s_.max) s_.max = o.s_.max;
}

LatencyHistogram::Totals LatencyHistogram::totals() const {
  Totals t;
  t.count = s_.count;
  t.min = s_.min;
  t.max = s_.max;
  t.sum[0] = static_cast<uint64_t>(s_.sum);
  t.sum[1] = static_cast<uint64_t>(s_.sum >> 64);
  t.sumsq[0] = static_cast<uint64_t>(s_.sumsq_lo);
  t.sumsq[1] = static_cast<uint64_t>(s_.sumsq_lo >> 64);
  t.sumsq[2] = s_.sumsq_hi;
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
  s_.count = t.count;
  if (t.count) {
    s_.min = t.min;
    s_.max = t.max;
  }
  s_.sum = (static_cast<u128>(t.sum[1]) << 64) | t.sum[0];
  s_.sumsq_lo = (static_cast<u128>(t.sumsq[1]) << 64) | t.sumsq[0];
  s_.sumsq_hi = t.sumsq[2];
  return true;
}

double LatencyHistogram::mean() const {
  if (s_.count == 0) return 0;
  // Split into quotient and remainder so that no precision is lost before
  // the final division.
  const uint64_t q = static_cast<uint64_t>(s_.sum / s_.count);
  const uint64_t r = static_cast<uint64_t>(s_.sum % s_.count);
  return static_cast<double>(static_cast<long double>(q) +
                             static_cast<long double>(r) / s_.count);
}

double LatencyHistogram::stddev() const {
  if (s_.count < 2) return 0;
  // M2 = sum((v - mean)^2) = sumsq - sum^2 / n.  With sum = q*n + r:
  //   sum^2 / n = q^2*n + 2*q*r + r^2/n,
  // so the integer part is computed exactly in 192 bits (no cancellation
  // error however small the spread is next to the mean) and only r^2/n < n
  // is fractional.  q <= max() fits 64 bits; r < n.
  const uint64_t n = s_.count;
  const uint64_t q = static_cast<uint64_t>(s_.sum / n);
  const uint64_t r = static_cast<uint64_t>(s_.sum % n);
  U192 m2 = from_parts(s_.sumsq_lo, s_.sumsq_hi);
  m2 = sub(m2, mul(static_cast<u128>(q) * q, n));
  m2 = sub(m2, mul(static_cast<u128>(q) * r, 2));
  long double m2_ld = to_ld(m2) - static_cast<long double>(static_cast<u128>(r) * r) / n;
  if (m2_ld < 0) m2_ld = 0;  // rounding of the fractional part only
  return static_cast<double>(std::sqrt(m2_ld / (n - 1)));
}

uint64_t LatencyHistogram::percentile(double p) const {
  if (s_.count == 0 || std::isnan(p)) return 0;
  if (p <= 0) return s_.min;
  if (p >= 100) return s_.max;
  // fio's rule (stat.c calc_clat_percentiles), in long double as fio does.
  const long double target = static_cast<long double>(p) / 100.0L * s_.count;
  // Buckets outside [min, max] are empty; skip them.
  const size_t first = bucket_index(s_.min);
  const size_t last = bucket_index(s_.max);
  uint64_t cum = 0;
  for (size_t i = first; i <= last; ++i) {
    cum += counts_[i];
    if (static_cast<long double>(cum) >= target) {
      const uint64_t v = bucket_value(i);
      return v < s_.min ? s_.min : v > s_.max ? s_.max : v;
    }
  }
  return s_.max;
}

}  // namespace blk
