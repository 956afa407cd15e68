#include "tools/block_bench/run/resources.h"

#include <dirent.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "block/options.h"
#include "tools/block_bench/run/target.h"

namespace blk::bench {
namespace {

constexpr uint64_t kPoolThreads = 16;  // the file driver's thread-pool-size default
constexpr uint64_t kRbdThreads = 8;
constexpr uint64_t kRbdFds = 4;

uint64_t SatMul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
uint64_t SatAdd(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

uint64_t LargestBlock(const JobOptions& job) {
  uint64_t m = 0;
  for (int d = 0; d < kNumDirs; d++) {
    m = std::max(m, job.bs[d].max);
    for (const auto& e : job.bssplit[d]) m = std::max(m, e.block_size);
  }
  return m;
}

// Needs of the drivers a blockdev= spec names (a spec that does not parse
// fails later with its own message; it needs nothing here).
void AddSpecNeeds(const std::string& spec, CloneNeeds* n) {
  auto opts = Options::Parse(spec);
  if (!opts.ok()) return;
  for (const std::string& key : opts->Keys()) {
    const bool is_driver = key == "driver" || (key.size() > 7 && key.ends_with(".driver"));
    if (!is_driver) continue;
    const std::string& drv = *opts->Get(key);
    const std::string prefix = key.substr(0, key.size() - 6);  // "" or "file."
    if (drv == "file") {
      n->fds += 2;  // the file and its engine's eventfd (every aio= mode)
      const std::string* aio = opts->Get(prefix + "aio");
      if (!aio || *aio == "threads") n->threads += kPoolThreads;
    } else if (drv == "rbd") {
      n->threads += kRbdThreads;
      n->fds += kRbdFds;
    }
  }
}

uint64_t ReadUint(const char* path) {
  FILE* f = std::fopen(path, "r");
  if (!f) return UINT64_MAX;
  unsigned long long v = 0;
  const bool ok = std::fscanf(f, "%llu", &v) == 1;
  std::fclose(f);
  return ok ? uint64_t(v) : UINT64_MAX;
}

uint64_t OpenFds() {
  DIR* d = opendir("/proc/self/fd");
  if (!d) return 0;
  uint64_t n = 0;
  while (struct dirent* e = readdir(d))
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n > 0 ? n - 1 : 0;  // the directory's own descriptor
}

uint64_t RunningThreads() {
  // /proc/loadavg: "0.00 0.01 0.05 1/123 4567": 123 threads exist.
  FILE* f = std::fopen("/proc/loadavg", "r");
  if (!f) return 0;
  double a, b, c;
  unsigned long long running = 0, total = 0;
  const bool ok = std::fscanf(f, "%lf %lf %lf %llu/%llu", &a, &b, &c, &running, &total) == 5;
  std::fclose(f);
  return ok ? uint64_t(total) : 0;
}

uint64_t MemAvailable() {
  FILE* f = std::fopen("/proc/meminfo", "r");
  if (!f) return UINT64_MAX;
  char line[256];
  uint64_t kb = UINT64_MAX;
  while (std::fgets(line, sizeof line, f)) {
    unsigned long long v;
    if (std::sscanf(line, "MemAvailable: %llu kB", &v) == 1) {
      kb = v;
      break;
    }
  }
  std::fclose(f);
  return kb == UINT64_MAX ? UINT64_MAX : kb * 1024;
}

}  // namespace

ResourceLimits ResourceLimits::FromSystem() {
  ResourceLimits l;
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    l.fd_limit = uint64_t(rl.rlim_cur);
    const uint64_t open = OpenFds();
    l.fds = l.fd_limit > open ? l.fd_limit - open : 0;
  }
  const uint64_t max_threads = ReadUint("/proc/sys/kernel/threads-max");
  if (max_threads != UINT64_MAX) {
    const uint64_t running = RunningThreads();
    l.threads = max_threads > running ? max_threads - running : 0;
  }
  l.memory = MemAvailable();
  return l;
}

CloneNeeds EstimateClone(const JobOptions& job) {
  CloneNeeds n;
  n.threads = 1;
  n.fds = 2;
  n.memory = SatMul(std::max<uint32_t>(1, job.iodepth), LargestBlock(job));
  if (!job.blockdev.empty()) {
    AddSpecNeeds(job.blockdev, &n);
    return n;
  }
  switch (job.ioengine) {
    case IoEngine::kNull:
      break;
    case IoEngine::kRbd:
      n.threads += kRbdThreads;
      n.fds += kRbdFds;
      break;
    case IoEngine::kLibaio:
    case IoEngine::kIoUring:
      n.fds += 2;
      if (SubstitutedEngine(job)) n.threads += kPoolThreads;  // buffered libaio: aio=threads
      break;
    case IoEngine::kPosixaio:  // aio=threads, a worker per file (at most 20)
      n.fds += 2;
      n.threads += std::min<uint64_t>(20, std::max<uint32_t>(1, job.nrfiles));
      break;
    default:  // the synchronous engines: aio=sync, in the clone's thread
      n.fds += 2;
      break;
  }
  return n;
}

Expected<void> CheckResources(const std::vector<JobOptions>& jobs, const ResourceLimits& limits) {
  size_t i = 0;
  while (i < jobs.size()) {
    size_t j = i + 1;
    while (j < jobs.size() && !jobs[j].stonewall) j++;
    CloneNeeds total;
    uint64_t clones = 0;
    for (size_t k = i; k < j; k++) {
      const uint64_t n = std::max<uint32_t>(1, jobs[k].numjobs);
      const CloneNeeds one = EstimateClone(jobs[k]);
      clones = SatAdd(clones, n);
      total.threads = SatAdd(total.threads, SatMul(n, one.threads));
      total.fds = SatAdd(total.fds, SatMul(n, one.fds));
      total.memory = SatAdd(total.memory, SatMul(n, one.memory));
    }
    const std::string who = "jobs starting with '" + jobs[i].name + "' (" +
                            std::to_string(clones) + " clone" + (clones == 1 ? "" : "s") +
                            " at once)";
    const std::string advice = ": raise the limit or lower numjobs";
    if (total.threads > limits.threads) {
      return MakeError(-EAGAIN, who + " need at least " + std::to_string(total.threads) +
                                    " threads; " + std::to_string(limits.threads) +
                                    " more may be started (kernel.threads-max)" + advice);
    }
    if (total.fds > limits.fds) {
      return MakeError(-EMFILE, who + " need at least " + std::to_string(total.fds) +
                                    " file descriptors; " + std::to_string(limits.fds) +
                                    " more may be opened (ulimit -n " +
                                    std::to_string(limits.fd_limit) + ")" + advice);
    }
    if (total.memory > limits.memory) {
      return MakeError(-ENOMEM, who + " need at least " + std::to_string(total.memory >> 20) +
                                    " MiB of I/O buffers (iodepth x block size); " +
                                    std::to_string(limits.memory >> 20) +
                                    " MiB are available (MemAvailable)" +
                                    ": lower iodepth, bs or numjobs");
    }
    i = j;
  }
  return {};
}

}  // namespace blk::bench
