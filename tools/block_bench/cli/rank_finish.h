// The end of an MPI run of several ranks (ranks.h): every rank writes its
// own log files (".rankR" after each prefix) and sends its results
// (run/result_codec.h) to rank 0, which prints every rank's errors, each
// line once and naming the rank, then the one merged report (report/
// report.h's ClientsTextReport, ClientsJsonReport) and, with
// --bandwidth-log, the bandwidth logs of all ranks' clones together.
//
// mpirun ends the whole job as soon as one rank exits non-zero, so the last
// collective (the exit status) comes after rank 0 printed.
//
// Thread-safety: the main thread (the session's).
#pragma once

#include <cstdio>
#include <vector>

#include "tools/block_bench/jobfile/cmdline.h"
#include "tools/block_bench/mpi/mpi_session.h"
#include "tools/block_bench/run/runner.h"

namespace blk::bench::cli {

// Returns the exit status (run_status.h, or 1 when logs, results or the
// output could not be handled), the same on every rank: the worst of them.
// `out`, `json_on_stdout`: where rank 0 writes the report (outputs.h).
// Collective.
int FinishAcrossRanks(mpi::MpiSession& session, const std::vector<JobOptions>& jobs,
                      const RunResult& rr, const ToolFlags& flags, FILE* out, bool json_on_stdout);

// Rank 0's part of FinishAcrossRanks: `all` holds every rank's encoded
// results.  Decodes them, prints the errors and the report.  Returns 0, or 1
// when a rank's results cannot be decoded (nothing else is printed then) or
// a log or the output cannot be written.
int ReportAcrossRanks(mpi::MpiSession& session, const std::vector<JobOptions>& jobs,
                      const std::vector<std::string>& all, const ToolFlags& flags, FILE* out,
                      bool json_on_stdout);

}  // namespace blk::bench::cli
