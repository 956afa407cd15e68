// How block-bench's run command answers SIGINT and SIGTERM.
//
// The first signal asks the run to stop (StopSource::request, run/stop.h):
// the clones end early and the report of what ran is printed.  A second
// one, of either kind, exits at once with 128+N (N: that second signal)
// and no report.  Each prints one line on standard error.
//
// Thread-safety: call StopOnSignals from the main thread before the run
// starts; the handler itself only makes async-signal-safe calls.
#pragma once

#include "tools/block_bench/run/stop.h"

namespace blk::bench::cli {

// Routes SIGINT and SIGTERM to `stop` for the rest of the process.
// REQUIRES: `stop` lives until the process exits (a signal may arrive after
// main returns): a static.
void StopOnSignals(StopSource* stop);

}  // namespace blk::bench::cli
