#include <blkstack/util/thread_pool.h>

#include <pthread.h>

#include <cerrno>
#include <string>
#include <system_error>

namespace blk {

ThreadPool::ThreadPool(int threads) : want_threads_(threads < 1 ? 1 : threads) {}

Expected<void> ThreadPool::start() {
  threads_.reserve(size_t(want_threads_));
  while (int(threads_.size()) < want_threads_) {
    try {
      threads_.emplace_back([this] { worker(); });
    } catch (const std::system_error& e) {
      start_errno_ = e.code().value() > 0 ? e.code().value() : EAGAIN;
      return MakeError(-start_errno_, "cannot start thread pool worker " +
                                          std::to_string(threads_.size() + 1) + " of " +
                                          std::to_string(want_threads_) + ": " +
                                          ErrnoString(-start_errno_));
    }
    pthread_setname_np(threads_.back().native_handle(), "blk-file-pool");
  }
  return {};
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadPool::submit(Job* job) {
  if (threads_.empty() && !start().ok() && threads_.empty()) {
    job->res = -start_errno_;
    if (job->complete) job->complete(job); else job->ctx->post_resume(job->waiter);
    return;
  }
  job->next = nullptr;
  {
    std::lock_guard<std::mutex> g(mu_);
    if (tail_) tail_->next = job; else head_ = job;
    tail_ = job;
  }
  cv_.notify_one();
}

uint64_t ThreadPool::jobs_run() const {
  std::lock_guard<std::mutex> g(mu_);
  return jobs_run_;
}

void ThreadPool::worker() {
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    cv_.wait(lk, [this] { return stop_ || head_; });
    if (!head_) return;  // stop_ and nothing left
    Job* job = head_;
    head_ = job->next;
    if (!head_) tail_ = nullptr;
    jobs_run_++;
    lk.unlock();
    job->res = job->fn(job);
    // post_resume publishes res to the loop thread (it takes the loop's
    // lock); `complete` must publish it likewise.
    if (job->complete) job->complete(job); else job->ctx->post_resume(job->waiter);
    lk.lock();
  }
}

}  // namespace blk
