#include "tools/block_bench/jobfile/option_table.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace blk::bench {
namespace {

// fio options block-bench refuses on purpose, each with the reason the error
// message and `--cmdhelp` give.  Not exhaustive: a name missing here is
// reported as unknown instead, which is also an error.
struct UnsupportedFioOption {
  std::string_view name;
  std::string_view reason;
};
constexpr UnsupportedFioOption kUnsupportedFioOptions[] = {
    {"block_error_percentiles", "fio's trim wear histogram (per trim-sized block, the trims and writes until its first error, for flash that wears out): not implemented"},
    {"chunk_size", "an option of fio's dfs engine; block-bench has no such engine"},
    {"gid", "fio calls setgid(2) in each job's process; block-bench's jobs are threads of one process, and setgid/setuid change the credentials of every thread of a process (glibc and POSIX), so no job can run as another group or user alone"},
    {"hipri", "polled completions (IORING_SETUP_IOPOLL, RWF_HIPRI) are not implemented in the file driver: they need a device with poll queues (queue/io_poll=1), and on virtio-blk, zram and loop devices fio's own hipri=1 fails every I/O with EOPNOTSUPP"},
    {"hipri_percentage", "polled completions (IORING_SETUP_IOPOLL, RWF_HIPRI) are not implemented in the file driver: they need a device with poll queues (queue/io_poll=1), and on virtio-blk, zram and loop devices fio's own hipri=1 fails every I/O with EOPNOTSUPP"},
    {"ignore_zone_limits", "an option of zonemode=zbd: zoned block devices are not supported (zonemode=strided is)"},
    {"job_max_open_zones", "an option of zonemode=zbd: zoned block devices are not supported (zonemode=strided is)"},
    {"max_open_zones", "an option of zonemode=zbd: zoned block devices are not supported (zonemode=strided is)"},
    {"profile", "fio's profiles are not supported"},
    {"read_beyond_wp", "an option of zonemode=zbd: zoned block devices are not supported (zonemode=strided is)"},
    {"uid", "fio calls setuid(2) in each job's process; block-bench's jobs are threads of one process, and setuid/setgid change the credentials of every thread of a process (glibc and POSIX), so no job can run as another user or group alone"},
    {"zone_reset_frequency", "an option of zonemode=zbd: zoned block devices are not supported (zonemode=strided is)"},
    {"zone_reset_threshold", "an option of zonemode=zbd: zoned block devices are not supported (zonemode=strided is)"},
    {"zonecapacity", "an option of zonemode=zbd: zoned block devices are not supported (zonemode=strided is)"},
};

// Optimal string alignment distance: Levenshtein plus adjacent swaps, so
// "iodepht" is one edit from "iodepth".
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

const JobOptions& DefaultJob() {
  static const JobOptions kDefaults;
  return kDefaults;
}

const std::vector<FioOptionSpec>& OptionTable() {
  static const std::vector<FioOptionSpec> kTable = [] {
    std::vector<FioOptionSpec> all;
    for (auto part : {TargetOptions, PatternOptions, FlowOptions, ReportOptions, ReplayOptions,
                      PriorityOptions, SchedulingOptions, MemoryOptions, WorkEngineOptions,
                      NetEngineOptions}) {
      for (FioOptionSpec& s : part()) all.push_back(std::move(s));
    }
    return all;
  }();
  return kTable;
}

const FioOptionSpec* FindOption(std::string_view name) {
  static const std::unordered_map<std::string_view, const FioOptionSpec*> kIndex = [] {
    std::unordered_map<std::string_view, const FioOptionSpec*> index;
    for (const FioOptionSpec& s : OptionTable()) {
      index.emplace(s.name, &s);
      for (std::string_view alias : s.aliases) index.emplace(alias, &s);
    }
    return index;
  }();
  const auto it = kIndex.find(name);
  return it == kIndex.end() ? nullptr : it->second;
}

std::optional<std::string> SuggestOption(std::string_view name) {
  if (name.size() > kMaxSuggestedNameLength) return std::nullopt;
  // Only near misses: up to 2 edits, and fewer than a third of the name.
  const size_t limit = std::min<size_t>(2, std::max<size_t>(1, name.size() / 3));
  std::optional<std::string> best;
  size_t best_distance = 0;
  auto consider = [&](std::string_view candidate) {
    // The distance is at least the difference in length.
    const size_t longer = std::max(name.size(), candidate.size());
    if (longer - std::min(name.size(), candidate.size()) > limit) return;
    const size_t d = EditDistance(name, candidate);
    if (!best || d < best_distance) {
      best = std::string(candidate);
      best_distance = d;
    }
  };
  for (const FioOptionSpec& s : OptionTable()) {
    consider(s.name);
    for (std::string_view alias : s.aliases) consider(alias);
  }
  if (best && best_distance <= limit) return best;
  return std::nullopt;
}

std::optional<std::string_view> UnsupportedFioOptionReason(std::string_view name) {
  for (const UnsupportedFioOption& o : kUnsupportedFioOptions) {
    if (o.name == name) return o.reason;
  }
  return std::nullopt;
}

}  // namespace blk::bench
