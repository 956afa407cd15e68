// DedupeSeeds: which contents each write of one clone carries under fio's
// dedupe_percentage, dedupe_mode, dedupe_working_set_percentage and
// dedupe_global.  A write's contents are made from one seed
// (run/buffer_fill.h); two writes with the same seed are identical.
//
// Unique writes take the clone's unique seeds in order (Unique(seed, k)
// for k = 0, 1, ...).  dedupe_percentage=D: each write is a dedupe write
// with probability D% (its own random stream), otherwise unique.  A dedupe
// write repeats
//   repeat       the last unique write (the first write is always unique);
//   working_set  entry i of the working set, i drawn uniformly from
//                [0, W), W = size x dedupe_working_set_percentage / 100 /
//                the smallest write (jobfile's DedupeWorkingSetBlocks).
//                As fio's pregenerated working set, entry i is the seed of
//                the clone's i-th unique write: every dedupe write repeats
//                one of the first W unique writes (written already, or
//                to come), so at most W contents occur more than once.
//   dedupe_global=1: the W entries are spread over every clone of the run
//                (fio's thread_number order), pps = max(W / clones, 1)
//                each: entry i is the (i mod pps)-th unique seed of clone
//                (self + i / pps) mod clones.  Clones sharing entries write
//                identical blocks.
//
// Thread-safety: one clone's; World is copied in.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/rng.h"

namespace blk::bench {

// The run's clones' seeds (CloneResult::seed) in thread_number order and
// this clone's place among them (dedupe_global); empty: this clone only.
struct DedupeWorld {
  std::vector<uint64_t> seeds;
  uint32_t self = 0;
};

class DedupeSeeds {
 public:
  using World = DedupeWorld;
  // `seed`: the clone's.  REQUIRES for working_set with a percentage: a
  // job ValidateJob passed (W >= 1).
  DedupeSeeds(const JobOptions& job, uint64_t seed, World world = {});

  // The seed of the next write's contents.
  uint64_t next();

  // The k-th unique seed of the clone whose seed is `clone_seed`.
  static uint64_t Unique(uint64_t clone_seed, uint64_t k);
  // The working set: W entries (0 in repeat mode), entry i's seed.
  uint64_t working_set_size() const { return ws_; }
  uint64_t working_set(uint64_t i) const;

 private:
  uint64_t seed_;
  uint32_t percentage_;
  bool working_set_;
  uint64_t ws_ = 0;
  World world_;
  uint64_t per_clone_ = 1;  // dedupe_global: entries per clone
  Rng decide_, pick_;
  uint64_t unique_ = 0;  // unique seeds used
  uint64_t last_ = 0;
};

}  // namespace blk::bench
