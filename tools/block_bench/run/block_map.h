// BlockMap: which blocks of a job's region random I/O has visited in the
// current pass, as fio's random map (its axmap): a random pick that falls
// on a visited block moves on to the next unvisited one, and an I/O longer
// than one block claims the unvisited run from its first block and is cut
// to it, so one pass covers every block exactly once whatever the block
// sizes (bsrange, bssplit).
//
//   BlockMap m(256);             // 256 blocks, none visited
//   m.next_free(17)              // 17 if unvisited, else the next
//                                // unvisited after it (wrapping), or
//                                // kNone when all are visited
//   m.claim(17, 16)              // marks up to 16 blocks from 17, stopping
//                                // at the first visited one: how many
//
// Thread-safety: none (one per clone, on its thread).
#pragma once

#include <cstdint>
#include <vector>

namespace blk::bench {

class BlockMap {
 public:
  static constexpr uint64_t kNone = UINT64_MAX;

  explicit BlockMap(uint64_t blocks = 0) { reset(blocks); }
  // All `blocks` unvisited again (a new pass).
  void reset(uint64_t blocks);
  void reset() { reset(blocks_); }

  uint64_t blocks() const { return blocks_; }
  uint64_t visited() const { return visited_; }
  bool full() const { return visited_ == blocks_; }
  bool is_visited(uint64_t b) const { return (bits_[b / 64] >> (b % 64)) & 1; }

  // `b` if unvisited, else the first unvisited block after it, wrapping to
  // the start; kNone when every block is visited.  REQUIRES: b < blocks().
  uint64_t next_free(uint64_t b) const;
  // Marks blocks b, b+1, ... up to `n` of them or the map's end, stopping
  // before the first one already visited; returns how many it marked
  // (0 when b itself is visited).  REQUIRES: b < blocks().
  uint64_t claim(uint64_t b, uint64_t n);

 private:
  // The first unvisited block in [from, to), or kNone.
  uint64_t first_free(uint64_t from, uint64_t to) const;

  uint64_t blocks_ = 0;
  uint64_t visited_ = 0;
  std::vector<uint64_t> bits_;  // bit b: block b visited
};

}  // namespace blk::bench
