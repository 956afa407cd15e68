#include "tools/block_bench/cli/run_command.h"

#include <cstdio>
#include <optional>

#include "tools/block_bench/cli/headers.h"
#include "tools/block_bench/cli/outputs.h"
#include "tools/block_bench/cli/progress.h"
#include "tools/block_bench/cli/rank_finish.h"
#include "tools/block_bench/cli/ranks.h"
#include "tools/block_bench/cli/reports.h"
#include "tools/block_bench/cli/run_status.h"
#include "tools/block_bench/cli/signals.h"
#include "tools/block_bench/jobfile/cmdline.h"
#include "tools/block_bench/jobfile/render.h"
#include "tools/block_bench/report/report.h"
#include "tools/block_bench/run/runner.h"
#include "tools/block_bench/run/stop.h"
#include "tools/block_bench/trace/blktrace_merge.h"
#include <blkstack/util/clock.h>

namespace blk::bench::cli {
namespace {

// --debug=parse: each job's options as parsed (those not at their default,
// in RenderJobArgs' form), and the lines fio's option parsers print of
// their own (steadystate's threshold).
void SayParsed(const DebugLog& debug, const std::vector<JobOptions>& jobs) {
  if (!debug.on(DebugCategory::kParse)) return;
  for (const JobOptions& j : jobs) {
    for (const std::string& a : RenderJobArgs(j)) {
      const std::string s = a.substr(a.rfind("--", 0) == 0 ? 2 : 0);
      const size_t eq = s.find('=');
      if (s == "name=" || s == "name") continue;  // the global options' (no job)
      debug.print(DebugCategory::kParse, "handle_option=%s, ptr=%s", s.substr(0, eq).c_str(),
                  eq == std::string::npos ? "" : s.substr(eq + 1).c_str());
    }
    if (j.ss != SteadyState{}) {
      if (j.ss.pct)
        debug.print(DebugCategory::kParse, "set steady state threshold to %f%%", j.ss.limit);
      else if (j.ss.metric == SteadyMetric::kIops)
        debug.print(DebugCategory::kParse, "set steady state IOPS threshold to %f", j.ss.limit);
      else
        debug.print(DebugCategory::kParse, "set steady state %s threshold to %llu",
                    j.ss.metric == SteadyMetric::kBw ? "BW" : "latency",
                    (unsigned long long)j.ss.limit);
    }
  }
}

// --help, --version, --cmdhelp, --showcmd, --inflate-log and --parse-only: the exit status
// once answered; nullopt when the jobs are to run.
std::optional<int> AnswerWithoutRunning(const CommandLine& cl) {
  const ToolFlags& flags = cl.flags;
  if (flags.help) {
    std::fputs(UsageText("block-bench").c_str(), stdout);
    return 0;
  }
  if (flags.version) {
    std::printf("%s\n", kBenchVersion);
    return 0;
  }
  if (flags.cmdhelp) {
    bool all_known = true;
    std::fputs(CmdHelp(*flags.cmdhelp, &all_known).c_str(), stdout);
    return all_known ? 0 : 1;
  }
  if (flags.showcmd) {
    std::printf("%s\n", ShowCommand(cl.jobs).c_str());
    return 0;
  }
  if (flags.debug_list) {
    std::printf("block-bench: dumping debug options:%s\n", DebugCategoryList().c_str());
    return 0;
  }
  if (flags.inflate_log) {
    Expected<void> r = InflateLog(*flags.inflate_log, stdout);
    if (r.ok()) return 0;
    std::fprintf(stderr, "block-bench: --inflate-log: %s\n", r.error().message.c_str());
    return 1;
  }
  if (flags.parse_only) {
    // fio's dry run: the options parsed, with --debug=parse's lines (of the
    // global options when there is no job).
    for (const std::string& m : flags.debug.unknown)
      std::fprintf(stderr, "block-bench: debug mask %s not found\n", m.c_str());
    const DebugLog debug(stdout, flags.debug.mask);
    SayParsed(debug, cl.jobs.empty() ? std::vector<JobOptions>{cl.globals} : cl.jobs);
    return 0;
  }
  return std::nullopt;
}

// fio's merge phase: each job with merge_blktrace_file merges its
// read_iolog blktrace files into it and replays the merge instead.  Under
// MPI every rank writes the same bytes (through a rename: never a partial
// file).
Expected<void> MergeBlktraces(std::vector<JobOptions>& jobs) {
  for (JobOptions& job : jobs) {
    if (job.merge_blktrace_file.empty()) continue;
    if (job.read_iolog.empty())
      return MakeError(-EINVAL, "job '" + job.name + "': merge_blktrace_file=" +
                                    job.merge_blktrace_file + " needs read_iolog's blktrace files");
    Expected<uint64_t> n = trace::MergeBlktraceFiles(
        job.read_iolog, job.merge_blktrace_scalars, job.merge_blktrace_iters,
        job.merge_blktrace_file, job.trace_max_size);
    if (!n.ok()) return MakeError(n.error().code, "job '" + job.name + "': " + n.error().message);
    job.read_iolog = {job.merge_blktrace_file};
  }
  return {};
}

// The run's options: MPI, the progress line and --status-interval reports
// (on the same stream as the progress line, which is erased first).
// `progress`, `outputs` and `debug` must outlive the run.
RunOptions RunOptionsFor(Ranks& ranks, const StopSource& stop, const ToolFlags& flags,
                         const Outputs& outputs, ProgressLine& progress, const DebugLog* debug) {
  RunOptions ro;
  ro.stop = &stop;
  ro.debug = debug;
  ro.max_memory = flags.max_memory;
  ro.aux_path = flags.aux_path;
  if (ranks.multi()) {
    ro.sync = ranks.session();
    ro.seed_salt = uint64_t(ranks.rank());
    ro.file_tag = ".rank" + std::to_string(ranks.rank());
  }
  // fio's informational lines ("Laying out IO file"): with the header, in
  // the normal format only.
  if (WantsNormal(flags.output_formats) && !outputs.json_on_stdout && ranks.lead())
    ro.info = outputs.out;
  if (outputs.progress)
    ro.on_progress = [&progress](const ProgressSnapshot& p) { progress.Show(p, NowNs()); };
  if (flags.status_interval_ms && ranks.multi() && ranks.lead()) {
    std::fprintf(stderr, "block-bench: --status-interval is not supported across MPI ranks (each "
                 "status would need every rank's results): only the final report is printed\n");
  }
  if (flags.status_interval_ms && !ranks.multi()) {
    // fio's --status-interval: the full report so far, in the output formats,
    // before the final one.
    ro.status_interval_ns = flags.status_interval_ms * 1'000'000;
    ro.on_status = [&flags, &outputs, &progress](const RunResult& now) {
      progress.Erase();
      WriteReports(flags, outputs.out, outputs.json_on_stdout,
                   [&] { return TextReport(now, flags.blkstack_counters); },
                   [&](bool plus) { return JsonReport(now, plus); });
      std::fflush(outputs.out);
    };
  }
  return ro;
}

// The end of a run of one process: its errors, logs and reports.
int FinishRun(const RunResult& rr, const ToolFlags& flags, const Outputs& outputs) {
  if (rr.setup_error) {
    std::fprintf(stderr, "block-bench: %s\n", rr.setup_error->message.c_str());
    return 1;
  }
  int status = rr.failed() ? 1 : 0;
  if (flags.bandwidth_log && !WriteBandwidthLog(rr)) status = 1;
  for (const std::string& line : CloneErrors(rr, ""))
    std::fprintf(stderr, "block-bench: %s\n", line.c_str());
  if (rr.interrupted_by) {
    PrintInterrupted(rr.interrupted_by);
    status = InterruptedStatus(rr.interrupted_by);
  }
  if (!WriteJobLogs(rr, "", "")) status = 1;
  return PrintReports(
      flags, outputs.out, outputs.json_on_stdout, status,
      [&] { return TextReport(rr, flags.blkstack_counters); },
      [&](bool plus) { return JsonReport(rr, plus); });
}

// Everything after the set-up: headers, the run, its end.
int RunAndFinish(Ranks& ranks, const CommandLine& cl, FILE* out) {
  const ToolFlags& flags = cl.flags;
  const Outputs outputs = ChooseOutputs(flags, out, ranks.multi());
  // fio's --debug: on the output, whatever the format (as fio's).
  for (const std::string& m : flags.debug.unknown)
    std::fprintf(stderr, "block-bench: debug mask %s not found\n", m.c_str());
  const DebugLog debug(out, flags.debug.mask);
  SayParsed(debug, cl.jobs);
  if (WantsNormal(flags.output_formats) && !outputs.json_on_stdout && ranks.lead()) {
    std::fputs(RunHeaders(cl.jobs, ranks.size()).c_str(), out);
    std::fflush(out);
  }
  // Static: a signal may still arrive after main returns.
  static StopSource stop;
  StopOnSignals(&stop);
  ProgressLine progress(outputs.progress_stream, flags.eta_newline_ms);
  const RunResult rr =
      RunJobs(cl.jobs, RunOptionsFor(ranks, stop, flags, outputs, progress, &debug));
  progress.Finish();
  if (ranks.multi())
    return FinishAcrossRanks(*ranks.session(), cl.jobs, rr, flags, out, outputs.json_on_stdout);
  return FinishRun(rr, flags, outputs);
}

}  // namespace

int RunJobsMain(int* argc, char*** argv, const std::vector<std::string>& args) {
  // Under mpirun/srun: one rank of a multi-host run.  MPI starts here,
  // before any thread; without a launcher no MPI call.
  auto started = Ranks::Start(argc, argv);
  if (!started) {
    std::fprintf(stderr, "block-bench: MPI: %s\n", started.error().message.c_str());
    return 1;
  }
  Ranks& ranks = *started;
  auto cl = ParseCommandLine(args, ranks.Environment());
  // Ranks may differ (${RANK} in a value): all of them stop if one cannot parse.
  if (ranks.AnyRank(!cl.ok())) {
    if (!cl.ok())
      std::fprintf(stderr, "block-bench: %s%s\n", ranks.me().c_str(), cl.error().message.c_str());
    return 1;
  }
  if (const auto answered = AnswerWithoutRunning(*cl)) return *answered;
  // fio's own warnings about a job (standard error), fatal with
  // --warnings-fatal as fio's.
  bool warned = false;
  for (const JobOptions& job : cl->jobs) {
    for (const std::string& w : FioWarnings(job)) {
      if (ranks.lead())
        std::fprintf(stderr, "block-bench: job '%s': %s (as fio)\n", job.name.c_str(), w.c_str());
      warned = true;
    }
  }
  if (warned && cl->flags.warnings_fatal) return 1;
  // Under MPI a rank that cannot run must not leave the others waiting in a
  // collective: the ranks agree below, after every local check.
  bool cannot_run = false;
  if (const Expected<void> merged = MergeBlktraces(cl->jobs); !merged.ok()) {
    std::fprintf(stderr, "block-bench: %s%s\n", ranks.me().c_str(), merged.error().message.c_str());
    if (!ranks.multi()) return 1;
    cannot_run = true;
  }
  if (cl->flags.merge_blktrace_only) return ranks.AnyRank(cannot_run) ? 1 : 0;
  FILE* out = OpenReportStream(cl->flags, ranks.lead());
  if (!out) {
    if (!ranks.multi()) return 1;
    cannot_run = true;
    out = stdout;
  }
  if (!AgreeToRun(ranks, cannot_run, cl->jobs)) return 1;
  return RunAndFinish(ranks, *cl, out);
}

}  // namespace blk::bench::cli
