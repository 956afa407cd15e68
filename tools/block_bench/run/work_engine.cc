#include "tools/block_bench/run/work_engine.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <blkstack/util/clock.h>
#include <blkstack/util/quote.h>
#include <blkstack/util/result.h>

extern char** environ;

namespace blk::bench {
namespace {

constexpr size_t kSortInts = size_t{256} << 10;  // fio's qsort_size

// Marsaglia's multiply-with-carry generator, with the seeds fio's qsort
// mode starts from.
class Mwc {
 public:
  uint32_t next() {
    z_ = 36969 * (z_ & 65535) + (z_ >> 16);
    w_ = 18000 * (w_ & 65535) + (w_ >> 16);
    return (z_ << 16) + w_;
  }

 private:
  uint32_t w_ = 521288629u, z_ = 362436069u;
};

std::string Replace(std::string s, std::string_view what, std::string_view with) {
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size()))
    s.replace(at, what.size(), with);
  return s;
}

}  // namespace

std::unique_ptr<WorkEngine> MakeWorkEngine(const JobOptions& job, FILE* info, FILE* messages) {
  if (job.ioengine == IoEngine::kExec) return std::make_unique<ExecProgram>(job, info, messages);
  return std::make_unique<CpuBurn>(job.cpuio, job.name, info);
}

Task<bool> ExitOnIoDone::turn(SubmitLoop&) {
  errors_.stop();  // the job is done, not failed
  co_return true;
}

// ---- cpuio -------------------------------------------------------------------

CpuBurn::CpuBurn(const CpuioOptions& o, const std::string& name, FILE* info) : o_(o) {
  o_.load = std::clamp<uint32_t>(o_.load, 1, 100);  // fio: above 100 is 100
  pause_ = PauseAfter(uint64_t(o_.chunk.count()), o_.load);
  const bool qsort = o_.mode == CpuioOptions::Mode::kQsort;
  if (qsort) {
    data_.resize(kSortInts);
    Mwc mwc;
    for (int32_t& v : data_) v = int32_t(mwc.next());
  }
  if (info)
    std::fprintf(info, "%s (%s): ioengine=cpuio, cpuload=%u, cpucycle=%llu\n", name.c_str(),
                 qsort ? "qsort" : "noop", o_.load, (unsigned long long)o_.chunk.count());
}

std::chrono::microseconds CpuBurn::PauseAfter(uint64_t burn_us, uint32_t load) {
  return std::chrono::microseconds(burn_us * (100 - load) / load);
}

namespace {

// glibc's qsort(3) through a comparison function, as fio's: the same work
// per burn (std::sort would inline its comparisons and do a burn's sorting
// in a fraction of the time).
int Ascending(const void* a, const void* b) {
  const int32_t x = *static_cast<const int32_t*>(a), y = *static_cast<const int32_t*>(b);
  return x > y ? 1 : x < y ? -1 : 0;
}
int Descending(const void* a, const void* b) { return Ascending(b, a); }
int ByByte(const void* a, const void* b) {
  return int(*static_cast<const int8_t*>(a)) - int(*static_cast<const int8_t*>(b));
}

}  // namespace

void CpuBurn::sort_round() {
  const size_t n = data_.size();
  std::qsort(data_.data(), n, sizeof(int32_t), Ascending);
  std::qsort(data_.data(), n, sizeof(int32_t), Descending);
  // By bytes: the same memory seen as signed 8-bit values.
  std::qsort(data_.data(), n * sizeof(int32_t), 1, ByByte);
  std::qsort(data_.data(), n, sizeof(int32_t), Descending);
}

void CpuBurn::burn() {
  const int64_t t0 = NowNs();
  if (o_.mode == CpuioOptions::Mode::kQsort) {
    sort_round();
    // fio sizes the next pause from this burn's own length.
    pause_ = PauseAfter(uint64_t(NowNs() - t0) / 1000, o_.load);
    return;
  }
  const int64_t end = t0 + int64_t(o_.chunk.count()) * 1000;
  while (NowNs() < end) {
  }
}

Task<int> CpuBurn::perform(AioContext&, SleepGroup&) {
  burn();
  co_return 0;
}

// ---- exec --------------------------------------------------------------------

ExecProgram::ExecProgram(const JobOptions& job, FILE* info, FILE* messages)
    : o_(job.exec),
      name_(job.name),
      runtime_s_(uint64_t(job.runtime.count() / 1000000)),
      info_(info),
      messages_(messages) {
  // fio prints a missing arguments= as C's "(null)".
  if (info_)
    std::fprintf(info_, "%s : program=%s, arguments=%s\n", name_.c_str(), o_.program.c_str(),
                 o_.arguments.empty() ? "(null)" : o_.arguments.c_str());
}

ExecProgram::~ExecProgram() {
  // A clone that ended without finish() (a failure on the way) leaves no
  // process behind.
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    reap(/*block=*/true);
  }
}

std::string ExecProgram::Expand(const std::string& arguments, uint64_t runtime_s,
                                const std::string& name) {
  return Replace(Replace(arguments, "%r", std::to_string(runtime_s)), "%n", name);
}

std::vector<std::string> ExecProgram::Argv(const std::string& program,
                                           const std::string& arguments, uint64_t runtime_s,
                                           const std::string& name) {
  std::string line = program;
  if (!arguments.empty()) line += " " + Expand(arguments, runtime_s, name);
  std::vector<std::string> argv;
  for (size_t i = 0; i < line.size();) {
    if (line[i] == ' ') {
      i++;
      continue;
    }
    const size_t end = std::min(line.find(' ', i), line.size());
    argv.push_back(line.substr(i, end - i));
    i = end;
  }
  return argv;
}

void ExecProgram::start() {
  started_ = true;
  const std::vector<std::string> args = Argv(o_.program, o_.arguments, runtime_s_, name_);
  // fio prints the arguments as written, expanded (a missing one as C's
  // "(null)").
  const std::string shown =
      o_.arguments.empty() ? "(null)" : Expand(o_.arguments, runtime_s_, name_);
  const std::string out = name_ + ".stdout", err = name_ + ".stderr";
  if (info_) {
    if (o_.std_redirect)
      std::fprintf(info_, "%s : Saving output of %s %s : stdout=%s stderr=%s\n", name_.c_str(),
                   o_.program.c_str(), shown.c_str(), out.c_str(), err.c_str());
    else
      std::fprintf(info_, "%s : Running %s %s\n", name_.c_str(), o_.program.c_str(),
                   shown.c_str());
    std::fflush(info_);  // before the program writes to the same stdout
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (o_.std_redirect) {
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  }
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int r = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (r != 0) {
    if (messages_)
      std::fprintf(messages_, "%s: exec: cannot run %s: %s\n", name_.c_str(),
                   QuoteName(o_.program).c_str(), std::strerror(r));
    return;
  }
  pid_ = pid;
}

bool ExecProgram::reap(bool block) {
  if (pid_ <= 0 || reaped_) return true;
  for (;;) {
    const pid_t w = ::waitpid(pid_, &status_, block ? 0 : WNOHANG);
    if (w == pid_) {
      reaped_ = true;
      return true;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {  // not ours to wait for any more
      reaped_ = true;
      return true;
    }
    return false;  // still running
  }
}

Task<int> ExecProgram::perform(AioContext& ctx, SleepGroup& sleeps) {
  if (!started_) {
    start();
    co_return 0;
  }
  // fio's engine sleeps its thinktime (50 ms) in each I/O after the first.
  (void)co_await sleeps.sleep_for(ctx, int64_t(pause_.count()) * 1000);
  co_return 0;
}

Task<void> ExecProgram::finish(AioContext& ctx, SleepGroup& sleeps) {
  if (pid_ <= 0 || reap(/*block=*/false)) co_return;
  ::kill(pid_, SIGTERM);
  const int64_t deadline = NowNs() + int64_t(o_.grace_time) * 1000000000;
  while (!reap(/*block=*/false) && NowNs() < deadline) {
    if (!co_await sleeps.sleep_for(ctx, 10 * 1000000)) break;  // interrupted: no more grace
  }
  if (!reaped_) {
    ::kill(pid_, SIGKILL);
    reap(/*block=*/true);
  }
}

}  // namespace blk::bench
