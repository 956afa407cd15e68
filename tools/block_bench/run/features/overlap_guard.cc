#include "tools/block_bench/run/features/overlap_guard.h"

#include "tools/block_bench/run/submit_loop.h"

namespace blk::bench {

bool OverlapGuard::overlaps(const IoUnit& u) const {
  if (u.len == 0) return false;
  for (const Range& r : busy_) {
    if (!r.busy || r.file != u.file) continue;
    if (u.offset < r.offset + r.len && r.offset < u.offset + u.len) return true;
  }
  return false;
}

bool OverlapGuard::before_issue(SubmitLoop& loop) {
  if (!loop.has_pending() || loop.inflight() == 0) return false;
  if (!overlaps(loop.pending_io())) return false;
  waits_++;
  return true;
}

void OverlapGuard::on_issue(const IssuedIo& io) {
  if (io.slot >= busy_.size()) return;
  busy_[io.slot] = Range{true, io.u.file, io.u.offset, io.u.len};
}

void OverlapGuard::on_retire(uint32_t slot) {
  if (slot < busy_.size()) busy_[slot].busy = false;
}

Task<bool> OverlapGuard::turn(SubmitLoop& loop) {
  co_await loop.wait_completion();
  co_return true;
}

}  // namespace blk::bench
