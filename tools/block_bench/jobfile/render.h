// Rendering jobs back into fio command-line form, for --showcmd and for
// logging what ran.
//
// RenderJobArgs emits "--name=NAME" followed by one argument per option whose
// value differs from fio's default (JobOptions{}), kb_base first so that the
// sizes after it read back the same.  The contract is the round trip:
// ParseCommandLine(RenderJobArgs(job)) yields exactly one job equal to `job`
// (for any job the parser can produce).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/block_bench/jobfile/job.h"

namespace blk::bench {

// Arguments for one job, unquoted: {"--name=x", "--rw=randread", "--bs=8k"}.
// REQUIRES: !job.name.empty() and job.name != "global".
std::vector<std::string> RenderJobArgs(const JobOptions& job);

// One shell command line running `jobs`, arguments quoted for a POSIX shell:
// "block-bench --name=a --rw=randread --name=b --rw=write".
std::string ShowCommand(const std::vector<JobOptions>& jobs,
                        std::string_view program = "block-bench");

// `arg` quoted for a POSIX shell when it contains characters other than
// letters, digits and _@%+=:,./-.
std::string ShellQuote(std::string_view arg);

}  // namespace blk::bench
