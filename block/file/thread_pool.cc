#include "block/file/thread_pool.h"

#include <pthread.h>

namespace blk {

ThreadPool::ThreadPool(int threads) {
  if (threads < 1) threads = 1;
  threads_.reserve(threads);
  for (int i = 0; i < threads; i++) {
    threads_.emplace_back([this] { worker(); });
    pthread_setname_np(threads_.back().native_handle(), "blk-file-pool");
  }
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
    // post_resume publishes res to the loop thread (it takes the loop's lock).
    job->ctx->post_resume(job->waiter);
    lk.lock();
  }
}

}  // namespace blk
