// fio's own random numbers, for the choices where block-bench must make the
// same ones as fio 3.33 to do the same I/O: random offsets and the
// read/write mix.
//
// FioRand is fio's Tausworthe generator (lib/rand.h): its 32-bit taus88
// (three components) or, for random_generator=tausworthe64, its 64-bit
// taus258 (five), seeded through an LCG with fio's constants and cranked
// six times.  FioSeeds derives a job's per-purpose seeds as fio's
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

class FioRand {
 public:
  explicit FioRand(uint64_t seed = 0, bool use64 = false) { seed_with(seed, use64); }

  // fio's init_rand_seed: `use64` is random_generator=tausworthe64 (fio's
  // 64-bit taus258, five components, from all 64 bits of the seed), else
  // its 32-bit taus88 (from the seed's low 32 bits).
  void seed_with(uint64_t seed, bool use64) {
    use64_ = use64;
    // fio writes the LCG's start as (2^31) + (2^17) + (2^7): C's xor, 53.
    if (!use64) {
      const uint32_t s = uint32_t(seed);
      s_[0] = Floor(uint32_t(53u * 69069u ^ s), 1);
      s_[1] = Floor(uint32_t(uint32_t(s_[0]) * 69069u ^ s), 7);
      s_[2] = Floor(uint32_t(uint32_t(s_[1]) * 69069u ^ s), 15);
    } else {
      constexpr uint64_t kFloors[5] = {1, 7, 15, 33, 49};
      uint64_t x = 53;
      for (int i = 0; i < 5; i++) x = s_[i] = Floor(x * 6906969069ull ^ seed, kFloors[i]);
    }
    for (int i = 0; i < 6; i++) next();
  }
  void seed_with(uint64_t seed) { seed_with(seed, use64_); }

  // fio's __rand: a 32-bit draw, or a 64-bit one with use64.
  uint64_t next() {
    if (!use64_) {
      s_[0] = Step32(uint32_t(s_[0]), 13, 19, 4294967294u, 12);
      s_[1] = Step32(uint32_t(s_[1]), 2, 25, 4294967288u, 4);
      s_[2] = Step32(uint32_t(s_[2]), 3, 11, 4294967280u, 17);
      return s_[0] ^ s_[1] ^ s_[2];
    }
    s_[0] = Step64(s_[0], 1, 53, 18446744073709551614ull, 10);
    s_[1] = Step64(s_[1], 24, 50, 18446744073709551104ull, 5);
    s_[2] = Step64(s_[2], 3, 23, 18446744073709547520ull, 29);
    s_[3] = Step64(s_[3], 5, 24, 18446744073709420544ull, 23);
    s_[4] = Step64(s_[4], 3, 33, 18446744073701163008ull, 8);
    return s_[0] ^ s_[1] ^ s_[2] ^ s_[3] ^ s_[4];
  }

  bool use64() const { return use64_; }
  // fio's rand_max(state), and rand_max + 1.0 as it scales a draw by it.
  uint64_t max() const { return use64_ ? UINT64_MAX : 0xffffffffull; }
  double max_plus_one() const { return use64_ ? 18446744073709551616.0 : 4294967296.0; }

  // fio's rand_between(state, lo, hi): uniform in [lo, hi], scaled through
  // a double as fio's rand32_upto / rand64_upto.
  uint64_t between(uint64_t lo, uint64_t hi) {
    const uint64_t r = next();
    if (!use64_) return lo + uint32_t(double(uint32_t(hi - lo) + 1u) * (double(r) / 4294967296.0));
    return lo + uint64_t(double(hi - lo + 1) * (double(r) / max_plus_one()));
  }

 private:
  static uint64_t Floor(uint64_t x, uint64_t m) { return x < m ? x + m : x; }
  static uint32_t Step32(uint32_t s, int a, int b, uint32_t c, int d) {
    return ((s & c) << d) ^ (((s << a) ^ s) >> b);
  }
  static uint64_t Step64(uint64_t s, int a, int b, uint64_t c, int d) {
    return ((s & c) << d) ^ (((s << a) ^ s) >> b);
  }
  bool use64_ = false;
  uint64_t s_[5] = {};
};

// fio 3.33's seed slots (enum FIO_RAND_*_OFF, fio.h) that block-bench uses.
inline constexpr int kFioRandMixOff = 4;
inline constexpr int kFioRandFileOff = 5;
inline constexpr int kFioRandFileSizeOff = 7;
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
inline uint64_t FioSlotSeed(bool randrepeat, bool allrandrepeat, const uint64_t* randseed,
                            uint32_t thread_number, int slot, uint64_t random_seed) {
  if (allrandrepeat) return FioAllRepeatSeeds(thread_number)[size_t(slot)];
  if (randrepeat || randseed)
    return FioSeeds(randseed ? *randseed : kFioDefaultRandSeed, thread_number)[size_t(slot)];
  return random_seed;
}

}  // namespace blk::bench
