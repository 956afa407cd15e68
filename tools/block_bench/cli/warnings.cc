#include "tools/block_bench/cli/warnings.h"

#include "tools/block_bench/run/target.h"

namespace blk::bench::cli {

std::vector<std::string> JobNotes(const JobOptions& j) {
  std::vector<std::string> lines;
  if (const auto sub = SubstitutedEngine(j)) {
    lines.push_back("ioengine=" + std::string(Name(j.ioengine)) +
                    (j.direct ? "" : " with direct=0") +
                    " runs on the thread pool (aio=threads): " + sub->why);
  }
  if (j.read_iolog_chunked && !j.read_iolog.empty()) {
    lines.push_back(
        "read_iolog_chunked: the trace is read whole (24 bytes per record); the replay is the "
        "same");
  }
  if (j.numjobs > 1 && !j.write_iolog.empty()) {
    lines.push_back("write_iolog: clone N > 0 of numjobs records to " + j.write_iolog +
                    ".N (fio 3.33 appends every job to " + j.write_iolog + ")");
  }
  if (j.log_compression) {
    lines.push_back(
        "log_compression: the logs are kept uncompressed in memory; the log files are the same");
  }
  return lines;
}

}  // namespace blk::bench::cli
