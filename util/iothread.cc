#include "util/iothread.h"

#include <pthread.h>
#include <sys/prctl.h>

namespace blk {

IOThread::IOThread(std::string name) : name_(std::move(name)) {
  auto ready = ready_.get_future();
  thread_ = std::thread([this] { main(); });
  ready.wait();
}

IOThread::~IOThread() { stop(); }

void IOThread::main() {
  pthread_setname_np(pthread_self(), name_.substr(0, 15).c_str());
  // The kernel may delay timer expiry by the thread's timer slack (50 us by
  // default); a loop thread's timers (device latency, throttling, rate
  // limits) want microsecond precision.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  ctx_ = std::make_unique<AioContext>();
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
