#include <blkstack/block/rbd/rados.h>

#include <cerrno>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <blkstack/block/rbd/ceph_connect.h>
#include <blkstack/util/quote.h>

namespace blk {
namespace {

Error ConfigError(std::string msg) { return MakeError(-EINVAL, "driver 'rados': " + std::move(msg)); }

const std::vector<OptionSpec>& RadosOptionsSchema() {
  using T = OptionSpec::Type;
  static const std::vector<OptionSpec> schema = [] {
    std::vector<OptionSpec> v = {
        {.name = "pool", .type = T::kString, .help = "pool of the object"},
        {.name = "namespace", .type = T::kString, .help = "RADOS namespace (default: none)"},
        {.name = "object", .type = T::kString, .help = "the object's name"},
        {.name = "size", .type = T::kSize, .min = 1,
         .help = "the device's length in bytes (required: an object has no fixed size)"},
        {.name = "touch", .type = T::kBool, .default_value = "off", .has_default = true,
         .help = "create the object (an empty write) when opening (fio's touch_objects)"},
        {.name = "connection", .type = T::kString,
         .help = "devices opened with the same connection name (and the same cluster options) "
                 "share one cluster connection (default: one of its own)"},
    };
    AppendCephConnectOptions(&v);
    return v;
  }();
  return schema;
}

struct RadosConfig {
  CephConnectArgs connect;
  std::string object;
  std::string group;  // connection=
  uint64_t size = 0;
  bool touch = false;
  int64_t close_timeout_s = 30;

  std::string Name() const {
    return connect.pool + "/" + (connect.ns.empty() ? "" : connect.ns + "/") + object;
  }
};

Expected<RadosConfig> MakeConfig(const ParsedOptions& opts,
                                 const std::map<std::string, std::string>& passthrough) {
  RadosConfig cfg;
  auto str = [&](const char* name) { return opts.given(name) ? opts.str(name) : std::string(); };
  CephConnectArgs& a = cfg.connect;
  a.driver = "rados";
  a.pool = str("pool");
  a.ns = str("namespace");
  a.user = str("user");
  a.cluster = str("cluster");
  a.conf = str("conf");
  a.connect_timeout_s = opts.integer("connect-timeout");
  a.osd_op_timeout_s = opts.integer("osd-op-timeout");
  for (const auto& [key, value] : passthrough) a.rados.emplace_back(key.substr(key.find('.') + 1), value);
  cfg.object = str("object");
  cfg.group = str("connection");
  if (a.pool.empty()) return ConfigError("missing required option 'pool'");
  if (cfg.object.empty()) return ConfigError("missing required option 'object'");
  if (!opts.given("size"))
    return ConfigError("missing required option 'size' (the device's length: an object has no "
                       "fixed size)");
  cfg.size = opts.size("size");
  cfg.touch = opts.flag("touch");
  cfg.close_timeout_s = opts.integer("close-timeout");
  return cfg;
}

// One request in flight; lives in the awaiting coroutine's frame.  Written
// on a librados thread by OnComplete, read after the resume.
struct RadosRequest {
  std::coroutine_handle<> waiter;
  AioContext* ctx = nullptr;
  const CephApi* api = nullptr;
  int ret = 0;
};

class RadosDriver final : public BlockDriver {
 public:
  RadosDriver(RadosConfig cfg, std::shared_ptr<const CephConnection> conn)
      : cfg_(std::move(cfg)), conn_(std::move(conn)), c_(*conn_) {}

  std::string_view name() const override { return "rados"; }
  uint64_t length() const override { return cfg_.size; }
  BlockLimits limits() const override {
    BlockLimits l;
    // Below the OSDs' osd_max_write_size (90 MiB by default).
    l.max_transfer = kMaxTransfer;
    l.max_discard = kMaxTransfer;
    l.max_write_zeroes = kMaxTransfer;
    return l;
  }
  Capabilities caps() const override {
    Capabilities c;
    c.discard = true;
    c.write_zeroes = true;
    return c;
  }
  void attach_aio_context(AioContext& ctx) override { ctx_ = &ctx; }
  void detach_aio_context() override { ctx_ = nullptr; }

  Task<Status> co_preadv(uint64_t offset, uint64_t bytes, const IoVec& qiov, uint32_t) override {
    const bool direct = qiov.count() == 1;
    std::vector<char> bounce(direct ? 0 : bytes);
    char* buf = direct ? static_cast<char*>(qiov.data()[0].iov_base) : bounce.data();
    int r = co_await Submit([&](rados_completion_t c) {
      return c_.api->rados_aio_read(c_.io, cfg_.object.c_str(), c, buf, bytes, offset);
    });
    // An object that does not exist reads as zeros, as one shorter than the
    // range does past its end.
    if (r == -ENOENT) r = 0;
    if (r < 0) co_return Status(r);
    if (!direct) qiov.copy_from(0, bounce.data(), uint64_t(r));
    if (uint64_t(r) < bytes) qiov.memset(r, 0, bytes - r);
    co_return Status();
  }
  Task<Status> co_pwritev(uint64_t offset, uint64_t bytes, const IoVec& qiov, uint32_t) override {
    const bool direct = qiov.count() == 1;
    std::vector<char> bounce(direct ? 0 : bytes);
    if (!direct) qiov.copy_to(0, bounce.data(), bytes);
    const char* buf = direct ? static_cast<const char*>(qiov.data()[0].iov_base) : bounce.data();
    const int r = co_await Submit([&](rados_completion_t c) {
      return c_.api->rados_aio_write(c_.io, cfg_.object.c_str(), c, buf, bytes, offset);
    });
    co_return r < 0 ? Status(r) : Status();
  }
  Task<Status> co_pdiscard(uint64_t offset, uint64_t bytes) override {
    co_return co_await zero(offset, bytes);
  }
  Task<Status> co_pwrite_zeroes(uint64_t offset, uint64_t bytes, uint32_t) override {
    co_return co_await zero(offset, bytes);
  }

  void counters(std::vector<DriverCounter>* out) const override {
    out->push_back({"rados_submitted", submitted_});
    out->push_back({"rados_submit_errors", submit_errors_});
    out->push_back({"rados_touched", cfg_.touch ? 1u : 0u});
    // Devices sharing this one's cluster connection (itself included).
    out->push_back({"rados_connection_users", uint64_t(conn_.use_count())});
  }

 private:
  static constexpr uint64_t kMaxTransfer = uint64_t(64) << 20;

  // A write op zeroing the range (fio's trim); an object that does not
  // exist already reads as zeros.
  Task<Status> zero(uint64_t offset, uint64_t bytes) {
    rados_write_op_t op = c_.api->rados_create_write_op();
    if (!op) co_return Status(-ENOMEM);
    c_.api->rados_write_op_zero(op, offset, bytes);
    int r = co_await Submit([&](rados_completion_t c) {
      return c_.api->rados_aio_write_op_operate(op, c_.io, c, cfg_.object.c_str(), nullptr, 0);
    });
    c_.api->rados_release_write_op(op);
    if (r == -ENOENT) r = 0;
    co_return r < 0 ? Status(r) : Status();
  }

  // Awaitable: submits one librados aio call and suspends until it
  // completes; yields its return value (>= 0, or a negative errno).
  template <class Fn>
  struct Op {
    RadosDriver* drv;
    Fn fn;
    RadosRequest req;

    bool await_ready() const noexcept { return false; }
    bool await_suspend(std::coroutine_handle<> h) {
      req.waiter = h;
      req.ctx = drv->ctx_;
      req.api = drv->c_.api;
      rados_completion_t c;
      int r = drv->c_.api->rados_aio_create_completion2(&req, &OnComplete, &c);
      if (r < 0) return Fail(r);
      // The completion may run on a librados thread before this returns; it
      // only posts a resume to our loop, which runs after we suspend.
      r = fn(c);
      if (r < 0) {
        drv->c_.api->rados_aio_release(c);
        return Fail(r);
      }
      drv->submitted_++;
      return true;
    }
    int await_resume() const noexcept { return req.ret; }

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

  // On a librados thread.  The request may be freed as soon as the resume
  // is posted, so nothing touches it afterwards.
  static void OnComplete(rados_completion_t c, void* arg) {
    auto* req = static_cast<RadosRequest*>(arg);
    req->ret = req->api->rados_aio_get_return_value(c);
    req->api->rados_aio_release(c);
    AioContext* ctx = req->ctx;
    ctx->post_resume(req->waiter);
  }

  RadosConfig cfg_;
  std::shared_ptr<const CephConnection> conn_;  // closed by its last holder
  const CephConnection& c_;
  AioContext* ctx_ = nullptr;
  uint64_t submitted_ = 0;
  uint64_t submit_errors_ = 0;
};

Expected<std::unique_ptr<BlockDriver>> Open(DriverOpenArgs& args) {
  auto cfg = MakeConfig(args.opts, args.passthrough);
  if (!cfg.ok()) return cfg.error();
  auto conn = ConnectCephShared(cfg->connect, cfg->group, cfg->close_timeout_s);
  if (!conn.ok()) return conn.error();
  // Also read-only: an empty write creates a missing object and changes no
  // data (fio touches a read job's objects too).
  if (cfg->touch) {
    const CephConnection& c = **conn;
    const int r = c.api->rados_write(c.io, cfg->object.c_str(), "", 0, 0);
    if (r < 0) {
      return MakeError(r, "driver 'rados': cannot create object " + QuoteName(cfg->Name()) +
                              " (touch=on): " + ErrnoString(r));
    }
  }
  return std::unique_ptr<BlockDriver>(std::make_unique<RadosDriver>(std::move(*cfg), std::move(*conn)));
}

}  // namespace

const DriverInfo& RadosDriverInfo() {
  static const DriverInfo info{"rados", "one RADOS object through librados (fio's rados engine)",
                               &RadosOptionsSchema, {}, &Open, {"rados"}};
  return info;
}

}  // namespace blk
