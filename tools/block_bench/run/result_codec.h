// A run's results as bytes, so that another process (MPI rank 0) can merge
// and report them exactly (tools/block_bench/mpi).
//
// EncodeRun writes every field the reports read (CBOR through nlohmann):
// counters, histograms (their non-empty buckets and exact totals, so a
// decoded histogram is identical to the original and merging is integer
// addition), samples, schedule and layout figures, errors, disk
// statistics.  Not encoded: the per-I/O log entries (lat/bw/iops/hist logs;
// each process writes its own log files) and the job options, which every
// process parsed from the same job file: DecodeRun points each clone at
// jobs[job_index] of the decoding process.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/runner.h"
#include <blkstack/util/result.h>

namespace blk::bench {

std::string EncodeRun(const RunResult& run);

// Fails (EINVAL, saying what) on bytes EncodeRun did not write, on a clone
// whose job index is not in `jobs`, and on an inconsistent histogram.
Expected<RunResult> DecodeRun(const std::string& bytes, const std::vector<JobOptions>& jobs);

}  // namespace blk::bench
