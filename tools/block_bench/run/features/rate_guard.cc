#include "tools/block_bench/run/features/rate_guard.h"

#include <cerrno>

namespace blk::bench {
bool RateGuard::Wanted(const JobOptions& job) {
  for (int d = 0; d < kNumDirs; d++)
    if (job.rate_min[d] || job.rate_iops_min[d]) return true;
  return false;
}

std::string RateGuard::miss(int d, int64_t spent) const {
  const uint64_t min_bytes = job_.rate_min[d], min_ios = job_.rate_iops_min[d];
  const Mark& m = mark_[d];
  const double sec = double(spent) / 1e9;
  const double bytes = double(stats_.raw_bytes(d) - m.bytes) / sec;
  const double ios = double(stats_.raw_ios(d) - m.ios) / sec;
  if (min_bytes && bytes < double(min_bytes))
    return "rate_min=" + std::to_string(min_bytes) + " B/s not met for " + OpName(Dir(d)) +
           "s: " + std::to_string(uint64_t(bytes)) + " B/s";
  if (min_ios && ios < double(min_ios))
    return "rate_iops_min=" + std::to_string(min_ios) + " not met for " + OpName(Dir(d)) + "s: " +
           std::to_string(uint64_t(ios)) + " IOPS";
  return "";
}

void RateGuard::check(int64_t now) {
  if (now - time_.start_ns < 2'000'000'000 || now < time_.ramp_end_ns || time_.verify_phase ||
      errors_.stopped())
    return;
  for (int d = 0; d < kNumDirs; d++) {
    if (!job_.rate_min[d] && !job_.rate_iops_min[d]) continue;
    if (!dirs_.has_dir(Dir(d))) continue;
    Mark& m = mark_[d];
    if (!m.at) {
      m = Mark{now, stats_.raw_bytes(d), stats_.raw_ios(d)};
      continue;
    }
    const int64_t spent = now - m.at;
    if (spent < int64_t(job_.rate_cycle) * 1'000'000) continue;
    const std::string why = miss(d, spent);
    if (!why.empty()) {
      errors_.fail(EIO, why + " over the last " + std::to_string(spent / 1'000'000) + " ms on '" +
                            target_ + "'");
      if (on_fail_) on_fail_();
      return;
    }
    m = Mark{now, stats_.raw_bytes(d), stats_.raw_ios(d)};
  }
}

}  // namespace blk::bench
