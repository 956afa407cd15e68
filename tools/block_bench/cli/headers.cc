#include "tools/block_bench/cli/headers.h"

#include <algorithm>
#include <cstdio>

#include "tools/block_bench/cli/warnings.h"
#include "tools/block_bench/format/format.h"
#include "tools/block_bench/report/report.h"
#include "tools/block_bench/run/runner.h"
#include "tools/block_bench/run/target.h"

namespace blk::bench::cli {
namespace {

// "Starting N threads", with the version line before it.
std::string StartingLine(const std::vector<JobOptions>& jobs, int ranks) {
  uint32_t n = 0;
  for (const JobOptions& j : jobs) n += std::max<uint32_t>(1, j.numjobs);
  char buf[256];
  if (ranks > 1)
    std::snprintf(buf, sizeof buf, "%s\nStarting %u thread%s on each of %d ranks\n", kBenchVersion,
                  n, n == 1 ? "" : "s", ranks);
  else
    std::snprintf(buf, sizeof buf, "%s\nStarting %u thread%s\n", kBenchVersion, n,
                  n == 1 ? "" : "s");
  return buf;
}

}  // namespace

uint64_t MinBlockSize(const JobOptions& j, int d) { return FioMinBs(j, d); }
uint64_t MaxBlockSize(const JobOptions& j, int d) { return FioMaxBs(j, d); }

std::string JobHeader(const JobOptions& j, int groupid) {
  // fio's num2str of the direction's smallest and largest block size, with
  // significant_figures digits and kb_base's prefixes: "4096B-64.0KiB".
  auto bs = [&](int d) {
    const bool pow2 = j.kb_base == 1024;
    return NumToStr(MinBlockSize(j, d), int(j.sig_figs), pow2, "B") + "-" +
           NumToStr(MaxBlockSize(j, d), int(j.sig_figs), pow2, "B");
  };
  std::string engine = j.blockdev.empty() ? std::string(Name(j.ioengine)) : "blockdev";
  // Say what really runs (run/target.h).
  if (const auto sub = SubstitutedEngine(j)) {
    engine = sub->used + " (" + engine + " asked" + (j.direct ? "" : ", direct=0") + ")";
  }
  char buf[512];
  // fio names bs_is_seq_rand after the block sizes it changes the meaning of.
  std::snprintf(buf, sizeof buf, "%s: (g=%d): rw=%s, bs=(R) %s, (W) %s, (T) %s, %sioengine=%s, iodepth=%u\n",
                j.name.c_str(), groupid, std::string(Name(j.rw)).c_str(), bs(0).c_str(),
                bs(1).c_str(), bs(2).c_str(), j.bs_is_seq_rand ? "bs_is_seq_rand, " : "",
                engine.c_str(), j.iodepth);
  return buf;
}

std::string RunHeaders(const std::vector<JobOptions>& jobs, int ranks) {
  const std::vector<int> groups = GroupIds(jobs);
  std::string text;
  for (size_t i = 0; i < jobs.size(); i++) {
    if (i > 0 && jobs[i].name == jobs[i - 1].name) continue;
    // fio describes no job of an engine that moves no data (cpuio, exec).
    if (!MovesNoData(jobs[i].ioengine)) text += JobHeader(jobs[i], groups[i]);
    if (jobs[i].numjobs > 1) text += "...\n";  // fio's line for clones
    const std::string diff = FioDifference(jobs[i]);
    if (!diff.empty()) text += jobs[i].name + ": note: " + diff + "\n";
    for (const std::string& note : JobNotes(jobs[i])) text += jobs[i].name + ": note: " + note + "\n";
  }
  return text + StartingLine(jobs, ranks);
}

}  // namespace blk::bench::cli
