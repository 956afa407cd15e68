// Drives an AioContext from a libevent event_base.
//
// The attachment watches the context's fd() for readability and calls its
// non-blocking dispatch(); after each dispatch it re-arms a libevent timer for
// next_timeout_ns() (zero when work is already pending, so the context is
// dispatched again in the next base iteration, after the host's own events).
// While work stays ready, dispatch() runs up to AioContext::kDispatchRounds
// rounds per host event, so the host's own events wait at most that long.  Timers of the context keep
// working.  Busy polling (PollHandler) does not
// spin while the host owns the loop: each dispatch calls every poll handler
// once, so poll-mode drivers still make progress but never burn the host's
// thread.
//
// Header-only, like asio_loop.h: the program that includes it links libevent
// itself (pkg-config libevent), so libblkstack does not depend on it.
//
// Threading: attach on the thread that runs the event_base; that thread
// becomes the context's loop thread (AioContext::bind_to_current_thread).
// Several contexts may be attached to one base.  Detaching leaves requests in
// flight where they are: they complete when the context is driven again
// (run(), run_once(), or another attachment); drain the backends first
// (BlockBackend::drain) to finish them before detaching.
#pragma once

#include <event2/event.h>

#include <memory>

#include <blkstack/util/aio_context.h>
#include <blkstack/util/clock.h>
#include <blkstack/util/result.h>

namespace blk {

class LibeventAttachment {
 public:
  // Attaches `ctx` to `base`.  Fails (with a message) only if libevent cannot
  // create or add the events.
  static Expected<std::unique_ptr<LibeventAttachment>> Attach(AioContext& ctx,
                                                              struct event_base* base);
  // Detaches.  REQUIRES: the base's thread.
  ~LibeventAttachment();
  LibeventAttachment(const LibeventAttachment&) = delete;
  LibeventAttachment& operator=(const LibeventAttachment&) = delete;

  AioContext& ctx() { return ctx_; }
  // Number of dispatch() calls made so far (for tests and tuning).
  uint64_t dispatches() const { return dispatches_; }

 private:
  LibeventAttachment(AioContext& ctx) : ctx_(ctx) {}
  static void OnEvent(evutil_socket_t fd, short what, void* opaque);
  void Dispatch();

  AioContext& ctx_;
  struct event* fd_event_ = nullptr;
  struct event* timer_event_ = nullptr;
  uint64_t dispatches_ = 0;
  int64_t armed_deadline_ = -1;  // what timer_event_ is armed for; 0: "now"
};

inline Expected<std::unique_ptr<LibeventAttachment>> LibeventAttachment::Attach(
    AioContext& ctx, struct event_base* base) {
  std::unique_ptr<LibeventAttachment> a(new LibeventAttachment(ctx));
  ctx.bind_to_current_thread();
  a->fd_event_ = event_new(base, ctx.fd(), EV_READ | EV_PERSIST, &OnEvent, a.get());
  a->timer_event_ = evtimer_new(base, &OnEvent, a.get());
  if (!a->fd_event_ || !a->timer_event_ || event_add(a->fd_event_, nullptr) != 0) {
    return MakeError(-ENOMEM, "libevent: cannot create or add the AioContext's events");
  }
  // Work queued before attaching (or timers already armed) must not wait for
  // the fd: dispatch once at the first base iteration.
  struct timeval zero = {0, 0};
  evtimer_add(a->timer_event_, &zero);
  return a;
}

inline LibeventAttachment::~LibeventAttachment() {
  if (fd_event_) event_free(fd_event_);
  if (timer_event_) event_free(timer_event_);
}

inline void LibeventAttachment::OnEvent(evutil_socket_t fd, short, void* opaque) {
  auto* a = static_cast<LibeventAttachment*>(opaque);
  if (fd < 0) a->armed_deadline_ = -1;  // the timer fired: it is no longer armed
  a->Dispatch();
}

inline void LibeventAttachment::Dispatch() {
  ctx_.dispatch();  // several rounds while work stays ready (aio_context.h)
  dispatches_++;
  if (ctx_.has_pending_work()) {
    // Again in the next base iteration, after the host's own ready events.
    struct timeval zero = {0, 0};
    evtimer_add(timer_event_, &zero);
    armed_deadline_ = 0;
    return;
  }
  int64_t deadline = ctx_.next_deadline_ns();
  if (deadline == armed_deadline_) return;
  armed_deadline_ = deadline;
  if (deadline < 0) {
    evtimer_del(timer_event_);
    return;
  }
  int64_t ns = deadline - NowNs();
  if (ns < 0) ns = 0;
  struct timeval tv = {time_t(ns / 1000000000), suseconds_t((ns % 1000000000 + 999) / 1000)};
  evtimer_add(timer_event_, &tv);
}

}  // namespace blk
