#include "tools/block_bench/run/file_calls.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace blk::bench {

// Older C libraries lack the names (Linux 4.13's values).
#ifndef F_SET_RW_HINT
#define F_SET_RW_HINT 1036
#endif
#ifndef F_SET_FILE_RW_HINT
#define F_SET_FILE_RW_HINT 1038
#endif

SideFd::~SideFd() {
  if (fd_ >= 0) ::close(fd_);
}

SideFd& SideFd::operator=(SideFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

int SideFd::open(const std::string& path) {
  if (fd_ >= 0) ::close(fd_);
  // O_NONBLOCK: a FIFO or device never holds the open up.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  return fd_ < 0 ? -errno : 0;
}

int WriteHintCommand(bool direct) { return direct ? F_SET_FILE_RW_HINT : F_SET_RW_HINT; }

int SetWriteHint(int fd, JobOptions::WriteHint h, bool direct) {
  uint64_t hint = uint64_t(h);
  return ::fcntl(fd, WriteHintCommand(direct), &hint) < 0 ? -errno : 0;
}

}  // namespace blk::bench
