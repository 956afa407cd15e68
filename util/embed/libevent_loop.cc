#include "util/embed/libevent_loop.h"

namespace blk {

Expected<std::unique_ptr<LibeventAttachment>> LibeventAttachment::Attach(
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

LibeventAttachment::~LibeventAttachment() {
  if (fd_event_) event_free(fd_event_);
  if (timer_event_) event_free(timer_event_);
}

void LibeventAttachment::OnEvent(evutil_socket_t, short, void* opaque) {
  static_cast<LibeventAttachment*>(opaque)->Dispatch();
}

void LibeventAttachment::Dispatch() {
  ctx_.dispatch();
  dispatches_++;
  int64_t ns = ctx_.next_timeout_ns();
  if (ns < 0) {
    evtimer_del(timer_event_);
    return;
  }
  struct timeval tv = {time_t(ns / 1000000000), suseconds_t((ns % 1000000000 + 999) / 1000)};
  evtimer_add(timer_event_, &tv);
}

}  // namespace blk
