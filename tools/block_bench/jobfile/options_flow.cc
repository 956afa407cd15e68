// Options controlling how I/O flows: queue depth and batching, job count,
// rate limits and think time, syncing, run time, start delay and grouping.
#include <unistd.h>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>

#include "tools/block_bench/jobfile/option_helpers.h"
#include <blkstack/util/quote.h>

namespace blk::bench {
namespace {

using internal::ApplyPerDir;
using internal::ChoiceOption;
using internal::FioChoice;
using internal::FioValueError;
using internal::RenderPerDir;

// sync_file_range=FLAGS[:N]: FLAGS one or more of wait_before, write,
// wait_after (','-separated, as fio's multi-value string), N the writes
// between calls (default 1; 0: never, as fio's).
constexpr FioChoice<uint32_t> kSyncRangeFlags[] = {
    {"wait_before", 1}, {"write", 2}, {"wait_after", 4}};  // SYNC_FILE_RANGE_*

FioOptionSpec SyncFileRangeOption() {
  FioOptionSpec s;
  s.name = "sync_file_range";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    std::string_view flags = *v, count;
    if (size_t colon = flags.find(':'); colon != std::string_view::npos) {
      count = flags.substr(colon + 1);
      flags = flags.substr(0, colon);
    }
    uint32_t mask = 0;
    while (true) {
      const size_t comma = flags.find(',');
      const std::string_view word = flags.substr(0, comma);
      bool known = false;
      for (const auto& c : kSyncRangeFlags) {
        if (c.name == word) {
          mask |= c.value;
          known = true;
        }
      }
      if (!known)
        return FioValueError("expected one or more of " + internal::ChoiceList(kSyncRangeFlags) +
                             " (','-separated, then an optional :N), got " + QuoteInput(*v));
      if (comma == std::string_view::npos) break;
      flags = flags.substr(comma + 1);
    }
    uint64_t n = 1;
    if (!count.empty() || v->back() == ':') {
      Expected<uint64_t> k = ParseInteger(count, job.kb_base, 0, UINT32_MAX);
      if (!k.ok()) return k.error();
      n = k.value();
    }
    job.sync_file_range = uint32_t(n);
    job.sync_file_range_flags = mask;
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (!job.sync_file_range_flags) return;
    std::string v;
    for (const auto& c : kSyncRangeFlags)
      if (job.sync_file_range_flags & c.value) v += (v.empty() ? "" : ",") + std::string(c.name);
    out.push_back({std::string(n), v + ":" + std::to_string(job.sync_file_range)});
  };
  s.help = "sync_file_range(2) every N writes over the range written since the last call: "
           "FLAGS[:N], FLAGS one or more of wait_before, write, wait_after (','-separated; "
           "SYNC_FILE_RANGE_*), N default 1, 0 never";
  return s;
}

FioOptionSpec Rate() {
  FioOptionSpec s;
  s.name = "rate";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    const uint32_t kb = job.kb_base;
    return ApplyPerDir(*v, job.rate,
                       [kb](std::string_view part) { return FioParseSize(part, kb); });
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.rate == DefaultJob().rate) return;
    const uint32_t kb = job.kb_base;
    out.push_back({std::string(n), RenderPerDir(job.rate, [kb](uint64_t r) { return FormatSize(r, kb); })});
  };
  s.help = "bandwidth cap in bytes/s, 0: none [read,write,trim]";
  return s;
}

FioOptionSpec MaxLatency() {
  FioOptionSpec s;
  s.name = "max_latency";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    return ApplyPerDir(*v, job.max_latency, [](std::string_view part) { return ParseTime(part, 1); });
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.max_latency == DefaultJob().max_latency) return;
    out.push_back({std::string(n), RenderPerDir(job.max_latency, [](std::chrono::microseconds t) {
                     return FormatTime(t);
                   })});
  };
  s.help = "an I/O slower than this ends the job with ETIMEDOUT (default unit us) [read,write,trim]";
  return s;
}

// rate_min= (bytes/s) and rate_iops_min= (I/O/s), per direction.
template <PerDir<uint64_t> JobOptions::*F, bool Bytes>
FioOptionSpec RateMinimum(std::string_view name, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    const uint32_t kb = job.kb_base;
    return ApplyPerDir(*v, job.*F, [kb](std::string_view part) {
      return Bytes ? FioParseSize(part, kb) : ParseInteger(part, kb);
    });
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*F == DefaultJob().*F) return;
    const uint32_t kb = job.kb_base;
    out.push_back({std::string(n), RenderPerDir(job.*F, [kb](uint64_t r) {
                     return Bytes ? FormatSize(r, kb) : std::to_string(r);
                   })});
  };
  s.help = help;
  return s;
}

FioOptionSpec RateIops() {
  FioOptionSpec s;
  s.name = "rate_iops";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    const uint32_t kb = job.kb_base;
    return ApplyPerDir(*v, job.rate_iops, [kb](std::string_view part) { return ParseInteger(part, kb); });
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.rate_iops == DefaultJob().rate_iops) return;
    out.push_back({std::string(n), RenderPerDir(job.rate_iops, [](uint64_t r) { return std::to_string(r); })});
  };
  s.help = "IOPS cap, 0: none [read,write,trim]; paced as fio's: rate_iops x the smallest block size bytes/s, ignored when rate= is given";
  return s;
}

constexpr FioChoice<RateProcess> kRateProcessOptionChoices[] = {
    {"linear", RateProcess::kLinear}, {"poisson", RateProcess::kPoisson}};

FioOptionSpec RateProcessOption() {
  return ChoiceOption<&JobOptions::rate_process, kRateProcessOptionChoices>(
      "rate_process", "how rated I/O is spaced: linear (default) or poisson");
}

// startdelay=5 or startdelay=5-10 (each clone picks a value in the range).
FioOptionSpec StartDelay() {
  FioOptionSpec s;
  s.name = "startdelay";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    const auto range = SplitRange(*v);
    Expected<std::chrono::microseconds> lo = ParseTime(range ? range->first : *v, kMicrosPerSecond);
    if (!lo.ok()) return lo.error();
    Expected<std::chrono::microseconds> hi = lo;
    if (range) hi = ParseTime(range->second, kMicrosPerSecond);
    if (!hi.ok()) return hi.error();
    job.startdelay = TimeRange{std::min(lo.value(), hi.value()), std::max(lo.value(), hi.value())};
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    const TimeRange& d = job.startdelay;
    if (d == DefaultJob().startdelay) return;
    out.push_back({std::string(n), d.min == d.max ? FormatTime(d.min)
                                                  : FormatTime(d.min) + "-" + FormatTime(d.max)});
  };
  s.help = "delay before starting, or a range to pick from (default unit s)";
  return s;
}

// flow=N, N <= 1000.  fio 3.33 keeps the weight unsigned and checks only
// the maximum, so a negative N is 2^32 + N, which wraps the group's total
// (flow=2 with flow=-2 makes it 0: neither job ever waits); so it is here.
FioOptionSpec FlowOption() {
  FioOptionSpec s;
  s.name = "flow";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    const std::string_view t = Trim(*v);
    const bool negative = !t.empty() && t.front() == '-';
    Expected<uint64_t> n = ParseInteger(negative ? t.substr(1) : t, job.kb_base, 0,
                                        negative ? uint64_t(1) << 31 : 1000);
    if (!n.ok()) return n.error();
    job.flow = negative ? uint32_t(0) - uint32_t(n.value()) : uint32_t(n.value());
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.flow == 0) return;
    out.push_back({std::string(n), job.flow <= 1000 ? std::to_string(job.flow)
                                                    : std::to_string(int32_t(job.flow))});
  };
  s.help = "weight in flow control: the jobs of one flow_id issue I/Os in the ratio of their "
           "weights (at most 1000; a negative weight is fio 3.33's: 2^32 + N, which wraps the "
           "group's total)";
  return s;
}

FioOptionSpec SteadyStateOption() {
  FioOptionSpec s;
  s.name = "steadystate";
  s.aliases = {"ss"};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    const size_t colon = v->find(':');
    const std::string_view what = v->substr(0, colon);
    SteadyState ss;
    static constexpr struct {
      std::string_view name;
      SteadyMetric metric;
      bool slope;
    } kKinds[] = {{"iops", SteadyMetric::kIops, false}, {"iops_slope", SteadyMetric::kIops, true},
                  {"bw", SteadyMetric::kBw, false},     {"bw_slope", SteadyMetric::kBw, true},
                  {"lat", SteadyMetric::kLat, false},   {"lat_slope", SteadyMetric::kLat, true}};
    bool found = false;
    for (const auto& k : kKinds)
      if (k.name == what) ss.metric = k.metric, ss.slope = k.slope, found = true;
    if (!found || colon == std::string_view::npos) {
      return FioValueError("expected iops, iops_slope, bw, bw_slope, lat or lat_slope, a ':' and a "
                           "limit (e.g. iops_slope:0.1%), got " + QuoteInput(*v));
    }
    std::string_view limit = v->substr(colon + 1);
    ss.pct = !limit.empty() && limit.back() == '%';
    if (ss.pct) limit.remove_suffix(1);
    Expected<double> l = ParseDouble(Trim(limit), 0, 1e18, /*min_exclusive=*/false);
    if (!l.ok()) return l.error();
    ss.limit = l.value();
    job.ss = ss;
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.ss == DefaultJob().ss) return;
    static constexpr const char* kNames[] = {"iops", "bw", "lat"};
    char limit[64];
    // The shortest of %.15g and %.17g that reads back as the same value.
    std::snprintf(limit, sizeof limit, "%.15g", job.ss.limit);
    if (std::strtod(limit, nullptr) != job.ss.limit)
      std::snprintf(limit, sizeof limit, "%.17g", job.ss.limit);
    out.push_back({std::string(n), std::string(kNames[int(job.ss.metric)]) +
                                       (job.ss.slope ? "_slope:" : ":") + limit +
                                       (job.ss.pct ? "%" : "")});
  };
  s.help = "end at steady state: iops|bw|lat[_slope]:LIMIT[%] (default iops:0.01%)";
  return s;
}

// An unsigned option that remembers it was written (JobOptions::*Given),
// so a default can depend on whether the user chose the value; rendered
// whenever written, even at its default.
template <uint32_t JobOptions::*F, bool JobOptions::*Given, uint64_t Min>
FioOptionSpec GivenUintOption(std::string_view name, std::string_view help) {
  FioOptionSpec s = internal::UintOption<F, Min>(name, help);
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = ParseInteger(*v, job.kb_base, Min, UINT32_MAX);
    if (!n.ok()) return n.error();
    job.*F = static_cast<uint32_t>(n.value());
    job.*Given = true;
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*F != DefaultJob().*F || job.*Given) out.push_back({std::string(n), std::to_string(job.*F)});
  };
  return s;
}

// iodepth=N: a trace replay's depth cap defaults to what the trace recorded
// unless iodepth is written.
FioOptionSpec IoDepth() {
  return GivenUintOption<&JobOptions::iodepth, &JobOptions::iodepth_given, 1>(
      "iodepth", "I/Os kept in flight");
}

// iodepth_batch_submit=N: written, it fixes the submission batch as fio's
// (run/target.h SubmitBatchingOf); unwritten, block-bench batches adaptively.
FioOptionSpec IodepthBatchSubmit() {
  FioOptionSpec s =
      GivenUintOption<&JobOptions::iodepth_batch_submit, &JobOptions::iodepth_batch_submit_given,
                      0>("iodepth_batch_submit", "I/Os submitted at once (0: iodepth)");
  s.aliases = {"iodepth_batch"};
  return s;
}

constexpr uint32_t kMaxCpu = 4095;

// cpus_allowed=0-3,6 (fio's list syntax): the CPUs, sorted, without repeats.
Expected<std::vector<uint32_t>> ParseCpuList(std::string_view text) {
  std::vector<uint32_t> cpus;
  for (std::string_view item : SplitTopLevel(text, ',')) {
    item = Trim(item);
    const size_t dash = item.find('-');
    const std::string_view lo_text = dash == std::string_view::npos ? item : item.substr(0, dash);
    Expected<uint64_t> lo = ParseInteger(Trim(lo_text), 1024, 0, kMaxCpu);
    if (!lo.ok()) return FioValueError("CPU " + QuoteInput(item) + ": " + lo.error().message);
    uint64_t hi = lo.value();
    if (dash != std::string_view::npos) {
      Expected<uint64_t> h = ParseInteger(Trim(item.substr(dash + 1)), 1024, 0, kMaxCpu);
      if (!h.ok()) return FioValueError("CPU range " + QuoteInput(item) + ": " + h.error().message);
      hi = h.value();
      if (hi < lo.value()) {
        return FioValueError("CPU range " + QuoteInput(item) + " goes backwards");
      }
    }
    for (uint64_t c = lo.value(); c <= hi; c++) cpus.push_back(uint32_t(c));
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  if (cpus.empty()) return FioValueError("expected a CPU list such as 0-3,6");
  return cpus;
}

std::string FormatCpuList(const std::vector<uint32_t>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) j++;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

FioOptionSpec CpusAllowed() {
  FioOptionSpec s;
  s.name = "cpus_allowed";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    auto cpus = ParseCpuList(*v);
    if (!cpus.ok()) return cpus.error();
    job.cpus_allowed = std::move(*cpus);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (!job.cpus_allowed.empty()) out.push_back({std::string(n), FormatCpuList(job.cpus_allowed)});
  };
  s.help = "CPUs the job's threads may run on, e.g. 0-3,6";
  return s;
}

// log_compression_cpus=0-3,6: cpus_allowed's syntax; as fio, a CPU this
// machine does not have (>= its configured CPUs) is refused.
FioOptionSpec LogCompressionCpus() {
  FioOptionSpec s;
  s.name = "log_compression_cpus";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    auto cpus = ParseCpuList(*v);
    if (!cpus.ok()) return cpus.error();
    const long configured = sysconf(_SC_NPROCESSORS_CONF);
    if (configured > 0 && cpus->back() >= uint64_t(configured))
      return FioValueError("CPU " + std::to_string(cpus->back()) + " too large (max=" +
                           std::to_string(configured - 1) + "), as fio");
    job.log_compression_cpus = std::move(*cpus);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (!job.log_compression_cpus.empty())
      out.push_back({std::string(n), FormatCpuList(job.log_compression_cpus)});
  };
  s.help = "CPUs the compression of log_store_compressed=1 logs runs on (block-bench "
           "compresses at the end, on the main thread, pinned to them meanwhile), e.g. 0-3,6";
  return s;
}

// cpumask=0x5 (or decimal): CPU i when bit i is set.
FioOptionSpec CpuMask() {
  FioOptionSpec s;
  s.name = "cpumask";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    std::string_view t = Trim(*v);
    const bool hex = t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
    if (hex) t = t.substr(2);
    uint64_t mask = 0;
    const char* first = t.data();
    auto r = std::from_chars(first, first + t.size(), mask, hex ? 16 : 10);
    if (t.empty() || r.ec != std::errc() || r.ptr != first + t.size() || mask == 0)
      return FioValueError("expected a non-zero CPU bit mask such as 0x5, got " + QuoteInput(*v));
    job.cpus_allowed.clear();
    for (uint32_t c = 0; c < 64; c++)
      if (mask >> c & 1) job.cpus_allowed.push_back(c);
    return {};
  };
  s.render = [](const JobOptions&, std::string_view, RenderedOptions&) {};  // as cpus_allowed
  s.help = "CPU bit mask (0x5: CPUs 0 and 2); the same as cpus_allowed";
  return s;
}

// verify_async_cpus=0-3,6: the verify threads' CPUs (cpus_allowed's syntax).
FioOptionSpec VerifyAsyncCpus() {
  FioOptionSpec s;
  s.name = "verify_async_cpus";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    auto cpus = ParseCpuList(*v);
    if (!cpus.ok()) return cpus.error();
    job.verify_async_cpus = std::move(*cpus);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (!job.verify_async_cpus.empty())
      out.push_back({std::string(n), FormatCpuList(job.verify_async_cpus)});
  };
  s.help = "CPUs the verify_async threads may run on, e.g. 0-3,6 (cpus_allowed's syntax)";
  return s;
}

constexpr FioChoice<bool> kCpusAllowedPolicyChoices[] = {{"shared", false}, {"split", true}};

FioOptionSpec CpusAllowedPolicy() {
  return ChoiceOption<&JobOptions::cpus_split, kCpusAllowedPolicyChoices>(
      "cpus_allowed_policy", "shared: every clone may use all the CPUs; split: clone k gets the k-th");
}

// fio's thinktime_blocks_type: what thinktime_blocks counts.
constexpr FioChoice<bool> kThinktimeBlocksTypeChoices[] = {{"complete", false}, {"issue", true}};

FioOptionSpec ThinktimeBlocksType() {
  return ChoiceOption<&JobOptions::thinktime_issue, kThinktimeBlocksTypeChoices>(
      "thinktime_blocks_type", "what thinktime_blocks counts: complete (default) or issue (issued I/Os)");
}

// fio's io_submit_mode: inline (the job's own loop submits) or offload (a
// submitter thread per clone; see JobOptions::io_submit_mode).
constexpr FioChoice<JobOptions::SubmitMode> kIoSubmitModeChoices[] = {
    {"inline", JobOptions::SubmitMode::kInline}, {"offload", JobOptions::SubmitMode::kOffload}};

constexpr FioChoice<JobOptions::ExitWhat> kExitWhatChoices[] = {
    {"group", JobOptions::ExitWhat::kGroup},
    {"stonewall", JobOptions::ExitWhat::kStonewall},
    {"all", JobOptions::ExitWhat::kAll}};

FioOptionSpec ExitWhat() {
  return ChoiceOption<&JobOptions::exit_what, kExitWhatChoices>(
      "exit_what", "which jobs exitall ends: group (default: the job's group), stonewall (every "
                   "job running; the next stonewall still runs), all (no later job runs)");
}

FioOptionSpec IoSubmitMode() {
  return ChoiceOption<&JobOptions::io_submit_mode, kIoSubmitModeChoices>(
      "io_submit_mode", "inline (default): the job's thread submits; offload: the job's thread generates and paces, a submitter thread submits and reaps");
}

FioOptionSpec WithAliases(FioOptionSpec s, std::vector<std::string_view> aliases) {
  s.aliases = std::move(aliases);
  return s;
}

}  // namespace

std::vector<FioOptionSpec> FlowOptions() {
  using namespace internal;
  std::vector<FioOptionSpec> v;
  v.push_back(IoDepth());
  v.push_back(IodepthBatchSubmit());
  v.push_back(FlagOption<&JobOptions::fio_defaults>(
      "fio_defaults",
      "block-bench: take fio's default where block-bench's differs (submission batching: one "
      "request per io_submit unless iodepth_batch_submit says more; no busy polling)"));
  v.push_back(WithAliases(
      UintOption<&JobOptions::iodepth_batch_complete_min, 0>("iodepth_batch_complete_min",
                                                             "minimum completions reaped at once"),
      {"iodepth_batch_complete"}));
  v.push_back(OptionalUintOption<&JobOptions::iodepth_batch_complete_max>(
      "iodepth_batch_complete_max", "maximum completions reaped at once (0: the minimum)"));
  v.push_back(OptionalUintOption<&JobOptions::iodepth_low>("iodepth_low",
                                                           "refill the queue below this (0: iodepth)"));
  v.push_back(UintOption<&JobOptions::numjobs, 1>("numjobs", "number of clones of this job"));
  v.push_back(Rate());
  v.push_back(RateIops());
  v.push_back(RateProcessOption());
  {
    FioOptionSpec m = RateMinimum<&JobOptions::rate_min, true>(
        "rate_min", "end the job (EIO) when slower than this many bytes/s over a rate_cycle [read,write,trim]");
    m.aliases = {"ratemin"};
    v.push_back(std::move(m));
  }
  v.push_back(RateMinimum<&JobOptions::rate_iops_min, false>(
      "rate_iops_min", "end the job (EIO) when slower than this many IOPS over a rate_cycle [read,write,trim]"));
  {
    FioOptionSpec c = UintOption<&JobOptions::rate_cycle, 1>(
        "rate_cycle", "ms over which rate_min/rate_iops_min are averaged (default 1000)");
    c.aliases = {"ratecycle"};
    v.push_back(std::move(c));
  }
  v.push_back(TimeOption<&JobOptions::thinktime, 1>("thinktime", "pause after I/Os (default unit us)"));
  v.push_back(UintOption<&JobOptions::thinktime_blocks, 1>(
      "thinktime_blocks", "I/Os between pauses (default 1; with thinktime_iotime: none)"));
  v.push_back(TimeOption<&JobOptions::thinktime_spin, 1>(
      "thinktime_spin", "of each pause, spin this long on the CPU, then sleep the rest (default unit us)"));
  v.push_back(ThinktimeBlocksType());
  v.push_back(TimeOption<&JobOptions::thinktime_iotime, 1000000>(
      "thinktime_iotime", "also pause after this much time of I/O (default unit s)"));
  v.push_back(BoolOption<&JobOptions::rate_ignore_thinktime>(
      "rate_ignore_thinktime", "1: after a pause the rate goes on as before, without catching up"));
  v.push_back(FlowOption());
  v.push_back(TimeOption<&JobOptions::latency_target, 1>(
      "latency_target", "find the deepest queue whose I/O latency keeps within this (default unit us)"));
  v.push_back(TimeOption<&JobOptions::latency_window, 1>(
      "latency_window", "how long each depth runs in the latency_target search (default unit us)"));
  {
    FioOptionSpec s;
    s.name = "latency_percentile";
    s.numeric = true;
    s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
      Expected<double> p = ParseDouble(*v, 0, 100, /*min_exclusive=*/true);
      if (!p.ok()) return p.error();
      job.latency_percentile = p.value();
      return {};
    };
    s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
      if (job.latency_percentile != DefaultJob().latency_percentile)
        out.push_back({std::string(n), FormatDouble(job.latency_percentile)});
    };
    s.help = "percentage of I/Os of a window that must keep within latency_target (default 100)";
    v.push_back(std::move(s));
  }
  v.push_back(BoolOption<&JobOptions::latency_run>(
      "latency_run", "1: keep adjusting the depth to latency_target instead of ending once found"));
  v.push_back(MaxLatency());
  v.push_back(UintOption<&JobOptions::flow_id, 0>("flow_id", "the flow control group (default 0)"));
  v.push_back(UintOption<&JobOptions::flow_sleep, 0>(
      "flow_sleep", "us to wait, after the job's I/Os completed, when it is ahead of its flow share"));
  v.push_back(UintOption<&JobOptions::fsync, 0>("fsync", "fsync every N writes (0: never)"));
  v.push_back(UintOption<&JobOptions::fdatasync, 0>("fdatasync", "fdatasync every N writes (0: never)"));
  v.push_back(BoolOption<&JobOptions::end_fsync>("end_fsync", "1: fsync when writing is done"));
  v.push_back(SyncFileRangeOption());
  v.push_back(WithAliases(
      TimeOption<&JobOptions::runtime, kMicrosPerSecond>("runtime", "time limit (default unit s)"),
      {"timeout"}));
  // fio's thread=1 runs jobs as threads instead of processes; block-bench
  // always does, so the option changes nothing (accepted, rendered).
  // "threads" is fio 3.33's alias (its examples steadystate.fio and
  // waitfor.fio use it).
  v.push_back(WithAliases(
      FlagOption<&JobOptions::thread>("thread", "jobs run as threads (always so in block-bench); threads is its alias, as fio 3.33"),
      {"threads"}));
  v.push_back(IoSubmitMode());
  v.push_back(FlagOption<&JobOptions::exitall>(
      "exitall", "a job that ends ends the others running (those of its group: exit_what)"));
  v.push_back(ExitWhat());
  v.push_back(BoolOption<&JobOptions::serialize_overlap>(
      "serialize_overlap", "an I/O overlapping one in flight (same file) waits until it completes"));
  v.push_back(FlagOption<&JobOptions::exitall_on_error>(
      "exitall_on_error", "a job that ends with an error ends the others running"));
  v.push_back(CpusAllowed());
  v.push_back(CpuMask());
  v.push_back(VerifyAsyncCpus());
  v.push_back(LogCompressionCpus());
  v.push_back(CpusAllowedPolicy());
  v.push_back(FlagOption<&JobOptions::time_based>("time_based", "run for the whole runtime"));
  v.push_back(TimeOption<&JobOptions::ramp_time, kMicrosPerSecond>(
      "ramp_time", "run this long before measuring (default unit s)"));
  v.push_back(StartDelay());
  v.push_back(WithAliases(FlagOption<&JobOptions::stonewall>("stonewall", "wait for earlier jobs"),
                          {"wait_for_previous"}));
  v.push_back(FlagOption<&JobOptions::new_group>("new_group", "start a new reporting group"));
  v.push_back(FlagOption<&JobOptions::group_reporting>("group_reporting", "report per group"));
  v.push_back(SteadyStateOption());
  v.push_back(WithAliases(TimeOption<&JobOptions::ss_dur, kMicrosPerSecond>(
                              "steadystate_duration", "steady state window (0: off; default unit s)"),
                          {"ss_dur"}));
  v.push_back(WithAliases(TimeOption<&JobOptions::ss_ramp, kMicrosPerSecond>(
                              "steadystate_ramp_time", "run this long before collecting steady "
                                                       "state data (default unit s)"),
                          {"ss_ramp"}));
  v.push_back(WithAliases(TimeOption<&JobOptions::ss_interval, kMicrosPerSecond>(
                              "steadystate_check_interval",
                              "steady state sampling interval (default 1s)"),
                          {"ss_interval"}));
  return v;
}

}  // namespace blk::bench
