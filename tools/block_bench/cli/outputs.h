// Where a block-bench run's reports and progress line go, from --output,
// --output-format and --eta.
//
// The reports go to standard output or the --output file (created before
// the run, on the lead process only: under MPI rank 0 prints the report).
// With a JSON format alone on standard output (json, json+, terse,json),
// standard output carries only the document(s): the progress line goes to
// standard error.  With normal asked too (json,normal), as fio: standard
// output carries the header, the informational lines, then every report in
// fio's order (reports.h).  The progress line shows with --eta=always; with --eta=auto when
// it would go to a terminal and the reports are text on standard output;
// never on the ranks of an MPI run (one rank's progress would read as the
// run's).
//
// Thread-safety: main thread only (OpenReportStream creates a file).
#pragma once

#include <cstdio>
#include <vector>

#include "tools/block_bench/jobfile/cmdline.h"

namespace blk::bench::cli {

// Whether `formats` has json or json+ / normal (the text report).
bool WantsJson(const std::vector<OutputFormat>& formats);
bool WantsNormal(const std::vector<OutputFormat>& formats);

// The stream for the reports: standard output, or on the `lead` process the
// --output file, created (truncated) now.  Null when that file cannot be
// created; the message ("block-bench: --output=F: why") is printed.
FILE* OpenReportStream(const ToolFlags& flags, bool lead);

struct Outputs {
  FILE* out = stdout;             // the reports
  bool json_on_stdout = false;    // JSON without normal goes to standard output
  FILE* progress_stream = stdout; // standard error when json_on_stdout
  bool progress = false;          // whether the progress line shows
};

// `out`: OpenReportStream's stream (or stdout).  `multi`: one rank of an
// MPI run of several.  Asks isatty() of the progress stream.
Outputs ChooseOutputs(const ToolFlags& flags, FILE* out, bool multi);

// The rule for Outputs::progress (see the top of this file).  `terminal`:
// the progress stream is a terminal; `reports_on_stdout`: no --output file.
bool ShowProgress(EtaMode eta, bool terminal, bool reports_on_stdout, bool json_on_stdout,
                  bool multi);

}  // namespace blk::bench::cli
