#include "tools/block_bench/run/pacer.h"

#include <algorithm>
#include <cmath>

#include <blkstack/util/saturating.h>

namespace blk::bench {

RatePacer::RatePacer(const JobOptions& job, uint64_t seed)
    : poisson_(job.rate_process == RateProcess::kPoisson), rng_(seed ^ 0x8888) {
  for (int d = 0; d < kNumDirs; d++) {
    // fio's __setup_rate: rate= as is, else rate_iops= at the smallest
    // block size.
    min_bs_[d] = std::max<uint64_t>(1, FioMinBs(job, d));
    const uint64_t iops = job.rate_iops[d];
    bps_[d] = job.rate[d] ? job.rate[d]
              : iops > UINT64_MAX / min_bs_[d] ? UINT64_MAX
                                               : iops * min_bs_[d];
    active_ |= bps_[d] != 0;
  }
}

void RatePacer::start(int64_t now_ns) {
  start_ns_ = now_ns;
  for (int d = 0; d < kNumDirs; d++) {
    next_[d] = now_ns;
    bytes_[d] = 0;
  }
}

void RatePacer::shift(int64_t ns) {
  start_ns_ = SatAdd(start_ns_, ns);
  for (int64_t& n : next_) n = SatAdd(n, ns);
}

int64_t RatePacer::next_due(Dir dir) const {
  const int d = int(dir);
  if (!bps_[d]) return 0;
  if (poisson_) return next_[d];
  // Past int64 (rate=1 after 10 GB): never, not a wrapped time.
  return SatAdd(start_ns_, SatFromDouble(double(bytes_[d]) * 1e9 / double(bps_[d])));
}

Dir RatePacer::choose(Dir drawn, int64_t now) const {
  const Dir other = drawn == Dir::kRead ? Dir::kWrite : Dir::kRead;
  const int64_t mine = next_due(drawn);
  if (mine <= now) return drawn;
  const int64_t theirs = next_due(other);
  if (theirs <= now) return other;
  return theirs < mine ? other : drawn;
}

int64_t RatePacer::due(const IoUnit& u) {
  const int d = int(u.dir);
  if (!bps_[d]) return 0;
  const int64_t when = next_due(u.dir);
  if (poisson_) {
    // fio's usec_for_io: gaps of mean 1 / (rate / min_bs).
    const double mean_ns = 1e9 * double(min_bs_[d]) / double(bps_[d]);
    next_[d] = SatAdd(next_[d], SatFromDouble(-std::log(1.0 - rng_.uniform()) * mean_ns));
  }
  bytes_[d] += u.len;
  return when;
}

}  // namespace blk::bench
