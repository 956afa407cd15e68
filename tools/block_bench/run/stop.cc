#include "tools/block_bench/run/stop.h"

#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <utility>

namespace blk::bench {
namespace {

// Makes an eventfd readable; EAGAIN (the counter is already at its
// maximum) still leaves it readable, which is all that matters.
void Signal(int fd) noexcept {
  if (fd < 0) return;
  uint64_t one = 1;
  ssize_t r = write(fd, &one, sizeof one);
  (void)r;
}

}  // namespace

StopSource::StopSource() { fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

StopSource::~StopSource() {
  if (fd_ >= 0) close(fd_);
}

int StopSource::request(int signo) noexcept {
  int expected = 0;
  signo_.compare_exchange_strong(expected, signo);
  const int n = count_.fetch_add(1) + 1;
  Signal(fd_);
  return n;
}

Broadcast::Broadcast() { fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

Broadcast::~Broadcast() {
  if (fd_ >= 0) close(fd_);
}

void Broadcast::fire() noexcept {
  if (firing_.exchange(true)) return;
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  fired_ns_.store(int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec);
  Signal(fd_);
}

OnceReadable::OnceReadable(AioContext& ctx, int fd, std::function<void()> fn)
    : ctx_(ctx), fd_(fd), fn_(std::move(fn)) {
  if (fd_ < 0) return;
  watching_ = ctx_.set_fd_handler(fd_, [this] {
    cancel();
    fired_ = true;
    // Moved out first: fn may destroy this object.
    std::function<void()> fn = std::move(fn_);
    fn();
  }) == 0;
}

void OnceReadable::cancel() {
  if (!watching_) return;
  watching_ = false;
  ctx_.remove_fd_handler(fd_);
}

}  // namespace blk::bench
