#include <blkstack/block/file/libaio_queue.h>

#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

namespace blk {

// The kernel's completion ring header (fs/aio.c, struct aio_ring), mapped
// into user space at the address io_setup returns.  io_event entries follow.
struct AioRing {
  unsigned id;
  unsigned nr;    // entries in the ring (the kernel rounds the request up)
  unsigned head;  // consumer index: written by whoever reaps
  unsigned tail;  // producer index: written by the kernel
  unsigned magic;
  unsigned compat_features;
  unsigned incompat_features;
  unsigned header_length;
};

namespace {

constexpr unsigned kRingMagic = 0xa10a10a1;
// linux/aio_abi.h's IOCB_FLAG_IOPRIO (that header's struct iocb clashes
// with libaio.h's): aio_reqprio holds the request's I/O priority.
constexpr unsigned kIocbFlagIoprio = 1u << 1;

struct io_event* RingEvents(AioRing* r) { return reinterpret_cast<struct io_event*>(r + 1); }

// Fills `cb` for `r`; the completion event carries `r` back (data).
void Prepare(struct iocb* cb, IoRequest* r, int efd) {
  switch (r->op) {
    // One buffer goes as IOCB_CMD_PREAD/PWRITE, as fio's libaio engine
    // sends it: the kernel then builds the iterator from the iocb itself
    // instead of copying and checking an iovec array from user space.
    case IoRequest::Op::kRead:
      if (r->iovcnt == 1) {
        io_prep_pread(cb, r->fd, r->iov[0].iov_base, r->iov[0].iov_len, int64_t(r->offset));
      } else {
        io_prep_preadv(cb, r->fd, r->iov, r->iovcnt, int64_t(r->offset));
      }
      break;
    case IoRequest::Op::kWrite:
      if (r->iovcnt == 1) {
        io_prep_pwrite(cb, r->fd, r->iov[0].iov_base, r->iov[0].iov_len, int64_t(r->offset));
      } else {
        io_prep_pwritev(cb, r->fd, r->iov, r->iovcnt, int64_t(r->offset));
      }
      break;
    case IoRequest::Op::kFdatasync:
      io_prep_fdsync(cb, r->fd);
      break;
  }
  cb->data = r;
  io_set_eventfd(cb, efd);
  if (r->op != IoRequest::Op::kFdatasync) cb->aio_rw_flags = unsigned(r->rw_flags);
  if (r->ioprio) {
    cb->u.c.flags |= kIocbFlagIoprio;
    cb->aio_reqprio = short(r->ioprio);
  }
}

}  // namespace

Expected<std::unique_ptr<LibaioQueue>> LibaioQueue::Create(int ring_size, bool use_ring) {
  if (ring_size < 1) ring_size = 1;
  io_context_t io = nullptr;
  int r = io_setup(ring_size, &io);
  if (r < 0) {
    std::string hint = r == -EAGAIN ? " (fs.aio-max-nr exhausted? see /proc/sys/fs/aio-nr)" : "";
    return MakeError(r, "io_setup(" + std::to_string(ring_size) + "): " + ErrnoString(r) + hint);
  }
  int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (efd < 0) {
    int e = -errno;
    io_destroy(io);
    return MakeError(e, "eventfd: " + ErrnoString(e));
  }
  return std::unique_ptr<LibaioQueue>(new LibaioQueue(io, efd, ring_size, use_ring));
}

LibaioQueue::LibaioQueue(io_context_t io, int efd, int ring_size, bool use_ring)
    : io_(io), efd_(efd), ring_size_(ring_size) {
  iocbs_.resize(size_t(ring_size));
  iocb_ptrs_.resize(size_t(ring_size));
  auto* ring = reinterpret_cast<AioRing*>(io);
  if (use_ring && ring->magic == kRingMagic && ring->incompat_features == 0 &&
      ring->header_length == sizeof(AioRing) && ring->nr > 0) {
    ring_ = ring;
  }
}

LibaioQueue::~LibaioQueue() {
  io_destroy(io_);
  close(efd_);
}

// The iocbs live in this queue, one per request of the batch, not in the
// requests: io_submit(2) copies each one into the kernel (fs/aio.c,
// io_submit_one: copy_from_user) before it returns, and the completion
// names the request by `data`, so nothing reads an iocb afterwards (no
// io_cancel here, which would need its address).  Requests the kernel did
// not take are prepared again when they are sent again.
int LibaioQueue::submit(IoRequest* const* reqs, int n) {
  if (int(iocbs_.size()) < n) {
    iocbs_.resize(size_t(n));
    iocb_ptrs_.resize(size_t(n));
  }
  for (int i = 0; i < n; i++) {
    Prepare(&iocbs_[size_t(i)], reqs[i], efd_);
    iocb_ptrs_[size_t(i)] = &iocbs_[size_t(i)];
  }
  const int ret = io_submit(io_, n, iocb_ptrs_.data());
  return ret == 0 ? -EAGAIN : ret;  // 0 is not documented; treat as "no room"
}

int LibaioQueue::fetch(IoCompletion* out, int max) {
  struct io_event ev[64];
  max = std::min(max, 64);
  int n = 0;
  if (!ring_) {
    getevents_calls_++;
    struct timespec zero = {0, 0};
    // The raw system call: libaio's wrapper peeks at the ring itself.
    long r = syscall(SYS_io_getevents, io_, 0L, long(max), ev, &zero);
    n = r < 0 ? 0 : int(r);
  } else {
    unsigned head = __atomic_load_n(&ring_->head, __ATOMIC_RELAXED);
    // Acquire pairs with the kernel's write barrier between the event and tail.
    const unsigned tail = __atomic_load_n(&ring_->tail, __ATOMIC_ACQUIRE);
    if (head == tail) return 0;
    const unsigned nr = ring_->nr;
    head %= nr;
    struct io_event* events = RingEvents(ring_);
    while (head != tail && n < max) {
      ev[n++] = events[head];
      if (++head == nr) head = 0;
    }
    // Release: done reading the entries before the kernel may reuse them.
    __atomic_store_n(&ring_->head, head, __ATOMIC_RELEASE);
  }
  for (int i = 0; i < n; i++) {
    out[i] = {static_cast<IoRequest*>(ev[i].data), int64_t(long(ev[i].res))};
  }
  return n;
}

bool LibaioQueue::ready() const {
  return ring_ && __atomic_load_n(&ring_->head, __ATOMIC_RELAXED) !=
                      __atomic_load_n(&ring_->tail, __ATOMIC_RELAXED);
}

void LibaioQueue::counters(std::vector<DriverCounter>* out) const {
  out->push_back({"aio_getevents_fallbacks", getevents_calls_});
  out->push_back({"aio_ring_peek", ring_ ? 1u : 0u});
}

}  // namespace blk
