// AioContext: one event loop, owned by one thread.
//
// An AioContext multiplexes, on the thread that owns it (the "loop thread"):
//   * fd handlers (epoll, level-triggered),
//   * bottom halves (BottomHalf: reusable, schedulable from any thread;
//     post(): one-shot functions from any thread) run in scheduling order,
//   * a ready queue of coroutines to resume (defer(), post_resume()),
//   * timers (Timer, CLOCK_MONOTONIC nanoseconds),
//   * poll handlers for busy polling with an adaptive window as in QEMU's
//     iothreads: before blocking, the loop calls every PollHandler for up to
//     poll_ns (if one of them finds spinning worthwhile now, and never past
//     the next timer); a handler reporting progress keeps the loop spinning
//     without syscalls.  poll_ns grows (x grow) while waits end inside
//     poll_max_ns and shrinks (/ shrink, or to 0) when they do not.
//
// Threading rules.  The loop thread is the thread that created the context,
// or the one named by bind_to_current_thread().  Everything here is
// loop-thread-only except: BottomHalf::schedule(), post(), post_resume(),
// stop(), fd(), and wake().  Other threads hand the loop work only by posting.
//
// Embedding.  A host event loop (libevent, Boost.Asio, a plain epoll loop) can
// drive the context instead of run(): it watches fd() for readability and
// calls dispatch() (never blocks) when fd() is readable, and arms its own
// timer for next_timeout_ns().  fd() becomes readable whenever the context has
// work: a ready registered fd, a posted or scheduled item, or local work
// queued while no dispatch() was running.  Busy polling then happens only
// inside run()/run_once(true); dispatch() calls each poll handler once.
#pragma once

#include <pthread.h>

#include <atomic>
#include <coroutine>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <blkstack/util/result.h>

namespace blk {

class AioContext;

// A reusable bottom half: a function that runs once on the loop thread each
// time it is scheduled.  Scheduling an already-scheduled BH does nothing.
class BottomHalf {
 public:
  BottomHalf(AioContext& ctx, std::function<void()> fn);
  // Cancels a pending run.  REQUIRES: loop thread (or the loop is not running).
  ~BottomHalf();
  BottomHalf(const BottomHalf&) = delete;
  BottomHalf& operator=(const BottomHalf&) = delete;

  // Any thread.  The function runs on the loop thread after this returns.
  void schedule();
  // Loop thread.  A pending run does not happen.
  void cancel();
  bool scheduled() const;

 private:
  friend class AioContext;
  AioContext& ctx_;
  std::function<void()> fn_;
  // Guarded by ctx_.mu_: position in ctx_'s pending list.
  BottomHalf* prev_ = nullptr;
  BottomHalf* next_ = nullptr;
  bool pending_ = false;
};

// A timer on one loop.  Loop thread only.
class Timer {
 public:
  using Callback = void (*)(void* opaque);
  Timer(AioContext& ctx, Callback fn, void* opaque);
  Timer(AioContext& ctx, std::function<void()> fn);
  ~Timer();  // cancels
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Fires once at or after `deadline_ns` (CLOCK_MONOTONIC).  Re-arming a
  // pending timer moves it.
  void arm_at(int64_t deadline_ns);
  void arm_in(int64_t delay_ns);
  void cancel();
  bool pending() const { return heap_index_ >= 0; }
  int64_t deadline() const { return deadline_; }

 private:
  friend class AioContext;
  void fire();
  AioContext& ctx_;
  Callback fn_;
  void* opaque_;
  std::function<void()> func_;
  int64_t deadline_ = 0;
  uint64_t seq_ = 0;  // FIFO order among equal deadlines
  int heap_index_ = -1;
};

// A busy-poll source (e.g. a completion ring).  Loop thread only.
class PollHandler {
 public:
  virtual ~PollHandler() = default;
  // Checks for work without blocking and handles it.  Returns true when it
  // made progress (handled something).  Must be cheap: called in a spin loop.
  virtual bool poll() = 0;
  // Called when the loop starts / stops a polling phase; e.g. to turn fd
  // notifications off while spinning.  Default: nothing.
  virtual void poll_begin() {}
  virtual void poll_end() {}
  // Asked each time the loop is about to spin (nothing else to do): whether
  // spinning on this source could pay now.  False when the next event is
  // known to be further away than the poll window, e.g. nothing in flight, or
  // a device queue deep enough to keep the device busy until a sleeping
  // thread wakes.  The loop spins only if some handler says true; otherwise
  // it calls poll() once and sleeps.  Default: true.
  virtual bool poll_worthwhile() { return true; }
};

// State one loop keeps for all its users, e.g. the file driver's kernel AIO
// engine: one ring per loop, shared by every file node on it (QEMU keeps its
// LinuxAioState and LuringState per AioContext; Asio's use_service).  The
// loop owns each service (AioContext::add_service); ~AioContext destroys
// those still there, newest first, before anything else of the loop goes.
class LoopService {
 public:
  virtual ~LoopService() = default;
};

struct PollParams {
  int64_t max_ns = 32768;  // 0 disables polling
  int64_t grow = 0;        // factor; 0 means 2
  int64_t shrink = 0;      // divisor; 0 means reset to 0
};

// Counters for tests and tuning.  Read on the loop thread.
struct LoopStats {
  uint64_t iterations = 0;
  uint64_t epoll_waits = 0;        // epoll_wait syscalls
  uint64_t poll_phases = 0;        // polling phases started
  uint64_t poll_declined = 0;      // no handler found a phase worthwhile
  uint64_t poll_successes = 0;     // phases that found progress
  uint64_t poll_ns_grows = 0;
  uint64_t poll_ns_shrinks = 0;
};

class AioContext {
 public:
  // Creates a context owned by the calling thread.  Aborts if epoll/eventfd
  // cannot be created (out of file descriptors at start-up); Create() reports
  // that instead.
  AioContext();
  // As the constructor, but an error (naming the call and errno, e.g.
  // "eventfd: Too many open files") instead of aborting.
  static Expected<std::unique_ptr<AioContext>> Create();
  // REQUIRES: loop thread; no coroutine still waiting on this loop.  Pending
  // posted functions are destroyed without running.
  ~AioContext();
  AioContext(const AioContext&) = delete;
  AioContext& operator=(const AioContext&) = delete;

  // Makes the calling thread the loop thread (e.g. a thread that takes over a
  // context created elsewhere).  REQUIRES: no other thread is running it.
  void bind_to_current_thread();
  // True on the loop thread.
  bool in_loop_thread() const { return pthread_equal(owner_, pthread_self()); }

  // ---- running ----
  // One iteration: poll, wait (if `blocking` and nothing is ready), dispatch
  // fd handlers, bottom halves, posted functions, the ready queue and expired
  // timers.  Returns true when anything was dispatched.
  bool run_once(bool blocking);
  // Runs iterations until stop() is called (from any thread).
  void run();
  // Any thread.  Makes run() return after the current iteration.
  void stop();
  // Runs iterations until `done()` is true.  For tools and tests (top level
  // only: never from inside I/O code, it would nest the loop).
  template <class Pred>
  void run_until(Pred done) {
    while (!done()) run_once(true);
  }

  // ---- embedding ----
  // A file descriptor that is readable while the context has work to
  // dispatch.  Any thread.
  int fd() const { return epfd_; }
  // Dispatches whatever is ready without blocking: run_once(false), repeated
  // while work stays ready, at most kDispatchRounds times, so a host loop's
  // wake-up (an epoll_wait of its own) is shared by more requests while the
  // host's own events still wait at most that many rounds.  Returns true
  // when anything was dispatched.
  static constexpr int kDispatchRounds = 8;
  bool dispatch();
  // Nanoseconds until the next timer (0 if work is already pending), or -1
  // when there is no timer.  Loop thread.
  int64_t next_timeout_ns() const;
  // The absolute CLOCK_MONOTONIC deadline of the next timer, or -1 when there
  // is none (pending work not considered).  Lets a host keep its own timer
  // armed at a fixed point instead of re-arming it after every dispatch.
  // Loop thread.
  int64_t next_deadline_ns() const { return heap_.empty() ? -1 : heap_[0]->deadline_; }
  // True when dispatch() has work right now.  Loop thread.
  bool has_pending_work() const { return has_local_work(); }

  // ---- fd handlers ----
  // kLevel: a handler runs on every loop pass while the fd is ready, so it
  // must consume what made it ready (read the eventfd, drain the socket).
  // kEdge (EPOLLET): a handler runs once per new event on the fd and need not
  // drain it.  For an eventfd every write is a new event even while the
  // counter stays non-zero, so a handler that learns what happened elsewhere
  // (e.g. from a shared-memory ring) can leave the counter alone and save the
  // read(2) per wake-up; it must then never depend on the counter's value.
  enum class FdTrigger { kLevel, kEdge };
  // Registers handlers for `fd` (either may be empty: no interest).  Replaces
  // an earlier registration for the same fd.  Loop thread.  Returns 0 or a
  // negative errno from epoll_ctl.
  int set_fd_handler(int fd, std::function<void()> on_read,
                     std::function<void()> on_write = {},
                     FdTrigger trigger = FdTrigger::kLevel);
  // Loop thread.  Safe to call from inside a handler of the same batch.
  void remove_fd_handler(int fd);

  // ---- work from any thread ----
  // Runs `fn` on the loop thread, in posting order.  Any thread.
  void post(std::function<void()> fn);
  // Resumes `h` on the loop thread.  Any thread.  This is how a completion
  // arriving on a foreign thread (e.g. librbd's) reaches its coroutine.
  void post_resume(std::coroutine_handle<> h);
  // Wakes the loop if it is blocked.  Any thread.
  void wake();

  // ---- loop-thread fast paths ----
  // Resumes `h` in this or the next iteration, FIFO.  Loop thread.  No
  // allocation once the queue has grown; no syscall while dispatching.
  void defer(std::coroutine_handle<> h) {
    ready_.push_back(h);
    if (!dispatching_) notify_self();
  }
  // Awaitable: suspends the calling coroutine and resumes it from the loop's
  // ready queue (lets others run; never recurses into the caller).
  auto yield() {
    struct Awaiter {
      AioContext* ctx;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<> h) const { ctx->defer(h); }
      void await_resume() const noexcept {}
    };
    return Awaiter{this};
  }
  // Awaitable: resumes the calling coroutine on this loop's thread (from
  // whatever thread it was on).  Completes inline when already there.
  auto schedule() {
    struct Awaiter {
      AioContext* ctx;
      bool await_ready() const noexcept { return ctx->in_loop_thread(); }
      void await_suspend(std::coroutine_handle<> h) const { ctx->post_resume(h); }
      void await_resume() const noexcept {}
    };
    return Awaiter{this};
  }

  // ---- polling ----
  // Loop thread.  `h` must stay alive until removed.  Both may be called
  // from inside a poll handler (a removed handler is not called again).
  void add_poll_handler(PollHandler* h);
  void remove_poll_handler(PollHandler* h);
  void set_poll_params(const PollParams& p);
  const PollParams& poll_params() const { return poll_params_; }
  // Current adaptive polling window.
  int64_t poll_ns() const { return poll_ns_; }

  // ---- per-loop services ----
  // The service under `key`, or null.  Loop thread (or while no thread runs
  // the loop).
  LoopService* find_service(std::string_view key) const;
  // Adds `s` under `key`, which must be unused, and returns it.  Loop thread.
  LoopService* add_service(std::string key, std::unique_ptr<LoopService> s);
  // Destroys the service under `key`, if any.  Loop thread.  Not from
  // inside the service's own callbacks.
  void remove_service(std::string_view key);

  const LoopStats& stats() const { return stats_; }

 private:
  friend class BottomHalf;
  friend class Timer;
  struct FdHandler;
  struct NoInit {};
  explicit AioContext(NoInit);
  // Creates the epoll and eventfd descriptors: 0, or the failing call's name
  // with errno set.
  const char* init();

  void notify_self();
  void notify_remote();
  bool run_bottom_halves();
  bool run_posted();
  size_t run_ready();  // returns the number of coroutines resumed
  bool run_timers();
  bool poll_once();
  bool poll_wanted();
  bool try_poll(int64_t* polled_ns);
  void adjust_poll_ns(int64_t block_ns);
  bool has_local_work() const;
  int wait_events(int64_t timeout_ns);

  // Timer heap (min-heap on (deadline, seq)).
  void heap_insert(Timer* t);
  void heap_remove(Timer* t);
  void heap_up(int i);
  void heap_down(int i);
  bool heap_less(int a, int b) const;

  int epfd_ = -1;
  int notify_fd_ = -1;  // eventfd: cross-thread wake-ups
  pthread_t owner_;
  bool dispatching_ = false;
  std::atomic<bool> stop_{false};
  // Set when notify_fd_ has (or is about to have) a pending count.
  std::atomic<bool> notified_{false};
  // Set when post()/post_resume()/BottomHalf::schedule() queued something.
  std::atomic<bool> remote_pending_{false};

  std::unordered_map<int, std::unique_ptr<FdHandler>> fd_handlers_;
  std::vector<std::unique_ptr<FdHandler>> fd_graveyard_;

  mutable std::mutex mu_;  // guards the three lists below
  BottomHalf* bh_head_ = nullptr;
  BottomHalf* bh_tail_ = nullptr;
  std::vector<std::function<void()>> posted_;
  std::vector<std::coroutine_handle<>> posted_resume_;
  std::vector<std::function<void()>> posted_swap_;
  std::vector<std::coroutine_handle<>> posted_resume_swap_;

  std::vector<std::coroutine_handle<>> ready_;
  std::vector<std::coroutine_handle<>> ready_swap_;

  std::vector<Timer*> heap_;
  uint64_t timer_seq_ = 0;

  std::vector<PollHandler*> poll_handlers_;
  PollParams poll_params_;
  int64_t poll_ns_ = 0;
  uint32_t spins_since_wait_ = 0;
  LoopStats stats_;
  // Few (one per engine setting in use): a vector keeps creation order.
  std::vector<std::pair<std::string, std::unique_ptr<LoopService>>> services_;
};

}  // namespace blk
