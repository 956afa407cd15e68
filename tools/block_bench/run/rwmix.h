// RwMix: the direction of each I/O of a read/write mix (rw=rw, randrw), by
// fio 3.33's rule (io_u.c get_rw_ddir, set_rwmix_bytes, get_rand_ddir), so
// that block-bench issues the same sequence of reads and writes as fio.
//
// The rule: the mix stays in its current direction until that direction
// has issued `rwmix_issues` I/Os in total; then it draws 1..100 from its
// own FioRand (read when the draw is <= rwmixread).  On a switch from
// direction A to B, rwmix_issues becomes issues(A) * rwmix(B) / 100, so a
// direction that lags its share keeps the mix until it has caught up.  At
// the start the mix is on reads with rwmix_issues 0 (a draw is due).
//
// The caller asks next() for the mix's choice, may override it (rate
// pacing: fio's rate_ddir), and reports what it issued with issued(): fio
// counts the direction actually issued and stays on it.
//
// fio resets rwmix_issues when a loop starts over (clear_io_state), and
// then re-seeds its generators when randrepeat (new_loop()); after
// ramp_time it forgets the issue counts too (reset_all_stats: ramp_end()).
//
// Thread-safety: one per clone, on its worker thread.
#pragma once

#include <cstdint>

#include "tools/block_bench/run/fio_rand.h"
#include "tools/block_bench/run/source.h"

namespace blk::bench {

class RwMix {
 public:
  // `rwmixread`: percent of reads (0..100).  `seed`: the FioRand seed
  // (fio's rand_seeds[FIO_RAND_MIX_OFF]; fio 3.33 draws the mix from its
  // 32-bit generator also with tausworthe64).  `reseed_on_loop`: randrepeat.
  RwMix(uint32_t rwmixread, uint64_t seed, bool reseed_on_loop)
      : read_pct_(rwmixread), seed_(seed), reseed_(reseed_on_loop), rand_(seed) {}

  Dir next() {
    if (issues_[Index(cur_)] >= rwmix_issues_) {
      const Dir d = rand_.between(1, 100) <= read_pct_ ? Dir::kRead : Dir::kWrite;
      if (d != cur_) rwmix_issues_ = issues_[Index(cur_)] * Pct(Other(cur_)) / 100;
      cur_ = d;
    }
    return cur_;
  }
  // An I/O of direction `d` (read or write) went out.
  void issued(Dir d) {
    cur_ = d;
    issues_[Index(d)]++;
  }
  void new_loop() {
    rwmix_issues_ = 0;
    if (reseed_) rand_.seed_with(seed_);
  }
  void ramp_end() {
    issues_[0] = issues_[1] = 0;
    rwmix_issues_ = 0;
  }

 private:
  static int Index(Dir d) { return d == Dir::kRead ? 0 : 1; }
  static Dir Other(Dir d) { return d == Dir::kRead ? Dir::kWrite : Dir::kRead; }
  uint64_t Pct(Dir d) const { return d == Dir::kRead ? read_pct_ : 100 - read_pct_; }

  uint32_t read_pct_;
  uint64_t seed_;
  bool reseed_;
  FioRand rand_;
  Dir cur_ = Dir::kRead;
  uint64_t rwmix_issues_ = 0;
  uint64_t issues_[2] = {0, 0};
};

// The mix seed of a clone, as fio's: rand_seeds[FIO_RAND_MIX_OFF]
// (FioSlotSeed).
inline uint64_t RwMixSeed(bool randrepeat, bool allrandrepeat, const uint64_t* randseed,
                          uint32_t thread_number, uint64_t random_seed) {
  return FioSlotSeed(randrepeat, allrandrepeat, randseed, thread_number, kFioRandMixOff,
                     random_seed);
}

}  // namespace blk::bench
