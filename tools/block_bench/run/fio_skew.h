// FioSkew: fio 3.33's skewed random_distribution generators, so that a job
// with random_distribution=zipf, pareto or normal draws fio's blocks, I/O by
// I/O (lib/zipf.c, lib/gauss.c, init.c's __init_rand_distribution).
//
// Each file of a job has one, over nranges = ceil(min(file, size) /
// range) ranges, range = the smaller of the read and write minimum block
// sizes; next() gives a range number, which the job turns into an offset
// with its block alignment (a number whose offset lies past size= ends the
// pass, as in fio).  Its 32-bit tausworthe is seeded, with randrepeat, by
// fio's jhash of the file's name times the job's thread number (no
// randseed=), else by the seed of fio's FIO_RAND_BLOCK_OFF slot
// (FioSkewSeed); it is not re-seeded
// between passes, as fio initialises it once per file.
//  * zipf:theta[:center]: fio's zipf_next (zetan over at most 10^7 ranges);
//  * pareto:h[:center]: fio's pareto_next;
//  * normal:dev[:center]: fio's gauss_next (the mean of 12 draws, plus a
//    deviation of dev % of the ranges, halved until it fits);
// each value hashed with fio's __hash_u64 (the golden ratio product) and
// moved by an offset: zipf and pareto a random one (the generator's first
// draw) or nranges x center; normal 0 or nranges x (center - 0.5).
//
// Thread-safety: a plain value, one per file of a clone.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/fio_rand.h"

namespace blk::bench {

// fio 3.33's jhash(key, len, 0) (its hash.h: Bob Jenkins' lookup3 with
// JHASH_INITVAL 0x61C88647, adding only the first byte of each whole
// 12-byte block, as fio's does).
uint32_t FioJhash(std::string_view key);

// The seed of a file's skewed distribution, as fio 3.33's: jhash(file_name)
// x thread_number with randrepeat and no randseed=, else `block_seed` (the
// FIO_RAND_BLOCK_OFF slot's: with randrepeat fio's FIO_RANDSEED x
// thread_number, found against fio's own sequences).
uint32_t FioSkewSeed(bool randrepeat, bool randseed_given, std::string_view file_name,
                     uint32_t thread_number, uint32_t block_seed);

class FioSkew {
 public:
  // REQUIRES: kind is kZipf, kPareto or kNormal; nranges >= 1.
  // `parameter`: zipf's theta, pareto's h, normal's deviation in percent.
  FioSkew(Distribution kind, uint64_t nranges, double parameter, std::optional<double> center,
          uint32_t seed);
  // The next range, in [0, nranges).
  uint64_t next();
  uint64_t nranges() const { return nranges_; }

 private:
  uint64_t zipf();
  uint64_t pareto();
  uint64_t gauss();

  Distribution kind_;
  uint64_t nranges_;
  FioRand rand_;
  uint64_t rand_off_ = 0;
  // zipf
  double theta_ = 0, zetan_ = 0, zeta2_ = 0;
  // pareto
  double pareto_pow_ = 0;
  // normal
  uint64_t stddev_ = 0;
};

}  // namespace blk::bench
