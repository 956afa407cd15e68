#include "tools/block_bench/option_table.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace blk::bench {
namespace {

// fio options block-bench rejects on purpose.  Not exhaustive: a name missing
// here is reported as unknown instead, which is also an error.
constexpr std::string_view kUnsupportedFioOptions[] = {
    "allow_mounted_write", "allrandrepeat", "atomic", "block_error_percentiles",
    "bs_is_seq_rand", "bs_unaligned", "blocksize_unaligned", "buffer_compress_chunk",
    "buffer_compress_percentage", "buffer_pattern", "bwavgtime", "cgroup", "cgroup_nodelete",
    "cgroup_weight", "clocksource", "cmdprio", "cmdprio_bssplit", "cmdprio_class",
    "cmdprio_percentage", "conf", "create_serialize", "dedupe_mode", "dedupe_percentage",
    "disable_bw", "disable_bw_measurement", "disable_clat", "disable_lat", "disable_slat",
    "disk_util", "error_dump", "exec_postrun", "exec_prerun", "exit_what", "experimental_verify", "fadvise_hint", "file_append",
    "file_service_type", "filename_format", "filesize", "fixedbufs",
    "flow", "flow_id", "flow_sleep", "fsync_on_close", "gid", "gtod_cpu",
    "gtod_reduce", "hipri", "hipri_percentage", "hugepage-size", "ignore_error", "iomem",
    "iomem_align", "io_submit_mode", "ioscheduler", "iopsavgtime", "latency_percentile",
    "latency_run", "latency_target", "latency_window", "lockfile", "lockmem", "log_compression",
    "log_entries", "log_hist_coarseness", "log_hist_msec", "log_max_value", "log_offset",
    "log_store_compressed", "log_unix_epoch", "max_latency", "max_open_zones", "mem", "merge_blktrace_file",
    "merge_blktrace_iters", "merge_blktrace_scalars", "mem_align", "nice", "nowait", "nr_files", "nrfiles", "numa_cpu_nodes",
    "numa_mem_policy", "offset_align", "offset_increment", "opendir", "openfiles", "per_job_logs", "percentage_random", "prio", "prioclass", "profile", "rate_cycle", "rate_ignore_thinktime", "rate_iops_min", "rate_min",
    "refill_buffers", "rw_sequencer",
    "scramble_buffers", "serialize_overlap", "significant_figures", "softrandommap", 
    "stats", "sync", "sync_file_range", "thinktime_blocks_type", "thinktime_iotime",
    "thinktime_spin", "touch_objects", "trim_backlog", "trim_backlog_batch",
    "trim_percentage", "trim_verify_zero", "uid", "unique_filename",
    "unit_base", "unlink", "unlink_each_loop", "verify_async", "verify_backlog",
    "verify_backlog_batch", "verify_dump", "verify_interval", "verify_offset", "verify_only",
    "verify_pattern", "verify_state_load", "verify_state_save", "wait_for", "write_barrier",
    "write_hint", "write_hist_log", "zonemode", "zonerange",
    "zonesize", "zoneskip",
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

const std::vector<OptionSpec>& OptionTable() {
  static const std::vector<OptionSpec> kTable = [] {
    std::vector<OptionSpec> all;
    for (auto part : {TargetOptions, PatternOptions, FlowOptions, ReportOptions, ReplayOptions}) {
      for (OptionSpec& s : part()) all.push_back(std::move(s));
    }
    return all;
  }();
  return kTable;
}

const OptionSpec* FindOption(std::string_view name) {
  static const std::unordered_map<std::string_view, const OptionSpec*> kIndex = [] {
    std::unordered_map<std::string_view, const OptionSpec*> index;
    for (const OptionSpec& s : OptionTable()) {
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
  for (const OptionSpec& s : OptionTable()) {
    consider(s.name);
    for (std::string_view alias : s.aliases) consider(alias);
  }
  if (best && best_distance <= limit) return best;
  return std::nullopt;
}

bool IsUnsupportedFioOption(std::string_view name) {
  static const std::unordered_set<std::string_view> kSet(std::begin(kUnsupportedFioOptions),
                                                         std::end(kUnsupportedFioOptions));
  return kSet.count(name) > 0;
}

}  // namespace blk::bench
