// LibaioQueue: Linux native AIO (io_setup / io_submit) as a KernelQueue.
//
// Completions are read from the kernel's completion ring, mapped into user
// space at the address io_setup returns (no io_getevents system call); if
// the ring's header is not the known layout (magic, incompat features), or
// use_ring is off, io_getevents is used instead.
//
// Threading: as KernelQueue.
#pragma once

#include <libaio.h>

#include <memory>
#include <vector>

#include <blkstack/block/file/kernel_queue.h>
#include <blkstack/util/result.h>

namespace blk {

struct AioRing;

class LibaioQueue final : public KernelQueue {
 public:
  // io_setup(ring_size) + an eventfd.  Errors name the call and errno.
  static Expected<std::unique_ptr<LibaioQueue>> Create(int ring_size, bool use_ring);
  ~LibaioQueue() override;
  LibaioQueue(const LibaioQueue&) = delete;
  LibaioQueue& operator=(const LibaioQueue&) = delete;

  const char* name() const override { return "native"; }
  int event_fd() const override { return efd_; }
  int capacity() const override { return ring_size_; }
  int submit(IoRequest* const* reqs, int n) override;
  int fetch(IoCompletion* out, int max) override;
  bool user_space_ring() const override { return ring_ != nullptr; }
  bool ready() const override;
  void counters(std::vector<DriverCounter>* out) const override;

 private:
  LibaioQueue(io_context_t io, int efd, int ring_size, bool use_ring);

  io_context_t io_;
  int efd_;
  int ring_size_;
  AioRing* ring_ = nullptr;  // nullptr: io_getevents
  // One submission's control blocks and the array io_submit takes: filled
  // from the requests in submit(), grown only for a larger batch than any
  // before (never per request).  io_submit copies each iocb into the
  // kernel, so they are free again once it returns (see submit()).
  std::vector<struct iocb> iocbs_;
  std::vector<struct iocb*> iocb_ptrs_;
  uint64_t getevents_calls_ = 0;
};

}  // namespace blk
