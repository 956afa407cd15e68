#include <blkstack/block/nbd/nbd.h>

#include <algorithm>
#include <cerrno>
#include <coroutine>
#include <cstdint>
#include <functional>
#include <memory>

#include <blkstack/block/nbd/nbd_api.h>
#include <blkstack/util/clock.h>

namespace blk {
namespace {

// libnbd refuses a command above 64 MiB; 32 MiB is the NBD protocol's
// recommended maximum payload and QEMU's.
constexpr uint64_t kMaxTransfer = 32u << 20;
// Trim and write-zeroes carry a 32-bit length.
constexpr uint64_t kMaxRange = 1u << 30;

Error NbdError(const NbdApi* api, std::string_view what) {
  const int e = api->nbd_get_errno();
  const char* msg = api->nbd_get_error();
  return MakeError(e > 0 ? -e : -EIO,
                   "driver 'nbd': " + std::string(what) + ": " + (msg ? msg : "unknown error"));
}

class NbdDriver final : public BlockDriver {
  struct Op;
  // What libnbd holds for one command: its callbacks' user_data.  libnbd
  // frees it through `free` exactly once (after the completion callback,
  // when the command is refused, or when the handle closes), possibly after
  // the waiting frame is gone: the frame then detaches it (op = null).
  struct Pending {
    Op* op = nullptr;
  };
  enum class Kind { kRead, kWrite, kFlush, kTrim, kZero };
  // The awaitable of one command.  Suspends until libnbd completes it;
  // yields 0 or a negative errno.
  struct Op {
    NbdDriver* d;
    Kind kind;
    void* buf;
    uint64_t count;
    uint64_t offset;
    uint32_t flags;
    Pending* pending = nullptr;  // while libnbd holds the command
    std::coroutine_handle<> h;
    bool issuing = false;
    int status = 0;

    Op(NbdDriver* drv, Kind k, void* b, uint64_t n, uint64_t off, uint32_t f)
        : d(drv), kind(k), buf(b), count(n), offset(off), flags(f) {}
    Op(const Op&) = delete;
    Op& operator=(const Op&) = delete;
    ~Op() {
      if (pending) pending->op = nullptr;  // a frame destroyed while waiting
    }
    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> handle) {
      pending = new Pending{this};
      h = handle;
      nbd_completion_callback cb;
      cb.callback = &Op::OnComplete;
      cb.user_data = pending;
      cb.free = &Op::OnFree;
      issuing = true;
      const int64_t cookie = d->issue(*this, cb);
      issuing = false;
      if (cookie < 0) {
        // Refused before it was sent; libnbd frees `pending` (OnFree saw
        // `issuing` and only detached it).
        status = d->errno_of_last_call();
        if (pending) pending->op = nullptr;
        pending = nullptr;
        h = {};
        return false;
      }
      // libnbd sent it, or queued what the socket did not take (sent when
      // the socket is writable): the hand-over (fio's slat ends here too).
      if (SubmitStamp* st = SubmitStampOf(handle)) st->mark(NowNs());
      d->update_interest();
      return true;
    }
    int await_resume() const noexcept { return status; }

    // From nbd_aio_notify_*: the server's answer (or libnbd's errno for a
    // connection that died).
    static int OnComplete(void* user, int* error) {
      auto* p = static_cast<Pending*>(user);
      if (Op* op = p->op) {
        op->status = *error ? -*error : 0;
        op->finish();
      }
      return 1;  // retire the command; libnbd calls OnFree next
    }
    static void OnFree(void* user) {
      auto* p = static_cast<Pending*>(user);
      if (Op* op = p->op) {
        op->pending = nullptr;
        // Freed without an answer (the handle closed with it in flight).
        if (!op->issuing && op->h) {
          op->status = -ENOTCONN;
          op->finish();
        }
      }
      delete p;
    }
    void finish() {
      if (pending) pending->op = nullptr;
      pending = nullptr;
      if (h) d->ctx_->defer(std::exchange(h, {}));
    }
  };

 public:
  NbdDriver(const NbdApi* api, nbd_handle* h, uint64_t size, BlockLimits limits, Capabilities caps,
            bool can_flush)
      : api_(api), h_(h), size_(size), limits_(limits), caps_(caps), can_flush_(can_flush) {}
  ~NbdDriver() override {
    api_->nbd_shutdown(h_, 0);
    api_->nbd_close(h_);
  }

  std::string_view name() const override { return "nbd"; }
  uint64_t length() const override { return size_; }
  BlockLimits limits() const override { return limits_; }
  Capabilities caps() const override { return caps_; }

  void attach_aio_context(AioContext& ctx) override {
    ctx_ = &ctx;
    fd_ = api_->nbd_aio_get_fd(h_);
    want_write_ = false;
    if (fd_ >= 0) ctx.set_fd_handler(fd_, [this] { on_readable(); });
  }
  void detach_aio_context() override {
    if (ctx_ && fd_ >= 0) ctx_->remove_fd_handler(fd_);
    ctx_ = nullptr;
    fd_ = -1;
  }

  Task<Status> co_preadv(uint64_t offset, uint64_t bytes, const IoVec& qiov,
                         uint32_t) override {
    co_return Status(co_await Op(this, Kind::kRead, qiov[0].iov_base, bytes, offset, 0));
  }
  Task<Status> co_pwritev(uint64_t offset, uint64_t bytes, const IoVec& qiov,
                          uint32_t flags) override {
    co_return Status(co_await Op(this, Kind::kWrite, qiov[0].iov_base, bytes, offset,
                                 (flags & kReqFua) ? uint32_t(LIBNBD_CMD_FLAG_FUA) : 0u));
  }
  Task<Status> co_flush() override {
    if (!can_flush_) co_return Status();
    co_return Status(co_await Op(this, Kind::kFlush, nullptr, 0, 0, 0));
  }
  Task<Status> co_pdiscard(uint64_t offset, uint64_t bytes) override {
    co_return Status(co_await Op(this, Kind::kTrim, nullptr, bytes, offset, 0));
  }
  Task<Status> co_pwrite_zeroes(uint64_t offset, uint64_t bytes, uint32_t flags) override {
    uint32_t f = (flags & kReqMayUnmap) ? 0u : uint32_t(LIBNBD_CMD_FLAG_NO_HOLE);
    if ((flags & kReqFua) && caps_.fua) f |= LIBNBD_CMD_FLAG_FUA;
    co_return Status(co_await Op(this, Kind::kZero, nullptr, bytes, offset, f));
  }

 private:
  int64_t issue(const Op& op, nbd_completion_callback cb) {
    switch (op.kind) {
      case Kind::kRead:
        return api_->nbd_aio_pread(h_, op.buf, op.count, op.offset, cb, 0);
      case Kind::kWrite:
        return api_->nbd_aio_pwrite(h_, op.buf, op.count, op.offset, cb, op.flags);
      case Kind::kFlush:
        return api_->nbd_aio_flush(h_, cb, 0);
      case Kind::kTrim:
        return api_->nbd_aio_trim(h_, op.count, op.offset, cb, 0);
      case Kind::kZero:
        return api_->nbd_aio_zero(h_, op.count, op.offset, cb, op.flags);
    }
    return -1;
  }
  int errno_of_last_call() const {
    const int e = api_->nbd_get_errno();
    return e > 0 ? -e : -EIO;
  }
  // Writable interest only while libnbd has bytes it could not send.
  void update_interest() {
    if (!ctx_ || fd_ < 0) return;
    const bool w = api_->nbd_aio_get_direction(h_) & LIBNBD_AIO_DIRECTION_WRITE;
    if (w == want_write_) return;
    want_write_ = w;
    if (w)
      ctx_->set_fd_handler(fd_, [this] { on_readable(); }, [this] { on_writable(); });
    else
      ctx_->set_fd_handler(fd_, [this] { on_readable(); });
  }
  void on_readable() {
    if (api_->nbd_aio_notify_read(h_) < 0) return dead();
    update_interest();
  }
  void on_writable() {
    if (api_->nbd_aio_notify_write(h_) < 0) return dead();
    update_interest();
  }
  // The connection is gone: libnbd failed what was in flight; a level
  // triggered handler on a closed socket would spin, so it goes.
  void dead() {
    if (ctx_ && fd_ >= 0) ctx_->remove_fd_handler(fd_);
    fd_ = -1;
  }

  const NbdApi* api_;
  nbd_handle* h_;
  uint64_t size_;
  BlockLimits limits_;
  Capabilities caps_;
  bool can_flush_;
  AioContext* ctx_ = nullptr;
  int fd_ = -1;
  bool want_write_ = false;
};

// Percent-encodes what an NBD URI's path or query value must not hold raw.
std::string UriEscape(const std::string& s, bool keep_slash) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~' ||
                       (keep_slash && c == '/');
    if (plain) {
      out += char(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

const std::vector<OptionSpec>& Schema() {
  using T = OptionSpec::Type;
  static const std::vector<OptionSpec> schema = {
      {.name = "uri", .type = T::kString,
       .help = "NBD URI (nbd://HOST[:PORT]/EXPORT, nbd+unix:///EXPORT?socket=PATH, nbds://...)"},
      {.name = "server.type", .type = T::kEnum, .enum_values = {"unix", "inet"},
       .help = "QEMU's server address instead of uri: unix (server.path) or inet "
               "(server.host, server.port)"},
      {.name = "server.path", .type = T::kString, .help = "the server's unix socket"},
      {.name = "server.host", .type = T::kString, .help = "the server's host name or address"},
      {.name = "server.port", .type = T::kString, .help = "the server's TCP port (default 10809)"},
      {.name = "export", .type = T::kString, .help = "the export's name (default: the default "
                                                    "export, \"\")"},
  };
  return schema;
}

Expected<std::string> UriOf(const ParsedOptions& o) {
  auto str = [&](const char* n) { return o.given(n) ? o.raw(n) : std::string(); };
  if (o.given("uri")) {
    for (const char* k : {"server.type", "server.path", "server.host", "server.port", "export"})
      if (o.given(k))
        return MakeError(-EINVAL, std::string("driver 'nbd': give uri or ") + k + ", not both");
    return o.str("uri");
  }
  if (!o.given("server.type"))
    return MakeError(-EINVAL, "driver 'nbd': needs uri= or server.type=unix|inet");
  return NbdUri(str("server.type"), str("server.path"), str("server.host"), str("server.port"),
                str("export"));
}

Expected<std::unique_ptr<BlockDriver>> Open(DriverOpenArgs& args) {
  auto uri = UriOf(args.opts);
  if (!uri.ok()) return uri.error();
  auto api = LoadNbdApi();
  if (!api.ok()) return api.error();
  const NbdApi* a = *api;
  nbd_handle* h = a->nbd_create();
  if (!h) return NbdError(a, "nbd_create");
  std::unique_ptr<nbd_handle, std::function<void(nbd_handle*)>> guard(
      h, [a](nbd_handle* p) { a->nbd_close(p); });
  if (a->nbd_connect_uri(h, uri->c_str()) < 0) return NbdError(a, "connecting to " + *uri);
  const int64_t size = a->nbd_get_size(h);
  if (size < 0) return NbdError(a, *uri + ": size");
  const int ro = a->nbd_is_read_only(h);
  if (ro < 0) return NbdError(a, *uri + ": flags");
  if (ro && !args.read_only)
    return MakeError(-EROFS, "driver 'nbd': " + *uri +
                                 ": the export is read-only; open it with read-only=on");
  BlockLimits lim;
  const int64_t min_bs = a->nbd_get_block_size(h, LIBNBD_SIZE_MINIMUM);
  const int64_t max_bs = a->nbd_get_block_size(h, LIBNBD_SIZE_MAXIMUM);
  if (min_bs > 0 && min_bs <= 65536 && (min_bs & (min_bs - 1)) == 0)
    lim.request_alignment = uint32_t(min_bs);
  uint64_t max_transfer = kMaxTransfer;
  if (max_bs > 0) max_transfer = std::min<uint64_t>(max_transfer, uint64_t(max_bs));
  max_transfer -= max_transfer % lim.request_alignment;
  if (max_transfer == 0) max_transfer = lim.request_alignment;
  lim.max_transfer = max_transfer;
  lim.max_discard = lim.max_write_zeroes = kMaxRange;
  lim.max_iov = 1;  // one buffer per command
  Capabilities caps;
  caps.fua = a->nbd_can_fua(h) == 1;
  caps.discard = a->nbd_can_trim(h) == 1;
  caps.write_zeroes = a->nbd_can_zero(h) == 1;
  const bool can_flush = a->nbd_can_flush(h) == 1;
  guard.release();
  return std::unique_ptr<BlockDriver>(
      std::make_unique<NbdDriver>(a, h, uint64_t(size), lim, caps, can_flush));
}

}  // namespace

Expected<std::string> NbdUri(const std::string& type, const std::string& path,
                             const std::string& host, const std::string& port,
                             const std::string& export_name) {
  const std::string exp = UriEscape(export_name, true);
  if (type == "unix") {
    if (path.empty()) return MakeError(-EINVAL, "driver 'nbd': server.type=unix needs server.path");
    return "nbd+unix:///" + exp + "?socket=" + UriEscape(path, true);
  }
  if (type == "inet") {
    if (host.empty()) return MakeError(-EINVAL, "driver 'nbd': server.type=inet needs server.host");
    for (char c : port)
      if (c < '0' || c > '9')
        return MakeError(-EINVAL, "driver 'nbd': server.port '" + port + "' is not a number");
    const bool v6 = host.find(':') != std::string::npos;
    return "nbd://" + (v6 ? "[" + host + "]" : host) + (port.empty() ? "" : ":" + port) + "/" + exp;
  }
  return MakeError(-EINVAL, "driver 'nbd': server.type '" + type + "' is not unix or inet");
}

const DriverInfo& NbdDriverInfo() {
  static const DriverInfo info{"nbd", "an NBD server's export, through libnbd (QEMU nbd)",
                               &Schema, {}, &Open};
  return info;
}

}  // namespace blk
