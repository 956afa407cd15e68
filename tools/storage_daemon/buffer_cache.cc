#include "tools/storage_daemon/buffer_cache.h"

#include <bit>
#include <utility>

namespace blk::nbd {

int BufferCache::ClassOf(size_t size) {
  if (size < kMinClass || size > kMaxClass || !std::has_single_bit(size)) return -1;
  return std::countr_zero(size) - std::countr_zero(kMinClass);
}

AlignedBuffer BufferCache::take(size_t size) {
  if (size == 0) return AlignedBuffer();
  if (size > kMaxClass) {
    allocated_++;
    return AlignedBuffer(size);
  }
  const size_t rounded = size <= kMinClass ? kMinClass : std::bit_ceil(size);
  std::vector<AlignedBuffer>& list = free_[ClassOf(rounded)];
  if (!list.empty()) {
    AlignedBuffer b = std::move(list.back());
    list.pop_back();
    kept_bytes_ -= rounded;
    reused_++;
    return b;
  }
  allocated_++;
  return AlignedBuffer(rounded);
}

void BufferCache::give(AlignedBuffer b) {
  if (!b.ok()) return;
  const int c = ClassOf(b.size());
  if (c < 0 || kept_bytes_ + b.size() > max_bytes_) return;  // freed here
  kept_bytes_ += b.size();
  free_[c].push_back(std::move(b));
}

}  // namespace blk::nbd
