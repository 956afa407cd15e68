#include "block/null/null.h"

#include <optional>

#include "util/clock.h"

namespace blk {
namespace {

class NullDriver final : public BlockDriver {
  // Awaitable: a request's completion delay.  Yields true when it elapsed,
  // false when cancel_waits() ended it.
  struct Delay {
    explicit Delay(NullDriver* drv) : d(drv) {}
    NullDriver* d;
    std::optional<SleepGroup::Sleep> sleep;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) {
      if (d->latency_ns_ > 0) {
        sleep.emplace(&d->sleeps_, *d->ctx_, NowNs() + d->latency_ns_);
        sleep->await_suspend(h);
      } else {
        d->ctx_->defer(h);
      }
    }
    bool await_resume() const noexcept { return !sleep || sleep->await_resume(); }
  };

 public:
  NullDriver(uint64_t size, bool read_zeroes, int64_t latency_ns)
      : size_(size), read_zeroes_(read_zeroes), latency_ns_(latency_ns) {}

  std::string_view name() const override { return "null"; }
  uint64_t length() const override { return size_; }
  // Every request suspends until the loop completes it: in the next
  // iteration (ready queue) or after latency-ns (a timer; cancel_waits()
  // ends it with -ECANCELED).  The wait is an awaitable, not a helper
  // coroutine: one frame less.
  Capabilities caps() const override {
    Capabilities c;
    c.fua = true;
    c.write_zeroes = true;
    c.discard = true;
    return c;
  }
  void attach_aio_context(AioContext& ctx) override { ctx_ = &ctx; }
  void detach_aio_context() override { ctx_ = nullptr; }
  void cancel_waits() override { sleeps_.cancel_all(); }

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

 private:
  uint64_t size_;
  bool read_zeroes_;
  int64_t latency_ns_;
  AioContext* ctx_ = nullptr;
  SleepGroup sleeps_;  // requests waiting out latency_ns_
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
  };
  return schema;
}

Expected<std::unique_ptr<BlockDriver>> Open(DriverOpenArgs& args) {
  return std::unique_ptr<BlockDriver>(std::make_unique<NullDriver>(
      args.opts.size("size"), args.opts.flag("read-zeroes"), args.opts.integer("latency-ns")));
}

}  // namespace

const DriverInfo& NullDriverInfo() {
  static const DriverInfo info{"null", "a device that stores nothing (QEMU null-co)", &Schema,
                               {}, &Open};
  return info;
}

}  // namespace blk
