// XorShift64: Marsaglia's xorshift64 generator (shifts 13, 7, 17).  One state
// word and three shift-xors per draw: the load generators (the benchmark
// programs, the emulator) use it for offsets that must cost next to nothing
// and repeat from the same seed.  Not for statistics: block-bench's I/O
// pattern uses tools/block_bench/run/rng.h.
//
// The state must not be zero (zero maps to zero forever).  Thread-safety: a
// plain value, one per worker.
#pragma once

#include <cstdint>

namespace blk {

class XorShift64 {
 public:
  explicit XorShift64(uint64_t state) : x_(state) {}
  uint64_t next() {
    x_ ^= x_ << 13;
    x_ ^= x_ >> 7;
    x_ ^= x_ << 17;
    return x_;
  }
  // A non-zero state from any worker number: the benchmarks' seeding.
  static XorShift64 ForWorker(uint64_t seed) { return XorShift64(seed * 0x9E3779B97F4A7C15ull + 1); }

 private:
  uint64_t x_;
};

}  // namespace blk
