#include "tools/block_bench/run/io_memory.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include <blkstack/util/quote.h>

namespace blk::bench {
namespace {

std::string Bytes(uint64_t n) { return std::to_string(n) + " bytes"; }

bool Huge(IoMem t) { return t == IoMem::kShmHuge || t == IoMem::kMmapHuge; }

// fio's hint after a huge-page allocation failed with `err` (negative).
std::string HugeHint(int err) {
  if (err == -ENOMEM || err == -EINVAL)
    return ": no free huge pages of that size? (HugePages_Free in /proc/meminfo; allocate some "
           "with /proc/sys/vm/nr_hugepages, and check hugepage-size=)";
  return "";
}

Error Failed(const IoMemoryOptions& opts, const std::string& call, uint64_t size, int err) {
  std::string msg = "mem=" + MemName(opts) + ": " + call + " of " + Bytes(size) +
                    " failed: " + ErrnoString(err);
  if (Huge(opts.type)) msg += HugeHint(err);
  return Error{err, msg};
}

}  // namespace

Expected<void> CheckMemAlign(uint32_t align, uint32_t memory_alignment, const std::string& target) {
  if (memory_alignment <= 1 || align % memory_alignment == 0) return {};
  return Error{-EINVAL, "mem_align=" + std::to_string(align) + ": the I/O buffers would start " +
                            std::to_string(align % 4096) + " bytes past a page boundary, and " +
                            target + " takes only buffers aligned to " +
                            std::to_string(memory_alignment) +
                            " bytes (O_DIRECT): fio's I/Os fail with EINVAL; use a multiple of " +
                            std::to_string(memory_alignment) + " or direct=0"};
}

std::string MemName(const IoMemoryOptions& opts) {
  static const char* const kNames[] = {"malloc", "shm", "shmhuge", "mmap", "mmaphuge", "mmapshared"};
  std::string n = kNames[int(opts.type)];
  if (!opts.file.empty()) n += ":" + opts.file;
  return n;
}

IoMemory& IoMemory::operator=(IoMemory&& o) noexcept {
  if (this != &o) {
    release();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    shm_ = o.shm_;
    unlink_path_ = std::move(o.unlink_path_);
    o.unlink_path_.clear();
  }
  return *this;
}

void IoMemory::release() {
  if (data_) {
    if (shm_) {
      shmdt(data_);
    } else {
      munmap(data_, size_);
    }
  }
  if (!unlink_path_.empty()) unlink(unlink_path_.c_str());
  data_ = nullptr;
  size_ = 0;
  unlink_path_.clear();
}

Expected<IoMemory> IoMemory::Allocate(const IoMemoryOptions& opts, uint64_t bytes) {
  uint64_t size = bytes;
  if (Huge(opts.type)) {
    const uint64_t mask = opts.hugepage_size - 1;
    if (size > UINT64_MAX - mask) return Failed(opts, "rounding up", size, -ENOMEM);
    size = (size + mask) & ~mask;
  }
  if (size > SIZE_MAX) return Failed(opts, "allocating", size, -ENOMEM);
  IoMemory m;
  m.size_ = size_t(size);

  if (opts.type == IoMem::kShm || opts.type == IoMem::kShmHuge) {
    int flags = IPC_CREAT | S_IRUSR | S_IWUSR;
    if (opts.type == IoMem::kShmHuge) flags |= SHM_HUGETLB;
    const int id = shmget(IPC_PRIVATE, m.size_, flags);
    if (id < 0) {
      return Failed(opts, opts.type == IoMem::kShmHuge ? "shmget(SHM_HUGETLB)" : "shmget", size,
                    -errno);
    }
    void* p = shmat(id, nullptr, 0);
    const int err = errno;
    // Marked for removal now: it goes when detached, even if we crash.
    shmctl(id, IPC_RMID, nullptr);
    if (p == reinterpret_cast<void*>(-1)) return Failed(opts, "shmat", size, -err);
    m.data_ = static_cast<uint8_t*>(p);
    m.shm_ = true;
    return m;
  }

  int flags = MAP_PRIVATE;
  int fd = -1;
  if (!opts.file.empty()) {
    const bool existed = access(opts.file.c_str(), F_OK) == 0;
    fd = open(opts.file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      const int e = -errno;
      return Error{e, "mem=" + MemName(opts) + ": cannot open " + QuoteName(opts.file) + ": " +
                          ErrnoString(e)};
    }
    if (!existed) m.unlink_path_ = opts.file;  // removed by ~IoMemory, also on an error below
    auto fail = [&](Error e) {
      close(fd);
      return e;
    };
    struct stat st;
    if (fstat(fd, &st) != 0) return fail(Failed(opts, "fstat", size, -errno));
    if (opts.type == IoMem::kMmapHuge) {
      struct statfs fs;
      if (fstatfs(fd, &fs) != 0) return fail(Failed(opts, "fstatfs", size, -errno));
      if (fs.f_type != HUGETLBFS_MAGIC) {
        return fail(Error{-EINVAL, "mem=" + MemName(opts) + ": " + QuoteName(opts.file) +
                                       " is not on a hugetlbfs mount (mount -t hugetlbfs none "
                                       "DIR, and name a file in DIR)"});
      }
    }
    // mmap: the file is the area's size, as fio's; the shared types only
    // extend it, so that no buffer lies past its end.
    const bool truncate = opts.type == IoMem::kMmap ? uint64_t(st.st_size) != size
                                                    : uint64_t(st.st_size) < size;
    if (truncate && ftruncate(fd, off_t(size)) != 0)
      return fail(Failed(opts, "ftruncate of " + QuoteName(opts.file), size, -errno));
    if (opts.type != IoMem::kMmap) flags = MAP_SHARED;
  } else {
    // mmapshared without a file too: fio 3.33 maps it private (its HOWTO
    // says MAP_SHARED; strace of fio shows MAP_PRIVATE|MAP_ANONYMOUS).
    // Huge pages are reserved at mmap (without MAP_NORESERVE): with none
    // free the mmap fails, where a MAP_NORESERVE one succeeds and the first
    // touch of a buffer kills the process with SIGBUS.
    flags |= MAP_ANONYMOUS;
    flags |= opts.type == IoMem::kMmapHuge ? MAP_HUGETLB : MAP_NORESERVE;
  }
  void* p = mmap(nullptr, m.size_, PROT_READ | PROT_WRITE, flags, fd, 0);
  const int err = errno;
  if (fd >= 0) close(fd);  // the mapping keeps the file
  if (p == MAP_FAILED) {
    const char* call = opts.type == IoMem::kMmapHuge && opts.file.empty() ? "mmap(MAP_HUGETLB)"
                                                                          : "mmap";
    return Failed(opts, call, size, -err);
  }
  m.data_ = static_cast<uint8_t*>(p);
  return m;
}

}  // namespace blk::bench
