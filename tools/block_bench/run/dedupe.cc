#include "tools/block_bench/run/dedupe.h"

#include <algorithm>

namespace blk::bench {

DedupeSeeds::DedupeSeeds(const JobOptions& job, uint64_t seed, World world)
    : seed_(seed),
      percentage_(job.dedupe_percentage),
      working_set_(job.dedupe_working_set && job.dedupe_percentage > 0),
      world_(std::move(world)),
      decide_(Mix64(seed ^ 0xdede0001)),
      pick_(Mix64(seed ^ 0xdede0002)) {
  if (!working_set_) return;
  ws_ = std::max<uint64_t>(DedupeWorkingSetBlocks(job), 1);
  if (!job.dedupe_global || world_.seeds.empty() || world_.self >= world_.seeds.size()) {
    world_.seeds = {seed_};
    world_.self = 0;
  }
  per_clone_ = std::max<uint64_t>(ws_ / world_.seeds.size(), 1);
}

uint64_t DedupeSeeds::Unique(uint64_t clone_seed, uint64_t k) {
  return Mix64(Mix64(clone_seed ^ 0xb0ffe7) + (k + 1) * 0x9e3779b97f4a7c15ull);
}

uint64_t DedupeSeeds::working_set(uint64_t i) const {
  const uint64_t n = world_.seeds.size();
  return Unique(world_.seeds[(world_.self + i / per_clone_) % n], i % per_clone_);
}

uint64_t DedupeSeeds::next() {
  if (percentage_ && decide_.below(100) < percentage_) {
    if (working_set_) return working_set(pick_.below(ws_));
    if (unique_) return last_;
  }
  last_ = Unique(seed_, unique_++);
  return last_;
}

}  // namespace blk::bench
