#include <blkstack/block/file/uring_queue.h>

#include <fcntl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>

namespace blk {
namespace {

// Why io_uring_queue_init failed, in words a user can act on.
std::string SetupHint(int err) {
  // Plain read(2), no iostream: this also runs when the process is out of
  // file descriptors (EMFILE), where the open just fails.
  int disabled = 0;
  const int fd = open("/proc/sys/kernel/io_uring_disabled", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buf[16] = {};
    if (read(fd, buf, sizeof(buf) - 1) > 0) disabled = atoi(buf);
    close(fd);
  }
  if (disabled != 0 && (err == -EPERM || err == -EACCES)) {
    return " (io_uring is disabled: kernel.io_uring_disabled=" + std::to_string(disabled) +
           (disabled == 1 ? ", and this process is not in kernel.io_uring_group" : "") + ")";
  }
  if (err == -ENOSYS) return " (the kernel has no io_uring, or a seccomp filter blocks it)";
  if (err == -EPERM) return " (refused: a seccomp filter or a security module?)";
  if (err == -ENOMEM) return " (locked-memory limit? see ulimit -l)";
  return "";
}

}  // namespace

Expected<std::unique_ptr<UringQueue>> UringQueue::Create(const Config& cfg) {
  std::unique_ptr<UringQueue> q(new UringQueue());
  const unsigned entries = unsigned(std::max(1, cfg.entries));
  unsigned base = 0;
  unsigned idle = 0;
  if (cfg.sqpoll) {
    base |= IORING_SETUP_SQPOLL;
    idle = unsigned(cfg.sqpoll_idle_ms);
    if (cfg.sqpoll_cpu >= 0) base |= IORING_SETUP_SQ_AFF;
  }
  // Newest flags first; -EINVAL means "this kernel does not know a flag".
  const unsigned tries[] = {IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG, 0};
  int r = -EINVAL;
  for (unsigned extra : tries) {
    struct io_uring_params p {};
    p.flags = base | extra;
    p.sq_thread_idle = idle;
    p.sq_thread_cpu = cfg.sqpoll_cpu >= 0 ? unsigned(cfg.sqpoll_cpu) : 0;
    r = io_uring_queue_init_params(entries, &q->ring_, &p);
    if (r == 0) {
      q->ring_ok_ = true;
      q->flags_ = p.flags;
      break;
    }
    if (r != -EINVAL) break;
  }
  if (r < 0) {
    return MakeError(r, "io_uring_queue_init(" + std::to_string(entries) +
                            (cfg.sqpoll ? ", SQPOLL" : "") + "): " + ErrnoString(r) +
                            SetupHint(r));
  }
  // From here the destructor cleans up.
  q->efd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (q->efd_ < 0) {
    int e = -errno;
    return MakeError(e, "eventfd: " + ErrnoString(e));
  }
  r = io_uring_register_eventfd(&q->ring_, q->efd_);
  if (r < 0) return MakeError(r, "io_uring_register_eventfd: " + ErrnoString(r));
  return q;
}

int UringQueue::register_file(int fd) {
  if (files_.empty()) {
    const int r = io_uring_register_files_sparse(&ring_, unsigned(kFileSlots));
    if (r < 0) return r;
    files_.assign(size_t(kFileSlots), -1);
  }
  const auto it = std::find(files_.begin(), files_.end(), -1);
  if (it == files_.end()) return -ENFILE;
  const int index = int(it - files_.begin());
  const int r = io_uring_register_files_update(&ring_, unsigned(index), &fd, 1);
  if (r < 0) return r;
  if (r != 1) return -EIO;
  files_[size_t(index)] = fd;
  files_registered_++;
  return index;
}

int UringQueue::register_buffer(void* base, size_t len) {
  if (buffers_.empty()) {
    const int r = io_uring_register_buffers_sparse(&ring_, unsigned(kBufferSlots));
    if (r < 0) return r;
    buffers_.assign(size_t(kBufferSlots), false);
  }
  const auto it = std::find(buffers_.begin(), buffers_.end(), false);
  if (it == buffers_.end()) return -ENFILE;
  const int index = int(it - buffers_.begin());
  struct iovec iov = {base, len};
  __u64 tag = 0;
  const int r = io_uring_register_buffers_update_tag(&ring_, unsigned(index), &iov, &tag, 1);
  if (r < 0) return r;
  if (r != 1) return -EIO;
  buffers_[size_t(index)] = true;
  buffers_registered_++;
  return index;
}

void UringQueue::unregister_buffer(int index) {
  if (index < 0 || size_t(index) >= buffers_.size() || !buffers_[size_t(index)]) return;
  struct iovec none = {nullptr, 0};
  __u64 tag = 0;
  (void)io_uring_register_buffers_update_tag(&ring_, unsigned(index), &none, &tag, 1);
  buffers_[size_t(index)] = false;
  buffers_registered_--;
}

void UringQueue::unregister_file(int index) {
  if (index < 0 || size_t(index) >= files_.size() || files_[size_t(index)] < 0) return;
  int none = -1;
  // Cannot fail for an index in the table with nothing in flight on it;
  // the slot is free for the next file either way.
  (void)io_uring_register_files_update(&ring_, unsigned(index), &none, 1);
  files_[size_t(index)] = -1;
  files_registered_--;
}

UringQueue::~UringQueue() {
  if (ring_ok_) io_uring_queue_exit(&ring_);
  if (efd_ >= 0) close(efd_);
}

int UringQueue::submit(IoRequest* const* reqs, int n) {
  int queued = 0;
  for (; queued < n; queued++) {
    struct io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (!sqe) break;  // SQ ring full (SQPOLL has not consumed it yet)
    IoRequest* r = reqs[queued];
    const int fd = r->fd;
    switch (r->op) {
      case IoRequest::Op::kRead:
        if (r->buf_index >= 0 && r->iovcnt == 1) {
          io_uring_prep_read_fixed(sqe, fd, r->iov[0].iov_base, unsigned(r->iov[0].iov_len),
                                   r->offset, r->buf_index);
          fixed_sqes_++;
        } else if (r->iovcnt == 1) {
          io_uring_prep_read(sqe, fd, r->iov[0].iov_base, unsigned(r->iov[0].iov_len), r->offset);
        } else {
          io_uring_prep_readv(sqe, fd, r->iov, unsigned(r->iovcnt), r->offset);
        }
        break;
      case IoRequest::Op::kWrite:
        if (r->buf_index >= 0 && r->iovcnt == 1) {
          io_uring_prep_write_fixed(sqe, fd, r->iov[0].iov_base, unsigned(r->iov[0].iov_len),
                                    r->offset, r->buf_index);
          fixed_sqes_++;
        } else if (r->iovcnt == 1) {
          io_uring_prep_write(sqe, fd, r->iov[0].iov_base, unsigned(r->iov[0].iov_len),
                              r->offset);
        } else {
          io_uring_prep_writev(sqe, fd, r->iov, unsigned(r->iovcnt), r->offset);
        }
        break;
      case IoRequest::Op::kFdatasync:
        io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
        break;
    }
    // (An fsync's rw_flags field is its fsync_flags: left as prepared.)
    if (r->op != IoRequest::Op::kFdatasync) sqe->rw_flags = r->rw_flags;
    sqe->ioprio = r->ioprio;
    if (r->fixed_file) sqe->flags |= IOSQE_FIXED_FILE;
    if (r->force_async) {
      sqe->flags |= IOSQE_ASYNC;
      async_sqes_++;
    }
    io_uring_sqe_set_data(sqe, r);
  }
  if (queued == 0) return -EAGAIN;
  // The SQEs are in the ring now: the kernel takes them at this enter or,
  // if it fails for want of resources, at the next one.  Either way they
  // are in flight from the caller's view, so report them taken.
  enters_++;
  sqes_ += uint64_t(queued);
  int ret;
  do {
    ret = io_uring_submit(&ring_);
  } while (ret == -EINTR);
  if (ret < 0 && ret != -EAGAIN && ret != -EBUSY) submit_errors_++;
  // -EAGAIN / -EBUSY (no memory for requests now / a CQ overflow backlog):
  // the SQEs stay queued; fetch() enters again when it finds nothing.
  return queued;
}

int UringQueue::fetch(IoCompletion* out, int max) {
  struct io_uring_cqe* cqes[64];
  max = std::min(max, 64);
  const unsigned sqf = IO_URING_READ_ONCE(*ring_.sq.kflags);
  if (sqf & IORING_SQ_CQ_OVERFLOW) overflows_++;
  // SQEs an enter refused (-EAGAIN / -EBUSY) are still in the SQ ring: send
  // them again.  With SQPOLL they are the kernel thread's to take; this
  // only wakes it if it sleeps.
  if (io_uring_sq_ready(&ring_) > 0) {
    if (!(flags_ & IORING_SETUP_SQPOLL)) flush_enters_++;
    io_uring_submit(&ring_);
  }
  // An empty CQ ring with task work or an overflow backlog pending: the
  // peek enters the kernel once (IORING_ENTER_GETEVENTS) to flush them.
  if (io_uring_cq_ready(&ring_) == 0 && (sqf & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW))) {
    flush_enters_++;
  }
  const unsigned n = io_uring_peek_batch_cqe(&ring_, cqes, unsigned(max));
  for (unsigned i = 0; i < n; i++) {
    out[i] = {static_cast<IoRequest*>(io_uring_cqe_get_data(cqes[i])), int64_t(cqes[i]->res)};
  }
  io_uring_cq_advance(&ring_, n);
  return int(n);
}

bool UringQueue::ready() const {
  // io_uring_cq_ready() is not const in liburing 2.3's signature.
  const unsigned head = *ring_.cq.khead;
  const unsigned tail = io_uring_smp_load_acquire(ring_.cq.ktail);
  if (tail != head) return true;
  return IO_URING_READ_ONCE(*ring_.sq.kflags) & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW);
}

void UringQueue::counters(std::vector<DriverCounter>* out) const {
  out->push_back({"io_uring_enters", enters_});
  out->push_back({"io_uring_sqes", sqes_});
  out->push_back({"io_uring_flush_enters", flush_enters_});
  out->push_back({"io_uring_cq_overflows", overflows_});
  out->push_back({"io_uring_submit_errors", submit_errors_});
  out->push_back({"io_uring_setup_flags", flags_});
  out->push_back({"io_uring_sqpoll", (flags_ & IORING_SETUP_SQPOLL) ? 1u : 0u});
  out->push_back({"io_uring_registered_files", uint64_t(files_registered_)});
  out->push_back({"io_uring_async_sqes", async_sqes_});
  out->push_back({"io_uring_registered_buffers", uint64_t(buffers_registered_)});
  out->push_back({"io_uring_fixed_sqes", fixed_sqes_});
}

}  // namespace blk
