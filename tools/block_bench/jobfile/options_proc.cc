// Process and scheduling options, as fio 3.33 reads them: exec_prerun,
// exec_postrun, wait_for, nice, clocksource, gtod_cpu, lockmem, ioscheduler,
// numa_cpu_nodes, numa_mem_policy, cgroup, cgroup_weight, cgroup_nodelete
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

// numa_cpu_nodes: a node string libnuma reads for this machine, checked
// when read (fio's str_numa_cpunodes_cb).
FioOptionSpec NumaCpuNodes() {
  FioOptionSpec s;
  s.name = "numa_cpu_nodes";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<void> ok = CheckNumaNodes(*v);
    if (!ok.ok()) return ok.error();
    job.proc.numa_cpu_nodes = std::string(*v);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (!job.proc.numa_cpu_nodes.empty()) out.push_back({std::string(n), job.proc.numa_cpu_nodes});
  };
  s.help = "NUMA nodes whose CPUs the job's threads run on (libnuma's node string: 0-1, 0,2, all; "
           "replaces cpus_allowed's mask, as in fio)";
  return s;
}

// numa_mem_policy=<mode>[:<nodes>] (fio's str_numa_mpol_cb).
FioOptionSpec NumaMemPolicyOption() {
  FioOptionSpec s;
  s.name = "numa_mem_policy";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<NumaMemPolicy> p = ParseNumaMemPolicy(*v);
    if (!p.ok()) return p.error();
    job.proc.numa_mem = p.value();
    job.proc.numa_mem_policy = std::string(*v);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (!job.proc.numa_mem_policy.empty()) out.push_back({std::string(n), job.proc.numa_mem_policy});
  };
  s.help = "memory policy of the job's threads: default, prefer:<node>, bind:<nodes>, "
           "interleave[:<nodes>] (all nodes without a list) or local";
  return s;
}

// cgroup_weight=100..1000, fio's range.
FioOptionSpec CgroupWeight() {
  FioOptionSpec s;
  s.name = "cgroup_weight";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = ParseInteger(*v, job.kb_base, 100, 1000);
    if (!n.ok()) return n.error();
    job.proc.cgroup_weight = uint32_t(n.value());
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.proc.cgroup_weight) out.push_back({std::string(n), std::to_string(job.proc.cgroup_weight)});
  };
  s.help = "blkio.weight of the job's cgroup (100..1000; only with cgroup=, as fio)";
  return s;
}

FioOptionSpec CgroupNodelete() {
  FioOptionSpec s;
  s.name = "cgroup_nodelete";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<bool> b = FioParseBool(*v);
    if (!b.ok()) return b.error();
    job.proc.cgroup_nodelete = b.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.proc.cgroup_nodelete) out.push_back({std::string(n), "1"});
  };
  s.help = "keep the cgroup the run made for cgroup= after the run (else it is removed)";
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
  v.push_back(ProcString<&ProcessOptions::cgroup>(
      "cgroup", "blkio cgroup (a path under the first blkio or cgroup2 mount) the job's threads "
                "run in; made when missing and removed after the run, as fio"));
  v.push_back(CgroupWeight());
  v.push_back(CgroupNodelete());
  v.push_back(NumaCpuNodes());
  v.push_back(NumaMemPolicyOption());
  return v;
}

}  // namespace blk::bench
