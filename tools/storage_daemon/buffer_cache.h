// BufferCache: request buffers a connection gives back, kept for its next
// requests instead of freed.
//
// Why: glibc gives memory freed at the top of its heap back to the kernel
// (brk) and takes it again, page fault by page fault, for the next
// requests.  Serving 4 KiB reads at QD32 over NBD, the daemon made one brk
// system call per 18 requests, and the faults behind each; with the
// buffers kept, none (tools/bench/nbd_compare.py; docs/export.md).
//
// Sizes are rounded up to a power of two from 4 KiB (kMinClass) to 1 MiB
// (kMaxClass); take() of a larger size allocates exactly and give() frees
// it.  At most `max_bytes` are kept; a buffer given back beyond that is
// freed.  Buffers come back uninitialised (what the last user left).
//
// Thread-safety: none; one connection's loop thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <blkstack/util/aligned_buffer.h>

namespace blk::nbd {

class BufferCache {
 public:
  static constexpr size_t kMinClass = 4096;
  static constexpr size_t kMaxClass = 1 << 20;

  explicit BufferCache(size_t max_bytes) : max_bytes_(max_bytes) {}
  BufferCache(const BufferCache&) = delete;
  BufferCache& operator=(const BufferCache&) = delete;

  // A buffer of at least `size` bytes (4096-aligned), kept or new.  Size 0:
  // an empty buffer.  Out of memory: an empty buffer (ok() false).
  AlignedBuffer take(size_t size);
  // Keeps `b` for a later take() when its size is one of the classes and
  // the cache has room; frees it otherwise.  An empty buffer: nothing.
  void give(AlignedBuffer b);

  size_t kept_bytes() const { return kept_bytes_; }
  // take() calls answered from the cache / by a new allocation.
  uint64_t reused() const { return reused_; }
  uint64_t allocated() const { return allocated_; }

 private:
  static constexpr int kClasses = 9;  // 4 KiB, 8 KiB, ... 1 MiB
  // The class index of a size that is exactly a class, else -1.
  static int ClassOf(size_t size);

  size_t max_bytes_;
  size_t kept_bytes_ = 0;
  uint64_t reused_ = 0;
  uint64_t allocated_ = 0;
  std::vector<AlignedBuffer> free_[kClasses];
};

}  // namespace blk::nbd
