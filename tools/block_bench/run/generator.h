// IoGenerator: the sequence of I/Os one job clone issues, with fio's meaning
// of rw=, bs/bsrange/bssplit, offset/size/io_size/number_ios, blockalign,
// random_distribution, norandommap, rwmixread and the ":N" suffixes.
//
// The region is [region_start, region_start + region_size) of the target;
// * sequential modes walk it from the start, per direction, and wrap at its
//   end; rw=write:4k skips 4k after every I/O; a negative skip goes
//   backwards as fio's (rw=read:-8k, bs=4k, size=32k: 0, 24k, 20k, ..., 4k,
//   then again; with an offset the first I/O is at the wrap point, end-8k);
// * random modes pick block numbers in [0, blocks) with blocks = region_size
//   / align (align = blockalign, else the direction's minimum block size)
//   and issue at region_start + block * align (pulled back to fit when the
//   block size exceeds the alignment at the end of the region);
//   randread:N issues N-1 sequential I/Os after each random one;
// * without norandommap, uniform random I/O visits every block once per pass
//   (a full-period bijection, see Permutation); skewed distributions
//   (zipf/pareto/normal/zoned) draw independently, as if norandommap=1;
// * rw/randrw draw the direction per I/O: read with probability rwmixread%.
// Everything is drawn from generators seeded by Seed(), so the same job and
// seed give the same sequence (randrepeat=1 default, randseed=N).
//
// Thread-safety: one generator per clone, used on its worker thread.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/block_bench/job.h"
#include "tools/block_bench/run/rng.h"
#include "tools/block_bench/run/source.h"
#include "util/result.h"

namespace blk::bench {


// The seed of clone `clone` (0-based) of job number `job_index`: randseed if
// given, a fixed constant when randrepeat (the default), else random.
uint64_t JobSeed(const JobOptions& job, uint32_t job_index, uint32_t clone);

class IoGenerator final : public IoSource {
 public:
  // `dev_size`: the target's length in bytes.  Errors name the option.
  static Expected<IoGenerator> Create(const JobOptions& job, uint64_t dev_size, uint64_t seed);

  // Next I/O; false once io_size bytes (or number_ios I/Os) were handed out,
  // unless `unlimited` (time_based), in which case it never ends.
  bool next(IoUnit* io) override;
  // Starts the byte/I/O budget again (after ramp_time).
  void reset_budget() override { issued_bytes_ = 0; issued_ios_ = 0; }
  void set_unlimited(bool u) { unlimited_ = u; }

  uint64_t region_start() const { return start_; }
  uint64_t region_size() const { return size_; }
  uint64_t io_limit() const override { return io_limit_; }
  uint64_t max_bs() const override { return max_bs_; }
  bool has_dir(Dir d) const override;

 private:
  struct DirState {
    uint64_t align = 4096;
    uint64_t blocks = 1;
    uint64_t pos = 0;         // next sequential offset
    uint64_t seq_left = 0;    // randread:N: sequential I/Os still due
    Permutation perm;
    uint64_t perm_index = 0;  // position in the current pass
    uint64_t pass = 0;
    // zipf/pareto scatter offset, zipf constants
    uint64_t rand_off = 0;
    double zetan = 0, zeta2 = 0, eta = 0, alpha = 0;
  };
  uint64_t pick_len(Dir d);
  // Where a backwards sequential job (negative rw skip) wraps to.
  uint64_t backward_wrap() const {
    const uint64_t back = uint64_t(0) - uint64_t(job_.rw_offset_skip);
    return size_ >= back ? start_ + size_ - back : start_;
  }
  uint64_t pick_block(Dir d);
  uint64_t skewed_block(Dir d);

  JobOptions job_;
  uint64_t start_ = 0, size_ = 0, io_limit_ = 0, max_bs_ = 4096;
  bool random_ = false, unlimited_ = false;
  Dir only_ = Dir::kRead;
  bool mixed_ = false;
  uint64_t issued_bytes_ = 0, issued_ios_ = 0;
  Rng rand_off_, rand_dir_, rand_bs_, rand_seq_;
  DirState st_[kNumDirs];
};

}  // namespace blk::bench
