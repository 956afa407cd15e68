#include "tools/block_bench/run/resources.h"

#include <dirent.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <blkstack/block/options.h>
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

uint64_t SmallestWrite(const JobOptions& job) {
  const int w = int(Dir::kWrite);
  uint64_t m = job.bs[w].min;
  for (const auto& e : job.bssplit[w]) m = std::min(m, e.block_size);
  return std::max<uint64_t>(m, 512);
}

// As SlotPool maps them: the depth in effect x the largest block, at a
// stride of 4096.
uint64_t BufferBytes(const JobOptions& job) {
  const uint64_t depth = OneIoAtATime(job) ? 1 : std::max<uint32_t>(1, job.iodepth);
  const uint64_t block = LargestBlock(job);
  if (block > UINT64_MAX - 4095) return UINT64_MAX;
  const uint64_t stride = std::max<uint64_t>(4096, (block + 4095) & ~uint64_t(4095));
  return SatMul(depth, stride);
}

// verify=: an entry per block written, over the job's size (when given in
// bytes; a device's size is not known here).
uint64_t VerifyBytes(const JobOptions& job) {
  if (job.verify == VerifyMethod::kNone || !job.size || job.size->percent) return 0;
  return SatMul(job.size->value / SmallestWrite(job), kVerifyEntryBytes);
}

// The random map (run/block_map.h): a bit per block of the smallest block
// size, for a job fio keeps one for (FioKeepsRandomMap) with a size= in
// bytes.
uint64_t RandomMapBytes(const JobOptions& job) {
  if (!FioKeepsRandomMap(job) || !job.size || job.size->percent) return 0;
  uint64_t m = UINT64_MAX;
  for (int d = 0; d < kNumDirs; d++) {
    m = std::min(m, job.bs[d].min);
    for (const auto& e : job.bssplit[d]) m = std::min(m, e.block_size);
  }
  m = std::max<uint64_t>(m, 512);
  return job.size->value / m / 8 + 8;
}

std::string Mib(uint64_t bytes) {
  return std::to_string((bytes >> 20) + ((bytes & ((1 << 20) - 1)) != 0)) + " MiB";
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
    } else if (drv == "nbd") {
      n->fds += 1;  // the connection's socket
    } else if (drv == "rbd" || drv == "rados") {
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

ResourceLimits ResourceLimits::FromSystem(uint64_t max_memory) {
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
  if (max_memory) {
    l.memory = max_memory;
    l.memory_source = "--blkstack-max-memory";
  } else if (const uint64_t avail = MemAvailable(); avail != UINT64_MAX) {
    l.memory = avail / 100 * kDefaultMemoryPercent;
    l.memory_source = std::to_string(kDefaultMemoryPercent) + "% of MemAvailable, " + Mib(avail) +
                      "; --blkstack-max-memory=SIZE sets it";
  }
  return l;
}

Expected<void> MemoryBudget::charge(uint64_t bytes, const std::string& what) {
  uint64_t used = used_.load();
  for (;;) {
    uint64_t after;
    if (__builtin_add_overflow(used, bytes, &after) || after > limit_) {
      return MakeError(-ENOMEM, what + " need " + Mib(bytes) + "; with what the run holds (" +
                                    Mib(used) + ") that is more than the limit of " +
                                    Mib(limit_) + " (" + source_ +
                                    "): lower iodepth, bs or numjobs, or raise "
                                    "--blkstack-max-memory");
    }
    if (used_.compare_exchange_weak(used, after)) return {};
  }
}

CloneNeeds EstimateClone(const JobOptions& job) {
  CloneNeeds n;
  n.threads = 1;
  n.fds = 2;
  n.memory = SatAdd(SatAdd(BufferBytes(job), VerifyBytes(job)), RandomMapBytes(job));
  if (!job.blockdev.empty()) {
    AddSpecNeeds(job.blockdev, &n);
    return n;
  }
  switch (job.ioengine) {
    case IoEngine::kNull:
    case IoEngine::kCpuio:
    case IoEngine::kFilecreate:
    case IoEngine::kFilestat:
    case IoEngine::kFiledelete:
      break;
    case IoEngine::kExec:
      n.threads += 1;  // the program's process
      n.fds += 2;      // its stdout and stderr files, for a moment
      break;
    case IoEngine::kNbd:
      n.fds += 1;
      break;
    case IoEngine::kNet:
    case IoEngine::kNetsplice:
      n.fds += 2;  // the listening socket and the connection
      break;
    case IoEngine::kRbd:
      n.threads += kRbdThreads;
      n.fds += kRbdFds;
      break;
    case IoEngine::kRados:  // one connection for the clone's objects
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
      return MakeError(-ENOMEM, who + " need at least " + Mib(total.memory) +
                                    " of I/O buffers and verify state (iodepth x block size); "
                                    "the limit is " + Mib(limits.memory) + " (" +
                                    limits.memory_source +
                                    "): lower iodepth, bs or numjobs, or raise "
                                    "--blkstack-max-memory");
    }
    i = j;
  }
  return {};
}

}  // namespace blk::bench
