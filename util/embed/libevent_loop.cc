#include "util/embed/libevent_loop.h"

#include "util/clock.h"

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

void LibeventAttachment::OnEvent(evutil_socket_t fd, short, void* opaque) {
  auto* a = static_cast<LibeventAttachment*>(opaque);
  if (fd < 0) a->armed_deadline_ = -1;  // the timer fired: it is no longer armed
  a->Dispatch();
}

void LibeventAttachment::Dispatch() {
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
