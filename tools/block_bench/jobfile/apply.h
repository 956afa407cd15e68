// Turns raw options (from a job file section or a command-line group) into
// JobOptions fields, with fio's ordering rules and block-bench's error
// messages.
//
// Rules:
//  * kb_base is applied before the other options of the same section, as
//    fio's option priorities do, so "bs=4k" above "kb_base=1000" reads 4000.
//  * Everything else is applied in order; a later setting wins.
//  * rbd options given in a section require the section's resulting ioengine
//    to be rbd; when the engine is not rbd the rbd options (including any
//    inherited ones) are dropped, as fio drops engine options when the engine
//    changes.
//  * An unknown option, an unsupported fio option, a missing value or a bad
//    value is an Error naming the place and the option:
//      "job.fio:12: option 'iodepth': expected an integer >= 1, got 'abc'"
//      "job.fio:7: unknown option 'iodepht' (did you mean 'iodepth'?)"
//      "<command line>: option '--bs': expected a size ..., got 'x'"
//
// Thread-safety: no shared state beyond the read-only option table.
#pragma once

#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/jobfile/raw_option.h"
#include <blkstack/util/result.h>

namespace blk::bench {

// Applies `options` to `job` in place.  On error `job` may be partly updated.
Expected<void> ApplyOptions(JobOptions& job, const std::vector<RawOption>& options);

// Checks constraints between options of a complete job (not of [global]),
// e.g. iodepth_batch_complete_max >= iodepth_batch_complete_min, and that
// offset= (+ size=, when both are in bytes) ends within the largest possible
// target, 2^63-1 bytes:
//   "job.fio:3: job 'a': offset (9223372036854775807) + size (1048576) is
//    beyond the largest possible target (9223372036854775807 bytes)"
// `where` is the job's section header or --name.
Expected<void> ValidateJob(const JobOptions& job, const SourceLocation& where);

}  // namespace blk::bench
