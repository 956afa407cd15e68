// The lines block-bench prints before a run with the text report, as fio:
//
//   j: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=null, iodepth=1
//   ...                        (when the job has numjobs > 1)
//   j: note: submissions batched adaptively, ... (fio: ...)
//                              (where the job runs with a default other
//                              than fio's: run/target.h FioDifference)
//   block-bench-0.1
//   Starting 2 threads         ("on each of N ranks" under MPI)
//
// One header per job, except that consecutive jobs of the same name share
// the first's.  The ioengine says what really runs (run/target.h's
// SubstitutedEngine: "threads (libaio asked, direct=0)").
//
// Thread-safety: pure.
#pragma once

#include <string>
#include <vector>

#include "tools/block_bench/jobfile/job.h"

namespace blk::bench::cli {

// One job's header line, ending with '\n'.  `groupid`: fio's (GroupIds).
std::string JobHeader(const JobOptions& job, int groupid);

// Every header, then the version and "Starting" lines.  `ranks`: the MPI
// ranks (1: a process on its own).
std::string RunHeaders(const std::vector<JobOptions>& jobs, int ranks);

}  // namespace blk::bench::cli
