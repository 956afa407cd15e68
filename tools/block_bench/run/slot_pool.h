// SlotPool: a clone's I/O slots, one per request it may have in flight.
//
// Each slot holds the request's buffer, the IoVec over the part an I/O
// uses, and the SubmitStamp the driver marks when it hands the request over
// (util/submit_stamp.h).  take() hands out the lowest free slot first at
// the start, then the one given back last (a stack): a slot's buffer stays
// warm in the cache.  Features that keep per-request state index their own
// arrays by slot number.
//
// What set-up costs (as fio's io_u buffers): allocate() takes every slot's
// buffer from one area of the job's memory type (run/io_memory.h; the
// default, an anonymous mapping) and touches none of it, so a read's
// buffer costs no time and no memory until the engine writes into it.
// With a filler (the job writes contents filled once: run/buffer_fill.h)
// the clone fills the buffers after its clock started, before the first
// I/O, fill_piece() by fill_piece() (kFillPieceBytes each), going back to
// its loop in between so that a stop request, the runtime's end or an
// interrupt ends the filling within a piece.  A write whose slot is not
// filled that far yet (the filling stopped) fills it on use
// (fill_for_write), in pieces that check the pool's stop condition; bytes
// a stopped fill did not reach stay as they were (zeros, or what a read
// left there) and are filled by the slot's next write.  The buffers' size
// is taken from a MemoryBudget (run/resources.h) first: beyond the limit,
// allocate() fails at once.
//
// Thread-safety: the clone's loop thread; a slot's buffer may be used on
// the offload submitter's thread while its request is there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tools/block_bench/run/buffer_fill.h"
#include "tools/block_bench/run/io_memory.h"
#include "tools/block_bench/run/resources.h"
#include <blkstack/util/iovec.h>
#include <blkstack/util/result.h>
#include <blkstack/util/submit_stamp.h>

namespace blk::bench {

// One slot's bytes, inside the pool's area (4096-aligned plus mem_align).
class SlotBuffer {
 public:
  SlotBuffer() = default;
  SlotBuffer(uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool ok() const { return data_ != nullptr; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

struct Slot {
  SlotBuffer buf;
  uint64_t filled = 0;  // bytes from the start filled by fill_for_write
  IoVec iov;
  SubmitStamp stamp;
};

class SlotPool {
 public:
  // How much a fill does before it checks the stop condition again.
  static constexpr uint64_t kFillPieceBytes = 4 << 20;

  SlotPool() = default;
  SlotPool(const SlotPool&) = delete;
  SlotPool& operator=(const SlotPool&) = delete;
  ~SlotPool();

  // `n` slots of `size` bytes each, at a stride of `size` rounded up to
  // 4096, from one area of `memory`'s type (not touched); each slot's
  // buffer starts `memory.align` bytes past a 4096 boundary (fio's
  // mem_align: 0, the default, is 4096-aligned).  `filler`
  // (null: none) fills a slot's bytes when a write first uses them.
  // `budget` (null: no limit) is charged n x stride first, and credited
  // again when the pool is destroyed.  Errors, before any memory is
  // mapped: -ENOMEM naming iodepth=n, the size and the total when the
  // budget refuses it (with the budget's message); the allocation's error
  // (IoMemory::Allocate: -ENOMEM, or the failing call's) with the same
  // prefix when the memory cannot be had.  REQUIRES: n >= 1, not allocated
  // yet.
  Expected<void> allocate(uint32_t n, uint64_t size, BufferFiller* filler,
                          MemoryBudget* budget = nullptr, const IoMemoryOptions& memory = {});
  // The stop condition of fill_for_write (empty: never stops).  Called
  // between pieces; true ends the fill there.
  void set_fill_stop(std::function<bool()> stop) { fill_stop_ = std::move(stop); }
  // Fills up to kFillPieceBytes more of the buffers, slot by slot, each to
  // its whole size.  False (nothing done) once all are filled, or without
  // a filler.
  bool fill_piece();
  // Before a write of `len` bytes from `slot`: fills what of its first `len`
  // bytes no fill reached yet (nothing without a filler).  Returns whether
  // it filled anything (the caller's clock reading is then stale).
  // REQUIRES: len <= the slot's size.
  bool fill_for_write(uint32_t slot, uint64_t len) {
    Slot& s = slots_[slot];
    if (!filler_ || s.filled >= len) return false;
    fill(s, len);
    return true;
  }

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
  void fill(Slot& s, uint64_t len);

  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
  BufferFiller* filler_ = nullptr;
  std::function<bool()> fill_stop_;
  uint32_t next_fill_ = 0;  // fill_piece(): the first slot not filled whole
  IoMemory memory_;  // the area of all buffers
  MemoryBudget* budget_ = nullptr;
  uint64_t charged_ = 0;
};

}  // namespace blk::bench
