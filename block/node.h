// BlockNode: the generic block layer; one node per driver instance.
//
// Every request to a driver goes through its node, which
//   * checks bounds (-EIO past the end, like QEMU) and read-only (-EPERM),
//   * pads requests not aligned to the driver's request_alignment, or whose
//     buffers miss memory_alignment, through an aligned bounce buffer
//     (reads: read the aligned range and copy out; writes: read-modify-write,
//     serialised against overlapping requests so no update is lost),
//   * splits requests larger than max_transfer / max_discard /
//     max_write_zeroes,
//   * provides the fallbacks once for every driver: FUA as write + flush,
//     write-zeroes as writes of a zeroed buffer, discard that the driver
//     cannot do as a successful no-op (discard is advisory),
//   * tracks requests in flight so drain can wait for them, and can hold new
//     requests back (drained_begin/drained_end),
//   * accounts ops, bytes, errors and latency per operation (NodeStats).
// Graph structure: a node owns its driver; a filter driver owns its child
// nodes.  A node is bound to one AioContext at a time.
//
// Threading: every method runs on the loop thread of the node's AioContext.
// Buffer lifetime: an IoVec passed to an I/O method must stay valid until the
// returned Task completes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <blkstack/block/driver.h>
#include <blkstack/block/stats.h>
#include <blkstack/util/aio_context.h>
#include <blkstack/util/iovec.h>
#include <blkstack/util/result.h>
#include <blkstack/util/task.h>

namespace blk {

class BlockNode {
 public:
  // Takes ownership of `drv`.  `node_name` identifies the node in messages.
  BlockNode(std::unique_ptr<BlockDriver> drv, std::string node_name, bool read_only);
  // REQUIRES: no request in flight.  Detaches from the loop.
  ~BlockNode();
  BlockNode(const BlockNode&) = delete;
  BlockNode& operator=(const BlockNode&) = delete;

  BlockDriver& driver() { return *drv_; }
  const BlockDriver& driver() const { return *drv_; }
  const std::string& node_name() const { return node_name_; }
  bool read_only() const { return read_only_; }
  uint64_t length() const { return drv_->length(); }
  // The driver's limits, normalised (alignments >= 1, powers of two).
  const BlockLimits& limits() const { return limits_; }
  const Capabilities& caps() const { return caps_; }

  // ---- I/O ----
  // REQUIRES for all: attached.  Called from a thread other than the loop
  // thread of the attached context (or while detached), a request is refused
  // with -EXDEV before touching any state: post to the loop instead
  // (AioContext::post, Spawn, co_await ctx.schedule()).  The check is one
  // pthread_self() comparison.
  // Reads qiov.size() bytes at offset.  -EIO if the range is out of bounds.
  Task<Status> co_preadv(uint64_t offset, const IoVec& qiov, uint32_t flags = 0);
  // Writes qiov at offset.  -EPERM on a read-only node, -EIO out of bounds.
  Task<Status> co_pwritev(uint64_t offset, const IoVec& qiov, uint32_t flags = 0);
  Task<Status> co_flush();
  Task<Status> co_pdiscard(uint64_t offset, uint64_t bytes);
  Task<Status> co_pwrite_zeroes(uint64_t offset, uint64_t bytes, uint32_t flags = 0);
  // The allocation status of the first extent at `offset` (see BlockStatus):
  // its flags and length, 1 <= length <= bytes, and never past length().
  // -EIO if offset >= length() or bytes == 0.  The driver's answer is
  // trimmed so that an extent which ends inside the node ends on a multiple
  // of request_alignment: a shorter first extent is cut down to that
  // boundary, and one shorter than the alignment unit is reported as data
  // for the whole unit (the safe answer: a copy reads it).  Tracked in
  // flight (co_drain waits for it), not accounted in NodeStats.
  Task<Result<BlockStatus>> co_block_status(uint64_t offset, uint64_t bytes);

  // Waits until no request is in flight on this node.  Always resumes the
  // caller from the loop's ready queue (the loop's top level), never from
  // inside a driver's completion path, even when nothing was in flight: so
  // `co_await co_drain()` followed by destroying the graph is safe from any
  // coroutine, including one resumed by a completion.  This is the rule for
  // how long a driver outlives its last completion: until the loop returns
  // to its top level after the drain.
  Task<void> co_drain();
  // While drained (nested counts), new requests wait before entering; those
  // already in flight continue.  Use on a root node only: a parent's
  // in-flight request may need its child.
  void drained_begin();
  void drained_end();
  int in_flight() const { return in_flight_; }

  // ---- loop binding and batching ----
  void attach_aio_context(AioContext& ctx);
  // REQUIRES: no request in flight.
  void detach_aio_context();
  AioContext* aio_context() const { return ctx_; }
  void plug() { drv_->plug(); }
  void unplug() { drv_->unplug(); }
  // See BlockDriver::register_buf.  Loop thread.
  int register_buf(void* host, size_t size) { return drv_->register_buf(host, size); }
  void unregister_buf(void* host, size_t size) { drv_->unregister_buf(host, size); }
  // See BlockDriver::cancel_waits.
  void cancel_waits() { drv_->cancel_waits(); }

  NodeStats& stats() { return stats_; }
  const NodeStats& stats() const { return stats_; }
  // Turns latency accounting off (ops/bytes/errors are still counted); saves
  // two clock reads per request when the caller measures latency itself.
  void set_latency_accounting(bool on) { account_latency_ = on; }

 private:
  struct Tracked;
  // One request's admission, tracking and accounting (node.cc).
  template <IoOp kOp>
  class RequestScope;

  Task<Status> do_rw(IoOp op, uint64_t offset, const IoVec& qiov, uint32_t flags);
  Task<Status> do_padded(IoOp op, uint64_t offset, const IoVec& qiov, uint32_t flags,
                         Tracked* req);
  Task<Status> do_split(IoOp op, uint64_t offset, const IoVec& qiov, uint32_t flags);
  Task<Status> do_write_zeroes(uint64_t offset, uint64_t bytes, uint32_t flags, Tracked* req);
  Task<Status> write_zero_buffers(uint64_t offset, uint64_t bytes, uint32_t flags, Tracked* req);

  Status check_request(uint64_t offset, uint64_t bytes, bool write) const;
  bool meets_limits(uint64_t offset, const IoVec& qiov) const;
  bool on_loop_thread() const { return ctx_ && ctx_->in_loop_thread(); }
  void begin(Tracked* t, uint64_t offset, uint64_t bytes);
  void begin_write(Tracked* t, uint64_t offset, uint64_t bytes);
  void end(Tracked* t);
  bool overlaps_older(const Tracked* t) const;
  Task<void> wait_serialising(Tracked* t);
  Task<void> wait_not_drained();
  void account(IoOp op, uint64_t bytes, Status s, int64_t t0);

  std::unique_ptr<BlockDriver> drv_;
  std::string node_name_;
  bool read_only_;
  BlockLimits limits_;
  Capabilities caps_;
  AioContext* ctx_ = nullptr;

  // Requests in flight, oldest first (intrusive; entries live in frames).
  Tracked* head_ = nullptr;
  Tracked* tail_ = nullptr;
  uint64_t next_seq_ = 0;
  int in_flight_ = 0;
  int serialising_ = 0;  // in-flight read-modify-write requests
  std::vector<std::coroutine_handle<>> overlap_waiters_;
  std::vector<std::coroutine_handle<>> drain_waiters_;
  int drained_ = 0;
  std::vector<std::coroutine_handle<>> drained_waiters_;

  bool account_latency_ = true;
  NodeStats stats_;
};

}  // namespace blk
