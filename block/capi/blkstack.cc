// The C API over BlockBackend and AioContext (see blkstack.h).
#include <blkstack/blkstack.h>

#include <memory>
#include <string>
#include <vector>

#include <blkstack/block/registry.h>
#include <blkstack/util/task.h>

struct blkstack_loop {
  blk::AioContext ctx;
};

struct blkstack_dev {
  blkstack_loop* loop;
  std::unique_ptr<blk::BlockBackend> blk;
};

namespace {

// The C convention of dlerror()/errno: a per-thread message of the last
// failure, valid until the next failing call on the same thread.
thread_local std::string g_last_error;

int Fail(int err, std::string msg) {
  g_last_error = std::move(msg);
  return err;
}

bool MakeIoVec(const struct iovec* iov, int iovcnt, blk::IoVec* out) {
  if (iovcnt < 0 || (iovcnt > 0 && !iov)) return false;
  for (int i = 0; i < iovcnt; i++) out->add(iov[i].iov_base, iov[i].iov_len);
  return true;
}

// (Coroutines of their own, not lambdas inside the extern "C" functions:
// GCC 12 emits such lambdas' coroutine symbols twice.)
blk::Task<void> Plug(blk::BlockBackend* b, bool plug) {
  if (plug) b->plug(); else b->unplug();
  co_return;
}

blk::Task<void> DrainThenCall(blk::BlockBackend* b, blkstack_cb cb, void* opaque) {
  co_await b->drain();
  cb(opaque, 0);
}

}  // namespace

extern "C" {

const char* blkstack_version(void) { return BLKSTACK_VERSION_STRING; }

int blkstack_version_number(void) { return BLKSTACK_VERSION_NUMBER; }

blkstack_loop* blkstack_loop_new(void) { return new (std::nothrow) blkstack_loop(); }

void blkstack_loop_free(blkstack_loop* loop) { delete loop; }

int blkstack_loop_fd(blkstack_loop* loop) { return loop->ctx.fd(); }

int blkstack_loop_dispatch(blkstack_loop* loop) { return loop->ctx.dispatch() ? 1 : 0; }

int blkstack_loop_run_once(blkstack_loop* loop, int blocking) {
  return loop->ctx.run_once(blocking != 0) ? 1 : 0;
}

int64_t blkstack_loop_next_timeout_ns(blkstack_loop* loop) { return loop->ctx.next_timeout_ns(); }

int blkstack_open(blkstack_loop* loop, const char* spec, unsigned flags, blkstack_dev** out) {
  if (!loop || !spec || !out) return Fail(-EINVAL, "blkstack_open: NULL argument");
  blk::OpenFlags of;
  of.read_only = (flags & BLKSTACK_OPEN_READ_ONLY) != 0;
  auto b = blk::OpenBackend(loop->ctx, spec, of);
  if (!b.ok()) return Fail(b.error().code, b.error().message);
  *out = new blkstack_dev{loop, std::move(b.value())};
  return 0;
}

void blkstack_close(blkstack_dev* dev) {
  if (!dev) return;
  blk::RunSync(dev->loop->ctx, dev->blk->drain());
  delete dev;
}

int64_t blkstack_length(blkstack_dev* dev) { return int64_t(dev->blk->length()); }

int blkstack_is_read_only(blkstack_dev* dev) { return dev->blk->read_only() ? 1 : 0; }

int blkstack_readv(blkstack_dev* dev, uint64_t offset, const struct iovec* iov, int iovcnt,
                   blkstack_cb cb, void* opaque) {
  blk::IoVec v;
  if (!cb || !MakeIoVec(iov, iovcnt, &v)) return Fail(-EINVAL, "blkstack_readv: bad arguments");
  dev->blk->aio_read(offset, v, cb, opaque);
  return 0;
}

int blkstack_writev(blkstack_dev* dev, uint64_t offset, const struct iovec* iov, int iovcnt,
                    unsigned flags, blkstack_cb cb, void* opaque) {
  blk::IoVec v;
  if (!cb || !MakeIoVec(iov, iovcnt, &v)) return Fail(-EINVAL, "blkstack_writev: bad arguments");
  if (flags & ~BLKSTACK_FUA) return Fail(-EINVAL, "blkstack_writev: unknown flags");
  const uint32_t f = (flags & BLKSTACK_FUA) ? uint32_t(blk::kReqFua) : 0u;
  dev->blk->aio_write(offset, v, cb, opaque, f);
  return 0;
}

int blkstack_flush(blkstack_dev* dev, blkstack_cb cb, void* opaque) {
  if (!cb) return Fail(-EINVAL, "blkstack_flush: NULL callback");
  dev->blk->aio_flush(cb, opaque);
  return 0;
}

int blkstack_discard(blkstack_dev* dev, uint64_t offset, uint64_t bytes, blkstack_cb cb,
                     void* opaque) {
  if (!cb) return Fail(-EINVAL, "blkstack_discard: NULL callback");
  dev->blk->aio_discard(offset, bytes, cb, opaque);
  return 0;
}

int blkstack_write_zeroes(blkstack_dev* dev, uint64_t offset, uint64_t bytes, unsigned flags,
                          blkstack_cb cb, void* opaque) {
  if (!cb) return Fail(-EINVAL, "blkstack_write_zeroes: NULL callback");
  if (flags & ~(BLKSTACK_FUA | BLKSTACK_MAY_UNMAP)) {
    return Fail(-EINVAL, "blkstack_write_zeroes: unknown flags");
  }
  uint32_t f = 0;
  if (flags & BLKSTACK_FUA) f |= blk::kReqFua;
  if (flags & BLKSTACK_MAY_UNMAP) f |= blk::kReqMayUnmap;
  dev->blk->aio_write_zeroes(offset, bytes, cb, opaque, f);
  return 0;
}

// aio_* start their requests through the loop's ready queue (never inside
// the call), so plug and unplug go the same way: in order with them.
void blkstack_plug(blkstack_dev* dev) { blk::Spawn(dev->loop->ctx, Plug(dev->blk.get(), true)); }

void blkstack_unplug(blkstack_dev* dev) {
  blk::Spawn(dev->loop->ctx, Plug(dev->blk.get(), false));
}

int blkstack_register_buf(blkstack_dev* dev, void* host, size_t size) {
  if (!host || size == 0) return Fail(-EINVAL, "blkstack_register_buf: NULL or empty range");
  const int rc = dev->blk->register_buf(host, size);
  if (rc < 0) {
    return Fail(rc, "blkstack_register_buf: " + blk::ErrnoString(rc));
  }
  return 0;
}

void blkstack_unregister_buf(blkstack_dev* dev, void* host, size_t size) {
  dev->blk->unregister_buf(host, size);
}

int blkstack_drain(blkstack_dev* dev, blkstack_cb cb, void* opaque) {
  if (!cb) return Fail(-EINVAL, "blkstack_drain: NULL callback");
  // Through the ready queue: the callback never runs inside this call.
  blk::Spawn(dev->loop->ctx, DrainThenCall(dev->blk.get(), cb, opaque));
  return 0;
}

void blkstack_drained_begin(blkstack_dev* dev) { dev->blk->drained_begin(); }

void blkstack_drained_end(blkstack_dev* dev) { dev->blk->drained_end(); }

void blkstack_cancel_waits(blkstack_dev* dev) { dev->blk->cancel_waits(); }

int blkstack_get_counter(blkstack_dev* dev, const char* name, uint64_t* out) {
  if (!name || !out) return Fail(-EINVAL, "blkstack_get_counter: NULL argument");
  std::vector<blk::DriverCounter> v;
  dev->blk->root().driver().counters(&v);
  for (const auto& c : v) {
    if (c.name == name) {
      *out = c.value;
      return 0;
    }
  }
  return Fail(-ENOENT, std::string("blkstack_get_counter: no counter '") + name + "'");
}

int blkstack_get_stats(blkstack_dev* dev, int op, struct blkstack_op_stats* out) {
  if (op < 0 || op >= int(blk::IoOp::kCount) || !out) {
    return Fail(-EINVAL, "blkstack_get_stats: unknown operation " + std::to_string(op));
  }
  const blk::OpStats& s = dev->blk->stats()[blk::IoOp(op)];
  out->ops = s.ops;
  out->bytes = s.bytes;
  out->errors = s.errors;
  out->lat_min_ns = s.latency_ns.min();
  out->lat_max_ns = s.latency_ns.max();
  out->lat_p50_ns = s.latency_ns.percentile(50);
  out->lat_p99_ns = s.latency_ns.percentile(99);
  out->lat_p999_ns = s.latency_ns.percentile(99.9);
  out->lat_mean_ns = s.latency_ns.mean();
  return 0;
}

const char* blkstack_last_error(void) { return g_last_error.c_str(); }

}  // extern "C"
