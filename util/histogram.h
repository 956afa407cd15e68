// LatencyHistogram: a mergeable log-linear histogram of uint64 values
// (normally latencies in nanoseconds) for benchmark reports.
//
// Layout (the same as fio's clat histogram, extended to the full 64-bit
// range): values 0..127 each get an exact bucket; above that every power of
// two [2^e, 2^(e+1)) is split into 64 equal sub-buckets of width 2^(e-6).
// A bucket is reported by its midpoint (fio's plat_idx_to_val), so any
// percentile is within 1/128 (< 0.79 %) of the exact nearest-rank value.
// There is no cap: every uint64 value lands in its own bucket.
// kBuckets = 3776 counters of 8 bytes, about 30 KB per histogram, allocated
// when the first value is recorded (or merged or restored): an empty
// histogram is about 100 bytes, so an object holding many (a job clone's
// results: 17) costs memory only for the ones it uses.  A copy copies the
// counters; a move takes them; reset() frees them.  Allocation failure
// aborts, as any other allocation of the process.
//
// count, min, max, the sum (128-bit) and the sum of squares (192-bit) are
// kept exactly, so mean() and stddev() are exact up to the final rounding to
// double, for any inputs.
//
// record() is inline and branch-light: it is called once per I/O.
//
// Thread-safety: none.  Use one histogram per thread and merge() them once
// the threads are done.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace blk {

class LatencyHistogram {
  // __extension__ keeps -Wpedantic quiet about the GCC/Clang 128-bit type.
  __extension__ typedef unsigned __int128 U128;

 public:
  // Bits of sub-bucket resolution per power of two (64 sub-buckets).
  static constexpr int kSubBits = 6;
  static constexpr uint64_t kSubBuckets = uint64_t{1} << kSubBits;
  // Values below kExactLimit each get their own bucket.
  static constexpr uint64_t kExactLimit = kSubBuckets * 2;  // 128
  // Index of UINT64_MAX plus one.
  static constexpr size_t kBuckets =
      ((63 - kSubBits) << kSubBits) + kExactLimit;  // 3776

  LatencyHistogram() = default;
  LatencyHistogram(const LatencyHistogram& o);
  LatencyHistogram& operator=(const LatencyHistogram& o);
  LatencyHistogram(LatencyHistogram&& o) noexcept;
  LatencyHistogram& operator=(LatencyHistogram&& o) noexcept;

  // Records one value.  Never fails (but for the allocation of the counters
  // at the first value).
  void record(uint64_t v) {
    if (!counts_) [[unlikely]] allocate();
    ++counts_[bucket_index(v)];
    ++s_.count;
    s_.sum += v;
    add_square(static_cast<U128>(v) * v);
    if (v < s_.min) s_.min = v;
    if (v > s_.max) s_.max = v;
  }

  // Records value `v` n times (n == 0 is a no-op).  Never fails.
  void record_n(uint64_t v, uint64_t n);

  // Adds every value recorded in `o` to this histogram.  Afterwards this
  // histogram is identical to one that recorded both streams of values.
  // `o` may be *this (doubles every count).
  void merge(const LatencyHistogram& o);

  // Forgets every value.
  void reset();

  // Number of values recorded.
  uint64_t count() const { return s_.count; }
  // Smallest / largest value recorded; 0 when count() == 0.
  uint64_t min() const { return s_.count ? s_.min : 0; }
  uint64_t max() const { return s_.max; }
  // Arithmetic mean; 0 when count() == 0.
  double mean() const;
  // Sample standard deviation sqrt(sum((v - mean)^2) / (count - 1)), as fio
  // reports it; 0 when count() < 2.
  double stddev() const;

  // The p-th percentile, p in [0, 100], fio's definition: the midpoint of
  // the first bucket whose cumulative count is >= p / 100 * count(), clamped
  // to [min(), max()].  p <= 0 returns min(), p >= 100 returns max() (both
  // exact).  Returns 0 when count() == 0 or p is NaN.
  uint64_t percentile(double p) const;

  // --- Bucket access, for exporting (e.g. fio json+ "bins"). ---

  // Always kBuckets.
  static constexpr size_t bucket_count() { return kBuckets; }
  // The bucket that value v falls in; always < kBuckets.
  static constexpr size_t bucket_index(uint64_t v) {
    // v | 64 makes e >= 6, so values below 128 map to themselves.
    const int e = 63 - __builtin_clzll(v | kSubBuckets);
    const int shift = e - kSubBits;
    return (static_cast<size_t>(shift) << kSubBits) + (v >> shift);
  }
  // Smallest value of bucket i.  REQUIRES: i < kBuckets.
  static constexpr uint64_t bucket_lower(size_t i) {
    if (i < kExactLimit) return i;
    const int shift = static_cast<int>(i >> kSubBits) - 1;
    return (kSubBuckets + (i & (kSubBuckets - 1))) << shift;
  }
  // Largest value of bucket i (inclusive).  REQUIRES: i < kBuckets.
  static constexpr uint64_t bucket_upper(size_t i) {
    return bucket_lower(i) + bucket_width(i) - 1;
  }
  // Number of distinct values in bucket i.  REQUIRES: i < kBuckets.
  static constexpr uint64_t bucket_width(size_t i) {
    return i < kExactLimit ? 1 : uint64_t{1} << ((i >> kSubBits) - 1);
  }
  // The value that represents bucket i in percentiles and exports:
  // lower + width / 2, as fio's plat_idx_to_val.  REQUIRES: i < kBuckets.
  static constexpr uint64_t bucket_value(size_t i) {
    return bucket_lower(i) + bucket_width(i) / 2;
  }
  // How many recorded values fell in bucket i.  REQUIRES: i < kBuckets.
  uint64_t bucket_hits(size_t i) const { return counts_ ? counts_[i] : 0; }
  // The counters are allocated (a value was recorded since the last reset).
  bool has_buckets() const { return counts_ != nullptr; }

  // --- Exact state, for moving a histogram between processes (e.g. MPI
  // ranks) and merging it there with nothing lost. ---

  // Everything but the buckets, as 64-bit words (the 128-bit sum and the
  // 192-bit sum of squares little-endian by word).
  struct Totals {
    uint64_t count = 0, min = 0, max = 0;
    uint64_t sum[2] = {};
    uint64_t sumsq[3] = {};
  };
  Totals totals() const;
  // Rebuilds this histogram from totals() and its non-empty buckets
  // (index, hits).  Returns false, leaving the histogram empty, when they
  // are inconsistent: an index out of range, a repeated index, or hits that
  // do not add up to count.
  bool restore(const Totals& t, const std::pair<size_t, uint64_t>* buckets, size_t n);

  // Calls f(size_t index, uint64_t hits) for every non-empty bucket, in
  // increasing value order.
  template <class F>
  void for_each_bucket(F&& f) const {
    if (!counts_) return;
    for (size_t i = 0; i < kBuckets; ++i) {
      if (counts_[i] != 0) f(i, counts_[i]);
    }
  }

 private:
  // Allocates the counters, zeroed.  REQUIRES: no counters yet.
  void allocate() { counts_ = std::make_unique<uint64_t[]>(kBuckets); }
  void add_square(U128 sq) {
    // The sum of squares needs 192 bits to be exact for any input: carry
    // into the top word.
    s_.sumsq_lo += sq;
    s_.sumsq_hi += (s_.sumsq_lo < sq);
  }

  // Everything but the buckets: copied and reset as one.
  struct Scalars {
    uint64_t count = 0;
    uint64_t min = UINT64_MAX;
    uint64_t max = 0;
    U128 sum = 0;
    U128 sumsq_lo = 0;  // the 192-bit sum of squares: low 128 bits
    uint64_t sumsq_hi = 0;
  };

  std::unique_ptr<uint64_t[]> counts_;  // kBuckets, or none while empty
  Scalars s_;
};

}  // namespace blk
