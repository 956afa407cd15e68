#include "tools/block_bench/run/features/unlink_each_loop.h"

#include "tools/block_bench/run/submit_loop.h"

namespace blk::bench {

bool UnlinkEachLoop::before_fetch(SubmitLoop& loop) {
  if (issued_ < next_) return false;
  // A pass ended: only when another follows.
  if (!loop.has_pending() && !loop.prefetch()) return false;
  return true;
}

Task<bool> UnlinkEachLoop::turn(SubmitLoop& loop) {
  while (issued_ >= next_) next_ += pass_bytes_;
  loop.end_batch();
  co_await loop.wait_all();
  restarts_++;
  Expected<void> r = co_await between_();
  if (!r.ok()) errors_.fail(-r.error().code, r.error().message);
  co_return true;
}

}  // namespace blk::bench
