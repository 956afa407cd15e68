// SyncQueue: aio=sync as a KernelQueue.  Each request's system call
// (preadv / pwritev / fdatasync, retried on EINTR) runs in the loop's own
// thread, inside submit(): the loop waits for the device, exactly as fio's
// synchronous engines (psync, sync, pvsync) do.  For benchmarks that must
// measure what those engines measure; an application loop wants
// aio=threads or a kernel queue instead, which never block it.
//
// The results wait on a list for fetch(); QueueEngine's peek right after the
// submission finds them (the engine forces peek-after-submit on), so no
// eventfd write is needed and none is made: the eventfd only satisfies the
// interface.  Requests carry no submission stamp (no slat, like fio's
// synchronous engines).
//
// Threading: as KernelQueue (the loop's thread only).
#pragma once

#include <memory>
#include <vector>

#include <blkstack/block/file/kernel_queue.h>
#include <blkstack/util/result.h>

namespace blk {

class SyncQueue final : public KernelQueue {
 public:
  // `capacity`: the most results held between submit() and fetch().
  static Expected<std::unique_ptr<SyncQueue>> Create(int capacity);
  ~SyncQueue() override;
  SyncQueue(const SyncQueue&) = delete;
  SyncQueue& operator=(const SyncQueue&) = delete;

  const char* name() const override { return "sync"; }
  int event_fd() const override { return efd_; }
  int capacity() const override { return capacity_; }
  int submit(IoRequest* const* reqs, int n) override;
  int fetch(IoCompletion* out, int max) override;
  bool user_space_ring() const override { return true; }
  bool ready() const override { return head_ < done_.size(); }
  bool hands_over() const override { return false; }
  void counters(std::vector<DriverCounter>* out) const override;

 private:
  explicit SyncQueue(int capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  int capacity_;
  int efd_ = -1;
  std::vector<IoCompletion> done_;  // results not fetched yet: [head_, size)
  size_t head_ = 0;
  uint64_t syscalls_ = 0;
};

}  // namespace blk
