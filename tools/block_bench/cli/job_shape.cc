#include "tools/block_bench/cli/job_shape.h"

namespace blk::bench::cli {

uint64_t JobShape(const std::vector<JobOptions>& jobs) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the fields
  auto add = [&h](uint64_t v) {
    for (int i = 0; i < 8; i++) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  add(jobs.size());
  for (const JobOptions& j : jobs) {
    add(j.numjobs);
    add(j.stonewall);
    add(j.new_group);
    add(j.group_reporting);
    add(uint64_t(j.ramp_time.count()));
  }
  return h;
}

}  // namespace blk::bench::cli
