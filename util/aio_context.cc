#include <blkstack/util/aio_context.h>

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <blkstack/util/clock.h>

namespace blk {

struct AioContext::FdHandler {
  int fd;
  std::function<void()> on_read;
  std::function<void()> on_write;
  bool deleted = false;
};

namespace {
// After this many iterations in which polling found work (or coroutines were
// ready) and epoll_wait was skipped, poll the fds once anyway so fd handlers are not starved.
constexpr uint32_t kMaxSpinsWithoutWait = 64;
constexpr int kMaxEvents = 64;
// Ready-queue rounds per iteration, and the number of resumed coroutines
// after which no further round starts (so deep queues add no delay).
constexpr int kReadyRounds = 8;
constexpr size_t kReadyRoundsBudget = 64;
// First non-zero polling window when growing from 0 (as in QEMU).
constexpr int64_t kInitialPollNs = 4000;

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "blkstack: AioContext: %s: %s\n", what, std::strerror(errno));
  std::abort();
}
}  // namespace

// ---------------------------------------------------------------------------
// BottomHalf

BottomHalf::BottomHalf(AioContext& ctx, std::function<void()> fn)
    : ctx_(ctx), fn_(std::move(fn)) {}

BottomHalf::~BottomHalf() { cancel(); }

void BottomHalf::schedule() {
  {
    std::lock_guard<std::mutex> g(ctx_.mu_);
    if (pending_) return;
    pending_ = true;
    prev_ = ctx_.bh_tail_;
    next_ = nullptr;
    if (ctx_.bh_tail_) ctx_.bh_tail_->next_ = this; else ctx_.bh_head_ = this;
    ctx_.bh_tail_ = this;
  }
  ctx_.notify_remote();
}

void BottomHalf::cancel() {
  std::lock_guard<std::mutex> g(ctx_.mu_);
  if (!pending_) return;
  pending_ = false;
  if (prev_) prev_->next_ = next_; else ctx_.bh_head_ = next_;
  if (next_) next_->prev_ = prev_; else ctx_.bh_tail_ = prev_;
  prev_ = next_ = nullptr;
}

bool BottomHalf::scheduled() const {
  std::lock_guard<std::mutex> g(ctx_.mu_);
  return pending_;
}

// ---------------------------------------------------------------------------
// Timer

Timer::Timer(AioContext& ctx, Callback fn, void* opaque)
    : ctx_(ctx), fn_(fn), opaque_(opaque) {}

Timer::Timer(AioContext& ctx, std::function<void()> fn)
    : ctx_(ctx), fn_(nullptr), opaque_(nullptr), func_(std::move(fn)) {}

Timer::~Timer() { cancel(); }

void Timer::arm_at(int64_t deadline_ns) {
  if (pending()) ctx_.heap_remove(this);
  deadline_ = deadline_ns;
  seq_ = ctx_.timer_seq_++;
  ctx_.heap_insert(this);
  // A host loop driving us must learn about the new deadline.
  if (!ctx_.dispatching_) ctx_.notify_self();
}

void Timer::arm_in(int64_t delay_ns) { arm_at(NowNs() + delay_ns); }

void Timer::cancel() {
  if (pending()) ctx_.heap_remove(this);
}

void Timer::fire() {
  if (fn_) fn_(opaque_); else func_();
}

// ---------------------------------------------------------------------------
// AioContext

AioContext::AioContext() : owner_(pthread_self()) {
  if (const char* failed = init()) Die(failed);
}

AioContext::AioContext(NoInit) : owner_(pthread_self()) {}

Expected<std::unique_ptr<AioContext>> AioContext::Create() {
  std::unique_ptr<AioContext> ctx(new AioContext(NoInit{}));
  if (const char* failed = ctx->init()) {
    const int e = -errno;
    return MakeError(e, std::string(failed) + ": " + ErrnoString(e));
  }
  return ctx;
}

const char* AioContext::init() {
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epfd_ < 0) return "epoll_create1";
  notify_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (notify_fd_ < 0) return "eventfd";
  struct epoll_event ev = {};
  ev.events = EPOLLIN;
  ev.data.ptr = nullptr;  // nullptr marks the notifier
  if (epoll_ctl(epfd_, EPOLL_CTL_ADD, notify_fd_, &ev) < 0) return "epoll_ctl";
  return nullptr;
}

AioContext::~AioContext() {
  // Services first: they may still hold fd handlers, timers or BHs here.
  while (!services_.empty()) {
    std::unique_ptr<LoopService> s = std::move(services_.back().second);
    services_.pop_back();
    s.reset();
  }
  {
    std::lock_guard<std::mutex> g(mu_);
    for (BottomHalf* b = bh_head_; b;) {
      BottomHalf* n = b->next_;
      b->pending_ = false;
      b->prev_ = b->next_ = nullptr;
      b = n;
    }
    bh_head_ = bh_tail_ = nullptr;
  }
  for (Timer* t : heap_) t->heap_index_ = -1;
  heap_.clear();
  if (notify_fd_ >= 0) close(notify_fd_);
  if (epfd_ >= 0) close(epfd_);
}

LoopService* AioContext::find_service(std::string_view key) const {
  for (const auto& [k, s] : services_) {
    if (k == key) return s.get();
  }
  return nullptr;
}

LoopService* AioContext::add_service(std::string key, std::unique_ptr<LoopService> s) {
  LoopService* raw = s.get();
  services_.emplace_back(std::move(key), std::move(s));
  return raw;
}

void AioContext::remove_service(std::string_view key) {
  for (auto it = services_.begin(); it != services_.end(); ++it) {
    if (it->first != key) continue;
    // Out of the list first: the service's destructor may look itself up.
    std::unique_ptr<LoopService> s = std::move(it->second);
    services_.erase(it);
    return;
  }
}

void AioContext::bind_to_current_thread() { owner_ = pthread_self(); }

void AioContext::notify_self() {
  if (!notified_.exchange(true)) {
    uint64_t one = 1;
    ssize_t r = write(notify_fd_, &one, sizeof(one));
    (void)r;  // EAGAIN: the counter is already non-zero, which is all we need
  }
}

void AioContext::notify_remote() {
  remote_pending_.store(true);
  // On the loop thread while dispatching, the loop re-checks remote_pending_
  // before it could block: no syscall needed.
  if (in_loop_thread() && dispatching_) return;
  notify_self();
}

void AioContext::wake() { notify_self(); }

void AioContext::stop() {
  stop_.store(true);
  notify_self();
}

void AioContext::post(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> g(mu_);
    posted_.push_back(std::move(fn));
  }
  notify_remote();
}

void AioContext::post_resume(std::coroutine_handle<> h) {
  {
    std::lock_guard<std::mutex> g(mu_);
    posted_resume_.push_back(h);
  }
  notify_remote();
}

int AioContext::set_fd_handler(int fd, std::function<void()> on_read,
                               std::function<void()> on_write, FdTrigger trigger) {
  auto it = fd_handlers_.find(fd);
  struct epoll_event ev = {};
  ev.events = (on_read ? uint32_t(EPOLLIN) : 0u) | (on_write ? uint32_t(EPOLLOUT) : 0u) |
              (trigger == FdTrigger::kEdge ? uint32_t(EPOLLET) : 0u);
  if (it != fd_handlers_.end()) {
    FdHandler* h = it->second.get();
    ev.data.ptr = h;
    if (epoll_ctl(epfd_, EPOLL_CTL_MOD, fd, &ev) < 0) return -errno;
    h->on_read = std::move(on_read);
    h->on_write = std::move(on_write);
    return 0;
  }
  auto h = std::make_unique<FdHandler>();
  h->fd = fd;
  h->on_read = std::move(on_read);
  h->on_write = std::move(on_write);
  ev.data.ptr = h.get();
  if (epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) < 0) return -errno;
  fd_handlers_.emplace(fd, std::move(h));
  return 0;
}

void AioContext::remove_fd_handler(int fd) {
  auto it = fd_handlers_.find(fd);
  if (it == fd_handlers_.end()) return;
  epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);
  it->second->deleted = true;
  // Events of the current batch may still point at it: free it later.
  fd_graveyard_.push_back(std::move(it->second));
  fd_handlers_.erase(it);
}

void AioContext::add_poll_handler(PollHandler* h) { poll_handlers_.push_back(h); }

void AioContext::remove_poll_handler(PollHandler* h) {
  for (size_t i = 0; i < poll_handlers_.size(); i++) {
    if (poll_handlers_[i] == h) {
      poll_handlers_.erase(poll_handlers_.begin() + i);
      return;
    }
  }
}

void AioContext::set_poll_params(const PollParams& p) {
  poll_params_ = p;
  if (poll_ns_ > p.max_ns) poll_ns_ = p.max_ns;
}

bool AioContext::has_local_work() const {
  return !ready_.empty() || remote_pending_.load(std::memory_order_relaxed);
}

int64_t AioContext::next_timeout_ns() const {
  if (has_local_work()) return 0;
  if (heap_.empty()) return -1;
  int64_t d = heap_[0]->deadline_ - NowNs();
  return d < 0 ? 0 : d;
}

// ---- timer heap ----

bool AioContext::heap_less(int a, int b) const {
  const Timer* x = heap_[a];
  const Timer* y = heap_[b];
  return x->deadline_ < y->deadline_ || (x->deadline_ == y->deadline_ && x->seq_ < y->seq_);
}

void AioContext::heap_up(int i) {
  while (i > 0) {
    int p = (i - 1) / 2;
    if (!heap_less(i, p)) break;
    std::swap(heap_[i], heap_[p]);
    heap_[i]->heap_index_ = i;
    heap_[p]->heap_index_ = p;
    i = p;
  }
}

void AioContext::heap_down(int i) {
  int n = int(heap_.size());
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && heap_less(l, m)) m = l;
    if (r < n && heap_less(r, m)) m = r;
    if (m == i) break;
    std::swap(heap_[i], heap_[m]);
    heap_[i]->heap_index_ = i;
    heap_[m]->heap_index_ = m;
    i = m;
  }
}

void AioContext::heap_insert(Timer* t) {
  heap_.push_back(t);
  t->heap_index_ = int(heap_.size()) - 1;
  heap_up(t->heap_index_);
}

void AioContext::heap_remove(Timer* t) {
  int i = t->heap_index_;
  int last = int(heap_.size()) - 1;
  t->heap_index_ = -1;
  if (i != last) {
    heap_[i] = heap_[last];
    heap_[i]->heap_index_ = i;
    heap_.pop_back();
    heap_down(i);
    heap_up(i);
  } else {
    heap_.pop_back();
  }
}

// ---- dispatch ----

bool AioContext::run_bottom_halves() {
  // Only the BHs scheduled before we started run now: one that reschedules
  // itself runs again in the next iteration, not in a loop here.
  size_t n = 0;
  {
    std::lock_guard<std::mutex> g(mu_);
    for (BottomHalf* b = bh_head_; b; b = b->next_) n++;
  }
  bool progress = false;
  for (; n > 0; n--) {
    BottomHalf* b;
    {
      std::lock_guard<std::mutex> g(mu_);
      b = bh_head_;
      if (!b) break;
      bh_head_ = b->next_;
      if (bh_head_) bh_head_->prev_ = nullptr; else bh_tail_ = nullptr;
      b->prev_ = b->next_ = nullptr;
      b->pending_ = false;
    }
    b->fn_();
    progress = true;
  }
  return progress;
}

bool AioContext::run_posted() {
  // The load first: the common case (nothing posted) costs no atomic RMW.
  if (!remote_pending_.load(std::memory_order_relaxed) || !remote_pending_.exchange(false)) {
    return false;
  }
  {
    std::lock_guard<std::mutex> g(mu_);
    posted_swap_.swap(posted_);
    posted_resume_swap_.swap(posted_resume_);
  }
  bool progress = run_bottom_halves();
  progress |= !posted_swap_.empty() || !posted_resume_swap_.empty();
  for (auto& fn : posted_swap_) fn();
  posted_swap_.clear();
  for (auto h : posted_resume_swap_) h.resume();
  posted_resume_swap_.clear();
  return progress;
}

size_t AioContext::run_ready() {
  if (ready_.empty()) return 0;
  ready_swap_.swap(ready_);
  for (auto h : ready_swap_) h.resume();
  size_t n = ready_swap_.size();
  ready_swap_.clear();
  return n;
}

bool AioContext::run_timers() {
  if (heap_.empty()) return false;
  int64_t now = NowNs();
  uint64_t seq_limit = timer_seq_;
  bool progress = false;
  while (!heap_.empty()) {
    Timer* t = heap_[0];
    if (t->deadline_ > now || t->seq_ >= seq_limit) break;
    heap_remove(t);
    t->fire();
    progress = true;
  }
  return progress;
}

// The handler loops index the vector afresh each time: a handler may add or
// remove handlers (itself included) from inside poll(), e.g. a driver that a
// completion's coroutine closes.
bool AioContext::poll_once() {
  bool progress = false;
  for (size_t i = 0; i < poll_handlers_.size(); i++) progress |= poll_handlers_[i]->poll();
  return progress;
}

bool AioContext::poll_wanted() {
  bool wanted = false;
  // All of them: a handler may sample its own state on each call.
  for (size_t i = 0; i < poll_handlers_.size(); i++)
    wanted |= poll_handlers_[i]->poll_worthwhile();
  if (!wanted) stats_.poll_declined++;
  return wanted;
}

bool AioContext::try_poll(int64_t* polled_ns) {
  stats_.poll_phases++;
  for (size_t i = 0; i < poll_handlers_.size(); i++) poll_handlers_[i]->poll_begin();
  int64_t start = NowNs();
  int64_t now = start;
  // Not past the next timer: a long window (a spinning benchmark) must not
  // make a timer late.
  int64_t limit = poll_ns_;
  if (!heap_.empty() && heap_[0]->deadline_ - start < limit) limit = heap_[0]->deadline_ - start;
  bool progress = false;
  do {
    progress = poll_once();
    if (progress || has_local_work()) break;
    now = NowNs();
  } while (now - start < limit);
  for (size_t i = 0; i < poll_handlers_.size(); i++) poll_handlers_[i]->poll_end();
  if (progress) stats_.poll_successes++;
  *polled_ns = now - start;
  return progress;
}

void AioContext::adjust_poll_ns(int64_t block_ns) {
  if (block_ns <= poll_ns_) return;  // the window caught the event
  int64_t max = poll_params_.max_ns;
  if (block_ns > max) {
    if (poll_ns_ == 0) return;
    poll_ns_ = poll_params_.shrink ? poll_ns_ / poll_params_.shrink : 0;
    stats_.poll_ns_shrinks++;
  } else if (poll_ns_ < max) {
    int64_t grow = poll_params_.grow ? poll_params_.grow : 2;
    int64_t ns = poll_ns_ ? poll_ns_ * grow : kInitialPollNs;
    poll_ns_ = ns > max ? max : ns;
    stats_.poll_ns_grows++;
  }
}

int AioContext::wait_events(int64_t timeout_ns) {
  struct epoll_event events[kMaxEvents];
  stats_.epoll_waits++;
  int n;
  if (timeout_ns < 0) {
    n = epoll_wait(epfd_, events, kMaxEvents, -1);
  } else if (timeout_ns == 0) {
    n = epoll_wait(epfd_, events, kMaxEvents, 0);
  } else {
    struct timespec ts = {time_t(timeout_ns / 1000000000), long(timeout_ns % 1000000000)};
    n = epoll_pwait2(epfd_, events, kMaxEvents, &ts, nullptr);
    if (n < 0 && errno == ENOSYS) {
      // Rounded up to ms without overflow, at most INT_MAX ms (a wake-up
      // after 24 days only re-checks the timers).
      const int64_t ms = timeout_ns / 1000000 + (timeout_ns % 1000000 != 0);
      n = epoll_wait(epfd_, events, kMaxEvents, int(std::min<int64_t>(ms, INT_MAX)));
    }
  }
  if (n < 0) return errno == EINTR ? 0 : -errno;
  for (int i = 0; i < n; i++) {
    auto* h = static_cast<FdHandler*>(events[i].data.ptr);
    if (!h) {
      uint64_t cnt;
      ssize_t r = read(notify_fd_, &cnt, sizeof(cnt));
      (void)r;
      notified_.store(false);
      continue;
    }
    uint32_t ev = events[i].events;
    // Errors and hang-ups are reported to both directions so the handler
    // sees the failure on its next read/write.
    if ((ev & (EPOLLIN | EPOLLERR | EPOLLHUP)) && h->on_read && !h->deleted) h->on_read();
    if ((ev & (EPOLLOUT | EPOLLERR | EPOLLHUP)) && h->on_write && !h->deleted) h->on_write();
  }
  return n;
}

bool AioContext::run_once(bool blocking) {
  stats_.iterations++;
  const bool nested = dispatching_;
  dispatching_ = true;
  bool progress = false;

  const bool polling = blocking && poll_params_.max_ns > 0 && !poll_handlers_.empty();
  int64_t t0 = 0, polled_ns = 0;
  bool polled = false;
  if (polling && !has_local_work() && poll_wanted()) {
    t0 = NowNs();
    polled = try_poll(&polled_ns);
  } else if (!poll_handlers_.empty()) {
    polled = poll_once();
  }
  progress |= polled;

  int64_t timeout = 0;
  if (blocking && !polled && !has_local_work() && !stop_.load(std::memory_order_relaxed)) {
    timeout = heap_.empty() ? -1 : heap_[0]->deadline_ - NowNs();
    if (timeout < 0 && !heap_.empty()) timeout = 0;
  }

  // When polling keeps finding work, skip the epoll syscall (posted work is
  // seen through remote_pending_), but not forever.
  // Likewise when coroutines are ready to run: the ready queue needs no
  // syscall to be seen.
  // Only in blocking mode: a host loop calling dispatch() must see our fds
  // drained, or fd() stays readable and wakes it for nothing.
  bool skip_wait = blocking && (polled || !ready_.empty()) &&
                   ++spins_since_wait_ < kMaxSpinsWithoutWait;
  if (!skip_wait) {
    spins_since_wait_ = 0;
    int n = wait_events(timeout);
    if (n > 0) progress = true;
  }
  if (polling && t0 != 0) adjust_poll_ns(polled ? polled_ns : NowNs() - t0);

  // Bottom halves and posted work are all flagged by remote_pending_.
  progress |= run_posted();
  progress |= run_timers();
  // While coroutines keep becoming ready (a request completing through the
  // loop resubmits), run a few rounds before the next full iteration: the
  // per-iteration costs (a clock read for timers, flag checks) are shared.
  // Bounded so fds, timers and posted work wait at most kReadyRounds rounds
  // or about kReadyRoundsBudget resumptions.
  size_t resumed = 0;
  for (int i = 0; i < kReadyRounds && resumed < kReadyRoundsBudget; i++) {
    size_t n = run_ready();
    if (!n) break;
    resumed += n;
    progress = true;
  }
  fd_graveyard_.clear();
  dispatching_ = nested;
  return progress;
}

bool AioContext::dispatch() {
  bool progress = false;
  for (int i = 0; i < kDispatchRounds; i++) {
    progress |= run_once(false);
    if (!has_local_work()) break;
  }
  return progress;
}

void AioContext::run() {
  while (!stop_.load()) run_once(true);
  stop_.store(false);
}

}  // namespace blk
