#include "tools/block_bench/run/slot_pool.h"

#include <cerrno>
#include <string>

namespace blk::bench {

Expected<void> SlotPool::allocate(uint32_t n, uint64_t size, BufferFiller* filler) {
  slots_.resize(n);
  free_.reserve(n);
  for (uint32_t i = 0; i < n; i++) {
    slots_[i].buf = AlignedBuffer(size);
    if (!slots_[i].buf.ok()) {
      return Error{-ENOMEM, "out of memory for I/O buffers (iodepth=" + std::to_string(n) + " x " +
                                std::to_string(size) + " bytes)"};
    }
    if (filler) filler->fill(slots_[i].buf.data(), size);
    free_.push_back(n - 1 - i);
  }
  return {};
}

}  // namespace blk::bench
