// Task<T>: the one async model of blkstack's I/O path.
//
// A Task is a lazy C++20 coroutine: calling a `Task<T> f()` function creates
// the frame and returns without running any of it.  It runs when
//   * awaited by another coroutine (`T v = co_await f();`): the awaiter is
//     suspended, the task runs, and when it finishes the awaiter is resumed
//     by symmetric transfer (no stack growth, no trip through the loop), or
//   * started detached with Spawn()/SpawnNow(): the frame frees itself when
//     the coroutine finishes.
// A function returning Task<T> is a coroutine: the return type marks it, and
// the compiler rejects co_await outside of one.
//
// No exceptions on the I/O path: an exception escaping a task terminates the
// program.  Errors travel as values (Status, Result<T>).
//
// Symmetric transfer relies on the compiler turning the resume into a tail
// call, which GCC does at -O2 but not under AddressSanitizer: there a long
// chain of synchronously completing awaits grows the stack.  The I/O path
// never builds such chains (requests complete through the loop).
//
// GCC 12 miscompiles a co_await in an if-condition whose branch co_returns
// (`if (!co_await x) co_return v;` runs into an illegal instruction): store
// the result first (`bool ok = co_await x; if (!ok) co_return v;`).
//
// Frames come from FramePool (per-thread cache) unless BLK_NO_FRAME_POOL is
// defined (kept for measuring what the pool buys).
//
// Submission stamps: a task may carry a SubmitStamp* (util/submit_stamp.h),
// set on the request's task with set_submit_stamp().  A task awaited by
// another inherits the awaiter's stamp when the await begins (unless it was
// given its own), so the stamp
// reaches every coroutine of the request's chain (generic layer, filters,
// the driver) without any of them passing it on.  A driver that hands
// requests to something outside the process (the kernel, librbd) reads it
// in its awaiter with SubmitStampOf(handle) and marks it when the hand-over
// call returned.  Detached tasks start with none.
//
// Threading: a task runs on whatever thread resumes it.  In blkstack that is
// always the loop thread of the AioContext its I/O belongs to; code that
// completes on a foreign thread resumes through AioContext::post_resume().
#pragma once

#include <coroutine>
#include <cstdlib>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

#include <blkstack/util/aio_context.h>
#include <blkstack/util/clock.h>
#include <blkstack/util/frame_pool.h>
#include <blkstack/util/submit_stamp.h>

namespace blk {

template <class T>
class Task;

namespace detail {

struct PromiseBase {
  std::coroutine_handle<> continuation;
  SubmitStamp* stamp = nullptr;  // see "Submission stamps" above
  bool detached = false;

#ifndef BLK_NO_FRAME_POOL
  static void* operator new(size_t n) { return FramePool::Allocate(n); }
  static void operator delete(void* p, size_t n) noexcept { FramePool::Free(p, n); }
#endif

  std::suspend_always initial_suspend() noexcept { return {}; }

  struct FinalAwaiter {
    bool await_ready() const noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      PromiseBase& p = h.promise();
      if (p.continuation) return p.continuation;
      if (p.detached) h.destroy();
      return std::noop_coroutine();
    }
    void await_resume() const noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  [[noreturn]] void unhandled_exception() noexcept { std::terminate(); }
};

template <class T>
struct Promise : PromiseBase {
  std::optional<T> value;
  Task<T> get_return_object() noexcept;
  template <class U>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
  T take() { return std::move(*value); }
};

template <>
struct Promise<void> : PromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() noexcept {}
  void take() noexcept {}
};

}  // namespace detail

template <class T = void>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::Promise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle h) : h_(h) {}
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      if (h_) h_.destroy();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  // Destroys a task that never ran (or finished while awaited).
  ~Task() {
    if (h_) h_.destroy();
  }

  bool valid() const { return bool(h_); }

  // Gives the task (and every task it awaits) a stamp to mark when its
  // request is handed over; see "Submission stamps" above.  Before it runs.
  void set_submit_stamp(SubmitStamp* s) { h_.promise().stamp = s; }

  // (Not a local class: those cannot have member templates.)
  struct Awaiter {
    Handle h;
    bool await_ready() const noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> caller) noexcept {
      h.promise().continuation = caller;
      if constexpr (std::is_base_of_v<detail::PromiseBase, P>) {
        if (!h.promise().stamp) h.promise().stamp = caller.promise().stamp;
      }
      return h;
    }
    T await_resume() { return h.promise().take(); }
  };
  Awaiter operator co_await() && noexcept { return Awaiter{h_}; }

  // Starts the task now, on the calling thread, without awaiting it.  It runs
  // until its first suspension; the frame frees itself when it finishes.
  // Whatever it produces is discarded.
  void start_detached() && {
    Handle h = std::exchange(h_, {});
    h.promise().detached = true;
    h.resume();
  }
  // Releases the handle: the caller takes over the frame.
  Handle release() && { return std::exchange(h_, {}); }

 private:
  Handle h_;
};

namespace detail {
template <class T>
Task<T> Promise<T>::get_return_object() noexcept {
  return Task<T>(std::coroutine_handle<Promise<T>>::from_promise(*this));
}
inline Task<void> Promise<void>::get_return_object() noexcept {
  return Task<void>(std::coroutine_handle<Promise<void>>::from_promise(*this));
}
}  // namespace detail

// The submission stamp of the coroutine `h` (nullptr when it has none or is
// not a Task).  For awaiters of drivers, in await_suspend.
template <class P>
SubmitStamp* SubmitStampOf(std::coroutine_handle<P> h) noexcept {
  if constexpr (std::is_base_of_v<detail::PromiseBase, P>) return h.promise().stamp;
  else return nullptr;
}

// Starts `t` detached on `ctx`'s loop.  From the loop thread it is queued on
// the ready queue (it runs in this or the next iteration, never inside the
// caller); from another thread it is posted.  Any thread.
inline void Spawn(AioContext& ctx, Task<void> t) {
  auto h = std::move(t).release();
  h.promise().detached = true;
  if (ctx.in_loop_thread()) ctx.defer(h); else ctx.post_resume(h);
}

// Starts `t` detached right now, on the calling thread (which must be the
// loop thread of whatever it does I/O on).
inline void SpawnNow(Task<void> t) { std::move(t).start_detached(); }

// Awaitable: suspends for `ns` nanoseconds on `ctx`'s timers.  Loop thread.
class SleepFor {
 public:
  SleepFor(AioContext& ctx, int64_t ns) : timer_(ctx, &SleepFor::Wake, this), ns_(ns) {}
  bool await_ready() const noexcept { return ns_ <= 0; }
  void await_suspend(std::coroutine_handle<> h) {
    h_ = h;
    timer_.arm_in(ns_);
  }
  void await_resume() const noexcept {}

 private:
  static void Wake(void* opaque) { static_cast<SleepFor*>(opaque)->h_.resume(); }
  Timer timer_;
  int64_t ns_;
  std::coroutine_handle<> h_;
};

// Awaitable: suspends until an absolute CLOCK_MONOTONIC deadline.
class SleepUntil {
 public:
  SleepUntil(AioContext& ctx, int64_t deadline_ns)
      : timer_(ctx, &SleepUntil::Wake, this), deadline_(deadline_ns) {}
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    h_ = h;
    timer_.arm_at(deadline_);
  }
  void await_resume() const noexcept {}

 private:
  static void Wake(void* opaque) { static_cast<SleepUntil*>(opaque)->h_.resume(); }
  Timer timer_;
  int64_t deadline_;
  std::coroutine_handle<> h_;
};

// Sleeps that can be cut short.  Coroutines sleep until a deadline through
// `co_await group.until(ctx, deadline)` (or `.sleep_for`); cancel_all() ends
// every sleep of the group early.  The await yields true when the deadline
// passed and false when cancelled.  For delays a component adds on its own
// (a device's emulated latency, a throttle, a benchmark's pacing) that must
// end when asked to, e.g. when a job is interrupted.
//
// A cancelled sleeper is resumed through the loop's ready queue, never
// inside cancel_all().  Loop thread only; a group may hold sleepers of one
// loop at a time.  The group must outlive its sleepers.
class SleepGroup {
 public:
  class Sleep {
   public:
    Sleep(SleepGroup* group, AioContext& ctx, int64_t deadline_ns)
        : group_(group), ctx_(ctx), timer_(ctx, &Sleep::Wake, this), deadline_(deadline_ns) {}
    ~Sleep() { group_->unlink(this); }
    Sleep(const Sleep&) = delete;
    Sleep& operator=(const Sleep&) = delete;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) {
      h_ = h;
      group_->link(this);
      timer_.arm_at(deadline_);
    }
    bool await_resume() const noexcept { return !cancelled_; }

   private:
    friend class SleepGroup;
    static void Wake(void* opaque) {
      auto* s = static_cast<Sleep*>(opaque);
      s->group_->unlink(s);
      s->h_.resume();
    }
    SleepGroup* group_;
    AioContext& ctx_;
    Timer timer_;
    int64_t deadline_;
    std::coroutine_handle<> h_;
    Sleep* prev_ = nullptr;
    Sleep* next_ = nullptr;
    bool linked_ = false;
    bool cancelled_ = false;
  };

  SleepGroup() = default;
  SleepGroup(const SleepGroup&) = delete;
  SleepGroup& operator=(const SleepGroup&) = delete;

  Sleep until(AioContext& ctx, int64_t deadline_ns) { return Sleep(this, ctx, deadline_ns); }
  Sleep sleep_for(AioContext& ctx, int64_t ns);
  // Ends every current sleep: each resumes (from the ready queue) with false.
  // Sleeps that start afterwards are not affected.
  void cancel_all() {
    while (Sleep* s = head_) {
      unlink(s);
      s->timer_.cancel();
      s->cancelled_ = true;
      s->ctx_.defer(s->h_);
    }
  }
  bool empty() const { return head_ == nullptr; }

 private:
  void link(Sleep* s) {
    s->prev_ = nullptr;
    s->next_ = head_;
    if (head_) head_->prev_ = s;
    head_ = s;
    s->linked_ = true;
  }
  void unlink(Sleep* s) {
    if (!s->linked_) return;
    if (s->prev_) s->prev_->next_ = s->next_; else head_ = s->next_;
    if (s->next_) s->next_->prev_ = s->prev_;
    s->prev_ = s->next_ = nullptr;
    s->linked_ = false;
  }
  Sleep* head_ = nullptr;
};

// A one-shot event a coroutine can wait for; set() resumes the waiter via the
// loop's ready queue.  Loop thread only.  At most one waiter.
class Event {
 public:
  explicit Event(AioContext& ctx) : ctx_(ctx) {}
  bool is_set() const { return set_; }
  void set() {
    set_ = true;
    if (waiter_) ctx_.defer(std::exchange(waiter_, {}));
  }
  bool await_ready() const noexcept { return set_; }
  void await_suspend(std::coroutine_handle<> h) noexcept { waiter_ = h; }
  void await_resume() const noexcept {}

 private:
  AioContext& ctx_;
  std::coroutine_handle<> waiter_;
  bool set_ = false;
};

// Counts outstanding work; wait() suspends until the count is zero.  Loop
// thread only.  Any number of waiters.
class WaitGroup {
 public:
  explicit WaitGroup(AioContext& ctx) : ctx_(ctx) {}
  void add(int n = 1) { count_ += n; }
  void done() {
    if (--count_ == 0) {
      for (auto h : waiters_) ctx_.defer(h);
      waiters_.clear();
    }
  }
  int count() const { return count_; }
  auto wait() {
    struct Awaiter {
      WaitGroup* wg;
      bool await_ready() const noexcept { return wg->count_ == 0; }
      void await_suspend(std::coroutine_handle<> h) { wg->waiters_.push_back(h); }
      void await_resume() const noexcept {}
    };
    return Awaiter{this};
  }

 private:
  AioContext& ctx_;
  int count_ = 0;
  std::vector<std::coroutine_handle<>> waiters_;
};

inline SleepGroup::Sleep SleepGroup::sleep_for(AioContext& ctx, int64_t ns) {
  return Sleep(this, ctx, NowNs() + ns);
}

// Runs `t` on `ctx` from the calling thread (the loop thread) until it
// finishes, and returns its value.  For tools, tests and the C API's top
// level only: never call it from I/O code (it would nest the loop).
template <class T>
T RunSync(AioContext& ctx, Task<T> t) {
  std::optional<T> out;
  bool done = false;
  auto wrapper = [](Task<T> inner, std::optional<T>* o, bool* d) -> Task<void> {
    o->emplace(co_await std::move(inner));
    *d = true;
  };
  Spawn(ctx, wrapper(std::move(t), &out, &done));
  ctx.run_until([&] { return done; });
  return std::move(*out);
}

inline void RunSync(AioContext& ctx, Task<void> t) {
  bool done = false;
  auto wrapper = [](Task<void> inner, bool* d) -> Task<void> {
    co_await std::move(inner);
    *d = true;
  };
  Spawn(ctx, wrapper(std::move(t), &done));
  ctx.run_until([&] { return done; });
}

}  // namespace blk
