// block-bench: a fio-compatible benchmark for blkstack driver graphs.
//
//   block-bench [--output=FILE] [--output-format=normal|json|json+] [--eta=...]
//               [--opt=value ...] [--name=job ...] [jobfile ...]
//   block-bench compare [options] BASE NEW          (verdict/cli.h)
//   block-bench ab [options] A B [--] job args...   (verdict/cli.h)
//   block-bench plot [--output=F.svg] FILE...       (plot/plot.h)
//   block-bench --trace-info FILE [--trace-format=NAME] [--trace-device=DEV]
//               [--output-format=normal|json]       (trace/info.h)
//
// "compare", "ab" and "plot" are subcommands only as the first argument (a
// job file of that name is given as ./compare).
// Parsing is tools/block_bench/jobfile/cmdline.h; running run/runner.h; reports
// report/report.h.  With a JSON format, standard output carries only the
// JSON document: every message goes to standard error.
// Exit status (compare and ab: see verdict/cli.h):
//   0        every job finished cleanly;
//   1        a parse error, a run that cannot start (resource limits), an
//            unopenable target, or any I/O or verify error, also one that
//            continue_on_error went past (as fio);
//   128+N    interrupted by signal N (130: SIGINT, 143: SIGTERM); the report
//            of what ran is printed first.  A second SIGINT/SIGTERM exits at
//            once with the same status and no report.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tools/block_bench/jobfile/cmdline.h"
#include "tools/block_bench/mpi/mpi_session.h"
#include "tools/block_bench/jobfile/parse_env.h"
#include "tools/block_bench/jobfile/render.h"
#include "tools/block_bench/report/report.h"
#include "tools/block_bench/report/terse.h"
#include "tools/block_bench/run/result_codec.h"
#include "tools/block_bench/run/runner.h"
#include "tools/block_bench/run/stop.h"
#include "tools/block_bench/run/target.h"
#include "tools/block_bench/plot/plot.h"
#include "tools/block_bench/trace/info.h"
#include "tools/block_bench/verdict/cli.h"
#include "util/clock.h"

namespace blk::bench {
namespace {

// The one object the signal handler can reach (a handler takes no context).
StopSource* g_stop = nullptr;

void OnSignal(int sig) {
  // Only async-signal-safe calls here: StopSource::request, write, _exit.
  const bool again = g_stop->request(sig) > 1;
  const char* msg = again ? "\nblock-bench: interrupted again: exiting now\n"
                    : sig == SIGTERM
                        ? "\nblock-bench: SIGTERM: stopping the jobs (again to exit at once)\n"
                        : "\nblock-bench: SIGINT: stopping the jobs (again to exit at once)\n";
  ssize_t r = write(STDERR_FILENO, msg, strlen(msg));
  (void)r;
  if (again) _exit(128 + sig);
}

std::string Header(const JobOptions& j, int groupid) {
  auto bs = [&](int d) {
    return std::to_string(j.bs[d].min) + "B-" + std::to_string(j.bs[d].max) + "B";
  };
  std::string engine = j.blockdev.empty() ? std::string(Name(j.ioengine)) : "blockdev";
  // Say what really runs (run/target.h).
  if (const auto sub = SubstitutedEngine(j)) {
    engine = sub->used + " (" + engine + " asked" + (j.direct ? "" : ", direct=0") + ")";
  }
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s: (g=%d): rw=%s, bs=(R) %s, (W) %s, (T) %s, ioengine=%s, iodepth=%u\n",
                j.name.c_str(), groupid, std::string(Name(j.rw)).c_str(), bs(0).c_str(),
                bs(1).c_str(), bs(2).c_str(), engine.c_str(), j.iodepth);
  return buf;
}

std::string Eta(double s) {
  long t = long(s + 0.5);
  char buf[64];
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%02ldh:%02ldm:%02lds", t / 3600, (t / 60) % 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%02ldm:%02lds", t / 60, t % 60);
  return buf;
}

std::string LocalHostname() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return "localhost";
  return host;
}

// What went wrong in `rr`, one line per problem; `who`: "" or "rank R
// (host): ".
std::vector<std::string> CloneErrors(const RunResult& rr, const std::string& who) {
  std::vector<std::string> lines;
  for (const CloneResult& c : rr.clones) {
    auto say = [&](const std::string& what) {
      lines.push_back(who + "job '" + c.job->name + "' (clone " + std::to_string(c.clone) +
                      "): " + what);
    };
    if (c.error) say(c.error_message);
    if (c.total_errors > (c.error ? 1u : 0u)) {
      say(std::to_string(c.total_errors) + " failed request" + (c.total_errors == 1 ? "" : "s") +
          (c.error ? " in all" : " (continue_on_error went past them)") +
          "; the first: " + c.first_error_message);
    }
    if (c.verify_not_verified) {
      say(std::to_string(c.verify_not_verified) + " written block" +
          (c.verify_not_verified == 1 ? " was" : "s were") + " never verified (" +
          (c.interrupted ? "interrupted"
                         : "failed writes, writes that overlapped in flight, or an earlier error") +
          ")");
    }
  }
  return lines;
}

void PrintInterrupted(int by) {
  const int sig = by > 0 ? by : SIGINT;
  std::fprintf(stderr, "block-bench: interrupted by %s: the jobs stopped early; the report "
               "covers what ran\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
}

// Writes the reports --output-format asks for, from `text` (fio's text) and
// `json(plus)` (JSON or JSON+; terse lines are made from its "jobs").  With
// JSON on stdout the text goes to stderr.
void WriteReports(const ToolFlags& flags, FILE* out, bool json_on_stdout,
                  const std::function<std::string()>& text,
                  const std::function<nlohmann::ordered_json(bool plus)>& json) {
  for (OutputFormat f : flags.output_formats) {
    if (f == OutputFormat::kNormal) {
      if (json_on_stdout) {
        // Keep stdout pure JSON: the text report goes to stderr.
        std::fputs(text().c_str(), stderr);
      } else {
        std::fputs("\n", out);
        std::fputs(text().c_str(), out);
      }
    } else if (f == OutputFormat::kTerse) {
      std::fputs(TerseReport(json(false), flags.terse_version).c_str(), out);
    } else {
      std::string doc = json(f == OutputFormat::kJsonPlus)
                            .dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
      std::fputs(doc.c_str(), out);
      std::fputs("\n", out);
    }
  }
}

// WriteReports, then flushes and closes `out`.  Returns `status`, or 1 when
// the output cannot be written.
int PrintReports(const ToolFlags& flags, FILE* out, bool json_on_stdout, int status,
                 const std::function<std::string()>& text,
                 const std::function<nlohmann::ordered_json(bool plus)>& json) {
  WriteReports(flags, out, json_on_stdout, text, json);
  if (std::fflush(out) != 0 || (out != stdout && std::fclose(out) != 0)) {
    std::fprintf(stderr, "block-bench: writing output: %s\n", std::strerror(errno));
    status = 1;
  }
  return status;
}

int ReportAcrossRanks(mpi::MpiSession& session, const std::vector<JobOptions>& jobs,
                      const std::vector<std::string>& all, const ToolFlags& flags, FILE* out,
                      bool json_on_stdout);

// What the ranks of an MPI run must agree on: the jobs' count and the
// options that set the order of the collectives (segments, clones, ramps)
// and the report's units.
uint64_t JobShape(const std::vector<JobOptions>& jobs) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the fields
  auto add = [&h](uint64_t v) {
    for (int i = 0; i < 8; i++) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  add(jobs.size());
  for (const JobOptions& j : jobs) {
    add(j.numjobs);
    add(j.stonewall);
    add(j.new_group);
    add(j.group_reporting);
    add(uint64_t(j.ramp_time.count()));
  }
  return h;
}

// The end of an MPI run (more than one rank): every rank writes its own
// logs (".rankR" after the prefix) and sends its results to rank 0, which
// prints every error (naming the rank) and the one merged report.  Returns
// the exit status, the same on every rank: the worst of them.
int FinishAcrossRanks(mpi::MpiSession& session, const std::vector<JobOptions>& jobs,
                      const RunResult& rr, const ToolFlags& flags, FILE* out,
                      bool json_on_stdout) {
  const std::string me = session.who(session.rank()) + ": ";
  int status = rr.failed() ? 1 : 0;
  if (rr.interrupted_by) status = 128 + (rr.interrupted_by > 0 ? rr.interrupted_by : SIGINT);
  if (auto w = WriteLogs(rr, ".rank" + std::to_string(session.rank())); !w.ok()) {
    std::fprintf(stderr, "block-bench: %swriting logs: %s\n", me.c_str(), w.error().message.c_str());
    status = 1;
  }
  const std::vector<std::string> all = session.gather(EncodeRun(rr));
  // The last collective comes after rank 0 printed: mpirun ends the whole
  // job as soon as one rank exits non-zero.
  if (session.rank() != 0) return session.max(status);
  status = std::max(status, ReportAcrossRanks(session, jobs, all, flags, out, json_on_stdout));
  return session.max(status);
}

// Rank 0's part of FinishAcrossRanks: decode, print errors and the report.
int ReportAcrossRanks(mpi::MpiSession& session, const std::vector<JobOptions>& jobs,
                      const std::vector<std::string>& all, const ToolFlags& flags, FILE* out,
                      bool json_on_stdout) {
  int status = 0;
  std::vector<ClientRun> clients;
  for (int r = 0; r < int(all.size()); r++) {
    auto run = DecodeRun(all[size_t(r)], jobs);
    if (!run.ok()) {
      std::fprintf(stderr, "block-bench: %s: %s\n", session.who(r).c_str(),
                   run.error().message.c_str());
      return 1;
    }
    clients.push_back(ClientRun{r, session.hostname_of(r), std::move(*run)});
  }
  // Every rank knows of a failure before the I/O (the ranks' sync_error
  // repeat the failing rank's own error): each line once.
  std::set<std::string> said;
  auto say = [&](const std::string& line) {
    if (said.insert(line).second) std::fprintf(stderr, "block-bench: %s\n", line.c_str());
  };
  bool any_ran = false;
  int interrupted_by = 0;
  for (const ClientRun& c : clients) {
    const std::string who = session.who(c.rank) + ": ";
    if (c.run.setup_error) say(who + c.run.setup_error->message);
    for (const std::string& line : CloneErrors(c.run, who)) say(line);
    if (!interrupted_by) interrupted_by = c.run.interrupted_by;
    for (const CloneResult& k : c.run.clones) any_ran = any_ran || !k.not_run;
  }
  for (const ClientRun& c : clients)
    if (c.run.sync_error) say(c.run.sync_error->message);
  if (interrupted_by) PrintInterrupted(interrupted_by);
  if (!any_ran) return status;
  if (flags.bandwidth_log) {
    RunResult every;  // the clones of all ranks: their samples add up
    for (const ClientRun& c : clients)
      every.clones.insert(every.clones.end(), c.run.clones.begin(), c.run.clones.end());
    if (auto w = WriteAggregateBwLogs(every, "."); !w.ok()) {
      std::fprintf(stderr, "block-bench: --bandwidth-log: %s\n", w.error().message.c_str());
      status = 1;
    }
  }
  return PrintReports(
      flags, out, json_on_stdout, status,
      [&] { return ClientsTextReport(clients, flags.blkstack_counters); },
      [&](bool plus) { return ClientsJsonReport(clients, plus); });
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "compare" || args[0] == "ab" || args[0] == "plot")) {
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "compare") return verdict::CompareMain(rest);
    if (args[0] == "plot") return plot::PlotMain(rest);
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
      std::fprintf(stderr, "block-bench ab: /proc/self/exe: %s\n", std::strerror(errno));
      return 125;
    }
    self[n] = '\0';
    return verdict::AbMain(rest, self);
  }
  if (trace::IsTraceInfoCommand(args)) return trace::TraceInfoMain(args);
  // Under mpirun/srun: one rank of a multi-host run (mpi/mpi_session.h).
  // MPI starts here, before any thread; without a launcher no MPI call.
  std::unique_ptr<mpi::MpiSession> session;
  if (mpi::MpiSession::Launched()) {
    auto s = mpi::MpiSession::Create(&argc, &argv);
    if (!s.ok()) {
      std::fprintf(stderr, "block-bench: MPI: %s\n", s.error().message.c_str());
      return 1;
    }
    session = std::move(*s);
  }
  const bool multi = session && session->size() > 1;
  const bool lead = !multi || session->rank() == 0;  // prints headers and the report
  const std::string me = multi ? session->who(session->rank()) + ": " : "";
  ParseEnvironment env = WithRankVariables(
      ParseEnvironment::FromSystem(), session ? session->rank() : 0, session ? session->size() : 1,
      session ? session->hostname() : LocalHostname(), session != nullptr);
  auto cl = ParseCommandLine(args, env);
  // Ranks may differ (${RANK} in a value): all of them stop if one cannot parse.
  const bool parse_failed = multi ? session->max(cl.ok() ? 0 : 1) != 0 : !cl.ok();
  if (parse_failed) {
    if (!cl.ok()) std::fprintf(stderr, "block-bench: %s%s\n", me.c_str(), cl.error().message.c_str());
    return 1;
  }
  const ToolFlags& flags = cl->flags;
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
    std::printf("%s\n", ShowCommand(cl->jobs).c_str());
    return 0;
  }
  if (flags.parse_only) return 0;
  int warnings = 0;
  for (const JobOptions& j : cl->jobs) {
    if (const auto sub = SubstitutedEngine(j)) {
      warnings++;
      std::fprintf(stderr, "block-bench: job '%s': ioengine=%s%s runs on %s: %s\n", j.name.c_str(),
                   std::string(Name(j.ioengine)).c_str(), j.direct ? "" : " with direct=0",
                   "the thread pool (aio=threads)",
                   sub->why.c_str());
    }
    if (j.read_iolog_chunked && !j.read_iolog.empty()) {
      warnings++;
      std::fprintf(stderr,
                   "block-bench: job '%s': read_iolog_chunked: the trace is read whole (24 bytes "
                   "per record); the replay is the same\n",
                   j.name.c_str());
    }
    if (j.log_compression) {
      warnings++;
      std::fprintf(stderr,
                   "block-bench: job '%s': log_compression: the logs are kept uncompressed in "
                   "memory; the log files are the same\n",
                   j.name.c_str());
    }
  }
  // Under MPI a rank that cannot run must not leave the others waiting in a
  // collective: the ranks agree below, after every local check.
  bool cannot_run = false;
  if (warnings && flags.warnings_fatal) {
    std::fprintf(stderr, "block-bench: %s--warnings-fatal: %d warning%s above, not running\n",
                 me.c_str(), warnings, warnings == 1 ? "" : "s");
    if (!multi) return 1;
    cannot_run = true;
  }

  bool want_json = false, want_normal = false;
  for (OutputFormat f : flags.output_formats) {
    if (f == OutputFormat::kNormal) want_normal = true;
    else if (f != OutputFormat::kTerse) want_json = true;
  }
  FILE* out = stdout;
  if (!flags.output.empty() && lead) {
    out = std::fopen(flags.output.c_str(), "w");
    if (!out) {
      std::fprintf(stderr, "block-bench: --output=%s: %s\n", flags.output.c_str(),
                   std::strerror(errno));
      if (!multi) return 1;
      cannot_run = true;
      out = stdout;
    }
  }
  if (multi) {
    if (session->max(cannot_run ? 1 : 0)) return 1;  // the rank said why
    // The ranks must run the same segments, clones and ramps (their
    // collectives follow them): ${RANK} or a host's environment may not
    // change those.
    if (!session->same(JobShape(cl->jobs))) {
      if (lead)
        std::fprintf(stderr, "block-bench: the ranks' jobs differ in number, numjobs, stonewall, "
                     "ramp_time or group_reporting (from ${RANK}, ${HOSTNAME} or the environment): "
                     "every rank must run the same jobs\n");
      return 1;
    }
  }
  const bool json_on_stdout = want_json && out == stdout;
  // Progress: on a terminal, like fio's ETA line; stderr when stdout is JSON.
  FILE* prog = json_on_stdout ? stderr : stdout;
  bool progress = flags.eta == EtaMode::kAlways ||
                  (flags.eta == EtaMode::kAuto && isatty(fileno(prog)) && out == stdout);
  if (flags.eta == EtaMode::kAuto && json_on_stdout) progress = false;
  if (multi) progress = false;  // one rank's progress would read as the run's

  std::vector<int> groups = GroupIds(cl->jobs);
  if (want_normal && !json_on_stdout && lead) {
    for (size_t i = 0; i < cl->jobs.size(); i++)
      if (i == 0 || cl->jobs[i].name != cl->jobs[i - 1].name) {
        std::fputs(Header(cl->jobs[i], groups[i]).c_str(), out);
        if (cl->jobs[i].numjobs > 1) std::fputs("...\n", out);  // fio's line for clones
      }
    uint32_t n = 0;
    for (auto& j : cl->jobs) n += std::max<uint32_t>(1, j.numjobs);
    if (multi)
      std::fprintf(out, "%s\nStarting %u thread%s on each of %d ranks\n", kBenchVersion, n,
                   n == 1 ? "" : "s", session->size());
    else
      std::fprintf(out, "%s\nStarting %u thread%s\n", kBenchVersion, n, n == 1 ? "" : "s");
    std::fflush(out);
  }

  // Static: a signal may still arrive after Main returns.
  static StopSource stop;
  g_stop = &stop;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  RunOptions ro;
  ro.stop = &stop;
  if (multi) {
    ro.sync = session.get();
    ro.seed_salt = uint64_t(session->rank());
    ro.file_tag = ".rank" + std::to_string(session->rank());
  }
  size_t last_len = 0;
  int64_t last_newline = 0;
  if (progress) {
    ro.on_progress = [&](const ProgressSnapshot& p) {
      std::string bw, io;
      const char* dn[] = {"r", "w", "t"};
      for (int d = 0; d < kNumDirs; d++) {
        if (p.iops[d] <= 0) continue;
        bw += std::string(bw.empty() ? "" : ",") + dn[d] + "=" +
              NumToStr(uint64_t(p.bw_bytes[d]), 4, true, "B/s");
        io += std::string(io.empty() ? "" : ",") + dn[d] + "=" + NumToStr(uint64_t(p.iops[d]), 4, false);
      }
      char buf[512];
      std::snprintf(buf, sizeof buf, "Jobs: %d (f=%d): [%s][%.1f%%][%s][%s IOPS][eta %s]",
                    p.running, p.running, p.modes.c_str(), p.percent, bw.c_str(), io.c_str(),
                    Eta(p.eta_s).c_str());
      std::string line = buf;
      size_t len = line.size();
      if (len < last_len) line += std::string(last_len - len, ' ');
      last_len = len;
      // --eta-newline: keep a line every so often (fio's behaviour).
      const int64_t now = NowNs();
      if (flags.eta_newline_ms && now - last_newline >= flags.eta_newline_ms * 1'000'000) {
        if (last_newline) std::fputc('\n', prog);
        last_newline = now;
      }
      std::fprintf(prog, "\r%s", line.c_str());
      std::fflush(prog);
    };
  }
  if (flags.status_interval_ms && multi && lead) {
    std::fprintf(stderr, "block-bench: --status-interval is not supported across MPI ranks (each "
                 "status would need every rank's results): only the final report is printed\n");
  }
  if (flags.status_interval_ms && !multi) {
    // fio's --status-interval: the full report so far, in the output formats,
    // before the final one.
    ro.status_interval_ns = flags.status_interval_ms * 1'000'000;
    ro.on_status = [&](const RunResult& now) {
      if (progress && last_len) {
        std::fprintf(prog, "\r%s\r", std::string(last_len, ' ').c_str());
        last_len = 0;
      }
      WriteReports(flags, out, json_on_stdout,
                   [&] { return TextReport(now, flags.blkstack_counters); },
                   [&](bool plus) { return JsonReport(now, plus); });
      std::fflush(out);
    };
  }
  RunResult rr = RunJobs(cl->jobs, ro);
  if (progress && last_len) {
    std::fprintf(prog, "\r%s\r", std::string(last_len, ' ').c_str());
    std::fflush(prog);
  }

  if (multi) return FinishAcrossRanks(*session, cl->jobs, rr, flags, out, json_on_stdout);
  if (rr.setup_error) {
    std::fprintf(stderr, "block-bench: %s\n", rr.setup_error->message.c_str());
    return 1;
  }
  int status = rr.failed() ? 1 : 0;
  if (flags.bandwidth_log) {
    if (auto w = WriteAggregateBwLogs(rr, "."); !w.ok()) {
      std::fprintf(stderr, "block-bench: --bandwidth-log: %s\n", w.error().message.c_str());
      status = 1;
    }
  }
  for (const std::string& line : CloneErrors(rr, ""))
    std::fprintf(stderr, "block-bench: %s\n", line.c_str());
  if (rr.interrupted_by) {
    PrintInterrupted(rr.interrupted_by);
    status = 128 + (rr.interrupted_by > 0 ? rr.interrupted_by : SIGINT);
  }
  if (auto w = WriteLogs(rr); !w.ok()) {
    std::fprintf(stderr, "block-bench: writing logs: %s\n", w.error().message.c_str());
    status = 1;
  }
  return PrintReports(
      flags, out, json_on_stdout, status, [&] { return TextReport(rr, flags.blkstack_counters); },
      [&](bool plus) { return JsonReport(rr, plus); });
}

}  // namespace
}  // namespace blk::bench

int main(int argc, char** argv) { return blk::bench::Main(argc, argv); }
