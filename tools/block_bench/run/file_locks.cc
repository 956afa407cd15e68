#include "tools/block_bench/run/file_locks.h"

namespace blk::bench {

bool FileLock::try_acquire(uintptr_t owner, bool write) {
  std::lock_guard lock(mu_);
  const bool others = holders_.size() > 1 || (holders_.size() == 1 && !holders_.count(owner));
  if (exclusive_ || write) {
    if (others) return false;
    exclusive_ = exclusive_ || write;
  }
  holders_[owner]++;
  return true;
}

void FileLock::release(uintptr_t owner) {
  std::lock_guard lock(mu_);
  auto it = holders_.find(owner);
  if (it == holders_.end()) return;
  if (--it->second == 0) holders_.erase(it);
  if (holders_.empty()) exclusive_ = false;
}

FileLock* FileLocks::get(const std::string& name) {
  std::lock_guard lock(mu_);
  std::unique_ptr<FileLock>& l = locks_[name];
  if (!l) l = std::make_unique<FileLock>();
  return l.get();
}

}  // namespace blk::bench
