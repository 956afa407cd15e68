#include <blkstack/block/backend.h>

namespace blk {

BlockBackend::BlockBackend(AioContext& ctx, std::unique_ptr<BlockNode> root)
    : ctx_(&ctx), root_(std::move(root)) {
  root_->attach_aio_context(ctx);
}

BlockBackend::~BlockBackend() {
  if (root_) root_->detach_aio_context();
}

namespace {

// Awaits a request (a lazy task, not yet started) and reports its outcome.
Task<void> Report(Task<Status> io, BlockBackend::Completion cb, void* opaque) {
  Status s = co_await std::move(io);
  cb(opaque, s.error());
}

// Reads and writes also keep the caller's IoVec alive: the copy lives in this
// frame, and the request (which takes it by reference) is made from it here.
Task<void> ReportRw(BlockBackend* b, bool write, uint64_t off, IoVec iov, uint32_t flags,
                    BlockBackend::Completion cb, void* opaque) {
  Status s = write ? co_await b->write(off, iov, flags) : co_await b->read(off, iov, flags);
  cb(opaque, s.error());
}

}  // namespace

// The wrappers start through Spawn (the ready queue, or a post from another
// thread): a request that completes at once still reports from the loop, not
// from inside aio_*().
void BlockBackend::aio_read(uint64_t offset, const IoVec& iov, Completion cb, void* opaque,
                            uint32_t flags) {
  Spawn(*ctx_, ReportRw(this, false, offset, iov, flags, cb, opaque));
}
void BlockBackend::aio_write(uint64_t offset, const IoVec& iov, Completion cb, void* opaque,
                             uint32_t flags) {
  Spawn(*ctx_, ReportRw(this, true, offset, iov, flags, cb, opaque));
}
void BlockBackend::aio_flush(Completion cb, void* opaque) {
  Spawn(*ctx_, Report(flush(), cb, opaque));
}
void BlockBackend::aio_discard(uint64_t offset, uint64_t bytes, Completion cb, void* opaque) {
  Spawn(*ctx_, Report(discard(offset, bytes), cb, opaque));
}
void BlockBackend::aio_write_zeroes(uint64_t offset, uint64_t bytes, Completion cb,
                                    void* opaque, uint32_t flags) {
  Spawn(*ctx_, Report(write_zeroes(offset, bytes, flags), cb, opaque));
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
