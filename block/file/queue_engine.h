// QueueEngine: the engine that drives one KernelQueue (kernel_queue.h) --
// Linux native AIO, io_uring, the worker pool or aio=sync -- from one loop.
// The policy the four share lives here; the queue is the mechanism.  (It
// was KernelAio, a name from when it drove libaio only; "queue engine"
// says what it is: the engine over a KernelQueue, whichever aio= chose.
// LoopEngine, loop_engine.h, is what shares one per loop.)
//
// `co_await engine.submit(req)` queues the request (IoRequest, in the awaiting
// coroutine's frame), sends it and resumes with the kernel's result (byte
// count or negative errno).
//
// Submission.  Requests queue while plugged (plug()/unplug() nest); a queue
// that reaches max_batch is sent at once even while plugged.  Unplugged, a
// request is sent right away (submit_mode kImmediate) or by a bottom half at
// the end of the loop iteration (kBottomHalf).  At most `max_inflight`
// requests are in the kernel; the rest wait in the queue ("ring full"), as
// do those refused with -EAGAIN, and go out when completions free slots.
// Any other submission error fails only the first request of the batch.
//
// Completion.  The queue's eventfd is registered as an fd handler;
// completions are read from the kernel's completion ring in user space (no
// system call) at three places:
//   (a) right after a submission (peek_after_submit),
//   (b) in the eventfd handler,
//   (c) in a PollHandler, so the loop's adaptive busy polling spins on the
//       ring without system calls.
//
// Resuming.  (b) and (c) run at the top level of the loop: they resume the
// waiting coroutines directly, inside a plug so that the requests those
// coroutines issue next go out in one submission.  (a) runs inside a
// submission, possibly from a coroutine that is still running, so its
// completions are never resumed there: the submitting coroutine's own
// request just does not suspend (await_suspend returns false; only for an
// unplugged submission and at most kInlinePerIteration times per loop
// iteration), all the others wait in a list that one helper coroutine,
// queued with ctx.defer, resumes in the next ready-queue pass, inside a plug
// (unless it lists one request), so the requests they issue next leave in
// one submission: a device that completes inside the submission (zram)
// keeps full batches.
//
// Batch size.  The most requests per submission: max_batch, or with
// adapt_batch (and peek_after_submit) what the BatchSizer (batch_sizer.h)
// decides from how many the peeks after a submission find done.
// docs/file-driver.md has the numbers.
//
// Polling.  The PollHandler is registered per Config::poll_mode as the
// PollGovernor (poll_governor.h) decides: kAuto withdraws it while the
// loop's polling does not find the completions, and it tells the loop not
// to spin while the queue outlasts the poll window (poll_worthwhile).
//
// The file driver keeps one QueueEngine per loop and engine setting, shared
// by all its nodes there (LoopEngine, loop_engine.h), as QEMU does.
//
// Threading: everything on the attached loop's thread.
#pragma once

#include <coroutine>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <blkstack/block/driver.h>
#include <blkstack/block/file/batch_sizer.h>
#include <blkstack/block/file/kernel_queue.h>
#include <blkstack/block/file/poll_governor.h>
#include <blkstack/util/aio_context.h>
#include <blkstack/util/result.h>
#include <blkstack/util/task.h>

namespace blk {

class QueueEngine final : public PollHandler {
 public:
  enum class SubmitMode { kImmediate, kBottomHalf };
  // Busy polling of the ring by the loop (the PollHandler): kAuto, kOn or
  // kOff, as PollGovernor::Mode (poll_governor.h) describes.  Without the
  // ring in user space (use_ring off, or a ring layout this code does not
  // know) the mode is kOff: poll() cannot see completions.
  using PollMode = PollGovernor::Mode;
  struct Config {
    int max_batch = 32;       // most requests per submission
    bool adapt_batch = true;  // async_batch on a device that completes late
    int async_batch = 4;
    int max_inflight = 0;     // 0: the queue's capacity.  Larger values reach -EAGAIN.
    bool peek_after_submit = true;
    SubmitMode submit_mode = SubmitMode::kImmediate;
    PollMode poll_mode = PollMode::kAuto;
  };

  using Request = IoRequest;

  // Takes ownership of `queue`.
  QueueEngine(const Config& cfg, std::unique_ptr<KernelQueue> queue);
  // REQUIRES: no request in flight, and not called from a coroutine that
  // this object's completion path resumed (reap_top/run_deferred are still
  // on the stack then): close after BlockNode::co_drain(), which returns at
  // the loop's top level.  A violation aborts with a message.
  ~QueueEngine() override;
  QueueEngine(const QueueEngine&) = delete;
  QueueEngine& operator=(const QueueEngine&) = delete;

  // Registers the eventfd handler and the poll handler on `ctx`.
  void attach(AioContext& ctx);
  // REQUIRES: no request in flight or queued; not inside the completion
  // path (as the destructor).
  void detach();

  // Awaitable: sends `req` and resumes with its result.
  struct SubmitAwaiter {
    QueueEngine* engine;
    Request* req;
    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) {
      req->stamp = SubmitStampOf(h);
      return engine->enqueue(req, h);
    }
    int64_t await_resume() const noexcept { return req->res; }
  };
  SubmitAwaiter submit(Request& req) { return SubmitAwaiter{this, &req}; }

  void plug() { plugged_++; }
  void unplug();

  // True when the completion ring is read in user space.
  bool ring_peek_enabled() const { return queue_->user_space_ring(); }
  const KernelQueue& queue() const { return *queue_; }
  KernelQueue& queue() { return *queue_; }
  int in_flight() const { return in_flight_; }
  int queued() const { return queued_; }

  // Appends counters: the policy's prefixed with "aio_", then the queue's.
  void counters(std::vector<DriverCounter>* out) const;

  // PollHandler: reaps the ring without system calls.
  bool poll() override;
  // PollHandler: PollGovernor::worthwhile() with the requests in flight and
  // the loop's poll window (on the loop device at QD 32 declining gives the
  // same IOPS at about a third of the user CPU).
  bool poll_worthwhile() override;
  // True while registered as the loop's PollHandler.
  bool polling() const { return poll_.registered(); }

 private:
  enum Source { kAfterSubmit = 0, kEventfd = 1, kPoll = 2, kSources = 3 };
  static constexpr int kBuckets = 8;
  static constexpr int kInlinePerIteration = 16;  // 0, 1, 2-3, 4-7, 8-15, 16-31, 32-63, 64+
  struct Buckets {
    uint64_t n[kBuckets] = {};
    void add(uint64_t v);
  };
  struct Counters {
    uint64_t submit_calls = 0;
    uint64_t requests_submitted = 0;
    Buckets per_submit;
    uint64_t reaps[kSources] = {};
    uint64_t reaped[kSources] = {};
    Buckets per_reap[kSources];
    uint64_t empty_peeks = 0;       // (a) and (b) peeks that found nothing
    uint64_t resumed_inline = 0;    // own request done during its submission
    uint64_t resumed_deferred = 0;  // resumed by the bottom half
    uint64_t resumed_direct = 0;    // resumed from (b)/(c)
    uint64_t ring_full_blocks = 0;
    uint64_t eagain = 0;
    uint64_t submit_errors = 0;
  };

  // cfg with its defaults filled in and what `queue` cannot do turned off.
  static Config Normalized(Config cfg, const KernelQueue& queue);

  // Queues req; sends unless plugged.  False when req already completed
  // (the caller then does not suspend).
  bool enqueue(Request* req, std::coroutine_handle<> h);
  // Sends queued requests while there is room.
  void submit_queued();
  // Reaps everything available; (b)/(c) resume directly.
  int reap_top(Source src);
  // Reaps inside a submission: completions go to the deferred list.
  int reap_in_submit();
  // A completion found inside a submission: finishes `req` without resuming
  // a coroutine.
  void complete_in_submit(Request* req, int64_t res);
  // Lists a finished request for the resumer (scheduling it if needed).
  void defer_request(Request* req);
  // Removes and returns the first n queued requests (as a chain).
  static void MarkSubmitted(Request* const* reqs, int n);
  Request* pop_queue(int n);
  void run_deferred();
  // A coroutine that runs run_deferred() each time it is resumed from the
  // loop's ready queue (ctx.defer: no syscall, and work it creates waits for
  // the next iteration, so a device that completes inside a submission cannot
  // starve timers and fds).
  Task<void> resumer();
  // A wake-up that reaped completions, from the poll handler or the
  // eventfd: tells the governor, and registers or withdraws the poll
  // handler as it says (only ever from the eventfd handler, outside the
  // loop's iteration over its poll handlers).
  void note_wakeup(Source src);
  // Aborts with a message if called while reap_top()/run_deferred() run.
  void CheckNotReaping(const char* what) const;

  Config cfg_;
  std::unique_ptr<KernelQueue> queue_;
  AioContext* ctx_ = nullptr;
  std::coroutine_handle<> resumer_;         // parked in resumer()
  Task<void>::Handle resumer_frame_;        // owned; destroyed by detach()
  uint64_t inline_iteration_ = UINT64_MAX;  // loop iteration of inline_left_
  int inline_left_ = 0;
  std::unique_ptr<BottomHalf> submit_bh_;

  int plugged_ = 0;
  int in_flight_ = 0;
  int queued_ = 0;
  Request* q_head_ = nullptr;
  Request* q_tail_ = nullptr;
  Request* deferred_head_ = nullptr;
  Request* deferred_tail_ = nullptr;
  bool submit_bh_pending_ = false;
  bool resumer_scheduled_ = false;
  Request* submitting_ = nullptr;  // the request whose await_suspend is running
  int reaping_ = 0;                // reap_top()/run_deferred() on the stack
  PollGovernor poll_;              // whether the poll handler is registered
  BatchSizer batch_;               // the most requests per submission
  std::vector<IoRequest*> batch_reqs_;
  Counters c_;
};

}  // namespace blk
