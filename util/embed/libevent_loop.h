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
// Threading: attach on the thread that runs the event_base; that thread
// becomes the context's loop thread (AioContext::bind_to_current_thread).
// Several contexts may be attached to one base.  Detaching leaves requests in
// flight where they are: they complete when the context is driven again
// (run(), run_once(), or another attachment); drain the backends first
// (BlockBackend::drain) to finish them before detaching.
#pragma once

#include <event2/event.h>

#include <memory>

#include "util/aio_context.h"
#include "util/result.h"

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

}  // namespace blk
