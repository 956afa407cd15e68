#include "tools/block_bench/run/job_process.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>


namespace blk::bench {

Expected<void> ApplyNice(int increment) {
  if (increment == 0) return {};
  errno = 0;
  // nice() returns the new value, which may be -1: only errno tells.
  if (nice(increment) == -1 && errno != 0) {
    const int e = errno;
    return MakeError(-e, "nice=" + std::to_string(increment) + ": nice(2) on the job's thread: " +
                             ErrnoString(-e));
  }
  return {};
}

Expected<void> PinnedMemory::pin(uint64_t bytes, MemoryBudget* budget, FILE* info) {
  if (bytes == 0) return {};
  constexpr uint64_t kSpare = uint64_t(128) << 20;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const uint64_t phys = pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
  if (phys > kSpare && bytes + kSpare > phys) {
    bytes = phys - kSpare;
    if (info) std::fprintf(info, "block-bench: limiting mlocked memory to %lluMiB\n",
                           (unsigned long long)(bytes >> 20));
  }
  const std::string what = "lockmem=" + std::to_string(bytes);
  if (budget) {
    Expected<void> c = budget->charge(bytes, what);
    if (!c.ok()) return c.error();
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int e = p == MAP_FAILED ? errno : 0;
  if (!e && mlock(p, bytes) != 0) {
    e = errno;
    munmap(p, bytes);
  }
  if (e) {
    if (budget) budget->release(bytes);
    return MakeError(-e, what + ": " + (p == MAP_FAILED ? "mmap" : "mlock") + " of the job's " +
                             "pinned memory: " + ErrnoString(-e) +
                             (e == EPERM || e == ENOMEM ? " (RLIMIT_MEMLOCK, ulimit -l, or "
                                                          "CAP_IPC_LOCK)" : ""));
  }
  addr_ = p;
  size_ = bytes;
  budget_ = budget;
  return {};
}

void PinnedMemory::unpin() {
  if (!addr_) return;
  munlock(addr_, size_);
  munmap(addr_, size_);
  if (budget_) budget_->release(size_);
  addr_ = nullptr;
  size_ = 0;
}

int RunExecCommand(const std::string& job_name, std::string_view command, std::string_view mode,
                   FILE* info) {
  const std::string file = job_name + "." + std::string(mode) + ".txt";
  if (info) {
    std::fprintf(info, "%s : Saving output of %.*s in %s\n", job_name.c_str(), int(mode.size()),
                 mode.data(), file.c_str());
    std::fflush(info);
  }
  const std::string line = std::string(command) + " > " + file + " 2>&1";
  return std::system(line.c_str());
}

}  // namespace blk::bench
