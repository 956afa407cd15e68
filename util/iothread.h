// IOThread: a thread that owns and runs one AioContext.
//
// The context is created on the new thread (so that thread is its loop
// thread) and runs until the IOThread is destroyed or stop() is called.  The
// thread's timer slack is set to 1 us so loop timers fire on time.
// Other threads hand it work only by posting: ctx().post(), Spawn(ctx(), t),
// or `co_await thread.ctx().schedule()` to move a coroutine onto it.
//
// Thread-safety: ctx() may be called from any thread once the constructor
// returns; everything else from the owning (creating) thread.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include <blkstack/util/aio_context.h>
#include <blkstack/util/result.h>

namespace blk {

class IOThread {
 public:
  // Starts the thread and waits until its context exists.  `name` is the
  // thread name shown by top/ps (truncated to 15 characters).  Aborts if the
  // thread or its context cannot be created; Create() reports that instead.
  explicit IOThread(std::string name = "blk-iothread");
  // As the constructor, but an error when the thread cannot be started
  // (EAGAIN: thread limit) or its context not created (EMFILE: no file
  // descriptor left).
  static Expected<std::unique_ptr<IOThread>> Create(std::string name = "blk-iothread");
  // Stops the loop and joins the thread.  REQUIRES: no I/O still in flight on
  // the context (drain first).
  ~IOThread();
  IOThread(const IOThread&) = delete;
  IOThread& operator=(const IOThread&) = delete;

  AioContext& ctx() { return *ctx_; }

  // Runs fn on the I/O thread and waits for it to return.  Any thread except
  // the I/O thread itself (that would deadlock).
  void run_sync(std::function<void()> fn);
  // Stops the loop and joins; idempotent.
  void stop();

 private:
  struct NoStart {};
  IOThread(std::string name, NoStart) : name_(std::move(name)) {}
  // Starts the thread; an error if it or its context could not be created.
  Expected<void> start();
  void main();
  std::string name_;
  std::optional<Error> start_error_;  // set by main() before ready_
  std::unique_ptr<AioContext> ctx_;
  std::thread thread_;
  std::promise<void> ready_;
  bool stopped_ = false;
};

}  // namespace blk
