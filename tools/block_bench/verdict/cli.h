// The verdict subcommands of block-bench:
//
//   block-bench compare [options] BASE NEW
//   block-bench compare [options] --base=PATH... --new=PATH...
//   block-bench ab [options] (--a=SPEC|--a-bin=PATH|--a-cmd=CMD)
//                            (--b=SPEC|--b-bin=PATH|--b-cmd=CMD) [--] job args...
//
// `compare` reads result JSON (block-bench's or fio's; a path may be a
// directory of *.json repetitions) and prints the comparison of verdict.h.
// `ab` runs the job on both sides interleaved, in a random order per round,
// adding rounds while the verdict is unknown, and prints the same.  Both
// exit as ExitCode says (0 same/better, 1 worse, 125 unknown); every error
// (usage, unreadable input, a run that failed, crashed or timed out) is 125,
// so `git bisect run` skips rather than mislabels a commit.  `ab` exits 130
// when interrupted (SIGINT/SIGTERM: git bisect run stops).
//
// Thread-safety: run from main(), one at a time.
#pragma once

#include <string>
#include <vector>

namespace blk::bench::verdict {

// args: what follows "compare" on the command line.
int CompareMain(const std::vector<std::string>& args);

// args: what follows "ab"; self: this program's path (/proc/self/exe), run
// for --a=SPEC / --b=SPEC sides.
int AbMain(const std::vector<std::string>& args, const std::string& self);

std::string CompareUsage();
std::string AbUsage();

}  // namespace blk::bench::verdict
