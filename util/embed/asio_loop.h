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

#include <blkstack/util/aio_context.h>

namespace blk {

class AsioAttachment {
 public:
  // REQUIRES: called on the thread that runs `io`.
  AsioAttachment(AioContext& ctx, boost::asio::io_context& io)
      : ctx_(ctx), io_(io), fd_(io, ::dup(ctx.fd())), timer_(io), alive_(std::make_shared<bool>(true)) {
    ctx_.bind_to_current_thread();
    wait_fd();
    // Dispatch once soon: work may be pending from before the attachment.
    post_dispatch();
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
  // Runs dispatch() from the io_context's queue (no timer, no syscall).
  void post_dispatch() {
    if (post_pending_) return;
    post_pending_ = true;
    boost::asio::post(io_, [this, alive = alive_] {
      if (!*alive) return;
      post_pending_ = false;
      dispatch();
    });
  }
  // Keeps the timer armed at the context's next deadline; touches it only
  // when the deadline changed (re-arming costs Asio a timerfd syscall).
  void sync_timer() {
    int64_t deadline = ctx_.next_deadline_ns();
    if (deadline == armed_deadline_) return;
    armed_deadline_ = deadline;
    if (deadline < 0) {
      timer_.cancel();
      return;
    }
    // libstdc++'s steady_clock is CLOCK_MONOTONIC, the clock of AioContext.
    timer_.expires_at(std::chrono::steady_clock::time_point(std::chrono::nanoseconds(deadline)));
    timer_.async_wait([this, alive = alive_](const boost::system::error_code& ec) {
      if (!*alive || ec) return;  // cancelled: re-armed or detached
      armed_deadline_ = -1;
      dispatch();
    });
  }
  void dispatch() {
    ctx_.dispatch();  // several rounds while work stays ready (aio_context.h)
    dispatches_++;
    if (ctx_.has_pending_work()) post_dispatch();
    sync_timer();
  }

  AioContext& ctx_;
  boost::asio::io_context& io_;
  boost::asio::posix::stream_descriptor fd_;
  boost::asio::steady_timer timer_;
  std::shared_ptr<bool> alive_;
  uint64_t dispatches_ = 0;
  int64_t armed_deadline_ = -1;
  bool post_pending_ = false;
};

}  // namespace blk
