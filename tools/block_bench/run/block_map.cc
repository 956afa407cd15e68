#include "tools/block_bench/run/block_map.h"

#include <algorithm>

namespace blk::bench {

void BlockMap::reset(uint64_t blocks) {
  blocks_ = blocks;
  visited_ = 0;
  bits_.assign((blocks + 63) / 64, 0);
}

uint64_t BlockMap::first_free(uint64_t from, uint64_t to) const {
  uint64_t b = from;
  while (b < to) {
    // A word at a time: its unvisited bits from b on.
    const uint64_t free = ~bits_[b / 64] >> (b % 64);
    if (free) {
      const uint64_t at = b + uint64_t(__builtin_ctzll(free));
      return at < to ? at : kNone;
    }
    b = (b / 64 + 1) * 64;
  }
  return kNone;
}

uint64_t BlockMap::next_free(uint64_t b) const {
  if (full()) return kNone;
  const uint64_t after = first_free(b, blocks_);
  return after != kNone ? after : first_free(0, b);
}

uint64_t BlockMap::claim(uint64_t b, uint64_t n) {
  const uint64_t end = std::min(blocks_, b + n);
  uint64_t i = b;
  for (; i < end && !is_visited(i); i++) bits_[i / 64] |= uint64_t(1) << (i % 64);
  visited_ += i - b;
  return i - b;
}

}  // namespace blk::bench
