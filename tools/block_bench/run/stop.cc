#include "tools/block_bench/run/stop.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace blk::bench {

StopSource::StopSource() { fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

StopSource::~StopSource() {
  if (fd_ >= 0) close(fd_);
}

int StopSource::request(int signo) noexcept {
  int expected = 0;
  signo_.compare_exchange_strong(expected, signo);
  const int n = count_.fetch_add(1) + 1;
  if (fd_ >= 0) {
    uint64_t one = 1;
    ssize_t r = write(fd_, &one, sizeof one);
    (void)r;  // EAGAIN: the counter is already non-zero, which is all we need
  }
  return n;
}

}  // namespace blk::bench
