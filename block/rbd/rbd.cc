#include <blkstack/block/rbd/rbd.h>

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include <blkstack/util/thread_pool.h>
#include <blkstack/block/rbd/ceph_api.h>
#include <blkstack/block/rbd/ceph_connect.h>
#include <blkstack/block/rbd/rbd_config.h>
#include <blkstack/util/quote.h>

namespace blk {
namespace {

// librbd handles of one open image.  Closed by CloseHandles().
struct RbdHandles {
  const CephApi* api = nullptr;
  rados_t cluster = nullptr;
  rados_ioctx_t io = nullptr;
  rbd_image_t image = nullptr;
  int efd = -1;  // image notification eventfd (eventfd and poll modes)
};

void CloseHandlesNow(RbdHandles h) {
  if (h.image) h.api->rbd_close(h.image);
  if (h.efd >= 0) close(h.efd);
  if (h.io) h.api->rados_ioctx_destroy(h.io);
  if (h.cluster) h.api->rados_shutdown(h.cluster);
}

// Closes on a helper thread, waiting at most `timeout_s`: rbd_close
// flushes the cache and can wait forever for a dead OSD (no
// osd-op-timeout).
void CloseHandles(RbdHandles h, int64_t timeout_s, const std::string& name) {
  RunBounded([h] { CloseHandlesNow(h); }, timeout_s, "rbd: closing image '" + name + "'");
}

// One request in flight; lives in the awaiting coroutine's frame.  Written
// by the completion path (possibly on a librbd thread), read after resume.
struct RbdRequest {
  std::coroutine_handle<> waiter;
  AioContext* ctx = nullptr;
  const CephApi* api = nullptr;
  ssize_t ret = 0;
};

// The first run of [offset, end) from librbd's list of allocated extents:
// rbd_diff_iterate2's callback collects the extents that exist, clipped to
// the range (librbd may report them out of order when it asks several
// objects at once); First() sorts and merges them.
struct AllocatedExtents {
  uint64_t offset, end;
  std::vector<std::pair<uint64_t, uint64_t>> found;  // [start, stop)

  static int Collect(uint64_t off, size_t len, int exists, void* arg) {
    auto* self = static_cast<AllocatedExtents*>(arg);
    const uint64_t s = std::max(off, self->offset);
    const uint64_t e = std::min<uint64_t>(off + len, self->end);
    if (exists && s < e) self->found.emplace_back(s, e);
    return 0;
  }
  // Data from `offset` to the end of the extents touching it, or a hole
  // (reading zeros: nothing stored, and no parent data under it) up to the
  // first extent.
  BlockStatus First() {
    std::sort(found.begin(), found.end());
    uint64_t pos = offset;
    bool data = false;
    for (const auto& [s, e] : found) {
      if (s > pos) break;
      data = true;
      pos = std::max(pos, e);
    }
    if (data) return BlockStatus{kBlockData, pos - offset};
    const uint64_t stop = found.empty() ? end : found.front().first;
    return BlockStatus{kBlockZero, stop - offset};
  }
};

class RbdDriver final : public BlockDriver {
 public:
  RbdDriver(RbdConfig cfg, RbdHandles h, uint64_t size, bool open_flushed)
      : cfg_(std::move(cfg)), h_(h), size_(size), open_flushed_(open_flushed), poller_(this) {}
  ~RbdDriver() override {
    CloseHandles(h_, cfg_.close_timeout_s, cfg_.Name());
  }

  std::string_view name() const override { return "rbd"; }
  uint64_t length() const override { return size_; }
  BlockLimits limits() const override {
    BlockLimits l;
    l.max_transfer = cfg_.max_transfer;
    l.max_discard = kMaxDiscard;
    l.max_write_zeroes = kMaxDiscard;
    l.max_iov = IOV_MAX;
    return l;
  }
  Capabilities caps() const override {
    Capabilities c;
    c.write_zeroes = true;
    c.discard = true;
    return c;
  }

  void attach_aio_context(AioContext& ctx) override {
    ctx_ = &ctx;
    if (cfg_.completion != RbdCompletion::kBh) {
      ctx.set_fd_handler(h_.efd, [this] { OnEventfd(); });
    }
    if (cfg_.completion == RbdCompletion::kPoll) ctx.add_poll_handler(&poller_);
  }
  void detach_aio_context() override {
    if (!ctx_) return;
    if (cfg_.completion == RbdCompletion::kPoll) ctx_->remove_poll_handler(&poller_);
    if (cfg_.completion != RbdCompletion::kBh) ctx_->remove_fd_handler(h_.efd);
    ctx_ = nullptr;
  }

  Task<Status> co_preadv(uint64_t offset, uint64_t bytes, const IoVec& qiov,
                         uint32_t) override {
    ssize_t r = co_await Submit([&](rbd_completion_t c) {
      if (qiov.count() == 1) {
        const iovec& v = qiov.data()[0];
        return h_.api->rbd_aio_read(h_.image, offset, v.iov_len, static_cast<char*>(v.iov_base), c);
      }
      return h_.api->rbd_aio_readv(h_.image, qiov.data(), qiov.count(), offset, c);
    });
    if (r < 0) co_return Status(static_cast<int>(r));
    // librbd returns the byte count; zero anything it did not fill.
    if (static_cast<uint64_t>(r) < bytes) qiov.memset(r, 0, bytes - r);
    co_return Status();
  }
  Task<Status> co_pwritev(uint64_t offset, uint64_t, const IoVec& qiov, uint32_t) override {
    ssize_t r = co_await Submit([&](rbd_completion_t c) {
      if (qiov.count() == 1) {
        const iovec& v = qiov.data()[0];
        return static_cast<int>(h_.api->rbd_aio_write(h_.image, offset, v.iov_len,
                                              static_cast<const char*>(v.iov_base), c));
      }
      return h_.api->rbd_aio_writev(h_.image, qiov.data(), qiov.count(), offset, c);
    });
    co_return ToStatus(r);
  }
  Task<Status> co_flush() override {
    ssize_t r = co_await Submit([&](rbd_completion_t c) { return h_.api->rbd_aio_flush(h_.image, c); });
    co_return ToStatus(r);
  }
  Task<Status> co_pdiscard(uint64_t offset, uint64_t bytes) override {
    ssize_t r = co_await Submit(
        [&](rbd_completion_t c) { return h_.api->rbd_aio_discard(h_.image, offset, bytes, c); });
    co_return ToStatus(r);
  }
  Task<Status> co_pwrite_zeroes(uint64_t offset, uint64_t bytes, uint32_t) override {
    // Not a discard: a small discard may leave old data (64K granularity).
    ssize_t r = co_await Submit([&](rbd_completion_t c) {
      return h_.api->rbd_aio_write_zeroes(h_.image, offset, bytes, c, 0, 0);
    });
    co_return ToStatus(r);
  }

  // base:allocation from librbd (QEMU's qemu_rbd_co_block_status, which
  // needs fast-diff; this works on any image): rbd_diff_iterate2 from the
  // image's creation (fromsnapname NULL), whole_object=0 (extents as the
  // OSDs report them, not rounded up to whole objects by the object map),
  // include_parent=1 (a clone's range still backed by its parent reads the
  // parent's data: reporting it as a zero hole would make a copying client
  // skip it).  Extents reported are data; the gaps read as zeros.  librbd
  // answers per object (a written object counts as data from its start to
  // its size), and flushes its cache first so that cached writes count.
  //
  // librbd asks the OSDs once per object of the range asked, so the range
  // grows while the first run lasts: kStatusFirstStep, then twice the
  // previous step from where it ended, up to kStatusWindow in all.  A call
  // costs about the length of the run it reports, and mapping a whole image
  // about one pass over it.  The calls block, so they run on the driver's
  // worker thread.
  Task<Result<BlockStatus>> co_block_status(uint64_t offset, uint64_t bytes) override {
    const uint64_t limit = offset + std::min(bytes, kStatusWindow);
    AllocatedExtents ex{offset, offset, {}};
    BlockStatus first;
    uint64_t calls = 0;
    const int64_t r = co_await status_pool_.run(*ctx_, [&]() -> int64_t {
      for (uint64_t step = kStatusFirstStep;; step *= 2) {
        const uint64_t from = ex.end;
        ex.end = std::min(from + step, limit);
        calls++;
        const int r = h_.api->rbd_diff_iterate2(h_.image, nullptr, from, ex.end - from,
                                                /*include_parent=*/1, /*whole_object=*/0,
                                                &AllocatedExtents::Collect, &ex);
        if (r < 0) return r;
        first = ex.First();
        if (offset + first.length < ex.end || ex.end == limit) return 0;
      }
    });
    diff_calls_ += calls;
    if (r < 0) co_return Status(static_cast<int>(r));
    co_return first;
  }

  void counters(std::vector<DriverCounter>* out) const override {
    // Configuration, for tests and tools: librbd cache on, the one flush
    // after open that switches it to write-back happened.
    out->push_back({"rbd_cache", cfg_.write_cache ? 1u : 0u});
    out->push_back({"rbd_open_flushes", open_flushed_ ? 1u : 0u});
    out->push_back({"rbd_submitted", submitted_});
    out->push_back({"rbd_completed", completed_});
    out->push_back({"rbd_submit_errors", submit_errors_});
    out->push_back({"rbd_eventfd_wakeups", eventfd_wakeups_});
    out->push_back({"rbd_event_batches", event_batches_});
    out->push_back({"rbd_poll_hits", poll_hits_});
    out->push_back({"rbd_diff_iterate_calls", diff_calls_});
  }

 private:
  static constexpr uint64_t kMaxDiscard = uint64_t(1) << 30;
  // Block status: the first range asked of librbd (4 default 4 MiB
  // objects), and the most one call asks about (64 of them, so one call
  // stays short; the caller asks again for the rest).
  static constexpr uint64_t kStatusFirstStep = uint64_t(16) << 20;
  static constexpr uint64_t kStatusWindow = uint64_t(256) << 20;
  static constexpr int kBatch = 32;

  static Status ToStatus(ssize_t r) { return r < 0 ? Status(static_cast<int>(r)) : Status(); }

  // Busy-poll source for completion=poll.
  class Poller final : public PollHandler {
   public:
    explicit Poller(RbdDriver* d) : d_(d) {}
    bool poll() override {
      bool progress = d_->DrainEvents();
      if (progress) d_->poll_hits_++;
      return progress;
    }

   private:
    RbdDriver* d_;
  };

  // Awaitable: submits one librbd aio call and suspends until it completes;
  // yields librbd's return value (>= 0, or a negative errno).
  template <class Fn>
  struct Op {
    RbdDriver* drv;
    Fn fn;
    RbdRequest req;

    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) {
      req.waiter = h;
      req.ctx = drv->ctx_;
      req.api = drv->h_.api;
      rbd_callback_t cb = drv->cfg_.completion == RbdCompletion::kBh ? &OnCallback : nullptr;
      rbd_completion_t c;
      int r = drv->h_.api->rbd_aio_create_completion(&req, cb, &c);
      if (r < 0) return Fail(r);
      // The completion may fire on a librbd thread before this returns; it
      // only queues a resume on our loop, which runs after we suspend.
      r = fn(c);
      if (r < 0) {
        drv->h_.api->rbd_aio_release(c);
        return Fail(r);
      }
      drv->submitted_++;
      if (SubmitStamp* s = SubmitStampOf(h)) s->mark(NowNs());
      return true;
    }
    ssize_t await_resume() const noexcept { return req.ret; }

    bool Fail(int r) {
      drv->submit_errors_++;
      req.ret = r;
      return false;
    }
  };
  template <class Fn>
  Op<Fn> Submit(Fn fn) {
    return Op<Fn>{this, std::move(fn), {}};
  }

  // completion=bh: runs on a librbd thread.  The request may be freed as
  // soon as the resume is posted, so nothing touches it afterwards.
  static void OnCallback(rbd_completion_t c, void* arg) {
    auto* req = static_cast<RbdRequest*>(arg);
    req->ret = req->api->rbd_aio_get_return_value(c);
    req->api->rbd_aio_release(c);
    AioContext* ctx = req->ctx;
    std::coroutine_handle<> h = req->waiter;
    ctx->post_resume(h);
  }

  void OnEventfd() {
    uint64_t v;
    while (read(h_.efd, &v, sizeof v) < 0 && errno == EINTR) {
    }
    eventfd_wakeups_++;
    DrainEvents();
  }

  // eventfd and poll modes: every completion is queued on the image's event
  // queue; each is released here, exactly once.
  bool DrainEvents() {
    bool any = false;
    rbd_completion_t comps[kBatch];
    for (;;) {
      int n = h_.api->rbd_poll_io_events(h_.image, comps, kBatch);
      if (n <= 0) break;
      event_batches_++;
      any = true;
      for (int i = 0; i < n; ++i) {
        auto* req = static_cast<RbdRequest*>(h_.api->rbd_aio_get_arg(comps[i]));
        req->ret = h_.api->rbd_aio_get_return_value(comps[i]);
        h_.api->rbd_aio_release(comps[i]);
        completed_++;
        ctx_->defer(req->waiter);
      }
      if (n < kBatch) break;
    }
    return any;
  }

  RbdConfig cfg_;
  RbdHandles h_;
  uint64_t size_;
  bool open_flushed_;
  AioContext* ctx_ = nullptr;
  Poller poller_;
  uint64_t submitted_ = 0;
  uint64_t completed_ = 0;  // eventfd/poll modes only (bh completes off-loop)
  uint64_t submit_errors_ = 0;
  uint64_t eventfd_wakeups_ = 0;
  uint64_t event_batches_ = 0;
  uint64_t poll_hits_ = 0;
  uint64_t diff_calls_ = 0;
  // One worker for rbd_diff_iterate2 (started on first use; joined, idle,
  // when the driver is destroyed: no request is in flight then).
  ThreadPool status_pool_{1};
};

std::string Errno(int r) { return ErrnoString(r); }

Error OpenError(int code, std::string msg) { return MakeError(code, "driver 'rbd': " + msg); }

// Connects, opens the pool and the image.  On failure everything opened so
// far is closed and the error names the resource.
Expected<std::unique_ptr<BlockDriver>> OpenImage(RbdConfig cfg, bool read_only) {
  CephConnectArgs a;
  a.driver = "rbd";
  a.user = cfg.user;
  a.cluster = cfg.cluster;
  a.conf = cfg.conf;
  a.pool = cfg.pool;
  a.ns = cfg.ns;
  a.connect_timeout_s = cfg.connect_timeout_s;
  a.osd_op_timeout_s = cfg.osd_op_timeout_s;
  a.settings = {{"rbd_cache", cfg.write_cache ? "true" : "false"}};
  a.rados = cfg.rados;
  auto conn = ConnectCeph(a);
  if (!conn.ok()) return conn.error();
  RbdHandles h;
  h.api = conn->api;
  h.cluster = conn->cluster;
  h.io = conn->io;
  auto fail = [&](int code, std::string msg) -> Error {
    CloseHandles(h, cfg.close_timeout_s, cfg.Name());
    return OpenError(code, std::move(msg));
  };
  int r;
  const char* snap = cfg.snapshot.empty() ? nullptr : cfg.snapshot.c_str();
  r = read_only ? h.api->rbd_open_read_only(h.io, cfg.image.c_str(), &h.image, snap)
                : h.api->rbd_open(h.io, cfg.image.c_str(), &h.image, snap);
  if (r < 0) {
    h.image = nullptr;
    std::string why = r != -ENOENT ? ""
                      : snap ? " (no such image or snapshot)"
                             : " (no such image)";
    return fail(r, "cannot open image " + QuoteName(cfg.Name()) + ": " + Errno(r) + why);
  }
  uint64_t size = 0;
  r = h.api->rbd_get_size(h.image, &size);
  if (r < 0) return fail(r, "rbd_get_size(" + QuoteName(cfg.Name()) + ") failed: " + Errno(r));

  if (cfg.completion != RbdCompletion::kBh) {
    h.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (h.efd < 0) return fail(-errno, "eventfd() failed: " + Errno(-errno));
    r = h.api->rbd_set_image_notification(h.image, h.efd, EVENT_TYPE_EVENTFD);
    if (r < 0) return fail(r, "rbd_set_image_notification failed: " + Errno(r));
  }
  // With `rbd cache writethrough until flush` (librbd's default) the cache
  // stays write-through until the first flush: flush once so it is
  // write-back from the start.  Never on a read-only open.
  const bool open_flush = cfg.write_cache && !read_only;
  if (open_flush) {
    r = h.api->rbd_flush(h.image);
    if (r < 0)
      return fail(r, "initial flush of " + QuoteName(cfg.Name()) + " failed: " + Errno(r));
  }
  return std::unique_ptr<BlockDriver>(std::make_unique<RbdDriver>(std::move(cfg), h, size, open_flush));
}

Expected<std::unique_ptr<BlockDriver>> Open(DriverOpenArgs& args) {
  auto cfg = MakeRbdConfig(args.opts, args.passthrough, args.read_only);
  if (!cfg.ok()) return cfg.error();
  return OpenImage(std::move(cfg.value()), args.read_only);
}

}  // namespace

const DriverInfo& RbdDriverInfo() {
  static const DriverInfo info{"rbd",   "a Ceph RBD image through librbd (QEMU rbd)",
                               &RbdOptionsSchema, {}, &Open, {"rados"}};
  return info;
}

}  // namespace blk
