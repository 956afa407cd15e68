#include "tools/storage_daemon/async_socket.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace blk {

namespace {
constexpr size_t kInBuffer = 64 * 1024;
// Reads at least this large skip the buffer and land in the caller's memory.
constexpr size_t kDirectRead = 16 * 1024;
}  // namespace

AsyncSocket::AsyncSocket(AioContext& ctx, int fd, std::string initial)
    : ctx_(ctx), fd_(fd), in_(std::max(kInBuffer, initial.size())) {
  std::memcpy(in_.data(), initial.data(), initial.size());
  in_end_ = initial.size();
  ctx_.set_fd_handler(
      fd_, [this] { readable(); }, [this] { writable(); }, AioContext::FdTrigger::kEdge);
}

AsyncSocket::~AsyncSocket() { ctx_.remove_fd_handler(fd_); }

void AsyncSocket::readable() {
  if (read_waiter_) std::exchange(read_waiter_, {}).resume();
}

void AsyncSocket::writable() {
  if (write_waiter_) std::exchange(write_waiter_, {}).resume();
  if (on_writable_) on_writable_();
}

void AsyncSocket::cancel() {
  cancelled_ = true;
  if (read_waiter_) ctx_.defer(std::exchange(read_waiter_, {}));
  if (write_waiter_) ctx_.defer(std::exchange(write_waiter_, {}));
}

std::string AsyncSocket::take_buffered() {
  std::string s(reinterpret_cast<const char*>(in_.data() + in_pos_), in_end_ - in_pos_);
  in_pos_ = in_end_ = 0;
  return s;
}

Task<int> AsyncSocket::read_exact(void* dst, size_t n) {
  auto* out = static_cast<uint8_t*>(dst);
  while (n > 0) {
    if (cancelled_) co_return -ECANCELED;
    if (in_pos_ < in_end_) {
      const size_t k = std::min(n, in_end_ - in_pos_);
      std::memcpy(out, in_.data() + in_pos_, k);
      in_pos_ += k, out += k, n -= k;
      continue;
    }
    in_pos_ = in_end_ = 0;
    ssize_t r;
    if (n >= kDirectRead) {
      r = ::recv(fd_, out, n, 0);
      if (r > 0) {
        out += r, n -= size_t(r);
        continue;
      }
    } else {
      r = ::recv(fd_, in_.data(), in_.size(), 0);
      if (r > 0) {
        in_end_ = size_t(r);
        continue;
      }
    }
    if (r == 0) co_return -ECONNRESET;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) co_return -errno;
    co_await WaitReadable{this};
  }
  co_return 0;
}

Task<int> AsyncSocket::write_all(std::string_view data) {
  while (!data.empty()) {
    if (cancelled_) co_return -ECANCELED;
    const ssize_t r = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (r > 0) {
      data.remove_prefix(size_t(r));
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK) co_return -errno;
    co_await WaitWritable{this};
  }
  co_return 0;
}

ssize_t AsyncSocket::try_send(const struct iovec* iov, int n) {
  struct msghdr msg = {};
  msg.msg_iov = const_cast<struct iovec*>(iov);
  msg.msg_iovlen = size_t(n);
  for (;;) {
    const ssize_t r = ::sendmsg(fd_, &msg, MSG_NOSIGNAL);
    if (r >= 0) return r;
    if (errno == EINTR) continue;
    return -errno;
  }
}

}  // namespace blk
