// The lines block-bench prints before a run with the text report, as fio:
//
//   j: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=null, iodepth=1
//   ...                        (when the job has numjobs > 1)
//   j: note: submissions batched adaptively, ... (fio: ...)
//                              (where the job runs with a default other
//                              than fio's: run/target.h FioDifference)
//   j: note: ioengine=libaio with direct=0 runs on the thread pool ...
//                              (options run differently: warnings.h)
//   block-bench-0.1
//   Starting 2 threads         ("on each of N ranks" under MPI)
//
// One header per job, except that consecutive jobs of the same name share
// the first's.  The block sizes are fio's: each direction's smallest and
// largest (bs=, bsrange= or every bssplit= entry) in fio's num2str with
// significant_figures digits, KiB/MiB (kb_base=1000: kB/MB) once a size has
// more digits than that: "4096B-4096B", "128KiB-128KiB", "4096B-64.0KiB",
// "1024B-9.77KiB".  The ioengine says what really runs (run/target.h's
// SubstitutedEngine: "threads (libaio asked, direct=0)").
//
// Thread-safety: pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/block_bench/jobfile/job.h"

namespace blk::bench::cli {

// Direction `d`'s smallest / largest block size as fio's header shows it:
// bs=/bsrange=, or over every bssplit= entry of the direction (those of
// 0 % too, as fio's min_bs/max_bs).  REQUIRES: 0 <= d < 3.
uint64_t MinBlockSize(const JobOptions& job, int d);
uint64_t MaxBlockSize(const JobOptions& job, int d);

// One job's header line, ending with '\n'.  `groupid`: fio's (GroupIds).
std::string JobHeader(const JobOptions& job, int groupid);

// Every header, then the version and "Starting" lines.  `ranks`: the MPI
// ranks (1: a process on its own).
std::string RunHeaders(const std::vector<JobOptions>& jobs, int ranks);

}  // namespace blk::bench::cli
