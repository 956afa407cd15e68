// IoMemory: the memory a clone's I/O buffers live in, of the type the job
// chose with fio's mem= (run/slot_pool.h cuts it into slots).
//
//   malloc, mmap      private anonymous mapping (MAP_NORESERVE, not touched:
//                     glibc's malloc maps buffers this large the same way,
//                     and block-bench maps directly so that no page is
//                     touched before an I/O or a fill writes it)
//   mmap:FILE         FILE (created 0644 if missing) truncated to the size
//                     and mapped MAP_PRIVATE, as fio
//   mmapshared:FILE   the same with MAP_SHARED (a FILE shorter than the
//                     area is extended, never shortened: fio leaves it
//                     short, and its I/Os into the part past the end fail
//                     with EFAULT); without FILE, as mmap: fio 3.33 maps
//                     anonymous memory MAP_PRIVATE for it (strace), though
//                     its HOWTO says shared
//   mmaphuge          MAP_HUGETLB anonymous mapping; with FILE, a MAP_SHARED
//                     mapping of FILE, which must be on a hugetlbfs mount
//   shm, shmhuge      a System V segment (shmget(2) IPC_PRIVATE, with
//                     SHM_HUGETLB for shmhuge), attached and marked for
//                     removal at once, so that it goes when detached or
//                     when the process dies
// The huge types round the size up to hugepage-size, as fio.  A FILE the
// allocation created is removed again when the memory is released (fio's
// too); one that existed is kept.
//
// Errors (nothing is left allocated): the system call's -errno with a
// message naming mem=, the call and the size; when huge pages are missing,
// fio's hint (HugePages_Free in /proc/meminfo, /proc/sys/vm/nr_hugepages).
//
// Thread-safety: none needed; the owner allocates and releases.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tools/block_bench/jobfile/job.h"
#include <blkstack/util/result.h>

namespace blk::bench {

class IoMemory {
 public:
  IoMemory() = default;
  IoMemory(IoMemory&& o) noexcept { *this = std::move(o); }
  IoMemory& operator=(IoMemory&& o) noexcept;
  IoMemory(const IoMemory&) = delete;
  IoMemory& operator=(const IoMemory&) = delete;
  ~IoMemory() { release(); }

  // At least `bytes` of memory of `opts.type` (opts.file and
  // opts.hugepage_size as above), page-aligned.  REQUIRES: bytes >= 1.
  static Expected<IoMemory> Allocate(const IoMemoryOptions& opts, uint64_t bytes);

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }  // what was allocated (rounded up)

 private:
  void release();

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool shm_ = false;         // shmdt instead of munmap
  std::string unlink_path_;  // a mapped file this allocation created
};

// mem_align against a target's memory alignment (BlockLimits'
// memory_alignment: 512 or 4096 for O_DIRECT, 1 for buffered I/O): with
// buffers `align` bytes past a page boundary, fio's O_DIRECT I/Os fail with
// EINVAL, one by one; block-bench's block layer would bounce them through
// an aligned copy instead, which is not what the job asked to measure.  So
// an `align` the alignment does not divide is -EINVAL naming mem_align,
// the alignment and `target`.
Expected<void> CheckMemAlign(uint32_t align, uint32_t memory_alignment, const std::string& target);

// "shmhuge", "mmap:/path": mem='s value, in messages.
std::string MemName(const IoMemoryOptions& opts);

}  // namespace blk::bench
