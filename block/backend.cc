#include "block/backend.h"

namespace blk {

BlockBackend::BlockBackend(AioContext& ctx, std::unique_ptr<BlockNode> root)
    : ctx_(&ctx), root_(std::move(root)) {
  root_->attach_aio_context(ctx);
}

BlockBackend::~BlockBackend() {
  if (root_) root_->detach_aio_context();
}

namespace {

// Each wrapper owns a copy of the IoVec in its frame and first yields, so the
// callback never runs inside the submitting call.
Task<void> ReadCb(BlockBackend* b, uint64_t off, IoVec iov, uint32_t flags,
                  BlockBackend::Completion cb, void* opaque) {
  Status s = co_await b->read(off, iov, flags);
  cb(opaque, s.error());
}
Task<void> WriteCb(BlockBackend* b, uint64_t off, IoVec iov, uint32_t flags,
                   BlockBackend::Completion cb, void* opaque) {
  Status s = co_await b->write(off, iov, flags);
  cb(opaque, s.error());
}
Task<void> FlushCb(BlockBackend* b, BlockBackend::Completion cb, void* opaque) {
  Status s = co_await b->flush();
  cb(opaque, s.error());
}
Task<void> DiscardCb(BlockBackend* b, uint64_t off, uint64_t bytes,
                     BlockBackend::Completion cb, void* opaque) {
  Status s = co_await b->discard(off, bytes);
  cb(opaque, s.error());
}
Task<void> ZeroesCb(BlockBackend* b, uint64_t off, uint64_t bytes, uint32_t flags,
                    BlockBackend::Completion cb, void* opaque) {
  Status s = co_await b->write_zeroes(off, bytes, flags);
  cb(opaque, s.error());
}

}  // namespace

// The wrappers are spawned through the ready queue: a request that completes
// synchronously still reports from the loop, not from inside aio_*().
void BlockBackend::aio_read(uint64_t offset, const IoVec& iov, Completion cb, void* opaque,
                            uint32_t flags) {
  Spawn(*ctx_, ReadCb(this, offset, iov, flags, cb, opaque));
}
void BlockBackend::aio_write(uint64_t offset, const IoVec& iov, Completion cb, void* opaque,
                             uint32_t flags) {
  Spawn(*ctx_, WriteCb(this, offset, iov, flags, cb, opaque));
}
void BlockBackend::aio_flush(Completion cb, void* opaque) {
  Spawn(*ctx_, FlushCb(this, cb, opaque));
}
void BlockBackend::aio_discard(uint64_t offset, uint64_t bytes, Completion cb, void* opaque) {
  Spawn(*ctx_, DiscardCb(this, offset, bytes, cb, opaque));
}
void BlockBackend::aio_write_zeroes(uint64_t offset, uint64_t bytes, Completion cb,
                                    void* opaque, uint32_t flags) {
  Spawn(*ctx_, ZeroesCb(this, offset, bytes, flags, cb, opaque));
}

Task<void> BlockBackend::move_to(AioContext& ctx) {
  drained_begin();
  co_await drain();
  root_->detach_aio_context();
  ctx_ = &ctx;
  root_->attach_aio_context(ctx);
  // The rest of this coroutine runs on the new loop.
  co_await ctx.schedule();
  drained_end();
}

}  // namespace blk
