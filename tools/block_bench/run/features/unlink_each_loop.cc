#include "tools/block_bench/run/features/unlink_each_loop.h"

#include "tools/block_bench/run/submit_loop.h"

namespace blk::bench {

bool UnlinkEachLoop::before_issue(SubmitLoop& loop) {
  // A pass ended when the I/O about to go belongs to a later one.
  return loop.pending_io().pass > pass_;
}

Task<bool> UnlinkEachLoop::turn(SubmitLoop& loop) {
  pass_ = loop.pending_io().pass;
  loop.end_batch();
  co_await loop.wait_all();
  restarts_++;
  Expected<void> r = co_await between_();
  if (!r.ok()) errors_.fail(-r.error().code, r.error().message);
  co_return true;
}

}  // namespace blk::bench
