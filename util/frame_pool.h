// FramePool: a per-thread cache of coroutine frames.
//
// Every I/O runs two or three short coroutines; their frames are allocated
// and freed at the I/O rate.  glibc's tcache keeps only 7 blocks per size, so
// at queue depth 32+ most frames would go through the slower malloc paths.
// This pool keeps freed frames in per-thread, per-size-class free lists.
//
// Thread-safety: each thread has its own lists (thread_local); a frame may be
// freed on a different thread than the one that allocated it (it then joins
// the freeing thread's cache).  This is an allocator cache, not a "current
// context": it carries no state the program's behaviour depends on.
#pragma once

#include <cstddef>

namespace blk {

struct FramePool {
  // Returns memory for a frame of n bytes (max_align_t aligned).  Aborts on
  // out-of-memory, like operator new would under -fno-exceptions.
  static void* Allocate(size_t n);
  // REQUIRES: p came from Allocate(n) with the same n.
  static void Free(void* p, size_t n) noexcept;
};

}  // namespace blk
