#include <blkstack/block/file/kernel_queue.h>

#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

namespace blk {

int64_t RunIoSyscall(const IoRequest& r) {
  ssize_t n;
  do {
    switch (r.op) {
      // One segment: pread/pwrite, as fio's psync (the kernel skips
      // importing an iovec array).
      case IoRequest::Op::kRead:
        n = r.rw_flags         ? preadv2(r.fd, r.iov, r.iovcnt, off_t(r.offset), r.rw_flags)
            : r.iovcnt == 1    ? pread(r.fd, r.iov[0].iov_base, r.iov[0].iov_len, off_t(r.offset))
                               : preadv(r.fd, r.iov, r.iovcnt, off_t(r.offset));
        break;
      case IoRequest::Op::kWrite:
        n = r.rw_flags         ? pwritev2(r.fd, r.iov, r.iovcnt, off_t(r.offset), r.rw_flags)
            : r.iovcnt == 1    ? pwrite(r.fd, r.iov[0].iov_base, r.iov[0].iov_len, off_t(r.offset))
                               : pwritev(r.fd, r.iov, r.iovcnt, off_t(r.offset));
        break;
      default:
        n = fdatasync(r.fd);
        break;
    }
  } while (n < 0 && errno == EINTR);
  return n < 0 ? -int64_t(errno) : int64_t(n);
}

}  // namespace blk
