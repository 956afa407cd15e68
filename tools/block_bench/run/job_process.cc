#include "tools/block_bench/run/job_process.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>


namespace blk::bench {

Expected<void> ApplyNice(int increment) {
  if (increment == 0) return {};
  errno = 0;
  // nice() returns the new value, which may be -1: only errno tells.
  if (nice(increment) == -1 && errno != 0) {
    const int e = errno;
    return MakeError(-e, "nice=" + std::to_string(increment) + ": nice(2) on the job's thread: " +
                             ErrnoString(-e));
  }
  return {};
}

int RunExecCommand(const std::string& job_name, std::string_view command, std::string_view mode,
                   FILE* info) {
  const std::string file = job_name + "." + std::string(mode) + ".txt";
  if (info) {
    std::fprintf(info, "%s : Saving output of %.*s in %s\n", job_name.c_str(), int(mode.size()),
                 mode.data(), file.c_str());
    std::fflush(info);
  }
  const std::string line = std::string(command) + " > " + file + " 2>&1";
  return std::system(line.c_str());
}

}  // namespace blk::bench
