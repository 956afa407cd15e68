// Options of the engines that move no data: fio's cpuio (cpuload,
// cpuchunks, cpumode, exit_on_io_done) and exec (program, arguments,
// grace_time, std_redirect), and of filestat (stat_type).  Each is valid
// only with its engine.
#include <string>

#include "tools/block_bench/jobfile/option_helpers.h"

namespace blk::bench {
namespace {

using internal::FioValueError;

// An integer field of an engine's options, in [Min, Max].
template <auto Group, auto F, uint64_t Min, uint64_t Max>
FioOptionSpec EngineUint(std::string_view name, IoEngine engine, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.numeric = true;
  s.engines = {engine};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = ParseInteger(*v, job.kb_base, Min, Max);
    if (!n.ok()) return n.error();
    job.*Group.*F = static_cast<uint32_t>(n.value());
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*Group.*F != DefaultJob().*Group.*F)
      out.push_back({std::string(n), std::to_string(job.*Group.*F)});
  };
  s.help = help;
  return s;
}

template <auto Group, auto F>
FioOptionSpec EngineBool(std::string_view name, IoEngine engine, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.engines = {engine};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<bool> b = FioParseBool(*v);
    if (!b.ok()) return b.error();
    job.*Group.*F = b.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*Group.*F != DefaultJob().*Group.*F)
      out.push_back({std::string(n), job.*Group.*F ? "1" : "0"});
  };
  s.help = help;
  return s;
}

template <auto Group, auto F>
FioOptionSpec EngineString(std::string_view name, IoEngine engine, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.engines = {engine};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    job.*Group.*F = std::string(*v);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*Group.*F != DefaultJob().*Group.*F) out.push_back({std::string(n), job.*Group.*F});
  };
  s.help = help;
  return s;
}

FioOptionSpec CpuChunks() {
  FioOptionSpec s;
  s.name = "cpuchunks";
  s.numeric = true;
  s.engines = {IoEngine::kCpuio};
  // fio's FIO_OPT_INT in microseconds: a bare number, no time suffix.
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = ParseInteger(*v, job.kb_base, 1, UINT32_MAX);
    if (!n.ok()) return n.error();
    job.cpuio.chunk = std::chrono::microseconds(n.value());
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.cpuio.chunk != DefaultJob().cpuio.chunk)
      out.push_back({std::string(n), std::to_string(job.cpuio.chunk.count())});
  };
  s.help = "cpuio: the length of one burn in microseconds (default 50000)";
  return s;
}

FioOptionSpec CpuMode() {
  FioOptionSpec s;
  s.name = "cpumode";
  s.engines = {IoEngine::kCpuio};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    if (*v == "noop") job.cpuio.mode = CpuioOptions::Mode::kNoop;
    else if (*v == "qsort") job.cpuio.mode = CpuioOptions::Mode::kQsort;
    else return FioValueError("expected noop or qsort, got " + QuoteInput(*v));
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.cpuio.mode != DefaultJob().cpuio.mode)
      out.push_back({std::string(n), job.cpuio.mode == CpuioOptions::Mode::kQsort ? "qsort" : "noop"});
  };
  s.help =
      "cpuio: noop (default) spins for cpuchunks; qsort sorts 1 MiB of integers four ways per "
      "burn, the pause after it sized from the burn's own length";
  return s;
}

FioOptionSpec StatTypeOption() {
  FioOptionSpec s;
  s.name = "stat_type";
  s.engines = {IoEngine::kFilestat};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    if (*v == "stat") job.stat_type = StatType::kStat;
    else if (*v == "lstat") job.stat_type = StatType::kLstat;
    else if (*v == "statx") job.stat_type = StatType::kStatx;
    else return FioValueError("expected stat, lstat or statx, got " + QuoteInput(*v));
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.stat_type == StatType::kLstat) out.push_back({std::string(n), "lstat"});
    if (job.stat_type == StatType::kStatx) out.push_back({std::string(n), "statx"});
  };
  s.help = "filestat: the call timed per file: stat (default), lstat or statx";
  return s;
}

}  // namespace

std::vector<FioOptionSpec> WorkEngineOptions() {
  std::vector<FioOptionSpec> v;
  v.push_back(EngineUint<&JobOptions::cpuio, &CpuioOptions::load, 0, UINT32_MAX>(
      "cpuload", IoEngine::kCpuio,
      "cpuio: the percentage of a CPU to keep busy (required; above 100 is 100)"));
  v.push_back(CpuChunks());
  v.push_back(CpuMode());
  v.push_back(EngineBool<&JobOptions::cpuio, &CpuioOptions::exit_on_io_done>(
      "exit_on_io_done", IoEngine::kCpuio,
      "cpuio: 1: the job ends once every job that does I/O (of any group) is done"));
  v.push_back(EngineString<&JobOptions::exec, &ExecOptions::program>(
      "program", IoEngine::kExec, "exec: the program to run beside the job (required)"));
  v.push_back(EngineString<&JobOptions::exec, &ExecOptions::arguments>(
      "arguments", IoEngine::kExec,
      "exec: the program's arguments, split at spaces; %r is the runtime in seconds, %n the "
      "job's name"));
  v.push_back(EngineUint<&JobOptions::exec, &ExecOptions::grace_time, 0, INT32_MAX>(
      "grace_time", IoEngine::kExec,
      "exec: seconds between SIGTERM at the runtime's end and SIGKILL (default 1)"));
  v.push_back(EngineBool<&JobOptions::exec, &ExecOptions::std_redirect>(
      "std_redirect", IoEngine::kExec,
      "exec: 1 (default): the program's stdout and stderr to JOB.stdout and JOB.stderr"));
  v.push_back(StatTypeOption());
  return v;
}

}  // namespace blk::bench
