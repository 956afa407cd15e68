// KernelQueue: the mechanism under QueueEngine (queue_engine.h), one per I/O
// interface: Linux native AIO (libaio_queue.h), io_uring (uring_queue.h),
// the worker pool (thread_queue.h) or the loop's own thread (sync_queue.h).
// QueueEngine holds the policy they share (queueing, plug batching, the
// adaptive batch size, where completions are reaped, busy polling and its
// governor, resuming coroutines); a KernelQueue only sends requests and
// hands back completions.
//
// Threading: every call on the thread of the loop QueueEngine is attached to.
#pragma once

#include <sys/uio.h>

#include <cerrno>
#include <coroutine>
#include <cstdint>
#include <string>
#include <vector>

#include <blkstack/block/driver.h>
#include <blkstack/util/submit_stamp.h>

namespace blk {

// One read, write or fdatasync, as every backend takes it: no type of any
// one interface in it.  A backend that needs a control block of its own
// per request (libaio's iocb, an io_uring SQE) fills it from these fields
// in its own storage when it sends the request, and gets the IoRequest*
// back from the kernel's completion as user data.  Lives in the awaiting
// coroutine's frame and must stay put until QueueEngine::submit() resumes it.
// The iovec array must stay valid as long.
struct IoRequest {
  enum class Op : uint8_t { kRead, kWrite, kFdatasync };

  Op op = Op::kRead;
  int fd = -1;
  const struct iovec* iov = nullptr;
  int iovcnt = 0;
  uint64_t offset = 0;
  // io_uring only: `fd` is an index into the ring's file table
  // (KernelQueue::register_file; IOSQE_FIXED_FILE), and the request goes to
  // the kernel's io-wq workers at once (IOSQE_ASYNC).
  bool fixed_file = false;
  bool force_async = false;
  // io_uring only: the request's one buffer lies in entry `buf_index` of the
  // ring's registered buffers (KernelQueue::register_buffer), so it goes as
  // IORING_OP_READ_FIXED / WRITE_FIXED; -1: a plain request.
  int buf_index = -1;
  // The request's I/O priority (ioprio_set(2)'s value; block/driver.h
  // ReqPrio), 0: none.  libaio: aio_reqprio with IOCB_FLAG_IOPRIO; io_uring:
  // sqe->ioprio.  The worker pool and aio=sync run the system call in a
  // thread whose own priority applies instead.  The kernel checks the
  // value when it takes the request: an invalid class fails it with
  // -EINVAL, the real-time class without CAP_SYS_ADMIN with -EPERM.
  uint16_t ioprio = 0;
  // Read or write: the kernel's RWF_* flags for the request (RWF_NOWAIT),
  // 0: none.  libaio: aio_rw_flags; io_uring: sqe->rw_flags; the worker pool
  // and aio=sync: preadv2/pwritev2 instead of preadv/pwritev.
  int rw_flags = 0;

  // QueueEngine's bookkeeping.
  std::coroutine_handle<> waiter;
  SubmitStamp* stamp = nullptr;  // the waiter's, marked when the kernel took it
  int64_t res = 0;  // byte count or negative errno
  IoRequest* next = nullptr;
  bool done = false;

  static IoRequest Read(int fd, const struct iovec* iov, int iovcnt, uint64_t offset) {
    return Make(Op::kRead, fd, iov, iovcnt, offset);
  }
  static IoRequest Write(int fd, const struct iovec* iov, int iovcnt, uint64_t offset) {
    return Make(Op::kWrite, fd, iov, iovcnt, offset);
  }
  static IoRequest Fdatasync(int fd) { return Make(Op::kFdatasync, fd, nullptr, 0, 0); }

 private:
  static IoRequest Make(Op op, int fd, const struct iovec* iov, int iovcnt, uint64_t offset) {
    IoRequest r;
    r.op = op;
    r.fd = fd;
    r.iov = iov;
    r.iovcnt = iovcnt;
    r.offset = offset;
    return r;
  }
};

// Runs `r`'s system call in the calling thread (preadv, pwritev -- pread,
// pwrite for one segment -- or fdatasync, again after EINTR;
// preadv2/pwritev2 with r.rw_flags): the byte count (0 for fdatasync) or a
// negative errno.  What the worker pool and aio=sync do with a request.
int64_t RunIoSyscall(const IoRequest& r);

struct IoCompletion {
  IoRequest* req;
  int64_t res;
};

class KernelQueue {
 public:
  virtual ~KernelQueue() = default;

  // "native" or "io_uring": the aio= value, for counters and messages.
  virtual const char* name() const = 0;
  // An eventfd that becomes readable (a new edge per completion; QueueEngine
  // never reads it) when completions arrive.
  virtual int event_fd() const = 0;
  // The most requests the queue holds in the kernel at once.
  virtual int capacity() const = 0;

  // Sends reqs[0..n) in one system call (n >= 1).  Returns how many the
  // kernel took (1..n: the rest are sent again later), or a negative errno
  // that concerns the first request only (-EAGAIN: no room right now, try
  // again after completions).
  virtual int submit(IoRequest* const* reqs, int n) = 0;
  // Copies up to `max` completions into `out`; 0 when none is ready.
  // Without a system call where the interface allows it.
  virtual int fetch(IoCompletion* out, int max) = 0;
  // True when fetch() reads completions in user space (no system call):
  // then ready() is exact and busy polling can work.
  virtual bool user_space_ring() const = 0;
  // True when fetch() would find something; only meaningful with
  // user_space_ring().  Cheap: read by the loop's busy polling.
  virtual bool ready() const = 0;

  // True when submit() returns once the kernel has taken the requests, which
  // complete later: QueueEngine then marks their SubmitStamp (slat ends
  // there).  False for a mechanism that runs each request to completion
  // elsewhere (the worker pool: its system calls return when the I/O is
  // done, like fio's synchronous engines, which report no slat).
  virtual bool hands_over() const { return true; }

  // Adds `fd` to the queue's table of registered files: the index a request
  // then names in IoRequest::fd with fixed_file set, or a negative errno
  // (-EOPNOTSUPP: this interface has no such table; -ENFILE: it is full).
  virtual int register_file(int fd) {
    (void)fd;
    return -EOPNOTSUPP;
  }
  // Frees an index register_file() returned.  REQUIRES: no request naming
  // it in flight.
  virtual void unregister_file(int index) { (void)index; }

  // Pins [base, base + len) as one of the queue's registered buffers: the
  // index a request names in IoRequest::buf_index, or a negative errno
  // (-EOPNOTSUPP: no such table here; -ENFILE: it is full; -ENOMEM: the
  // locked-memory limit).  unregister_buffer() frees the index.  REQUIRES
  // there: no request naming it in flight.
  virtual int register_buffer(void* base, size_t len) {
    (void)base;
    (void)len;
    return -EOPNOTSUPP;
  }
  virtual void unregister_buffer(int index) { (void)index; }

  // Appends counters of the mechanism (names prefixed with name()).
  virtual void counters(std::vector<DriverCounter>* out) const = 0;
};

}  // namespace blk
