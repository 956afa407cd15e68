#include "tools/block_bench/verdict/cli.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>

#include "tools/block_bench/plot/plot.h"
#include "tools/block_bench/verdict/verdict.h"
#include <blkstack/util/quote.h>

namespace blk::bench::verdict {
namespace {

constexpr int kExitError = 125;  // usage and run errors: git bisect "skip"

int Fail(const char* cmd, const std::string& msg) {
  std::fprintf(stderr, "block-bench %s: %s\n", cmd, msg.c_str());
  return kExitError;
}

// "--name=value" -> value, if arg has that name.
std::optional<std::string> Value(const std::string& arg, const char* name) {
  const std::string prefix = std::string("--") + name + "=";
  if (arg.compare(0, prefix.size(), prefix) == 0) return arg.substr(prefix.size());
  return std::nullopt;
}

// "5%", "5" (both percent) or "0.5%"; in (lo, hi) percent.
Expected<double> ParsePercent(const char* name, const std::string& v, double lo, double hi) {
  std::string s = v;
  if (!s.empty() && s.back() == '%') s.pop_back();
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || errno != 0 || !std::isfinite(x) || x <= lo || x >= hi) {
    char range[64];
    std::snprintf(range, sizeof range, "a percentage above %g and below %g", lo, hi);
    return Error{-EINVAL, std::string("--") + name + ": expected " + range + " (e.g. 5%), got " +
                              QuoteInput(v)};
  }
  return x / 100;
}

Expected<long> ParseCount(const char* name, const std::string& v, long lo, long hi) {
  char* end = nullptr;
  errno = 0;
  const long x = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0 || x < lo || x > hi)
    return Error{-EINVAL, std::string("--") + name + ": expected a whole number from " +
                              std::to_string(lo) + " to " + std::to_string(hi) + ", got " +
                              QuoteInput(v)};
  return x;
}

// The options compare and ab share.  Returns true when `arg` was one.
struct Common {
  CompareOptions cmp;
  bool json = false;
  bool help = false;
  std::string plot;  // --plot=FILE.svg

  Expected<bool> Take(const std::string& arg) {
    if (arg == "--help" || arg == "-h") return help = true;
    if (auto v = Value(arg, "metric")) {
      if (*v == "auto") {
        cmp.metrics.clear();
        return true;
      }
      auto m = ParseMetrics(*v);
      if (!m) return Error{-EINVAL, "--metric: " + m.error().message};
      cmp.metrics = *m;
      return true;
    }
    if (auto v = Value(arg, "threshold")) {
      auto x = ParsePercent("threshold", *v, 0, 100);
      if (!x) return x.error();
      cmp.threshold = *x;
      return true;
    }
    if (auto v = Value(arg, "confidence")) {
      auto x = ParsePercent("confidence", *v, 50, 100);
      if (!x) return x.error();
      cmp.confidence = *x;
      return true;
    }
    if (auto v = Value(arg, "min-runs")) {
      auto x = ParseCount("min-runs", *v, 2, 1000);
      if (!x) return x.error();
      cmp.min_runs = int(*x);
      return true;
    }
    if (auto v = Value(arg, "plot")) {
      if (v->empty()) return Error{-EINVAL, "--plot: expected a file name"};
      plot = *v;
      return true;
    }
    if (auto v = Value(arg, "output-format")) {
      if (*v == "normal") json = false;
      else if (*v == "json") json = true;
      else return Error{-EINVAL, "--output-format: expected normal or json, got " + QuoteInput(*v)};
      return true;
    }
    return false;
  }
};

const char* kCommonHelp =
    "  --metric=LIST        deciding metrics, comma-separated: iops, bw, mean, p50,\n"
    "                       p99, p99.9 (clat), sched_p50, sched_p99; all are shown.\n"
    "                       Default (or auto): by run-to-run spread (IQR/median),\n"
    "                       the first of sched_p99, sched_p50 (paced jobs), p99,\n"
    "                       p50 whose spread is at most 2x the band, else the\n"
    "                       least noisy; a note says which and why.  A named\n"
    "                       metric too noisy to decide gets a note naming one\n"
    "                       that is not\n"
    "  --threshold=PCT      noise band: a change whose whole confidence interval\n"
    "                       lies within +-PCT is \"same\" (default 5%)\n"
    "  --confidence=PCT     of the bootstrap interval (default 95%)\n"
    "  --min-runs=N         runs per side below which the verdict is unknown\n"
    "                       (default 5)\n"
    "  --output-format=normal|json\n"
    "  --plot=FILE.svg      also draw the per-run values of the deciding metrics\n"
    "                       and every run's latency percentile curve, BASE vs NEW\n"
    "Verdicts: worse when the interval of the change lies wholly on the worse side\n"
    "of 0 (latency up, IOPS/bandwidth down), not wholly within the band, and a\n"
    "Mann-Whitney U test agrees (p < (1-confidence)/2); better likewise; same when\n"
    "the interval lies within the band, or straddles 0 with its worse end within\n"
    "it; else unknown.\n"
    "Exit status (for git bisect run): 0 same or better, 1 worse, 125 unknown or\n"
    "any error (a failed, crashed or timed-out run, bad input).\n";

// Writes --plot; false (with a message) when it cannot.
bool WritePlot(const char* cmd, const Comparison& c, const Common& o,
               const std::vector<ResultDoc>& base, const std::vector<ResultDoc>& neu,
               const std::string& title) {
  if (o.plot.empty()) return true;
  const std::string svg = plot::ComparisonPlot(c, o.cmp, base, neu, title);
  FILE* f = std::fopen(o.plot.c_str(), "w");
  const bool ok = f && std::fwrite(svg.data(), 1, svg.size(), f) == svg.size();
  const int err = errno;
  if (f && std::fclose(f) != 0 && ok) {
    std::fprintf(stderr, "block-bench %s: --plot=%s: %s\n", cmd, o.plot.c_str(), std::strerror(errno));
    return false;
  }
  if (!ok) {
    std::fprintf(stderr, "block-bench %s: --plot=%s: %s\n", cmd, o.plot.c_str(), std::strerror(err));
    return false;
  }
  return true;
}

void Print(const Comparison& c, const Common& o, const nlohmann::ordered_json* extra) {
  if (o.json) {
    nlohmann::ordered_json j;
    if (extra) j["ab"] = *extra;
    j["comparison"] = JsonReport(c, o.cmp);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::fputs(TextReport(c, o.cmp).c_str(), stdout);
  }
  std::fflush(stdout);
}

// ---- ab ---------------------------------------------------------------------

volatile sig_atomic_t g_interrupted = 0;  // the signal handler's only state
void OnSignal(int sig) { g_interrupted = sig; }

struct SideSpec {
  enum Kind { kNone, kBlockdev, kBinary, kCommand } kind = kNone;
  std::string what;
};

struct RunOutcome {
  bool ok = false;
  std::string problem;  // why not ok
  double seconds = 0;
  int exit_status = 0;
};

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string Tail(const std::string& path, size_t max_lines) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) {
    if (l.empty()) continue;
    lines.push_back(l);
    if (lines.size() > max_lines) lines.erase(lines.begin());
  }
  std::string out;
  // Whole lines (up to 400 bytes each): the error names the device, offset
  // and errno, which must survive.
  for (auto& l : lines) {
    std::string line = l.size() > 400 ? l.substr(0, 400) + "..." : l;
    for (char& c : line)
      if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    out += (out.empty() ? "" : " | ") + line;
  }
  return out.empty() ? "(no message)" : out;
}

// The child's side of Spawn: stdout, stderr and stdin redirected, the
// environment set, SIGINT and SIGTERM back to their defaults, then argv.
[[noreturn]] void ExecChild(const std::vector<char*>& cargv, int out_fd, int err_fd,
                            const std::vector<std::pair<std::string, std::string>>& env) {
  dup2(out_fd, STDOUT_FILENO);
  dup2(err_fd, STDERR_FILENO);
  const int in = open("/dev/null", O_RDONLY);
  if (in >= 0) dup2(in, STDIN_FILENO);
  for (auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  execvp(cargv[0], cargv.data());
  std::fprintf(stderr, "cannot run %s: %s\n", cargv[0], std::strerror(errno));
  _exit(127);
}

// Waits for `pid`, started at `start`: SIGTERM once ab is interrupted or
// `timeout_s` (> 0) passed (then *timed_out), SIGKILL 5 s after a SIGTERM.
// False, with *problem, when waitpid fails.
bool WaitForChild(pid_t pid, double start, double timeout_s, int* status, bool* timed_out,
                  std::string* problem) {
  double term_sent = 0;
  while (true) {
    const pid_t w = waitpid(pid, status, timeout_s > 0 || g_interrupted ? WNOHANG : 0);
    if (w == pid) return true;
    if (w < 0 && errno != EINTR) {
      *problem = std::string("waitpid: ") + std::strerror(errno);
      return false;
    }
    const double now = Now();
    if (g_interrupted && term_sent == 0) {
      kill(pid, SIGTERM);
      term_sent = now;
    }
    if (timeout_s > 0 && !*timed_out && now - start > timeout_s) {
      *timed_out = true;
      kill(pid, SIGTERM);
      term_sent = now;
    }
    if (term_sent > 0 && now - term_sent > 5) kill(pid, SIGKILL);
    if (w == 0) {
      struct timespec ts = {0, 5 * 1000 * 1000};
      nanosleep(&ts, nullptr);
    }
  }
}

// Runs argv with stdout to `out_path` (or /dev/null) and stderr to
// `err_path`; kills it after `timeout_s` (> 0).
RunOutcome Spawn(const std::vector<std::string>& argv, const std::string& out_path,
                 const std::string& err_path, double timeout_s,
                 const std::vector<std::pair<std::string, std::string>>& env) {
  RunOutcome r;
  const double start = Now();
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  // /dev/null without O_CREAT|O_TRUNC: /dev may be mounted read-only (a
  // sandbox), and O_CREAT there fails with EROFS.
  const int out_fd = out_path.empty()
                         ? open("/dev/null", O_WRONLY | O_CLOEXEC)
                         : open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out_fd < 0 || err_fd < 0) {
    r.problem = "cannot create " + (out_fd < 0 ? (out_path.empty() ? "/dev/null" : out_path)
                                               : err_path) +
                ": " + std::strerror(errno);
    if (out_fd >= 0) close(out_fd);
    if (err_fd >= 0) close(err_fd);
    return r;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    r.problem = std::string("fork: ") + std::strerror(errno);
    close(out_fd);
    close(err_fd);
    return r;
  }
  if (pid == 0) ExecChild(cargv, out_fd, err_fd, env);
  close(out_fd);
  close(err_fd);
  int status = 0;
  bool timed_out = false;
  if (!WaitForChild(pid, start, timeout_s, &status, &timed_out, &r.problem)) return r;
  r.seconds = Now() - start;
  if (timed_out) {
    r.problem = "timed out after " + std::to_string(int(timeout_s)) + " s (--timeout) and was killed";
  } else if (WIFSIGNALED(status)) {
    r.problem = std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
                strsignal(WTERMSIG(status)) + ")" + (WCOREDUMP(status) ? ", core dumped" : "") +
                ": " + Tail(err_path, 3);
  } else if (WEXITSTATUS(status) != 0) {
    r.exit_status = WEXITSTATUS(status);
    r.problem = "exit status " + std::to_string(r.exit_status) + ": " + Tail(err_path, 3);
  } else {
    r.ok = true;
  }
  return r;
}

std::string SideLabel(const SideSpec& s) {
  switch (s.kind) {
    case SideSpec::kBlockdev: return "--blockdev=" + s.what;
    case SideSpec::kBinary: return s.what;
    case SideSpec::kCommand: return "sh -c " + s.what;
    case SideSpec::kNone: break;
  }
  return "";
}

// What `ab` was asked to do.
struct AbOptions {
  Common common;
  SideSpec side[2];  // A, B
  long rounds = 10, max_rounds = 30, step = 5, warmup = 1;
  double timeout_s = 0;  // per run; 0: none
  std::optional<uint64_t> seed;
  std::string keep;  // --keep=DIR; empty: a temporary directory
  std::vector<std::string> job_args;
};

// --a=SPEC, --a-bin=PATH, --a-cmd=CMD and their --b forms.  Returns true
// when `arg` was one; an error when its side is given twice or empty.
Expected<bool> TakeSide(const std::string& arg, SideSpec side[2]) {
  for (int s = 0; s < 2; s++) {
    const std::string n = s == 0 ? "a" : "b";
    const std::pair<std::string, SideSpec::Kind> kinds[] = {
        {n, SideSpec::kBlockdev}, {n + "-bin", SideSpec::kBinary}, {n + "-cmd", SideSpec::kCommand}};
    for (auto& [name, kind] : kinds) {
      auto v = Value(arg, name.c_str());
      if (!v) continue;
      if (side[s].kind != SideSpec::kNone)
        return Error{-EINVAL, "side " + n + " given twice (" + QuoteInput(arg) + ")"};
      if (v->empty()) return Error{-EINVAL, "--" + name + ": empty"};
      side[s] = {kind, *v};
      return true;
    }
  }
  return false;
}

// --rounds, --max-rounds, --step, --warmup, --seed, --timeout, --keep.
// Returns true when `arg` was one; an error when its value is bad.
Expected<bool> TakeRoundOption(const std::string& arg, AbOptions& o) {
  const struct {
    const char* name;
    long lo, hi;
    long* out;
  } counts[] = {{"rounds", 2, 10000, &o.rounds},
                {"max-rounds", 2, 10000, &o.max_rounds},
                {"step", 1, 10000, &o.step},
                {"warmup", 0, 10000, &o.warmup}};
  for (const auto& c : counts) {
    auto v = Value(arg, c.name);
    if (!v) continue;
    auto x = ParseCount(c.name, *v, c.lo, c.hi);
    if (!x) return x.error();
    *c.out = *x;
    return true;
  }
  if (auto v = Value(arg, "seed")) {
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(v->c_str(), &end, 10);
    if (v->empty() || *end || errno || x < 0)
      return Error{-EINVAL, "--seed: expected a whole number, got " + QuoteInput(*v)};
    o.seed = uint64_t(x);
    return true;
  }
  if (auto v = Value(arg, "timeout")) {
    char* end = nullptr;
    o.timeout_s = std::strtod(v->c_str(), &end);
    if (v->empty() || *end || !(o.timeout_s > 0) || o.timeout_s > 1e7)
      return Error{-EINVAL, "--timeout: expected seconds above 0, got " + QuoteInput(*v)};
    return true;
  }
  if (auto v = Value(arg, "keep")) {
    o.keep = *v;
    return true;
  }
  return false;
}

// ab's options up to the job arguments: those after "--", or from the first
// argument that is not an ab option.
Expected<AbOptions> ParseAbArgs(const std::vector<std::string>& args) {
  AbOptions o;
  size_t i = 0;
  for (; i < args.size(); i++) {
    const std::string& a = args[i];
    if (a == "--") {
      i++;
      break;
    }
    auto common = o.common.Take(a);
    if (!common) return common.error();
    if (*common) continue;
    auto side = TakeSide(a, o.side);
    if (!side) return side.error();
    if (*side) continue;
    auto round = TakeRoundOption(a, o);
    if (!round) return round.error();
    if (*round) continue;
    break;  // the job arguments start here
  }
  o.job_args.assign(args.begin() + long(i), args.end());
  return o;
}

// Both sides are given, and job arguments unless both sides are commands.
Expected<void> CheckAbOptions(const AbOptions& o) {
  for (int s = 0; s < 2; s++)
    if (o.side[s].kind == SideSpec::kNone)
      return Error{-EINVAL, std::string("side ") + (s ? "B" : "A") + " is missing: give --" +
                                (s ? "b" : "a") + "=SPEC, --" + (s ? "b" : "a") + "-bin=PATH or --" +
                                (s ? "b" : "a") + "-cmd=CMD (see block-bench ab --help)"};
  for (int s = 0; s < 2; s++)
    if (o.side[s].kind != SideSpec::kCommand && o.job_args.empty())
      return Error{-EINVAL, "no job arguments (e.g. --name=j --rw=randread --size=64m)"};
  return {};
}

// Where the runs' results go: `keep`, else a new directory under $TMPDIR
// (default /tmp); with a/, b/ and warmup/ in it.
Expected<std::string> MakeResultsDir(const std::string& keep) {
  std::string dir = keep;
  if (dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/block-bench-ab.XXXXXX";
    if (!mkdtemp(templ.data()))
      return Error{-errno, "mkdtemp: " + std::string(std::strerror(errno))};
    dir = templ;
  }
  std::error_code ec;
  for (const char* s : {"a", "b", "warmup"}) {
    std::filesystem::create_directories(dir + "/" + s, ec);
    if (ec) return Error{-EIO, dir + "/" + s + ": " + ec.message()};
  }
  return dir;
}

// Removes a temporary results directory when ab returns.
struct RemoveOnReturn {
  std::string dir;
  bool on;
  ~RemoveOnReturn() {
    std::error_code e;
    if (on) std::filesystem::remove_all(dir, e);
  }
};

// SIGINT and SIGTERM set g_interrupted: the running side is stopped and ab
// ends after it.
void InterruptOnSignals() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// The rounds of an ab run: both sides once per round, in a random order
// each round; warm-ups first, then counted rounds until a verdict is known
// or --max-rounds, stopping at the first failed run or an interrupt.
class AbRounds {
 public:
  AbRounds(const AbOptions& o, const std::string& self, const std::string& dir, uint64_t seed)
      : o_(o), self_(self), dir_(dir), order_rng_(seed), start_(Now()) {}

  // Runs every round; prints a line per counted round (not with JSON).
  void Run();

  double start() const { return start_; }
  long done() const { return done_; }                       // counted rounds
  const std::string& failure() const { return failure_; }   // empty: none
  const std::vector<ResultDoc>& docs(int s) const { return docs_[s]; }
  const std::vector<std::string>& orders() const { return orders_; }  // "ab"/"ba"
  const nlohmann::ordered_json& runs() const { return runs_; }  // every run
  const Comparison& comparison() const { return comparison_; }  // the last

 private:
  void RoundPair(long round, bool record);
  std::string RunOne(int s, long round, bool record);
  std::vector<std::string> SideArgv(int s, const std::string& out) const;

  const AbOptions& o_;
  const std::string self_, dir_;
  std::mt19937_64 order_rng_;
  const double start_;
  long done_ = 0;
  std::string failure_;
  std::vector<ResultDoc> docs_[2];
  std::vector<std::string> orders_;
  nlohmann::ordered_json runs_ = nlohmann::ordered_json::array();
  Comparison comparison_;
};

void AbRounds::Run() {
  for (long w = 1; w <= o_.warmup && failure_.empty() && !g_interrupted; w++) RoundPair(w, false);
  long target = o_.rounds;
  while (failure_.empty() && !g_interrupted) {
    while (done_ < target && failure_.empty() && !g_interrupted) {
      RoundPair(++done_, true);
      if (!o_.common.json && failure_.empty() && !g_interrupted) {
        std::printf("round %3ld (%s): %.1f s\n", done_, orders_.back().c_str(), Now() - start_);
        std::fflush(stdout);
      }
    }
    if (!failure_.empty() || g_interrupted) break;
    comparison_ = Compare(docs_[0], docs_[1], o_.common.cmp);
    if (comparison_.overall != Verdict::kUnknown || done_ >= o_.max_rounds) break;
    target = std::min(o_.max_rounds, done_ + o_.step);
  }
}

void AbRounds::RoundPair(long round, bool record) {
  const bool a_first = std::uniform_int_distribution<int>(0, 1)(order_rng_) == 0;
  if (record) orders_.push_back(a_first ? "ab" : "ba");
  for (int k = 0; k < 2 && failure_.empty() && !g_interrupted; k++)
    failure_ = RunOne(a_first ? k : 1 - k, round, record);
}

// The command line of side s writing its JSON result to `out` (a command
// side prints it on stdout instead).
std::vector<std::string> AbRounds::SideArgv(int s, const std::string& out) const {
  const SideSpec& sp = o_.side[s];
  std::vector<std::string> argv;
  if (sp.kind == SideSpec::kCommand) {
    argv = {"/bin/sh", "-c", sp.what, "block-bench-ab"};
  } else {
    argv = {sp.kind == SideSpec::kBlockdev ? self_ : sp.what, "--output-format=json",
            "--output=" + out, "--eta=never"};
    if (sp.kind == SideSpec::kBlockdev) argv.push_back("--blockdev=" + sp.what);
  }
  argv.insert(argv.end(), o_.job_args.begin(), o_.job_args.end());
  return argv;
}

// One run of side s; `record`: a counted round (else a warm-up).  Returns
// why it failed, or "" when it did not.
std::string AbRounds::RunOne(int s, long round, bool record) {
  // DIR/a/001.json; warm-ups apart (DIR/warmup/a-001.json), so that
  // `compare DIR/a DIR/b` reads the counted rounds only.
  char name[32];
  std::snprintf(name, sizeof name, "%s%03ld.json", record ? "" : (s ? "b-" : "a-"), round);
  const std::string out = dir_ + (record ? (s ? "/b/" : "/a/") : "/warmup/") + name;
  const std::string err = out.substr(0, out.size() - 5) + ".stderr";
  const std::string stdout_path = o_.side[s].kind == SideSpec::kCommand ? out : "";
  std::error_code e;
  std::filesystem::remove(out, e);
  const RunOutcome r = Spawn(SideArgv(s, out), stdout_path, err, o_.timeout_s,
                             {{"AB_SIDE", s ? "b" : "a"}, {"AB_ROUND", std::to_string(round)}});
  nlohmann::ordered_json j;
  j["side"] = s ? "b" : "a";
  j["round"] = round;
  j["warmup"] = !record;
  j["seconds"] = r.seconds;
  j["result"] = out;
  std::string problem;
  if (!r.ok) {
    problem = r.problem;
  } else {
    auto d = LoadResults({out});
    if (!d) problem = "no usable result: " + d.error().message;
    else if (d->at(0).failed) problem = "the run reported an error: " + d->at(0).failure;
    else if (d->at(0).interrupted) problem = "the run was cut short: " + d->at(0).interruption;
    else if (record) docs_[s].push_back(std::move(d->at(0)));
  }
  if (!problem.empty()) j["problem"] = problem;
  runs_.push_back(std::move(j));
  if (problem.empty()) return "";
  return std::string("side ") + (s ? "B" : "A") + " (" + SideLabel(o_.side[s]) + "), " +
         (record ? "round " + std::to_string(round) : "warm-up round " + std::to_string(round)) +
         ": " + problem;
}

// The verdict once the rounds ended: the report (with an "ab" object in
// JSON), --plot, and the exit status (ExitCode; 125 when a run failed or
// the plot cannot be written; 128+N when interrupted, with no report).
int ConcludeAb(const AbOptions& o, uint64_t seed, const AbRounds& rounds) {
  if (g_interrupted) {
    std::fprintf(stderr, "block-bench ab: interrupted after %ld round%s\n", rounds.done(),
                 rounds.done() == 1 ? "" : "s");
    return 128 + (g_interrupted == SIGTERM ? SIGTERM : SIGINT);
  }
  const std::string& failure = rounds.failure();
  Comparison c = rounds.comparison();
  if (!failure.empty()) {
    c = Comparison{};
    c.base_runs = rounds.docs(0).size();
    c.new_runs = rounds.docs(1).size();
    c.problems.push_back(failure);
    c.overall = Verdict::kUnknown;
  }
  nlohmann::ordered_json ab;
  ab["a"] = SideLabel(o.side[0]);
  ab["b"] = SideLabel(o.side[1]);
  ab["seed"] = seed;
  ab["warmup"] = o.warmup;
  ab["rounds"] = rounds.done();
  ab["orders"] = rounds.orders();
  ab["seconds"] = Now() - rounds.start();
  ab["runs"] = rounds.runs();
  if (!o.common.json) {
    std::printf("%ld rounds in %.1f s\n", rounds.done(), Now() - rounds.start());
    if (!failure.empty()) std::printf("run failed: %s\n", failure.c_str());
  }
  Print(c, o.common, &ab);
  if (!failure.empty()) std::fprintf(stderr, "block-bench ab: %s\n", failure.c_str());
  if (!WritePlot("ab", c, o.common, rounds.docs(0), rounds.docs(1),
                 "block-bench ab: A = " + SideLabel(o.side[0]) + ", B = " + SideLabel(o.side[1])))
    return kExitError;
  return ExitCode(c.overall);
}

}  // namespace

std::string CompareUsage() {
  return std::string(
             "usage: block-bench compare [options] BASE NEW\n"
             "       block-bench compare [options] --base=PATH... --new=PATH...\n"
             "BASE and NEW: block-bench or fio JSON results (--output-format=json), each a\n"
             "file or a directory of *.json repetitions (the run is the sample: use several).\n"
             "Per job, direction and metric: the medians, their relative change, a bootstrap\n"
             "confidence interval of the change and a verdict.\n"
             "options:\n") +
         kCommonHelp;
}

std::string AbUsage() {
  return std::string(
             "usage: block-bench ab [options] A B [--] job arguments...\n"
             "A and B, one each:\n"
             "  --a=SPEC / --b=SPEC          this block-bench with --blockdev=SPEC (a global\n"
             "                               option: the job's own target overrides it)\n"
             "  --a-bin=PATH / --b-bin=PATH  that program (block-bench or fio) with the job\n"
             "                               arguments and --output-format=json --output=F\n"
             "  --a-cmd=CMD / --b-cmd=CMD    sh -c CMD, which prints a block-bench or fio JSON\n"
             "                               result on stdout (the job arguments are its \"$@\";\n"
             "                               AB_SIDE=a|b and AB_ROUND=N are set)\n"
             "Runs both sides once per round, in a random order each round, after\n"
             "--warmup rounds that are not counted; decides after --rounds rounds and\n"
             "adds --step rounds while the verdict is unknown, up to --max-rounds.\n"
             "options:\n"
             "  --rounds=N (10)  --max-rounds=N (30)  --step=N (5)  --warmup=N (1)\n"
             "  --seed=N         of the order (default: random; printed)\n"
             "  --timeout=SEC    per run: a run still going is killed (verdict unknown)\n"
             "  --keep=DIR       keep every run's JSON as DIR/a/NNN.json, DIR/b/NNN.json\n"
             "                   (block-bench compare DIR/a DIR/b repeats the comparison;\n"
             "                   warm-ups in DIR/warmup/) and its stderr beside it\n") +
         kCommonHelp;
}

int CompareMain(const std::vector<std::string>& args) {
  Common o;
  std::vector<std::string> positional, base, neu;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& a = args[i];
    auto took = o.Take(a);
    if (!took) return Fail("compare", took.error().message);
    if (*took) continue;
    if (auto v = Value(a, "base")) base.push_back(*v);
    else if (auto w = Value(a, "new")) neu.push_back(*w);
    else if (!a.empty() && a[0] == '-' && a != "-")
      return Fail("compare", "unknown option " + QuoteInput(a) + " (see block-bench compare --help)");
    else positional.push_back(a);
  }
  if (o.help) {
    std::fputs(CompareUsage().c_str(), stdout);
    return 0;
  }
  if (!positional.empty()) {
    if (!base.empty() || !neu.empty())
      return Fail("compare", "give BASE and NEW either as two arguments or with --base/--new");
    if (positional.size() != 2)
      return Fail("compare", "expected two arguments, BASE and NEW, got " +
                                 std::to_string(positional.size()) + " (see --help)");
    base.push_back(positional[0]);
    neu.push_back(positional[1]);
  }
  if (base.empty() || neu.empty())
    return Fail("compare", "expected BASE and NEW results (see block-bench compare --help)");
  auto b = LoadResults(base);
  if (!b) return Fail("compare", "BASE: " + b.error().message);
  auto n = LoadResults(neu);
  if (!n) return Fail("compare", "NEW: " + n.error().message);
  const Comparison c = Compare(*b, *n, o.cmp);
  Print(c, o, nullptr);
  if (!WritePlot("compare", c, o, *b, *n, "block-bench compare")) return kExitError;
  return ExitCode(c.overall);
}

int AbMain(const std::vector<std::string>& args, const std::string& self) {
  auto o = ParseAbArgs(args);
  if (!o) return Fail("ab", o.error().message);
  if (o->common.help) {
    std::fputs(AbUsage().c_str(), stdout);
    return 0;
  }
  if (auto checked = CheckAbOptions(*o); !checked) return Fail("ab", checked.error().message);
  if (o->max_rounds < o->rounds) o->max_rounds = o->rounds;
  auto dir = MakeResultsDir(o->keep);
  if (!dir) return Fail("ab", dir.error().message);
  const RemoveOnReturn cleanup{*dir, o->keep.empty()};
  InterruptOnSignals();
  const uint64_t seed =
      o->seed ? *o->seed : std::random_device{}() | (uint64_t(std::random_device{}()) << 32);
  AbRounds rounds(*o, self, *dir, seed);
  if (!o->common.json)
    std::printf("ab: A = %s\n    B = %s\n    seed %llu; %ld warm-up round%s, then %ld rounds (up to "
                "%ld)\n",
                SideLabel(o->side[0]).c_str(), SideLabel(o->side[1]).c_str(),
                (unsigned long long)seed, o->warmup, o->warmup == 1 ? "" : "s", o->rounds,
                o->max_rounds);
  rounds.Run();
  return ConcludeAb(*o, seed, rounds);
}

}  // namespace blk::bench::verdict
