// The notes block-bench prints in the run's header, about options it runs
// differently from what they ask (the results are the same or the engine is
// substituted), one line per job and difference:
//
//   ioengine=libaio with direct=0 runs on the thread pool (aio=threads): why
//   read_iolog_chunked: the trace is read whole (...); the replay is the same
//   log_compression: the logs are kept uncompressed in memory; ...
//
// They are informational, as fio's own header lines: printed with the
// normal-format header (standard output or the --output file, as
// "NAME: note: LINE"), never on standard error, and not warnings:
// --warnings-fatal (fio's "parser warnings are fatal") does not refuse them.
//
// Thread-safety: pure.
#pragma once

#include <string>
#include <vector>

#include "tools/block_bench/jobfile/job.h"

namespace blk::bench::cli {

// The notes about `job`, in the order above, without the job's name.
std::vector<std::string> JobNotes(const JobOptions& job);

}  // namespace blk::bench::cli
