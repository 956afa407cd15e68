// fio's latency, bandwidth, IOPS and histogram log files of a run
// (write_lat_log, write_bw_log, write_iops_log, write_hist_log) and
// --bandwidth-log's aggregate logs.
//
// Thread-safety: the functions share no state; each writes its files in
// the current directory (WriteLogs) or `dir`, so two calls on the same
// names race as any two writers of one file do.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "tools/block_bench/run/runner.h"
#include <blkstack/util/result.h>

namespace blk::bench {

// Runs `fn` on the calling thread pinned to `cpus` (empty: as it is), then
// gives the thread back the affinity it had.  The pin failing (a CPU
// outside the process's cpuset) is an Error naming log_compression_cpus;
// `fn` does not run then.
Expected<void> WithCpuAffinity(const std::vector<uint32_t>& cpus,
                               const std::function<Expected<void>()>& fn);

// Writes the log files the jobs asked for.  A job's log_store_compressed
// logs are compressed WithCpuAffinity(job.log_compression_cpus).  Files: <prefix>_lat.N.log,
// <prefix>_clat.N.log, <prefix>_slat.N.log, <prefix>_bw.N.log, <prefix>_iops.N.log, N = the
// clone's thread number, prefix = the option's value or the job name.
// `tag` (MPI ranks: ".rank2") goes after the prefix.
Expected<void> WriteLogs(const RunResult& run, const std::string& tag = "");

// fio's --inflate-log: the samples of a log written with
// log_store_compressed=1 (one zlib stream after another) printed to `out`
// as the lines of the plain log.  A file that is missing, not zlib, or
// ends inside a sample is an Error naming it (the whole samples before are
// printed).
Expected<void> InflateLog(const std::string& path, FILE* out);

// fio's --bandwidth-log: dir/agg-read_bw.log (and write, trim for the
// directions that ran): per sample interval, the bandwidth of all clones
// together, in fio's log layout (msec, KiB/s, direction, 0, 0).
Expected<void> WriteAggregateBwLogs(const RunResult& run, const std::string& dir);

}  // namespace blk::bench
