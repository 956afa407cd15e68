// The table of job options block-bench understands: for each one its fio
// name and aliases, whether it needs a value, how a value is applied to a
// JobOptions, and how the option is rendered back when it differs from the
// default.  Also knows fio's option names that block-bench does not support,
// for better messages, and suggests the closest name for a typo.
//
// The table is defined in options_*.cc, one file per area; its order is the
// order options are rendered in (kb_base early, so that sizes after it read
// back correctly, and ioengine before the rbd options).
//
// Thread-safety: the table is built once (function-local static) and then
// only read.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include <blkstack/util/result.h>

namespace blk::bench {

// One "--name[=value]" produced by rendering.
struct RenderedOption {
  std::string name;
  std::optional<std::string> value;  // empty: a bare flag
  friend bool operator==(const RenderedOption&, const RenderedOption&) = default;
};
using RenderedOptions = std::vector<RenderedOption>;

// Applies `value` (nullopt when the option was written without "=") to
// `job`.  Reads job.kb_base for size suffixes.  On failure returns an Error
// whose message is only the detail ("expected ..., got '...'"); the caller
// adds location and option name.
using OptionApplyFn = Expected<void> (*)(JobOptions& job, std::optional<std::string_view> value);

// Appends `name`'s setting to `out` when `job` differs from JobOptions{} in
// the fields this option owns.  Must produce text that ApplyFn reads back to
// the same fields.
using OptionRenderFn = void (*)(const JobOptions& job, std::string_view name, RenderedOptions& out);

// One fio job option.  (A block driver's options are blk::OptionSpec, in
// block/option_schema.h; the Fio prefix keeps the two apart.)
struct FioOptionSpec {
  std::string_view name;
  std::vector<std::string_view> aliases;
  bool value_required = true;  // false: may be written bare ("time_based")
  bool numeric = false;        // one number: "$ncpus*2" is evaluated as arithmetic
  std::vector<IoEngine> engines;  // valid only with these ioengines (empty: any)
  OptionApplyFn apply = nullptr;
  OptionRenderFn render = nullptr;  // null: rendered through another option
  std::string_view help;
};

// All options, in render order.
const std::vector<FioOptionSpec>& OptionTable();

// The option called `name` (or with that alias), or nullptr.
const FioOptionSpec* FindOption(std::string_view name);

// Names longer than this get no suggestion: no option name is near them,
// and comparing a huge name with every option would take seconds per MB.
inline constexpr size_t kMaxSuggestedNameLength = 64;

// The supported option name (or alias) closest to `name`, if close enough to
// be a likely typo (at most 2 edits, fewer than a third of the name).
// Nullopt for names longer than kMaxSuggestedNameLength.
std::optional<std::string> SuggestOption(std::string_view name);

// The reason block-bench refuses the fio option `name`, or nullopt if it is
// not one it refuses on purpose (it is supported, or unknown).
std::optional<std::string_view> UnsupportedFioOptionReason(std::string_view name);

// The defaults every renderer compares against.
const JobOptions& DefaultJob();

// Parts of the table, defined in options_*.cc.
std::vector<FioOptionSpec> TargetOptions();   // name, engine, files, kb_base, rbd
std::vector<FioOptionSpec> PatternOptions();  // rw, block sizes, offsets, randomness
std::vector<FioOptionSpec> FlowOptions();     // depth, jobs, rates, sync, timing, groups
std::vector<FioOptionSpec> ReportOptions();   // verify, errors, percentiles, logs
std::vector<FioOptionSpec> MemoryOptions();   // mem, iomem_align, hugepage-size
std::vector<FioOptionSpec> ReplayOptions();   // read_iolog, replay_*, write_iolog
std::vector<FioOptionSpec> PriorityOptions(); // prio, prioclass, cmdprio_*
std::vector<FioOptionSpec> WorkEngineOptions();  // cpuio's, exec's, filestat's, e4defrag's
std::vector<FioOptionSpec> NetEngineOptions();   // net's
std::vector<FioOptionSpec> SchedulingOptions();  // exec_*, wait_for, nice, clocksource, gtod_cpu

}  // namespace blk::bench
