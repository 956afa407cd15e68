#include "tools/block_bench/run/block_size.h"

#include <algorithm>

namespace blk::bench {

std::array<uint64_t, 3> FioBsSeeds(const JobOptions& job, uint32_t thread_number,
                                   uint64_t random_seed) {
  const uint64_t* rs = job.randseed ? &*job.randseed : nullptr;
  std::array<uint64_t, 3> s{};
  for (int i = 0; i < 3; i++)
    s[size_t(i)] = FioSlotSeed(job.randrepeat, job.allrandrepeat, rs, thread_number, i,
                               random_seed + uint64_t(i));
  // fio's td_fill_rand_seeds_internal: trimwrite's writes follow its trims;
  // a verifying writer's writes the reads' split.
  const bool trim_write = job.rw == RwMode::kTrimWrite || job.rw == RwMode::kRandTrimWrite;
  const bool writes = job.rw == RwMode::kWrite || job.rw == RwMode::kRandWrite ||
                      job.rw == RwMode::kReadWrite || job.rw == RwMode::kRandReadWrite ||
                      trim_write;
  if (trim_write) s[2] = s[1];
  else if (writes && job.verify != VerifyMethod::kNone) s[1] = s[0];
  return s;
}

FioBlockSizes::FioBlockSizes(const JobOptions& job, const std::array<uint64_t, 3>& seeds)
    : unaligned_(job.bs_unaligned) {
  for (int d = 0; d < 3; d++) {
    PerDir& p = dir_[size_t(d)];
    p.min = FioMinBs(job, d);
    p.max = FioMaxBs(job, d);
    for (const BsSplitEntry& e : job.bssplit[d]) p.split.push_back({e.block_size, e.percent});
    std::stable_sort(p.split.begin(), p.split.end(),
                     [](const Split& a, const Split& b) { return a.percent < b.percent; });
    p.seed = seeds[size_t(d)];
    p.rand.seed_with(p.seed, job.tausworthe64);
  }
}

void FioBlockSizes::reseed() {
  for (PerDir& p : dir_) p.rand.seed_with(p.seed);
}

uint64_t FioBlockSizes::next(Dir d, uint64_t off, uint64_t end) {
  PerDir& p = dir_[size_t(Index(d))];
  if (p.min == p.max) return p.min;
  auto fits = [&](uint64_t len) { return off <= end && len <= end - off; };
  if (!fits(p.min)) return 0;
  const bool pow2 = (p.min & (p.min - 1)) == 0;
  uint64_t len = 0;
  do {
    const uint64_t r = p.rand.next();
    if (p.split.empty()) {
      len = p.min + uint64_t(double(p.max) * (double(r) / p.rand.max_plus_one()));
    } else {
      uint64_t perc = 0;
      bool any_fits = false;
      for (const Split& s : p.split) {
        if (!s.percent) continue;
        len = s.bs;
        perc += s.percent;
        any_fits = any_fits || fits(len);
        if (r / perc <= p.rand.max() / 100 && fits(len)) break;
      }
      // No entry with a share fits (fio would draw forever): the pass ends.
      if (!any_fits) return 0;
    }
    if (!unaligned_) len = pow2 ? len & ~(p.min - 1) : len - len % p.min;
    len = std::min(len, p.max);
  } while (!fits(len));
  return len;
}

}  // namespace blk::bench
