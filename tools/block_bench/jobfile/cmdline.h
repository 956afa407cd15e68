// block-bench's command line, which follows fio's:
//
//   block-bench [tool flags] [--opt=value ...] [--name=job --opt=value ...] [jobfile ...]
//
//  * Job options are written --opt=value (or --opt value when the option
//    needs a value, or -opt=value as fio's getopt_long_only allows) and mean
//    what opt=value means in a job file.
//  * Job options before the first --name are global: they are the defaults
//    of the command-line jobs and of the jobs in every job file.
//    --name=global starts another global group; any other --name=X starts a
//    job named X, which takes the options up to the next --name.
//  * Arguments not starting with '-' (and all after "--") are job files,
//    parsed after the command-line jobs, in order.  As in fio, every job file
//    after the first starts with a stonewall: its first job gets
//    stonewall=1.
//  * Values get fio's keyword substitution ($ncpus, $pagesize, $mb_memory)
//    but not ${VAR} expansion, which is the shell's job on a command line.
//    Job names are taken as written.
//  * Tool flags, which are not job options: --output=FILE,
//    --output-format=normal|json|json+ (comma-separated list),
//    --parse-only, --showcmd, --version, --help (-h), --eta=always|never|auto.
//
// Errors begin "<command line>: " (or the job file's "file:line: "), e.g.
// "<command line>: option '--bs': expected a size ..., got 'x'".
//
// Thread-safety: no shared state; `env` is only read.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/block_bench/jobfile/debug_mask.h"
#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/jobfile/parse_env.h"
#include <blkstack/util/result.h>

namespace blk::bench {

enum class OutputFormat { kNormal, kJson, kJsonPlus, kTerse };
enum class EtaMode { kAuto, kAlways, kNever };

std::string_view Name(OutputFormat v);  // "normal", "json", "json+", "terse"
std::string_view Name(EtaMode v);       // "auto", "always", "never"

struct ToolFlags {
  std::string output;  // empty: standard output
  std::vector<OutputFormat> output_formats = {OutputFormat::kNormal};  // no duplicates
  // --terse-version: the layout of terse lines (fio's 3, 4 or 5; 2 is
  // refused).  --minimal is --output-format=terse; --append-terse adds terse.
  int terse_version = 3;
  // --cmdhelp[=NAME[,NAME...]|all]: what block-bench does with each fio
  // option ("all": every option it supports), then exit.
  std::optional<std::string> cmdhelp;
  bool parse_only = false;
  // --inflate-log=FILE: print a log_store_compressed=1 log as plain lines,
  // then exit (fio's).
  std::optional<std::string> inflate_log;
  // --merge-blktrace-only: merge_blktrace_file's merges, then exit (fio's).
  bool merge_blktrace_only = false;
  bool showcmd = false;
  bool version = false;
  bool help = false;
  EtaMode eta = EtaMode::kAuto;
  // fio's flags that harnesses pass to every run:
  uint32_t max_jobs = 0;              // --max-jobs: more clones is an error; 0: no cap
  bool readonly = false;              // --readonly: no job may write or trim
  std::vector<std::string> sections;  // --section (repeatable): only these jobs
  bool warnings_fatal = false;        // --warnings-fatal: FioWarnings are fatal
  int64_t eta_newline_ms = 0;         // --eta-newline: a new progress line this often
  int64_t status_interval_ms = 0;     // --status-interval: a full report this often
  bool bandwidth_log = false;         // --bandwidth-log: agg-{read,write,trim}_bw.log
  bool blkstack_counters = false;     // --blkstack-counters: driver counters in text
  // --blkstack-max-memory=SIZE: what the I/O buffers and verify state of
  // the clones running at once may take (run/resources.h); 0: the default,
  // a share of MemAvailable.
  uint64_t max_memory = 0;
  // Accepted with no effect on block-bench's results (documented): fio's
  // shared-memory pool size and the directory for its auxiliary files
  // (block-bench keeps no pool and writes no auxiliary files).
  // --debug=CAT,... / -d: fio's debug categories (debug_mask.h); the
  // unknown names are kept for the "debug mask X not found" messages.
  // --debug=?: list the categories and exit.
  DebugMask debug;
  bool debug_list = false;
  uint64_t alloc_size_kb = 0;         // --alloc-size
  std::string aux_path;               // --aux-path (must be a directory)
  friend bool operator==(const ToolFlags&, const ToolFlags&) = default;
};

struct CommandLine {
  ToolFlags flags;
  std::vector<std::string> job_files;  // as given
  // Command-line jobs first, then each job file's jobs in order.  Empty
  // only with --parse-only (fio's dry run needs no job).
  std::vector<JobOptions> jobs;
  // The defaults with the command line's options before its first --name
  // (fio's global options), for --parse-only --debug=parse without a job.
  JobOptions globals;
};

// Parses `args` (argv without the program name).  Job files are read through
// env.read_file.  Unless --help or --version is given, at least one job is
// required; with either of them job files are not read.
// --cmdhelp's text: for `which` = "all", every supported option with its
// help; else, for each comma-separated name, "NAME: supported: help",
// "NAME: refused: reason" or "NAME: unknown to block-bench" (then
// *all_known is false).
std::string CmdHelp(std::string_view which, bool* all_known);

Expected<CommandLine> ParseCommandLine(const std::vector<std::string>& args,
                                       const ParseEnvironment& env);

// Text for --help: usage, tool flags and the supported job options.
std::string UsageText(std::string_view program = "block-bench");

}  // namespace blk::bench
