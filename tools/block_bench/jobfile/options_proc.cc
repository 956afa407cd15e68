// Process and scheduling options, as fio 3.33 reads them: exec_prerun,
// exec_postrun, wait_for, nice, clocksource, gtod_cpu, lockmem, ioscheduler
// (ProcessOptions in
// job.h; applied by the runner, run/job_process.h).
#include <array>

#include "tools/block_bench/jobfile/option_helpers.h"
#include <blkstack/util/quote.h>

namespace blk::bench {
namespace {

using internal::FioValueError;

// A free-form string of ProcessOptions, rendered when not empty.
template <std::string ProcessOptions::*F>
FioOptionSpec ProcString(std::string_view name, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    if (v->empty()) return FioValueError("expected a non-empty value");
    job.proc.*F = std::string(*v);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (!(job.proc.*F).empty()) out.push_back({std::string(n), job.proc.*F});
  };
  s.help = help;
  return s;
}

// nice=-20..19, fio's range; a leading '-' is a negative value.
FioOptionSpec Nice() {
  FioOptionSpec s;
  s.name = "nice";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    std::string_view t = Trim(*v);
    const bool negative = !t.empty() && t.front() == '-';
    if (negative) t.remove_prefix(1);
    Expected<uint64_t> n = ParseInteger(t, job.kb_base, 0, negative ? 20 : 19);
    if (!n.ok()) return FioValueError("expected -20..19, got " + QuoteInput(*v));
    job.proc.nice = negative ? -int32_t(n.value()) : int32_t(n.value());
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.proc.nice) out.push_back({std::string(n), std::to_string(job.proc.nice)});
  };
  s.help = "nice(2) increment of the job's threads, -20 (most favourable) to 19";
  return s;
}

constexpr std::array<std::string_view, 3> kClockSources = {"gettimeofday", "clock_gettime", "cpu"};

FioOptionSpec ClockSource() {
  FioOptionSpec s;
  s.name = "clocksource";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    const std::string_view t = Trim(*v);
    for (std::string_view c : kClockSources) {
      if (t == c) {
        job.proc.clocksource = std::string(c);
        return {};
      }
    }
    return FioValueError("expected gettimeofday, clock_gettime or cpu, got " + QuoteInput(*v));
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (!job.proc.clocksource.empty()) out.push_back({std::string(n), job.proc.clocksource});
  };
  s.help = "fio's clock (gettimeofday, clock_gettime, cpu): accepted; block-bench times every "
           "I/O with clock_gettime(CLOCK_MONOTONIC) whichever is named";
  return s;
}

FioOptionSpec GtodCpu() {
  FioOptionSpec s;
  s.name = "gtod_cpu";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = ParseInteger(*v, job.kb_base, 0, 1023);
    if (!n.ok()) return n.error();
    job.proc.gtod_cpu = uint32_t(n.value());
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.proc.gtod_cpu) out.push_back({std::string(n), std::to_string(*job.proc.gtod_cpu)});
  };
  s.help = "the CPU fio keeps for its time-keeping thread: the job's threads do not run there "
           "(block-bench reads the clock in each thread and starts no such thread)";
  return s;
}

FioOptionSpec LockMem() {
  FioOptionSpec s;
  s.name = "lockmem";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = FioParseSize(*v, job.kb_base, 0);
    if (!n.ok()) return n.error();
    job.proc.lockmem = n.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.proc.lockmem) out.push_back({std::string(n), std::to_string(job.proc.lockmem)});
  };
  s.help = "bytes each of the job's threads maps and pins with mlock(2) for its run (at most the "
           "machine's memory less 128 MiB, as fio)";
  return s;
}

}  // namespace

std::vector<FioOptionSpec> SchedulingOptions() {
  std::vector<FioOptionSpec> v;
  v.push_back(ProcString<&ProcessOptions::exec_prerun>(
      "exec_prerun", "shell command each of the job's threads runs before its I/O (output in "
                     "<jobname>.prerun.txt; a failing command: the thread does no I/O)"));
  v.push_back(ProcString<&ProcessOptions::exec_postrun>(
      "exec_postrun", "shell command each of the job's threads runs after its I/O (output in "
                      "<jobname>.postrun.txt)"));
  v.push_back(ProcString<&ProcessOptions::wait_for>(
      "wait_for", "the job starts once every thread of this job (defined earlier) ended"));
  v.push_back(Nice());
  v.push_back(ClockSource());
  v.push_back(GtodCpu());
  v.push_back(LockMem());
  v.push_back(ProcString<&ProcessOptions::ioscheduler>(
      "ioscheduler", "I/O scheduler to switch the disk holding the job's first file to (written "
                     "to /sys/block/<disk>/queue/scheduler and checked, as fio)"));
  return v;
}

}  // namespace blk::bench
