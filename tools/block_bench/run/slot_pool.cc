#include "tools/block_bench/run/slot_pool.h"

#include <algorithm>
#include <cerrno>
#include <string>

namespace blk::bench {
namespace {

constexpr uint64_t kAlign = 4096;

std::string Describe(uint32_t n, uint64_t size) {
  return "iodepth=" + std::to_string(n) + " x " + std::to_string(size) + " bytes";
}

}  // namespace

SlotPool::~SlotPool() {
  if (budget_) budget_->release(charged_);
}

Expected<void> SlotPool::allocate(uint32_t n, uint64_t size, BufferFiller* filler,
                                  MemoryBudget* budget, const IoMemoryOptions& memory) {
  const uint64_t stride = std::max(kAlign, (size + kAlign - 1) & ~(kAlign - 1));
  uint64_t total;
  if (size > UINT64_MAX - kAlign || __builtin_mul_overflow(uint64_t(n), stride, &total) ||
      __builtin_add_overflow(total, uint64_t(memory.align), &total) || total > SIZE_MAX) {
    return Error{-ENOMEM, "out of memory for I/O buffers (" + Describe(n, size) + ")"};
  }
  if (budget) {
    // The buffers: the offset's slack (less than a page) is not charged,
    // as the estimates (run/resources.h) count n x stride.
    const uint64_t buffers = total - memory.align;
    auto charged = budget->charge(buffers, "I/O buffers (" + Describe(n, size) + ")");
    if (!charged.ok()) return charged.error();
    budget_ = budget;
    charged_ = buffers;
  }
  // One area, not touched: pages exist only once a fill or the engine
  // writes them (fio's io_u buffers are one allocation too).
  auto m = IoMemory::Allocate(memory, total);
  if (!m.ok()) {
    return Error{m.error().code, "out of memory for I/O buffers (" + Describe(n, size) + ", " +
                                     std::to_string(total >> 20) + " MiB): " + m.error().message};
  }
  memory_ = std::move(m.value());
  filler_ = filler;
  slots_.resize(n);
  free_.reserve(n);
  // fio's layout: a page-aligned start plus mem_align.
  uint8_t* base = memory_.data() + memory.align;
  for (uint32_t i = 0; i < n; i++) {
    slots_[i].buf = SlotBuffer(base + uint64_t(i) * stride, size_t(size));
    free_.push_back(n - 1 - i);
  }
  return {};
}

bool SlotPool::fill_piece() {
  if (!filler_) return false;
  uint64_t budget = kFillPieceBytes;
  bool did = false;
  while (next_fill_ < slots_.size() && budget > 0) {
    Slot& s = slots_[next_fill_];
    if (s.filled >= s.buf.size()) {
      next_fill_++;
      continue;
    }
    const uint64_t end = std::min<uint64_t>(s.buf.size(), s.filled + budget);
    filler_->fill_part(s.buf.data(), size_t(s.filled), size_t(end));
    budget -= end - s.filled;
    s.filled = end;
    did = true;
  }
  return did;
}

void SlotPool::fill(Slot& s, uint64_t len) {
  while (s.filled < len) {
    if (fill_stop_ && fill_stop_()) return;
    const uint64_t end = std::min(len, s.filled + kFillPieceBytes);
    filler_->fill_part(s.buf.data(), size_t(s.filled), size_t(end));
    s.filled = end;
  }
}

}  // namespace blk::bench
