// Structured concurrency for Task<T>: run several coroutines at once, wait
// for all of them, collect their results or their first error, and cancel
// them -- including the requests they have in flight.
//
//   WhenAll(ctx, tasks)  -> Task<std::vector<T>>: every result, in the order
//                           of `tasks` (Task<void> for void tasks).
//   JoinAll(ctx, tasks)  -> Task<Status>: waits for every Status task and
//                           yields the first error (in completion order),
//                           or ok.
//   TaskScope            -> a scope that owns the coroutines it spawned:
//                           join() waits for every one of them and yields
//                           the first error; cancel() reaches the sleeps and
//                           the devices' waits of the running ones.
//
// Every task given to these helpers starts on `ctx`'s loop through its ready
// queue (Spawn()): never inside the call that hands it over.  A task's
// result is a value; a "first error" is the first Status or Result<U> that
// finished with a negative errno (other result types are ignored by
// JoinAll/TaskScope).
//
// Cancellation is cooperative, as in the rest of blkstack: TaskScope::cancel()
//   * makes cancelled() true, for workers that check it between requests,
//   * ends every sleep of the scope (sleep_for/until yield false, at once for
//     sleeps that start afterwards),
//   * calls every hook given to on_cancel(); cancel_waits_of(dev) adds
//     dev.cancel_waits() (BlockBackend: requests waiting on a delay the graph
//     adds itself -- null latency-ns, throttle -- complete with -ECANCELED).
// Requests already at the kernel or a cluster are not recalled: they
// complete normally, and join() still waits for them.
//
// Threading: loop thread of `ctx` for everything, except
// TaskScope::request_cancel(), which any thread may call.  Lifetime: a
// TaskScope must outlive its tasks: `co_await scope.join()` before it goes
// out of scope (the destructor aborts with a message when tasks still run).
// WhenAll/JoinAll must be awaited to completion (their tasks live in the
// awaiting frame's care).
//
// GCC 12 pitfall (docs/embedding.md): write `Status s = co_await
// scope.join(); if (!s.ok()) co_return ...;`, not `if (!co_await ...)`.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <blkstack/util/aio_context.h>
#include <blkstack/util/clock.h>
#include <blkstack/util/result.h>
#include <blkstack/util/task.h>

namespace blk {

namespace detail {

template <class T>
struct IsResult : std::false_type {};
template <class U>
struct IsResult<Result<U>> : std::true_type {};

// The errno a task's result carries: 0 unless it is a failed Status/Result.
template <class T>
int ErrorOf(const T& v) {
  if constexpr (std::is_same_v<T, Status>) return v.error();
  else if constexpr (IsResult<T>::value) return v.error();
  else return 0;
}

template <class T>
Task<void> StoreInto(Task<T> t, std::optional<T>* slot, WaitGroup* wg) {
  slot->emplace(co_await std::move(t));
  wg->done();
}

inline Task<void> RunVoid(Task<void> t, WaitGroup* wg) {
  co_await std::move(t);
  wg->done();
}

}  // namespace detail

// Runs every task concurrently on `ctx` and yields their results in the
// order given, once the last one finished.  Empty input: an empty vector.
template <class T>
Task<std::vector<T>> WhenAll(AioContext& ctx, std::vector<Task<T>> tasks) {
  std::vector<std::optional<T>> slots(tasks.size());
  WaitGroup wg(ctx);
  wg.add(int(tasks.size()));
  for (size_t i = 0; i < tasks.size(); i++) {
    Spawn(ctx, detail::StoreInto(std::move(tasks[i]), &slots[i], &wg));
  }
  co_await wg.wait();
  std::vector<T> out;
  out.reserve(slots.size());
  for (auto& s : slots) out.push_back(std::move(*s));
  co_return out;
}

// Runs every task concurrently on `ctx`; finishes when the last one did.
inline Task<void> WhenAll(AioContext& ctx, std::vector<Task<void>> tasks) {
  WaitGroup wg(ctx);
  wg.add(int(tasks.size()));
  for (auto& t : tasks) Spawn(ctx, detail::RunVoid(std::move(t), &wg));
  co_await wg.wait();
}

// A scope for coroutines: spawn() starts one, join() waits for all it
// started (also those spawned while joining) and yields the first error.
// See the file comment for cancellation and threading.
class TaskScope {
 public:
  explicit TaskScope(AioContext& ctx) : ctx_(ctx), wg_(ctx) {}
  // REQUIRES: no task of the scope running (co_await join() first).
  ~TaskScope() {
    if (wg_.count() != 0) {
      std::fprintf(stderr, "blk::TaskScope destroyed with %d task(s) still running: "
                           "co_await join() first\n", wg_.count());
      std::abort();
    }
  }
  TaskScope(const TaskScope&) = delete;
  TaskScope& operator=(const TaskScope&) = delete;

  AioContext& ctx() const { return ctx_; }

  // Starts `t` on the loop (ready queue, never inside this call).  A failed
  // Status or Result<U> it yields becomes first_error() if none came
  // earlier; with cancel_on_error(true) it also cancels the scope.
  template <class T>
  void spawn(Task<T> t) {
    wg_.add();
    Spawn(ctx_, Run(this, std::move(t)));
  }

  // Waits until every task of the scope finished; yields first_error().
  // Resumes the caller through the loop's ready queue, so destroying the
  // scope right after is safe.
  Task<Status> join() {
    co_await wg_.wait();
    co_return first_error_;
  }

  // Tasks started and not yet finished.
  int active() const { return wg_.count(); }
  // The first error a task yielded (ok when none).
  Status first_error() const { return first_error_; }

  // On the first error, cancel() the scope (the other tasks wind down).
  void cancel_on_error(bool on) { cancel_on_error_ = on; }

  // Cancels: see the file comment.  Calling it again ends again whatever
  // started waiting since (hooks run on every call).  Loop thread.
  void cancel() {
    cancelled_ = true;
    sleeps_.cancel_all();
    for (auto& hook : hooks_) hook();
  }
  // cancel() from any thread: posted to the loop.  The scope must still
  // exist when the loop runs it (it does while join() has not returned).
  void request_cancel() {
    ctx_.post([this] { cancel(); });
  }
  bool cancelled() const { return cancelled_; }

  // Runs `fn` on every cancel() (at once if the scope is already cancelled).
  // `fn` must stay callable while the scope exists.
  void on_cancel(std::function<void()> fn) {
    hooks_.push_back(std::move(fn));
    if (cancelled_) hooks_.back()();
  }
  // cancel() also calls dev.cancel_waits() (e.g. a BlockBackend): requests
  // in flight that wait on a delay the graph adds complete with -ECANCELED.
  // `dev` must outlive the scope.
  template <class Device>
  void cancel_waits_of(Device& dev) {
    on_cancel([&dev] { dev.cancel_waits(); });
  }

  // Awaitable: sleeps until `deadline_ns` (CLOCK_MONOTONIC) or until the
  // scope is cancelled; yields true when the deadline passed, false when
  // cancelled (also, without sleeping, when cancelled before).
  class Sleep {
   public:
    Sleep(TaskScope* scope, int64_t deadline_ns)
        : scope_(scope), sleep_(scope->sleeps_.until(scope->ctx_, deadline_ns)) {}
    bool await_ready() const noexcept { return scope_->cancelled_; }
    void await_suspend(std::coroutine_handle<> h) { sleep_.await_suspend(h); }
    bool await_resume() const noexcept { return !scope_->cancelled_ && sleep_.await_resume(); }

   private:
    TaskScope* scope_;
    SleepGroup::Sleep sleep_;
  };
  Sleep sleep_until(int64_t deadline_ns) { return Sleep(this, deadline_ns); }
  Sleep sleep_for(int64_t ns) { return Sleep(this, NowNs() + ns); }

 private:
  template <class T>
  static Task<void> Run(TaskScope* scope, Task<T> t) {
    if constexpr (std::is_void_v<T>) {
      co_await std::move(t);
    } else {
      T v = co_await std::move(t);
      scope->note(detail::ErrorOf(v));
    }
    scope->wg_.done();
  }
  void note(int err) {
    if (err >= 0) return;
    if (first_error_.ok()) first_error_ = Status(err);
    if (cancel_on_error_) cancel();
  }

  AioContext& ctx_;
  WaitGroup wg_;
  SleepGroup sleeps_;
  std::vector<std::function<void()>> hooks_;
  Status first_error_;
  bool cancelled_ = false;
  bool cancel_on_error_ = false;
};

// Runs every Status task concurrently on `ctx`; yields the first error (in
// completion order) once all finished, or ok.
inline Task<Status> JoinAll(AioContext& ctx, std::vector<Task<Status>> tasks) {
  TaskScope scope(ctx);
  for (auto& t : tasks) scope.spawn(std::move(t));
  Status s = co_await scope.join();
  co_return s;
}

}  // namespace blk
