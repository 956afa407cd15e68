// fio's normal (text) report of a run: per report unit (units.h) the
// IOPS, bandwidth and latency lines of each direction, the latency
// buckets, CPU, IO depths and block-bench's own lines (schedule, file
// set-up, target spec, driver counters); then the run status groups and
// the clones an interrupt kept from starting ("Not started"), and
// the disk statistics.  slat, clat and lat as fio splits them (see
// run/result.h); a driver with no hand-over step has no slat line.
//
// Thread-safety: a function of its inputs, except that the date on each
// unit's first line is the current local time; localtime()'s static buffer
// makes two threads reporting at once race.
#pragma once

#include <string>

#include "tools/block_bench/run/runner.h"

namespace blk::bench {

// `counters`: also the driver counters of each job (--blkstack-counters);
// JSON always has them.
std::string TextReport(const RunResult& run, bool counters = false);

}  // namespace blk::bench
