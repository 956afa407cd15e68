// What a finished block-bench run says went wrong, and its exit status:
//
//   0      every job finished cleanly;
//   1      a run that could not start, a clone that ended with an error, or
//          any failed request (also one continue_on_error went past, as
//          fio), or a sync error between MPI ranks;
//   128+N  interrupted by signal N (130 SIGINT, 143 SIGTERM; a stop request
//          without a signal counts as SIGINT).
//
// (The run command also exits 1 when a log or the output cannot be
// written: run_command.h.)
//
// Thread-safety: pure functions, except PrintInterrupted (stderr).
#pragma once

#include <string>
#include <vector>

#include "tools/block_bench/run/runner.h"

namespace blk::bench::cli {

// What went wrong in `run`'s clones, one line per problem (without
// "block-bench: "): the error that ended a clone; how many requests failed
// and the first of them, when more did than that error; the written blocks
// never verified.  `who`: "" or "rank R (host): " before each line.
std::vector<std::string> CloneErrors(const RunResult& run, const std::string& who);

// "block-bench: interrupted by SIGINT|SIGTERM: ..." on stderr.  `by`:
// RunResult::interrupted_by, not 0.
void PrintInterrupted(int by);

// 128+N for RunResult::interrupted_by = N (-1: SIGINT).  REQUIRES: by != 0.
int InterruptedStatus(int by);

// The exit status of `run` as the table above says.
int ExitStatus(const RunResult& run);

}  // namespace blk::bench::cli
