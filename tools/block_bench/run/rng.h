// Small, fast, seedable random generators for block-bench's I/O pattern.
//
// Rng is splitmix64: one multiply-xorshift chain per draw, good statistical
// quality for offsets and sizes, and the whole state is one uint64, so a seed
// fully determines the sequence (randrepeat / randseed).
//
// Thread-safety: plain values, one per worker.
#pragma once

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

}  // namespace blk::bench
