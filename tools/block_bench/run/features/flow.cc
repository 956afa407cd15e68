#include "tools/block_bench/run/features/flow.h"

#include "tools/block_bench/run/pacing.h"
#include "tools/block_bench/run/submit_loop.h"
#include <blkstack/util/clock.h>

namespace blk::bench {

void FlowMember::join() {
  if (joined_) return;
  group_.join(weight_);
  joined_ = true;
}

void FlowMember::leave() {
  if (!joined_) return;
  group_.leave(weight_, issued_);
  joined_ = false;
}

bool FlowMember::before_issue(SubmitLoop&) {
  if (!joined_ || time_.verify_phase) return false;
  if (group_.ahead(issued_, weight_)) return true;
  group_.issued();
  issued_++;
  return false;
}

Task<bool> FlowMember::turn(SubmitLoop& loop) {
  loop.end_batch();
  if (sleep_us_) {
    co_await loop.wait_all();
    co_await loop.pacing().wait_until(loop.ctx(), NowNs() + int64_t(sleep_us_) * 1000);
  } else {
    co_await YieldToLoop{&loop.ctx()};
  }
  co_return true;
}

}  // namespace blk::bench
