#include "tools/block_bench/run/pacer.h"

#include <algorithm>
#include <cmath>

#include <blkstack/util/saturating.h>

namespace blk::bench {

RatePacer::RatePacer(const JobOptions& job, uint64_t seed)
    : rate_(job.rate),
      rate_iops_(job.rate_iops),
      poisson_(job.rate_process == RateProcess::kPoisson),
      rng_(seed ^ 0x8888) {
  for (int d = 0; d < kNumDirs; d++) active_ |= rate_[d] || rate_iops_[d];
}

void RatePacer::start(int64_t now_ns) {
  start_ns_ = now_ns;
  for (int d = 0; d < kNumDirs; d++) {
    next_[d] = now_ns;
    bytes_[d] = ios_[d] = 0;
  }
}

void RatePacer::shift(int64_t ns) {
  start_ns_ = SatAdd(start_ns_, ns);
  for (int64_t& n : next_) n = SatAdd(n, ns);
}

int64_t RatePacer::next_due(Dir dir) const {
  const int d = int(dir);
  const uint64_t rb = rate_[d], ri = rate_iops_[d];
  if (!rb && !ri) return 0;
  if (poisson_) return next_[d];
  int64_t a = 0, b = 0;
  // Past int64 (rate=1 after 10 GB): never, not a wrapped time.
  if (rb) a = SatFromDouble(double(bytes_[d]) * 1e9 / double(rb));
  if (ri) b = SatFromDouble(double(ios_[d]) * 1e9 / double(ri));
  return SatAdd(start_ns_, std::max(a, b));
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
  const uint64_t rb = rate_[d], ri = rate_iops_[d];
  if (!rb && !ri) return 0;
  const int64_t when = next_due(u.dir);
  if (poisson_) {
    double mean_ns = 0;
    if (ri) mean_ns = 1e9 / double(ri);
    if (rb) mean_ns = std::max(mean_ns, 1e9 * double(u.len) / double(rb));
    next_[d] = SatAdd(next_[d], SatFromDouble(-std::log(1.0 - rng_.uniform()) * mean_ns));
  }
  bytes_[d] += u.len;
  ios_[d]++;
  return when;
}

}  // namespace blk::bench
