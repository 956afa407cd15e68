#include "tools/block_bench/run/features/verify_backlog.h"

#include "tools/block_bench/run/submit_loop.h"

namespace blk::bench {

bool VerifyBacklog::due(Dir last) {
  if (time_.verify_phase || tracker_.history() == 0) return false;
  if (!batch_ && tracker_.history() % backlog_ == 0 && last != Dir::kRead) batch_ = batch_size_;
  return batch_ != 0;
}

bool VerifyBacklog::before_fetch(SubmitLoop& loop) {
  return loop.injected_empty() && due(loop.last_dir());
}

Task<bool> VerifyBacklog::turn(SubmitLoop& loop) {
  loop.end_batch();
  co_await loop.wait_all();  // the writes are complete: in the backlog, or failed
  take([&loop](const IoUnit& u) { loop.inject(u); });
  co_return true;
}

}  // namespace blk::bench
