#include "tools/block_bench/run/features/file_lock_hook.h"

#include "tools/block_bench/run/submit_loop.h"
#include <blkstack/util/clock.h>

namespace blk::bench {

bool FileLockHook::before_issue(SubmitLoop& loop) {
  const IoUnit& u = loop.pending_io();
  if (u.flush || u.file >= locks_.size()) return false;
  const bool write = mode_ == JobOptions::FileLock::kExclusive || u.dir != Dir::kRead;
  if (locks_[u.file]->try_acquire(owner(), write)) {
    granted_ = u.file;
    return false;
  }
  waits_++;
  return true;
}

void FileLockHook::on_issue(const IssuedIo& io) {
  if (granted_ == kNone) return;
  if (io.slot < held_.size()) held_[io.slot] = granted_;
  else locks_[granted_]->release(owner());
  granted_ = kNone;
}

void FileLockHook::on_retire(uint32_t slot) {
  if (slot >= held_.size() || held_[slot] == kNone) return;
  locks_[held_[slot]]->release(owner());
  held_[slot] = kNone;
}

Task<bool> FileLockHook::turn(SubmitLoop& loop) {
  // Our own completions may be what holds the lock up (a shared hold
  // another clone's write waits on cannot be ours alone, but ours count).
  if (loop.inflight() > 0) co_await loop.wait_completion();
  else co_await loop.pacing().wait_until(loop.ctx(), NowNs() + poll_ns_);
  co_return true;
}

}  // namespace blk::bench
