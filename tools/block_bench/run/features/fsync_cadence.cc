#include "tools/block_bench/run/features/fsync_cadence.h"

#include "tools/block_bench/run/submit_loop.h"
#include <blkstack/util/clock.h>

namespace blk::bench {

bool FsyncCadence::before_fetch(SubmitLoop& loop) {
  if (due_ && !loop.has_pending() && !time_.verify_phase) {
    const bool more = loop.prefetch();
    if (!more || NowNs() >= time_.end_ns) due_ = false;
  }
  return due_;
}

Task<bool> FsyncCadence::turn(SubmitLoop& loop) {
  if (loop.inflight() >= loop.depth()) {
    co_await loop.wait_completion();
    co_return true;
  }
  due_ = false;
  loop.spawn_flush(last_file_);
  co_return true;
}

}  // namespace blk::bench
