// block-bench: a fio-compatible benchmark for blkstack driver graphs.
//
//   block-bench [--output=FILE] [--output-format=normal|json|json+] [--eta=...]
//               [--opt=value ...] [--name=job ...] [jobfile ...]
//                                                   (cli/run_command.h)
//   block-bench compare [options] BASE NEW          (verdict/cli.h)
//   block-bench ab [options] A B [--] job args...   (verdict/cli.h)
//   block-bench plot [--output=F.svg] FILE...       (plot/plot.h)
//   block-bench --trace-info FILE [--trace-format=NAME] [--trace-device=DEV]
//               [--output-format=normal|json]       (trace/info.h)
//
// "compare", "ab" and "plot" are subcommands only as the first argument (a
// job file of that name is given as ./compare).  Every other command line
// runs jobs.  Each command's header says its output and exit status; in
// short, for running jobs: 0 every job finished cleanly, 1 an error, 128+N
// interrupted by signal N (a second SIGINT/SIGTERM exits at once).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tools/block_bench/cli/run_command.h"
#include "tools/block_bench/plot/plot.h"
#include "tools/block_bench/trace/info.h"
#include "tools/block_bench/verdict/cli.h"

namespace blk::bench {
namespace {

// `ab` runs this program for its --a=SPEC / --b=SPEC sides.
int AbCommand(const std::vector<std::string>& args) {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    std::fprintf(stderr, "block-bench ab: /proc/self/exe: %s\n", std::strerror(errno));
    return 125;
  }
  self[n] = '\0';
  return verdict::AbMain(args, self);
}

// The subcommands named by the first argument; each gets the arguments
// after its name.
struct Subcommand {
  const char* name;
  int (*main)(const std::vector<std::string>& args);
};

constexpr Subcommand kSubcommands[] = {
    {"compare", verdict::CompareMain},
    {"ab", AbCommand},
    {"plot", plot::PlotMain},
};

int Main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  for (const Subcommand& sub : kSubcommands) {
    if (!args.empty() && args[0] == sub.name)
      return sub.main(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  if (trace::IsTraceInfoCommand(args)) return trace::TraceInfoMain(args);
  return cli::RunJobsMain(&argc, &argv, args);
}

}  // namespace
}  // namespace blk::bench

int main(int argc, char** argv) { return blk::bench::Main(argc, argv); }
