// SlotPool: a clone's I/O slots, one per request it may have in flight.
//
// Each slot holds the request's aligned buffer (filled once with what the
// job writes, run/buffer_fill.h), the IoVec over the part an I/O uses, and
// the SubmitStamp the driver marks when it hands the request over
// (util/submit_stamp.h).  take() hands out the lowest free slot first at
// the start, then the one given back last (a stack): a slot's buffer stays
// warm in the cache.  Features that keep per-request state index their own
// arrays by slot number.
//
// Thread-safety: the clone's loop thread; a slot's buffer may be used on
// the offload submitter's thread while its request is there.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/block_bench/run/buffer_fill.h"
#include "util/aligned_buffer.h"
#include "util/iovec.h"
#include "util/result.h"
#include "util/submit_stamp.h"

namespace blk::bench {

struct Slot {
  AlignedBuffer buf;
  IoVec iov;
  SubmitStamp stamp;
};

class SlotPool {
 public:
  // `n` slots of `size` bytes each, filled by `filler` (null: left as
  // allocated).  Error ENOMEM, saying the depth and size, when the memory
  // cannot be had.  REQUIRES: n >= 1, not allocated yet.
  Expected<void> allocate(uint32_t n, uint64_t size, BufferFiller* filler);
  uint32_t size() const { return uint32_t(slots_.size()); }
  bool empty() const { return free_.empty(); }  // every slot in use
  // A free slot.  REQUIRES: !empty().
  uint32_t take() {
    const uint32_t s = free_.back();
    free_.pop_back();
    return s;
  }
  void give(uint32_t slot) { free_.push_back(slot); }
  Slot& operator[](uint32_t slot) { return slots_[slot]; }
  // The IoVec over the first `len` bytes of the slot's buffer.
  const IoVec& iov(uint32_t slot, uint64_t len) {
    Slot& s = slots_[slot];
    if (s.iov.size() != len) s.iov = IoVec(s.buf.data(), len);
    return s.iov;
  }
  std::vector<Slot>& slots() { return slots_; }

 private:
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
};

}  // namespace blk::bench
