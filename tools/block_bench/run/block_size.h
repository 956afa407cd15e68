// FioBlockSizes: the length of each I/O of a job, as fio 3.33's
// get_next_buflen (io_u.c), so that a job with bsrange= or bssplit= issues
// the same lengths as fio, I/O by I/O.
//
// Per direction: min and max are fio's min_bs/max_bs (FioMinBs, FioMaxBs in
// jobfile/job.h).  A fixed size (min == max) is returned as is.  Otherwise each
// draw takes one number r from the direction's own FioRand and
// * bsrange: min + max * r / 2^32, rounded down to a multiple of min (unless
//   bs_unaligned) and capped at max;
// * bssplit: the entries in order of rising percentage (equal ones as
//   written: what fio 3.33's qsort leaves on Debian 12), the first whose
//   running percentage p has r / p <= (2^32-1) / 100 and that fits; the
//   last entry when none does;
// drawn again until the I/O fits before `end` (the region's end: fio's
// io_u_fits).  When even min does not fit the answer is 0 (fio fails the
// I/O and the pass ends).
//
// The three generators are seeded as fio's bsrange_state: rand_seeds
// FIO_RAND_BS_OFF, BS1 and BS2 for read, write and trim, with write taking
// read's seed when a writing job verifies and trim taking write's for
// trimwrite (FioBsSeeds).
//
// Thread-safety: a plain value, one per clone.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/fio_rand.h"
#include "tools/block_bench/run/source.h"

namespace blk::bench {

// The read, write and trim seeds of a clone's block size generators, as
// fio's for `thread_number`; `random_seed` (the clone's) where fio's would
// come from the system RNG.
std::array<uint64_t, 3> FioBsSeeds(const JobOptions& job, uint32_t thread_number,
                                   uint64_t random_seed);

class FioBlockSizes {
 public:
  FioBlockSizes() = default;
  FioBlockSizes(const JobOptions& job, const std::array<uint64_t, 3>& seeds);

  uint64_t min(Dir d) const { return dir_[Index(d)].min; }
  uint64_t max(Dir d) const { return dir_[Index(d)].max; }
  bool fixed(Dir d) const { return min(d) == max(d); }
  // The length of the next I/O of direction `d` at `off`, within `end`;
  // 0 when min(d) does not fit.
  uint64_t next(Dir d, uint64_t off, uint64_t end);
  // Back to the seeds (fio re-seeds when a loop starts and randrepeat).
  void reseed();

 private:
  struct Split {
    uint64_t bs;
    uint32_t percent;
  };
  struct PerDir {
    uint64_t min = 4096, max = 4096;
    std::vector<Split> split;  // by rising percentage, stable
    uint64_t seed = 0;
    FioRand rand;
  };
  static int Index(Dir d) { return d == Dir::kRead ? 0 : d == Dir::kWrite ? 1 : 2; }

  bool unaligned_ = false;
  std::array<PerDir, 3> dir_;
};

}  // namespace blk::bench
