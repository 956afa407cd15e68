// AsyncSocket: coroutine reads and writes on a non-blocking stream socket,
// driven by one AioContext's epoll (edge-triggered: every wait follows an
// EAGAIN, so no readiness is missed and a ready socket nobody waits on
// costs the loop nothing).
//
// Reads are buffered (one recv may bring many NBD requests); large reads go
// straight into the caller's memory.  Writes: write_all() for the
// handshake's sequential replies, or, for a pipelined writer, try_send()
// plus the on-writable callback.
//
// Threading: loop thread of `ctx` only.  Does not own the fd (the owner
// closes it after destroying this object).  At most one reader and one
// writer wait at a time.
#pragma once

#include <sys/uio.h>

#include <coroutine>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <blkstack/util/aio_context.h>
#include <blkstack/util/task.h>

namespace blk {

class AsyncSocket {
 public:
  // Registers the fd on ctx.  `initial` is input already received (bytes a
  // previous owner buffered).
  AsyncSocket(AioContext& ctx, int fd, std::string initial = {});
  // Removes the fd from the loop.  REQUIRES: no coroutine waiting in it.
  ~AsyncSocket();
  AsyncSocket(const AsyncSocket&) = delete;
  AsyncSocket& operator=(const AsyncSocket&) = delete;

  int fd() const { return fd_; }
  // Reads exactly n bytes.  0; -ECONNRESET at end of stream (also in the
  // middle); -ECANCELED after cancel(); or the recv errno.
  Task<int> read_exact(void* dst, size_t n);
  // Sends all of `data` (waits for room).  0, -ECANCELED, or the send errno.
  // `data` must live until the task completes.
  Task<int> write_all(std::string_view data);
  // Sends what the kernel takes now from `iov` (MSG_NOSIGNAL).  Bytes sent,
  // or a negative errno (-EAGAIN: full; on_writable then fires when there
  // is room again).
  ssize_t try_send(const struct iovec* iov, int n);
  void set_on_writable(std::function<void()> fn) { on_writable_ = std::move(fn); }
  // Makes current and later waits in read_exact/write_all return
  // -ECANCELED (the waiter resumes from the loop's ready queue).
  void cancel();
  bool cancelled() const { return cancelled_; }
  // Input received but not yet consumed by read_exact.
  std::string take_buffered();
  // Whether read_exact has input at hand (its next bytes need no recv).
  bool has_buffered() const { return in_pos_ < in_end_; }

 private:
  struct WaitReadable {
    AsyncSocket* s;
    bool await_ready() const noexcept { return s->cancelled_; }
    void await_suspend(std::coroutine_handle<> h) noexcept { s->read_waiter_ = h; }
    void await_resume() const noexcept {}
  };
  struct WaitWritable {
    AsyncSocket* s;
    bool await_ready() const noexcept { return s->cancelled_; }
    void await_suspend(std::coroutine_handle<> h) noexcept { s->write_waiter_ = h; }
    void await_resume() const noexcept {}
  };
  void readable();
  void writable();

  AioContext& ctx_;
  int fd_;
  std::vector<uint8_t> in_;
  size_t in_pos_ = 0;
  size_t in_end_ = 0;
  std::coroutine_handle<> read_waiter_;
  std::coroutine_handle<> write_waiter_;
  std::function<void()> on_writable_;
  bool cancelled_ = false;
};

}  // namespace blk
