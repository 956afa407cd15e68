#include <blkstack/block/file/queue_engine.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include <blkstack/util/clock.h>

namespace blk {

namespace {

constexpr int kReapBatch = 64;

const char* const kBucketNames[] = {"0", "1", "2-3", "4-7", "8-15", "16-31", "32-63", "64+"};
const char* const kSourceNames[] = {"after_submit", "eventfd", "poll"};

}  // namespace

void QueueEngine::Buckets::add(uint64_t v) {
  int b = 0;
  if (v > 0) b = std::min(kBuckets - 1, 1 + (63 - __builtin_clzll(v)));
  n[b]++;
}

QueueEngine::Config QueueEngine::Normalized(Config cfg, const KernelQueue& queue) {
  if (cfg.max_inflight <= 0) cfg.max_inflight = queue.capacity();
  if (cfg.max_batch <= 0) cfg.max_batch = 32;
  if (cfg.async_batch <= 0) cfg.async_batch = 1;
  // The batch follows what the peeks after a submission find: no peeks,
  // nothing to follow.
  if (!cfg.peek_after_submit) cfg.adapt_batch = false;
  // The poll handler reads the ring: without it (io_getevents fallback)
  // there is nothing to spin on, whatever poll_mode asked for.
  if (!queue.user_space_ring()) cfg.poll_mode = PollMode::kOff;
  return cfg;
}

QueueEngine::QueueEngine(const Config& cfg, std::unique_ptr<KernelQueue> queue)
    : cfg_(Normalized(cfg, *queue)),
      queue_(std::move(queue)),
      poll_(cfg_.poll_mode),
      batch_(cfg_.max_batch, cfg_.async_batch, cfg_.adapt_batch) {
  batch_reqs_.resize(size_t(cfg_.max_batch));
}

QueueEngine::~QueueEngine() {
  CheckNotReaping("destroyed");
  if (ctx_) detach();
}

void QueueEngine::attach(AioContext& ctx) {
  ctx_ = &ctx;
  resumer_frame_ = resumer().release();
  resumer_frame_.resume();  // runs to its first park
  submit_bh_ = std::make_unique<BottomHalf>(ctx, [this] {
    submit_bh_pending_ = false;
    if (!plugged_ && q_head_) submit_queued();
  });
  // Edge-triggered, and the counter is never read: the ring says what
  // completed, and each completion's eventfd_signal() is a new edge, so a
  // completion that lands after reap_top() has looked wakes the loop again.
  // Saves one read(2) per wake-up (QD 1 on an asynchronous device: two
  // syscalls per request, the submission and epoll_wait, like fio's io_submit and
  // io_getevents).  The counter cannot overflow in practice (2^64 - 1).
  ctx.set_fd_handler(queue_->event_fd(), [this] { reap_top(kEventfd); }, {}, AioContext::FdTrigger::kEdge);
  if (poll_.attach()) ctx.add_poll_handler(this);
}

void QueueEngine::CheckNotReaping(const char* what) const {
  if (reaping_ == 0) return;
  // A use-after-free in the making: the reaping loop below us would go on
  // with freed state.  Loud and named instead of silent memory corruption.
  std::fprintf(stderr,
               "blkstack: QueueEngine %s inside its own completion path: close a graph only "
               "after `co_await drain()`, which returns at the loop's top level\n",
               what);
  std::abort();
}

void QueueEngine::detach() {
  if (!ctx_) return;
  CheckNotReaping("detached");
  if (poll_.registered()) ctx_->remove_poll_handler(this);
  poll_.detach();
  ctx_->remove_fd_handler(queue_->event_fd());
  // Never scheduled here: with nothing in flight the deferred list is empty.
  resumer_frame_.destroy();
  resumer_frame_ = {};
  resumer_ = {};
  submit_bh_.reset();
  submit_bh_pending_ = resumer_scheduled_ = false;
  ctx_ = nullptr;
}

bool QueueEngine::enqueue(Request* req, std::coroutine_handle<> h) {
  req->waiter = h;
  req->done = false;
  req->res = 0;
  req->next = nullptr;
  if (q_tail_) q_tail_->next = req; else q_head_ = req;
  q_tail_ = req;
  queued_++;
  if (queued_ < batch_.limit()) {
    if (plugged_) return true;
    if (cfg_.submit_mode == SubmitMode::kBottomHalf) {
      if (!submit_bh_pending_) {
        submit_bh_pending_ = true;
        submit_bh_->schedule();
      }
      return true;
    }
  }
  Request* outer = submitting_;
  // Plugged (the queue reached max_batch): the others resumed with this one
  // are suspended waiting for the same batch, so this one waits with them
  // rather than running ahead and issuing a lone request at unplug.
  submitting_ = plugged_ ? nullptr : req;
  submit_queued();
  submitting_ = outer;
  if (req->done) {
    const uint64_t it = ctx_->stats().iterations;
    if (it != inline_iteration_) {
      inline_iteration_ = it;
      inline_left_ = kInlinePerIteration;
    }
    if (inline_left_ > 0) {
      inline_left_--;
      c_.resumed_inline++;
      return false;  // completed already: do not suspend
    }
    // Through the resumer, not straight onto the ready queue: it resumes
    // inside a plug, so the request this coroutine issues next joins the
    // others' in one submission (and the loop runs timers and fds first).
    defer_request(req);
  }
  return true;
}

void QueueEngine::unplug() {
  if (--plugged_ == 0 && q_head_) submit_queued();
}

void QueueEngine::submit_queued() {
  while (q_head_) {
    const int room = cfg_.max_inflight - in_flight_;
    if (room <= 0) {
      if (cfg_.peek_after_submit && reap_in_submit() > 0) continue;
      c_.ring_full_blocks++;
      break;  // reap_top() sends the rest when completions free slots
    }
    const int n = std::min({queued_, batch_.limit(), room});
    Request* r = q_head_;
    for (int i = 0; i < n; i++, r = r->next) batch_reqs_[size_t(i)] = r;
    const int ret = queue_->submit(batch_reqs_.data(), n);
    c_.submit_calls++;
    if (ret == -EAGAIN) {
      c_.eagain++;
      if (in_flight_ > 0) {
        if (cfg_.peek_after_submit && reap_in_submit() > 0) continue;
        break;  // wait for completions to free kernel slots
      }
      // Nothing in flight will ever free a slot: fail the request.
    }
    if (ret < 0) {
      // The first request was refused; the others were not looked at.
      c_.submit_errors++;
      Request* f = pop_queue(1);
      complete_in_submit(f, ret);
      continue;
    }
    // Marked before anything can complete them (reap_in_submit below).
    if (queue_->hands_over()) MarkSubmitted(batch_reqs_.data(), ret);
    pop_queue(ret);
    in_flight_ += ret;
    c_.requests_submitted += ret;
    c_.per_submit.add(ret);
    batch_.submitted(ret);
  }
  if (cfg_.peek_after_submit && in_flight_ > 0) reap_in_submit();
  batch_.end_of_pass();
}

// One clock read for the whole submission, and none when no request of it
// carries a stamp.
void QueueEngine::MarkSubmitted(Request* const* reqs, int n) {
  int64_t now = 0;
  for (int i = 0; i < n; i++) {
    if (SubmitStamp* s = reqs[i]->stamp) {
      if (!now) now = NowNs();
      s->mark(now);
    }
  }
}

QueueEngine::Request* QueueEngine::pop_queue(int n) {
  Request* first = q_head_;
  for (int i = 0; i < n; i++) q_head_ = q_head_->next;
  if (!q_head_) q_tail_ = nullptr;
  queued_ -= n;
  return first;
}

int QueueEngine::reap_top(Source src) {
  IoCompletion ev[kReapBatch];
  int total = 0;
  // Only what was in flight on entry: a device that completes inside
  // the submission (zram) would otherwise keep this loop going forever.
  const int budget = in_flight_;
  reaping_++;
  plugged_++;  // requests issued by resumed coroutines go out together
  while (total < budget) {
    const int n = queue_->fetch(ev, std::min(kReapBatch, budget - total));
    if (n <= 0) break;
    in_flight_ -= n;
    poll_.completed(n);
    total += n;
    for (int i = 0; i < n; i++) {
      Request* r = ev[i].req;
      r->res = ev[i].res;
      c_.resumed_direct++;
      r->waiter.resume();  // may free r (it lives in the coroutine frame)
    }
  }
  c_.reaps[src]++;
  c_.reaped[src] += total;
  c_.per_reap[src].add(total);
  if (total == 0) c_.empty_peeks++;
  if (total > 0) note_wakeup(src);
  unplug();
  reaping_--;
  return total;
}

void QueueEngine::note_wakeup(Source src) {
  switch (poll_.on_wakeup(src == kPoll ? PollGovernor::Wakeup::kPoll
                                       : PollGovernor::Wakeup::kEventfd)) {
    case PollGovernor::Change::kWithdraw:
      ctx_->remove_poll_handler(this);
      break;
    case PollGovernor::Change::kRegister:
      ctx_->add_poll_handler(this);
      break;
    case PollGovernor::Change::kNone:
      break;
  }
}

int QueueEngine::reap_in_submit() {
  IoCompletion ev[kReapBatch];
  int total = 0;
  for (;;) {
    const int n = queue_->fetch(ev, kReapBatch);
    if (n <= 0) break;
    in_flight_ -= n;
    poll_.completed(n);
    total += n;
    for (int i = 0; i < n; i++) {
      complete_in_submit(ev[i].req, ev[i].res);
    }
    if (n < kReapBatch) break;
  }
  c_.reaps[kAfterSubmit]++;
  c_.reaped[kAfterSubmit] += total;
  batch_.found(total);
  c_.per_reap[kAfterSubmit].add(total);
  if (total == 0) c_.empty_peeks++;
  return total;
}

void QueueEngine::complete_in_submit(Request* req, int64_t res) {
  req->res = res;
  if (req == submitting_) {
    req->done = true;  // enqueue() returns false: the coroutine goes on
    return;
  }
  // Its coroutine may be the one running this submission: never resume here.
  defer_request(req);
}

void QueueEngine::defer_request(Request* req) {
  req->next = nullptr;
  if (deferred_tail_) deferred_tail_->next = req; else deferred_head_ = req;
  deferred_tail_ = req;
  if (!resumer_scheduled_) {
    resumer_scheduled_ = true;
    ctx_->defer(resumer_);
  }
}

Task<void> QueueEngine::resumer() {
  struct Park {
    QueueEngine* engine;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) noexcept { engine->resumer_ = h; }
    void await_resume() const noexcept {}
  };
  for (;;) {
    co_await Park{this};
    run_deferred();
  }
}

void QueueEngine::run_deferred() {
  resumer_scheduled_ = false;
  // Only what is listed now: completions found while these run wait for the
  // next pass (complete_in_submit schedules it).
  Request* r = deferred_head_;
  deferred_head_ = deferred_tail_ = nullptr;
  // A lone coroutine is not plugged: its next request goes out at once and,
  // on a device that completes inside the submission, does not even suspend.
  const bool plug = r && r->next;
  if (plug) plugged_++;
  reaping_++;
  while (r) {
    Request* next = r->next;
    c_.resumed_deferred++;
    r->waiter.resume();  // may free r
    r = next;
  }
  reaping_--;
  if (plug) unplug();
}

bool QueueEngine::poll() {
  if (in_flight_ == 0 || !queue_->ready()) return false;
  return reap_top(kPoll) > 0;
}

bool QueueEngine::poll_worthwhile() {
  return poll_.worthwhile(in_flight_, ctx_->poll_params().max_ns, NowNs);
}

void QueueEngine::counters(std::vector<DriverCounter>* out) const {
  auto add = [out](std::string name, uint64_t v) { out->push_back({std::move(name), v}); };
  add("aio_submit_calls", c_.submit_calls);
  add("aio_requests_submitted", c_.requests_submitted);
  for (int b = 1; b < kBuckets; b++) {
    add(std::string("aio_requests_per_submit_") + kBucketNames[b], c_.per_submit.n[b]);
  }
  for (int s = 0; s < kSources; s++) {
    const std::string src = kSourceNames[s];
    add("aio_reaps_" + src, c_.reaps[s]);
    add("aio_reaped_" + src, c_.reaped[s]);
    for (int b = 0; b < kBuckets; b++) {
      add("aio_reap_" + src + "_" + kBucketNames[b], c_.per_reap[s].n[b]);
    }
  }
  add("aio_empty_peeks", c_.empty_peeks);
  add("aio_resumed_inline", c_.resumed_inline);
  add("aio_resumed_deferred", c_.resumed_deferred);
  add("aio_resumed_direct", c_.resumed_direct);
  add("aio_ring_full_blocks", c_.ring_full_blocks);
  add("aio_eagain", c_.eagain);
  add("aio_submit_errors", c_.submit_errors);
  add("aio_batch_limit", uint64_t(batch_.limit()));
  add("aio_batch_changes", batch_.changes());
  add("aio_poll_withdrawals", poll_.withdrawals());
  add("aio_poll_retries", poll_.retries());
  add("aio_poll_declined", poll_.declined());
  add("aio_pace_ns", uint64_t(poll_.pace_ns()));
  add("aio_polling", poll_.registered() ? 1 : 0);
  add("aio_in_flight", uint64_t(in_flight_));
  queue_->counters(out);
}

}  // namespace blk
