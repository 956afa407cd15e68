// Drives an AioContext from a Boost.Asio io_context.
//
// Same contract as LibeventAttachment (util/embed/libevent_loop.h): the
// attachment waits for the context's fd() to become readable, calls the
// non-blocking dispatch(), and keeps a steady_timer armed for
// next_timeout_ns().  Busy polling does not spin under a host loop; each
// dispatch calls every poll handler once.
//
// Threading: create and destroy the attachment on the thread that runs the
// io_context (a single-threaded io_context, or a strand-free one run by one
// thread); that thread becomes the context's loop thread.  Several contexts
// may share one io_context.  Destroying the attachment cancels its waits;
// requests in flight complete when the context is driven again.
//
// Header-only.  Boost 1.74's Asio needs <utility> before it under C++20.
#pragma once

#include <unistd.h>

#include <utility>  // must precede Boost 1.74's asio headers in C++20

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>

#include "util/aio_context.h"

namespace blk {

class AsioAttachment {
 public:
  // REQUIRES: called on the thread that runs `io`.
  AsioAttachment(AioContext& ctx, boost::asio::io_context& io)
      : ctx_(ctx), io_(io), fd_(io, ::dup(ctx.fd())), timer_(io), alive_(std::make_shared<bool>(true)) {
    ctx_.bind_to_current_thread();
    wait_fd();
    // Dispatch once soon: work may be pending from before the attachment.
    arm_timer(0);
  }
  ~AsioAttachment() {
    *alive_ = false;
    boost::system::error_code ec;
    timer_.cancel();
    fd_.cancel(ec);
    fd_.close(ec);  // closes our dup, not the context's fd
  }
  AsioAttachment(const AsioAttachment&) = delete;
  AsioAttachment& operator=(const AsioAttachment&) = delete;

  AioContext& ctx() { return ctx_; }
  uint64_t dispatches() const { return dispatches_; }

 private:
  void wait_fd() {
    fd_.async_wait(boost::asio::posix::stream_descriptor::wait_read,
                   [this, alive = alive_](const boost::system::error_code& ec) {
                     if (!*alive || ec) return;
                     dispatch();
                     wait_fd();
                   });
  }
  void arm_timer(int64_t ns) {
    timer_.expires_after(std::chrono::nanoseconds(ns));
    timer_.async_wait([this, alive = alive_](const boost::system::error_code& ec) {
      if (!*alive || ec) return;  // cancelled: re-armed or detached
      dispatch();
    });
  }
  void dispatch() {
    ctx_.dispatch();
    dispatches_++;
    int64_t ns = ctx_.next_timeout_ns();
    if (ns < 0) {
      timer_.cancel();
    } else {
      arm_timer(ns);  // expires_after cancels the previous wait
    }
  }

  AioContext& ctx_;
  boost::asio::io_context& io_;
  boost::asio::posix::stream_descriptor fd_;
  boost::asio::steady_timer timer_;
  std::shared_ptr<bool> alive_;
  uint64_t dispatches_ = 0;
};

}  // namespace blk
