#include "tools/block_bench/cli/run_status.h"

#include <signal.h>

#include <cstdio>

namespace blk::bench::cli {
namespace {

// The problems of one clone, in the order CloneErrors gives them.
std::vector<std::string> CloneProblems(const CloneResult& c) {
  std::vector<std::string> what;
  if (c.error) what.push_back(c.error_message);
  if (c.total_errors > (c.error ? 1u : 0u)) {
    what.push_back(std::to_string(c.total_errors) + " failed request" +
                   (c.total_errors == 1 ? "" : "s") +
                   (c.error ? " in all" : " (continue_on_error went past them)") +
                   "; the first: " + c.first_error_message);
  }
  if (c.verify_not_verified) {
    what.push_back(std::to_string(c.verify_not_verified) + " written block" +
                   (c.verify_not_verified == 1 ? " was" : "s were") + " never verified (" +
                   (c.interrupted
                        ? "interrupted"
                        : "failed writes, writes that overlapped in flight, or an earlier error") +
                   ")");
  }
  return what;
}

}  // namespace

std::vector<std::string> CloneErrors(const RunResult& run, const std::string& who) {
  std::vector<std::string> lines;
  for (const CloneResult& c : run.clones) {
    for (const std::string& what : CloneProblems(c))
      lines.push_back(who + "job '" + c.job->name + "' (clone " + std::to_string(c.clone) +
                      "): " + what);
  }
  return lines;
}

void PrintInterrupted(int by) {
  const int sig = by > 0 ? by : SIGINT;
  std::fprintf(stderr, "block-bench: interrupted by %s: the jobs stopped early; the report "
               "covers what ran\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
}

int InterruptedStatus(int by) { return 128 + (by > 0 ? by : SIGINT); }

int ExitStatus(const RunResult& run) {
  if (run.interrupted_by) return InterruptedStatus(run.interrupted_by);
  return run.failed() ? 1 : 0;
}

}  // namespace blk::bench::cli
