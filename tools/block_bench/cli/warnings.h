// The warnings block-bench gives before a run, about options it runs
// differently from what they ask (the results are the same or the engine is
// substituted), one line per job and problem:
//
//   job 'j': ioengine=libaio with direct=0 runs on the thread pool (aio=threads): why
//   job 'j': read_iolog_chunked: the trace is read whole (...); the replay is the same
//   job 'j': log_compression: the logs are kept uncompressed in memory; ...
//
// --warnings-fatal turns any of them into a refusal to run (run_command.h).
//
// Thread-safety: pure.
#pragma once

#include <string>
#include <vector>

#include "tools/block_bench/jobfile/job.h"

namespace blk::bench::cli {

// The warnings about `jobs`, in job order, without "block-bench: ".
std::vector<std::string> JobWarnings(const std::vector<JobOptions>& jobs);

}  // namespace blk::bench::cli
