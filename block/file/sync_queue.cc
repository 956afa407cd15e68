#include <blkstack/block/file/sync_queue.h>

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace blk {

Expected<std::unique_ptr<SyncQueue>> SyncQueue::Create(int capacity) {
  std::unique_ptr<SyncQueue> q(new SyncQueue(capacity));
  q->efd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (q->efd_ < 0) {
    const int e = -errno;
    return MakeError(e, "eventfd: " + ErrnoString(e));
  }
  q->done_.reserve(size_t(q->capacity_));
  return q;
}

SyncQueue::~SyncQueue() {
  if (efd_ >= 0) close(efd_);
}

int SyncQueue::submit(IoRequest* const* reqs, int n) {
  const int room = capacity_ - int(done_.size() - head_);
  if (room <= 0) return -EAGAIN;
  n = std::min(n, room);
  for (int i = 0; i < n; i++) {
    syscalls_++;
    done_.push_back({reqs[i], RunIoSyscall(*reqs[i])});
  }
  return n;
}

int SyncQueue::fetch(IoCompletion* out, int max) {
  const int n = int(std::min(done_.size() - head_, size_t(max < 0 ? 0 : max)));
  std::copy_n(done_.begin() + ptrdiff_t(head_), n, out);
  head_ += size_t(n);
  if (head_ == done_.size()) {
    done_.clear();
    head_ = 0;
  }
  return n;
}

void SyncQueue::counters(std::vector<DriverCounter>* out) const {
  out->push_back({"sync_syscalls", syscalls_});
}

}  // namespace blk
