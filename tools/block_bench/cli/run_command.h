// block-bench's main command: run the jobs of the command line and job
// files, as fio does.
//
//   block-bench [--output=FILE] [--output-format=normal|json|json+|terse]
//               [--eta=...] [--opt=value ...] [--name=job ...] [jobfile ...]
//
// In order: MPI set-up under a launcher (ranks.h); parsing (jobfile/
// cmdline.h); the flags answered without running (--help, --version,
// --cmdhelp, --showcmd, --parse-only); the output file (outputs.h); the
// ranks' agreement; the headers (headers.h, with the notes of warnings.h);
// the run (run/runner.h) with the
// progress line (progress.h), --status-interval reports and SIGINT/SIGTERM
// (signals.h); then the errors, logs and reports (reports.h), merged over
// the ranks under MPI (rank_finish.h).  With a JSON format alone on
// standard output, standard output carries only the JSON document: every
// message goes to standard error (with normal asked too, as fio, all
// reports are on standard output: outputs.h).
//
// Exit status:
//   0        every job finished cleanly (also --help, --version, --showcmd,
//            --parse-only, and --cmdhelp of known options);
//   1        a parse error, an unknown --cmdhelp option, an output file or log that cannot be written, a
//            run that cannot start (resource limits), an unopenable target,
//            or any I/O or verify error, also one that continue_on_error
//            went past (as fio);
//   128+N    interrupted by signal N (130: SIGINT, 143: SIGTERM); the report
//            of what ran is printed first.  A second SIGINT/SIGTERM exits at
//            once with 128+N and no report.
// Under MPI every rank exits with the worst status of them all.
//
// Thread-safety: once per process, from main().
#pragma once

#include <string>
#include <vector>

namespace blk::bench::cli {

// `argc`, `argv`: main's (MPI may consume its own arguments); `args`: the
// arguments after the program name.
int RunJobsMain(int* argc, char*** argv, const std::vector<std::string>& args);

}  // namespace blk::bench::cli
