// UringQueue: io_uring (liburing) as a KernelQueue: QEMU's aio=io_uring.
//
// Submission: one SQE per request (readv / writev / fsync with
// IORING_FSYNC_DATASYNC), sent by one io_uring_enter per batch.
// Completion: CQEs read from the mapped CQ ring (no system call); when the
// kernel flags task work or a CQ overflow (IORING_SQ_TASKRUN /
// IORING_SQ_CQ_OVERFLOW) an empty peek enters the kernel once to flush
// them.  An eventfd registered with the ring wakes the loop.
//
// Set-up flags are probed, newest first: COOP_TASKRUN + TASKRUN_FLAG (no
// inter-processor interrupt for task work; Linux 5.19), then none.
// SINGLE_ISSUER and DEFER_TASKRUN are not used: a file node may move to
// another loop's thread (BlockBackend::move_to), which SINGLE_ISSUER
// forbids, and DEFER_TASKRUN would hide completions from the user-space
// peek until the next io_uring_enter.
//
// Options: SQPOLL (a kernel thread polls the SQ ring: submission without a
// system call while it is awake; `sqpoll_idle_ms` before it sleeps, pinned
// to `sqpoll_cpu`).  Per request: a registered file (IOSQE_FIXED_FILE: no
// fd lookup; the ring's sparse table of kFileSlots entries is registered on
// the first register_file()), force_async (IOSQE_ASYNC), and a registered
// buffer (IORING_OP_READ_FIXED / WRITE_FIXED: no page pinning per request;
// a sparse table of kBufferSlots entries, registered on the first
// register_buffer()).  Other requests with one buffer are sent as
// IORING_OP_READ/WRITE, with several as READV/WRITEV.
//
// If io_uring cannot be set up -- the kernel.io_uring_disabled sysctl, a
// seccomp filter, a kernel without it, the memlock limit -- Create fails
// with an error naming the cause; nothing falls back silently.
//
// Threading: as KernelQueue.
#pragma once

#include <liburing.h>

#include <memory>
#include <string>
#include <vector>

#include <blkstack/block/file/kernel_queue.h>
#include <blkstack/util/result.h>

namespace blk {

class UringQueue final : public KernelQueue {
 public:
  struct Config {
    int entries = 128;        // SQ size (the CQ has twice as many)
    bool sqpoll = false;      // IORING_SETUP_SQPOLL
    int sqpoll_idle_ms = 0;   // 0: the kernel's default (1 s)
    int sqpoll_cpu = -1;      // >= 0: pin the SQPOLL thread (IORING_SETUP_SQ_AFF)
  };
  // Files one ring can hold registered at once (the sparse table's size).
  static constexpr int kFileSlots = 1024;
  // Buffers one ring can hold registered at once (the kernel allows 16384).
  static constexpr int kBufferSlots = 4096;

  static Expected<std::unique_ptr<UringQueue>> Create(const Config& cfg);
  ~UringQueue() override;
  UringQueue(const UringQueue&) = delete;
  UringQueue& operator=(const UringQueue&) = delete;

  const char* name() const override { return "io_uring"; }
  int event_fd() const override { return efd_; }
  int capacity() const override { return int(ring_.sq.ring_entries); }
  int submit(IoRequest* const* reqs, int n) override;
  int fetch(IoCompletion* out, int max) override;
  bool user_space_ring() const override { return true; }
  bool ready() const override;
  void counters(std::vector<DriverCounter>* out) const override;
  int register_file(int fd) override;
  void unregister_file(int index) override;
  int register_buffer(void* base, size_t len) override;
  void unregister_buffer(int index) override;

  // The set-up flags the kernel accepted (IORING_SETUP_*).
  unsigned setup_flags() const { return flags_; }

 private:
  UringQueue() = default;

  struct io_uring ring_ {};
  bool ring_ok_ = false;  // io_uring_queue_init succeeded
  int efd_ = -1;
  unsigned flags_ = 0;
  std::vector<int> files_;  // the file table: fd per index, -1 free; empty until used
  int files_registered_ = 0;
  std::vector<bool> buffers_;  // the buffer table: entry in use; empty until used
  int buffers_registered_ = 0;
  uint64_t fixed_sqes_ = 0;  // READ_FIXED / WRITE_FIXED sent
  uint64_t enters_ = 0;
  uint64_t async_sqes_ = 0;  // sent with IOSQE_ASYNC
  uint64_t sqes_ = 0;
  uint64_t flush_enters_ = 0;  // peeks that entered: task work, overflow, SQEs left
  uint64_t overflows_ = 0;     // peeks that saw IORING_SQ_CQ_OVERFLOW
  uint64_t submit_errors_ = 0;
};

}  // namespace blk
