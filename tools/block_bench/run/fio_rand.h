// fio's own random numbers, for the choices where block-bench must make the
// same ones as fio 3.33 to do the same I/O: random offsets and the
// read/write mix.
//
// FioTaus88 is fio's 32-bit Tausworthe generator (lib/rand.h: three taus88
// components, seeded through an LCG with fio's constants and cranked six
// times).  FioSeeds derives a job's per-purpose seeds as fio's
// setup_random_seeds does: randseed multiplied by 0x9e370001 four times,
// then seed[i] = s * thread_number + i with s multiplied again after each.
// thread_number is fio's: 1-based over every job and clone in job order.
//
// Checked against fio 3.33 I/O by I/O (tests/tools/block_bench/run/
// fio_sequence_e2e_test.sh: both tools' iologs on the null engine); the
// rules themselves in fio_rand_test.cc.
//
// Thread-safety: plain values, one per clone.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace blk::bench {

class FioTaus88 {
 public:
  explicit FioTaus88(uint32_t seed = 0) { seed_with(seed); }

  void seed_with(uint32_t seed) {
    // fio writes the LCG's start as (2^31) + (2^17) + (2^7): C's xor, 53.
    s1_ = Floor(Lcg(53, seed), 1);
    s2_ = Floor(Lcg(s1_, seed), 7);
    s3_ = Floor(Lcg(s2_, seed), 15);
    for (int i = 0; i < 6; i++) next();
  }

  uint32_t next() {
    s1_ = Step(s1_, 13, 19, 4294967294u, 12);
    s2_ = Step(s2_, 2, 25, 4294967288u, 4);
    s3_ = Step(s3_, 3, 11, 4294967280u, 17);
    return s1_ ^ s2_ ^ s3_;
  }

  // fio's rand_between(state, lo, hi) for a 32-bit state: uniform in
  // [lo, hi], scaled through a double as fio's rand32_upto.
  uint32_t between(uint32_t lo, uint32_t hi) {
    const uint32_t r = next();
    return lo + uint32_t(double(hi - lo + 1) * (double(r) / 4294967296.0));
  }

 private:
  static uint32_t Lcg(uint32_t x, uint32_t seed) { return (x * 69069u) ^ seed; }
  static uint32_t Floor(uint32_t x, uint32_t m) { return x < m ? x + m : x; }
  static uint32_t Step(uint32_t s, int a, int b, uint32_t c, int d) {
    return ((s & c) << d) ^ (((s << a) ^ s) >> b);
  }
  uint32_t s1_ = 0, s2_ = 0, s3_ = 0;
};

// fio 3.33's seed slots (enum FIO_RAND_*_OFF, fio.h) that block-bench uses.
inline constexpr int kFioRandMixOff = 4;
inline constexpr int kFioRandFileOff = 5;
inline constexpr int kFioRandSeqRandReadOff = 10;
inline constexpr int kFioRandZoneOff = 16;
inline constexpr int kFioRandNrOffs = 21;
// fio's randseed default, and FIO_RANDSEED (allrandrepeat's base).
inline constexpr uint64_t kFioDefaultRandSeed = 0x89;
inline constexpr uint64_t kFioRandSeedConst = 0xb1899bedull;

inline std::array<uint64_t, kFioRandNrOffs> FioSeeds(uint64_t rand_seed, uint32_t thread_number) {
  std::array<uint64_t, kFioRandNrOffs> out{};
  uint64_t s = rand_seed;
  for (int i = 0; i < 4; i++) s *= 0x9e370001ull;
  for (int i = 0; i < kFioRandNrOffs; i++) {
    out[size_t(i)] = s * thread_number + uint64_t(i);
    s *= 0x9e370001ull;
  }
  return out;
}

// allrandrepeat=1: fio sets every slot to FIO_RANDSEED * thread_number + i.
inline std::array<uint64_t, kFioRandNrOffs> FioAllRepeatSeeds(uint32_t thread_number) {
  std::array<uint64_t, kFioRandNrOffs> out{};
  for (int i = 0; i < kFioRandNrOffs; i++)
    out[size_t(i)] = kFioRandSeedConst * thread_number + uint64_t(i);
  return out;
}

// Slot `slot` of a clone's fio seeds: from randseed (default 0x89) when
// randrepeat or randseed is given, from FIO_RANDSEED with allrandrepeat;
// else `random_seed` (the clone's own, where fio's come from the system
// RNG).
inline uint32_t FioSlotSeed(bool randrepeat, bool allrandrepeat, const uint64_t* randseed,
                            uint32_t thread_number, int slot, uint64_t random_seed) {
  if (allrandrepeat) return uint32_t(FioAllRepeatSeeds(thread_number)[size_t(slot)]);
  if (randrepeat || randseed)
    return uint32_t(FioSeeds(randseed ? *randseed : kFioDefaultRandSeed, thread_number)[size_t(slot)]);
  return uint32_t(random_seed);
}

}  // namespace blk::bench
