#include "tools/block_bench/run/features/max_latency.h"

#include <cerrno>

namespace blk::bench {
bool MaxLatency::Wanted(const JobOptions& job) {
  for (int d = 0; d < kNumDirs; d++)
    if (job.max_latency[d].count() > 0) return true;
  return false;
}

void MaxLatency::on_complete(const DoneIo& io) {
  const int d = int(io.u.dir);
  const int64_t max_us = job_.max_latency[d].count();
  if (!io.measured || max_us <= 0 || io.lat <= uint64_t(max_us) * 1000 || !io.st.ok()) return;
  errors_.count(ETIMEDOUT, "max_latency exceeded");
  errors_.fail(ETIMEDOUT, std::string(OpName(io.u.dir)) + " on '" + names_[io.u.file] + "' at offset " +
                              std::to_string(io.u.offset) + " took " + std::to_string(io.lat) +
                              " ns, more than max_latency=" + std::to_string(max_us * 1000) + " ns");
}

}  // namespace blk::bench
