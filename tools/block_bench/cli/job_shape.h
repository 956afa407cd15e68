// What the ranks of an MPI run must agree on before they run: the jobs'
// count and the options that set the order of the collectives (stonewall
// segments, clones, ramps) and the report's units (group_reporting).  A
// ${RANK}, ${HOSTNAME} or a host's environment may change a rank's targets
// and sizes, not these.
//
// Thread-safety: pure.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/block_bench/jobfile/job.h"

namespace blk::bench::cli {

// A hash (FNV-1a) of the number of jobs and each job's numjobs, stonewall,
// new_group, group_reporting and ramp_time: equal when the shapes are.
uint64_t JobShape(const std::vector<JobOptions>& jobs);

}  // namespace blk::bench::cli
