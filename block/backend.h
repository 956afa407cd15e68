// BlockBackend: the front-end handle that tools and embedders use.
//
// A BlockBackend owns the root node of a driver graph and is bound to one
// AioContext.  It offers
//   * a coroutine API (read/write/flush/discard/write_zeroes -> Task<Status>),
//   * a callback API (aio_*) for code that is not coroutine-based,
//   * batching (plug/unplug, PlugScope), drain, statistics.
//
// Threading: the coroutine API is used on the loop thread of ctx(); from any
// other thread a request fails with -EXDEV (never a silent data race): move
// the coroutine first with `co_await blk.ctx().schedule()`.  The callback API
// (aio_*) may be called from any thread: the request is posted to the loop
// and the callback runs on the loop thread.  move_to() moves the graph to
// another loop after draining it.
//
// Buffer lifetime: the memory an IoVec points at must stay valid and
// untouched until the request completes (the Task finishes or the callback
// runs).  The coroutine API also needs the IoVec object itself to live that
// long (it is taken by reference); the callback API copies it.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include <blkstack/block/node.h>
#include <blkstack/util/aio_context.h>
#include <blkstack/util/iovec.h>
#include <blkstack/util/result.h>
#include <blkstack/util/task.h>

namespace blk {

class BlockBackend {
 public:
  // Takes the root node and attaches the graph to `ctx`.
  BlockBackend(AioContext& ctx, std::unique_ptr<BlockNode> root);
  // REQUIRES: no request in flight, and not called from inside a driver's
  // completion path: run `co_await drain()` first (it returns at the loop's
  // top level), or destroy from outside the loop.
  ~BlockBackend();
  BlockBackend(const BlockBackend&) = delete;
  BlockBackend& operator=(const BlockBackend&) = delete;

  AioContext& ctx() const { return *ctx_; }
  BlockNode& root() { return *root_; }
  uint64_t length() const { return root_->length(); }
  bool read_only() const { return root_->read_only(); }
  const NodeStats& stats() const { return root_->stats(); }

  // ---- coroutine API ----
  Task<Status> read(uint64_t offset, const IoVec& iov, uint32_t flags = 0) {
    return root_->co_preadv(offset, iov, flags);
  }
  Task<Status> write(uint64_t offset, const IoVec& iov, uint32_t flags = 0) {
    return root_->co_pwritev(offset, iov, flags);
  }
  Task<Status> flush() { return root_->co_flush(); }
  Task<Status> discard(uint64_t offset, uint64_t bytes) { return root_->co_pdiscard(offset, bytes); }
  Task<Status> write_zeroes(uint64_t offset, uint64_t bytes, uint32_t flags = 0) {
    return root_->co_pwrite_zeroes(offset, bytes, flags);
  }
  // See BlockNode::co_block_status.
  Task<Result<BlockStatus>> block_status(uint64_t offset, uint64_t bytes) {
    return root_->co_block_status(offset, bytes);
  }
  // Waits until no request is in flight; resumes the caller at the loop's
  // top level (see BlockNode::co_drain), so destroying the backend right
  // after `co_await drain()` is safe.
  Task<void> drain() { return root_->co_drain(); }
  // Requests waiting on a delay the graph adds itself (null latency-ns,
  // throttle) complete now with -ECANCELED; see BlockDriver::cancel_waits.
  void cancel_waits() { root_->cancel_waits(); }
  // Holds back new requests until drained_end(); see BlockNode.
  void drained_begin() { root_->drained_begin(); }
  void drained_end() { root_->drained_end(); }

  // ---- callback API ----
  // `cb(opaque, ret)` runs on the loop thread when the request completes,
  // never inside the call that submitted it; ret is 0 or a negative errno.
  // Any thread: from a foreign thread the request is posted to the loop.
  using Completion = void (*)(void* opaque, int ret);
  void aio_read(uint64_t offset, const IoVec& iov, Completion cb, void* opaque,
                uint32_t flags = 0);
  void aio_write(uint64_t offset, const IoVec& iov, Completion cb, void* opaque,
                 uint32_t flags = 0);
  void aio_flush(Completion cb, void* opaque);
  void aio_discard(uint64_t offset, uint64_t bytes, Completion cb, void* opaque);
  void aio_write_zeroes(uint64_t offset, uint64_t bytes, Completion cb, void* opaque,
                        uint32_t flags = 0);

  // ---- batching ----
  void plug() { root_->plug(); }
  void unplug() { root_->unplug(); }

  // ---- registered buffers (BlockDriver::register_buf) ----
  // Tells the graph that [host, host + size) will carry many requests: the
  // file driver with aio=io_uring,aio-fixed-buffers=on pins it in the ring
  // (IORING_OP_READ_FIXED / WRITE_FIXED for requests inside it).  0 or a
  // negative errno.  Loop thread.
  int register_buf(void* host, size_t size) { return root_->register_buf(host, size); }
  void unregister_buf(void* host, size_t size) { root_->unregister_buf(host, size); }
  class PlugScope {
   public:
    explicit PlugScope(BlockBackend& b) : b_(b) { b_.plug(); }
    ~PlugScope() { b_.unplug(); }
    PlugScope(const PlugScope&) = delete;
    PlugScope& operator=(const PlugScope&) = delete;

   private:
    BlockBackend& b_;
  };

  // Moves the graph to another loop: holds new requests back, drains those
  // in flight, detaches from the current loop, attaches to `ctx`, and
  // finishes on `ctx`'s thread (the awaiting coroutine continues there).
  // Requests that arrived during the move run on the new loop.  REQUIRES:
  // awaited on the current loop's thread.  Afterwards the coroutine API works
  // only on `ctx`'s thread.
  Task<void> move_to(AioContext& ctx);

 private:
  AioContext* ctx_;
  std::unique_ptr<BlockNode> root_;
};

}  // namespace blk
