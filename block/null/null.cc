#include <blkstack/block/null/null.h>

#include <coroutine>
#include <optional>

#include <blkstack/util/clock.h>

namespace blk {
namespace {

class NullDriver final : public BlockDriver {
  // Awaitable: a request's completion delay.  Yields true when it elapsed,
  // false when cancel_waits() ended it.  With latency-ns the request waits
  // in the driver's queue (in submission order, which is due order: the
  // latency is the same for all) until OnTimer() completes it.
  struct Delay {
    explicit Delay(NullDriver* drv) : d(drv) {}
    ~Delay() { d->unlink(this); }  // a frame destroyed while waiting
    Delay(const Delay&) = delete;
    Delay& operator=(const Delay&) = delete;
    NullDriver* d;
    int64_t due = 0;
    std::coroutine_handle<> h;
    Delay* prev = nullptr;
    Delay* next = nullptr;
    bool linked = false;
    bool cancelled = false;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> handle) {
      if (d->latency_ns_ > 0) {
        h = handle;
        due = NowNs() + d->latency_ns_;
        d->enqueue(this);
      } else {
        d->ctx_->defer(handle);
      }
    }
    bool await_resume() const noexcept { return !cancelled; }
  };

 public:
  NullDriver(uint64_t size, bool read_zeroes, int64_t latency_ns, int64_t spin_ns)
      : size_(size), read_zeroes_(read_zeroes), latency_ns_(latency_ns), spin_ns_(spin_ns) {}

  std::string_view name() const override { return "null"; }
  uint64_t length() const override { return size_; }
  // Every request suspends until the loop completes it: in the next
  // iteration (ready queue) or after latency-ns (cancel_waits() ends it with
  // -ECANCELED).  The wait is an awaitable, not a helper coroutine: one frame
  // less.  A latency is kept by one loop timer armed latency-spin-ns before
  // the oldest request is due; its callback spins on the clock for the rest
  // (see OnTimer).
  Capabilities caps() const override {
    Capabilities c;
    c.fua = true;
    c.write_zeroes = true;
    c.discard = true;
    return c;
  }
  void attach_aio_context(AioContext& ctx) override {
    ctx_ = &ctx;
    timer_.emplace(ctx, &NullDriver::OnTimer, this);
    arm();
  }
  void detach_aio_context() override {
    timer_.reset();
    ctx_ = nullptr;
  }
  // Each waiting request resumes (from the ready queue) with -ECANCELED.
  void cancel_waits() override {
    while (Delay* r = head_) {
      unlink(r);
      r->cancelled = true;
      ctx_->defer(r->h);
    }
    if (timer_) timer_->cancel();
  }

  Task<Status> co_preadv(uint64_t, uint64_t bytes, const IoVec& qiov, uint32_t) override {
    const bool waited = co_await Delay(this);
    if (!waited) co_return Status(-ECANCELED);
    if (read_zeroes_) qiov.memset(0, 0, bytes);
    co_return Status();
  }
  Task<Status> co_pwritev(uint64_t, uint64_t, const IoVec&, uint32_t) override {
    const bool waited = co_await Delay(this);
    if (!waited) co_return Status(-ECANCELED);
    co_return Status();
  }
  Task<Status> co_flush() override {
    const bool waited = co_await Delay(this);
    if (!waited) co_return Status(-ECANCELED);
    co_return Status();
  }
  Task<Status> co_pdiscard(uint64_t, uint64_t) override {
    const bool waited = co_await Delay(this);
    if (!waited) co_return Status(-ECANCELED);
    co_return Status();
  }
  Task<Status> co_pwrite_zeroes(uint64_t, uint64_t, uint32_t) override {
    const bool waited = co_await Delay(this);
    if (!waited) co_return Status(-ECANCELED);
    co_return Status();
  }
  // Nothing is stored: the whole device is a hole, reading zeros with
  // read-zeroes=on, unspecified bytes without (as QEMU's null-co).  Answered
  // at once, without the emulated latency.
  Task<Result<BlockStatus>> co_block_status(uint64_t, uint64_t bytes) override {
    co_return BlockStatus{read_zeroes_ ? uint32_t(kBlockZero) : 0u, bytes};
  }

 private:
  void enqueue(Delay* r) {
    r->prev = tail_;
    r->next = nullptr;
    if (tail_) tail_->next = r; else head_ = r;
    tail_ = r;
    r->linked = true;
    if (head_ == r) arm();
  }
  void unlink(Delay* r) {
    if (!r->linked) return;
    if (r->prev) r->prev->next = r->next; else head_ = r->next;
    if (r->next) r->next->prev = r->prev; else tail_ = r->prev;
    r->prev = r->next = nullptr;
    r->linked = false;
  }
  // The timer wakes the loop latency-spin-ns before the oldest request is
  // due (at once when that is already past).
  void arm() {
    if (head_ && timer_) timer_->arm_at(head_->due - spin_ns_);
  }
  // Why the spin: a loop sleeping until the due time wakes late by the
  // kernel's timer slack plus the scheduler's wake-up delay: tens of µs on
  // a busy host (latency-ns=20000 completed at 44-75 µs under load).  Woken
  // early, the loop thread is already running when the request is due and
  // completes it within a clock read of its time.  The spin is bounded by
  // latency-spin-ns (the timer never fires early) and costs CPU only then;
  // other work of the loop waits at most that long.
  static void OnTimer(void* opaque) {
    auto* d = static_cast<NullDriver*>(opaque);
    if (!d->head_) return;
    int64_t now = NowNs();
    // The request the timer was armed for may be gone (its frame destroyed
    // while waiting): never spin longer than latency-spin-ns.
    if (d->head_->due - now > d->spin_ns_) return d->arm();
    while (now < d->head_->due) {
      CpuRelax();
      now = NowNs();
    }
    while (Delay* r = d->head_) {
      if (r->due > now) break;
      d->unlink(r);
      d->ctx_->defer(r->h);
    }
    d->arm();
  }
  static void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  uint64_t size_;
  bool read_zeroes_;
  int64_t latency_ns_;
  int64_t spin_ns_;
  AioContext* ctx_ = nullptr;
  std::optional<Timer> timer_;  // while attached
  Delay* head_ = nullptr;       // waiting out latency_ns_, oldest first
  Delay* tail_ = nullptr;
};

const std::vector<OptionSpec>& Schema() {
  using T = OptionSpec::Type;
  static const std::vector<OptionSpec> schema = {
      {.name = "size", .type = T::kSize, .default_value = "1G", .has_default = true,
       .help = "device size in bytes"},
      {.name = "read-zeroes", .type = T::kBool, .default_value = "off", .has_default = true,
       .help = "reads fill the buffer with zeros (off: buffer left as is)"},
      {.name = "latency-ns", .type = T::kInt, .default_value = "0", .has_default = true,
       .min = 0, .max = int64_t(3600) * 1000000000,
       .help = "completion delay per request in ns (0: next loop iteration)"},
      {.name = "latency-spin-ns", .type = T::kInt, .default_value = "50000", .has_default = true,
       .min = 0, .max = 1000000000,
       .help = "with latency-ns: the loop wakes this long before a request is due and spins "
               "until it is (0: sleep until due, late by the host's wake-up delay)"},
  };
  return schema;
}

Expected<std::unique_ptr<BlockDriver>> Open(DriverOpenArgs& args) {
  return std::unique_ptr<BlockDriver>(std::make_unique<NullDriver>(
      args.opts.size("size"), args.opts.flag("read-zeroes"), args.opts.integer("latency-ns"),
      args.opts.integer("latency-spin-ns")));
}

}  // namespace

const DriverInfo& NullDriverInfo() {
  static const DriverInfo info{"null", "a device that stores nothing (QEMU null-co)", &Schema,
                               {}, &Open};
  return info;
}

}  // namespace blk
