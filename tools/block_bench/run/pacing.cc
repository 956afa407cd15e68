#include "tools/block_bench/run/pacing.h"

#include <algorithm>

#include <blkstack/util/clock.h>

namespace blk::bench {
Task<void> Pacing::wait_until(AioContext& ctx, int64_t due) {
  // Never past the end of the runtime, and cut short by interrupt(): a rate
  // or think time longer than the job must not keep it running.
  const int64_t until = time_.verify_phase ? due : std::min(due, time_.end_ns);
  if (!spin_) {
    co_await sleeps_.until(ctx, until);
    co_return;
  }
  // A trace: sleep until a window before the due time, then yield to the
  // loop (completions are reaped meanwhile) until it is due.
  const int64_t now = NowNs();
  if (until - now <= spin_ns_) {
    co_await YieldToLoop{&ctx};
    co_return;
  }
  const int64_t wake = until - spin_ns_;
  const bool slept = co_await sleeps_.until(ctx, wake);
  if (!slept) co_return;  // cancelled
  adapt_window(NowNs() - wake);
}

}  // namespace blk::bench
