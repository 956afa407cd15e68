#include "tools/block_bench/run/job_process.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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
  // The system call itself, not libc's mlock: AddressSanitizer replaces
  // mlock/munlock with functions that do nothing, and a sanitized build
  // must pin what the job asked as the others do.
  if (!e && syscall(SYS_mlock, p, bytes) != 0) {
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
  syscall(SYS_munlock, addr_, size_);
  munmap(addr_, size_);
  if (budget_) budget_->release(size_);
  addr_ = nullptr;
  size_ = 0;
}

Expected<void> SwitchIoScheduler(const std::string& path, const std::string& scheduler,
                                 FILE* messages) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return {};  // the open reports it
  const dev_t dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
  std::string sys = "/sys/dev/block/" + std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
  if (access(sys.c_str(), F_OK) != 0) return {};  // no block device under it
  if (access((sys + "/partition").c_str(), F_OK) == 0) sys += "/..";
  const std::string file = sys + "/queue/scheduler";
  const std::string at = "ioscheduler=" + scheduler + ": " + file + ": ";
  FILE* f = std::fopen(file.c_str(), "r+");
  if (!f) {
    const int e = errno;
    if (e == ENOENT) {
      if (messages) std::fprintf(messages, "block-bench: os or kernel doesn't support IO scheduler switching\n");
      return {};
    }
    return MakeError(-e, at + "open: " + ErrnoString(-e));
  }
  const bool wrote = std::fwrite(scheduler.data(), scheduler.size(), 1, f) == 1 && std::fflush(f) == 0;
  if (!wrote) {
    const int e = errno ? errno : EIO;
    std::fclose(f);
    return MakeError(-e, at + "unable to set the I/O scheduler: " + ErrnoString(-e));
  }
  std::rewind(f);
  char buf[512];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  std::string now(buf);
  if (const size_t nl = now.find('\n'); nl != std::string::npos) now.resize(nl);
  if (now == "none") {  // not tunable: fio's note, no error
    if (messages) std::fprintf(messages, "block-bench: io scheduler is not tunable\n");
    return {};
  }
  if (now.find("[" + scheduler + "]") == std::string::npos)
    return MakeError(-EINVAL, at + "io scheduler " + scheduler + " not found (the file reads '" + now + "')");
  return {};
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
