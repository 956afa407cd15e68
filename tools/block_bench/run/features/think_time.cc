#include "tools/block_bench/run/features/think_time.h"

#include <algorithm>

#include "tools/block_bench/run/submit_loop.h"
#include <blkstack/util/clock.h>
#include <blkstack/util/saturating.h>

namespace blk::bench {

bool ThinkTime::due(int64_t now) {
  if (time_.verify_phase) return false;
  bool stall = false;
  if (job_.thinktime_iotime.count() > 0) {
    // Times up to 2^63 us each: saturate instead of overflowing.
    const int64_t cycle_ns =
        SatMul(SatAdd(job_.thinktime_iotime.count(), length_->count()), 1000);
    if (now - last_ns_ >= cycle_ns) stall = true;
    else if (!job_.thinktime_blocks && !every_io_) return false;  // only the time counts
  }
  const uint64_t b = job_.thinktime_issue && !every_io_ ? issued_ : completed_;
  const uint32_t blocks = every_io_ ? 1 : std::max<uint32_t>(1, job_.thinktime_blocks);
  if (b >= last_blocks_ + blocks) stall = true;
  if (stall) {
    last_blocks_ = b;
    last_ns_ = now;  // as fio: iotime + thinktime from decision to decision
  }
  return stall;
}

Task<bool> ThinkTime::turn(SubmitLoop& loop) {
  co_await loop.wait_all();  // fio's io_u_quiesce
  const int64_t t0 = NowNs();
  // The spin keeps the loop busy: nothing is in flight, and it ends with
  // the runtime.
  const int64_t spin_us = every_io_ ? 0 : job_.thinktime_spin.count();
  const int64_t spin_end = std::min(time_.end_ns, SatAdd(t0, SatMul(spin_us, 1000)));
  while (!errors_.stopped() && NowNs() < spin_end) {
  }
  const int64_t rest = SatMul(SatSub(length_->count(), spin_us), 1000);
  if (rest > 0 && !errors_.stopped())
    co_await loop.pacing().wait_until(loop.ctx(), SatAdd(NowNs(), rest));
  if (job_.rate_ignore_thinktime) loop.pacing().shift(NowNs() - t0);
  co_return false;
}

}  // namespace blk::bench
