#include <blkstack/util/iothread.h>

#include <pthread.h>
#include <sys/prctl.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <system_error>

namespace blk {

IOThread::IOThread(std::string name) : name_(std::move(name)) {
  if (auto r = start(); !r.ok()) {
    std::fprintf(stderr, "blkstack: IOThread '%s': %s\n", name_.c_str(), r.error().message.c_str());
    std::abort();
  }
}

Expected<std::unique_ptr<IOThread>> IOThread::Create(std::string name) {
  std::unique_ptr<IOThread> t(new IOThread(std::move(name), NoStart{}));
  if (auto r = t->start(); !r.ok()) return r.error();
  return t;
}

Expected<void> IOThread::start() {
  auto ready = ready_.get_future();
  try {
    thread_ = std::thread([this] { main(); });
  } catch (const std::system_error& e) {
    stopped_ = true;  // nothing to stop or join
    const int code = e.code().value() > 0 ? -e.code().value() : -EAGAIN;
    return MakeError(code, "cannot start thread '" + name_ + "': " + ErrnoString(code));
  }
  ready.wait();
  if (start_error_) {
    thread_.join();
    stopped_ = true;
    return *start_error_;
  }
  return {};
}

IOThread::~IOThread() { stop(); }

void IOThread::main() {
  pthread_setname_np(pthread_self(), name_.substr(0, 15).c_str());
  // The kernel may delay timer expiry by the thread's timer slack (50 us by
  // default); a loop thread's timers (device latency, throttling, rate
  // limits) want microsecond precision.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  auto ctx = AioContext::Create();
  if (!ctx.ok()) {
    start_error_ = MakeError(ctx.error().code, "thread '" + name_ + "': " + ctx.error().message);
    ready_.set_value();
    return;
  }
  ctx_ = std::move(*ctx);
  ready_.set_value();
  ctx_->run();
  // Whatever was posted before stop() still runs, so no posted work is lost.
  while (ctx_->run_once(false)) {
  }
}

void IOThread::run_sync(std::function<void()> fn) {
  std::promise<void> done;
  auto f = done.get_future();
  ctx_->post([&] {
    fn();
    done.set_value();
  });
  f.wait();
}

void IOThread::stop() {
  if (stopped_) return;
  stopped_ = true;
  ctx_->stop();
  thread_.join();
  // Destroyed only after the join: stop() may still be touching it (the
  // eventfd write) when the loop thread returns.  The join orders every
  // access of the loop thread before this.
  ctx_.reset();
}

}  // namespace blk
