// Small, fast, seedable random generators for block-bench's I/O pattern.
//
// Rng is splitmix64: one multiply-xorshift chain per draw, good statistical
// quality for offsets and sizes, and the whole state is one uint64, so a seed
// fully determines the sequence (randrepeat / randseed).
//
// Permutation is a bijection on [0, n) built from invertible operations on
// k-bit words (xor, odd multiply, xorshift, add, all mod 2^k) with cycle
// walking to stay below n.  Visiting i = 0, 1, ..., n-1 yields every block
// exactly once in a scrambled order: block-bench's replacement for fio's
// random map (norandommap=0) at O(1) memory.
//
// Thread-safety: plain values, one per worker.
#pragma once

#include <cmath>
#include <cstdint>

namespace blk::bench {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); n > 0.  Multiply-shift (no modulo bias worth noting
  // for n far below 2^64).
  uint64_t below(uint64_t n) {
    __extension__ typedef unsigned __int128 U128;
    return uint64_t((U128(next()) * n) >> 64);
  }
  // Uniform in [0, 1).
  double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
  uint64_t state() const { return s_; }

 private:
  uint64_t s_;
};

// A 64-bit mixing function (splitmix64's finaliser); used to scatter the
// ranks of skewed distributions over the range, as fio's __hash_u64.
inline uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class Permutation {
 public:
  Permutation() = default;
  // A bijection on [0, n) chosen by `key`.  n >= 1.
  Permutation(uint64_t n, uint64_t key) : n_(n) {
    bits_ = 0;
    while (bits_ < 64 && (uint64_t{1} << bits_) < n) bits_++;
    mask_ = bits_ == 64 ? ~uint64_t{0} : (uint64_t{1} << bits_) - 1;
    shift_ = bits_ / 2 + 1;
    Rng r(key);
    k0_ = r.next() & mask_;
    m1_ = (r.next() | 1) & mask_;
    m2_ = (r.next() | 1) & mask_;
    k3_ = r.next() & mask_;
    if (m1_ == 0) m1_ = 1;
    if (m2_ == 0) m2_ = 1;
  }
  uint64_t size() const { return n_; }
  // The image of i.  REQUIRES: i < size().
  uint64_t operator()(uint64_t i) const {
    if (n_ <= 1) return 0;
    uint64_t y = round(i);
    while (y >= n_) y = round(y);
    return y;
  }

 private:
  uint64_t round(uint64_t x) const {
    x ^= k0_;
    x = (x * m1_) & mask_;
    x ^= x >> shift_;
    x = (x * m2_) & mask_;
    x ^= x >> shift_;
    x = (x + k3_) & mask_;
    return x;
  }
  uint64_t n_ = 1, mask_ = 0, k0_ = 0, m1_ = 1, m2_ = 1, k3_ = 0;
  int bits_ = 0, shift_ = 1;
};

}  // namespace blk::bench
