#include <blkstack/block/file/thread_queue.h>

#include <sys/eventfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

namespace blk {

ThreadQueue::ThreadQueue(int threads, int capacity)
    : slots_(size_t(capacity < 1 ? 1 : capacity)), pool_(std::make_unique<ThreadPool>(threads)) {
  for (Slot& s : slots_) {
    s.queue = this;
    s.fn = &Run;
    s.complete = &Complete;
    s.link = free_;
    free_ = &s;
  }
}

Expected<std::unique_ptr<ThreadQueue>> ThreadQueue::Create(int threads, int capacity) {
  std::unique_ptr<ThreadQueue> q(new ThreadQueue(threads, capacity));
  q->efd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (q->efd_ < 0) {
    const int e = -errno;
    return MakeError(e, "eventfd: " + ErrnoString(e));
  }
  if (auto r = q->pool_->start(); !r.ok()) return r.error();
  return q;
}

ThreadQueue::~ThreadQueue() {
  pool_.reset();
  if (efd_ >= 0) close(efd_);
}

int64_t ThreadQueue::Run(ThreadPool::Job* job) {
  return RunIoSyscall(*static_cast<Slot*>(job)->req);
}

void ThreadQueue::Complete(ThreadPool::Job* job) {
  Slot* s = static_cast<Slot*>(job);
  ThreadQueue* q = s->queue;
  bool was_empty;
  {
    std::lock_guard<std::mutex> g(q->mu_);
    s->link = nullptr;
    was_empty = q->done_head_ == nullptr;
    if (q->done_tail_) q->done_tail_->link = s; else q->done_head_ = s;
    q->done_tail_ = s;
    q->done_count_.fetch_add(1, std::memory_order_release);
  }
  // A list that was not empty already has an edge the loop has not handled
  // (its fetch empties the list under the same lock).
  if (was_empty) {
    q->wakeups_.fetch_add(1, std::memory_order_relaxed);
    uint64_t one = 1;
    ssize_t w = write(q->efd_, &one, sizeof(one));
    (void)w;  // EAGAIN only at a counter of 2^64 - 2
  }
}

int ThreadQueue::submit(IoRequest* const* reqs, int n) {
  int i = 0;
  for (; i < n && free_; i++) {
    Slot* s = free_;
    free_ = s->link;
    s->req = reqs[i];
    pool_->submit(s);
  }
  jobs_ += uint64_t(i);
  return i > 0 ? i : -EAGAIN;
}

int ThreadQueue::fetch(IoCompletion* out, int max) {
  if (done_count_.load(std::memory_order_acquire) == 0) return 0;
  Slot* list;
  int n = 0;
  {
    std::lock_guard<std::mutex> g(mu_);
    list = done_head_;
    Slot* last = nullptr;
    for (Slot* s = list; s && n < max; s = s->link, n++) last = s;
    done_head_ = last ? last->link : done_head_;
    if (!done_head_) done_tail_ = nullptr;
    if (last) last->link = nullptr;
    done_count_.fetch_sub(n, std::memory_order_relaxed);
  }
  int k = 0;
  for (Slot* s = list; s && k < n; k++) {
    Slot* next = s->link;
    out[k] = {s->req, s->res};
    s->req = nullptr;
    s->link = free_;
    free_ = s;
    s = next;
  }
  return n;
}

void ThreadQueue::counters(std::vector<DriverCounter>* out) const {
  out->push_back({"threads_jobs", jobs_});
  out->push_back({"threads_wakeups", wakeups_.load(std::memory_order_relaxed)});
  out->push_back({"threads_workers", uint64_t(pool_->threads())});
}

}  // namespace blk
