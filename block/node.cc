#include <blkstack/block/node.h>

#include <algorithm>
#include <cassert>
#include <cstring>

#include <blkstack/util/aligned_buffer.h>
#include <blkstack/util/clock.h>

namespace blk {

const char* IoOpName(IoOp op) {
  switch (op) {
    case IoOp::kRead: return "read";
    case IoOp::kWrite: return "write";
    case IoOp::kFlush: return "flush";
    case IoOp::kDiscard: return "discard";
    case IoOp::kWriteZeroes: return "write_zeroes";
    default: return "?";
  }
}

// A request in flight.  Lives in the frame of the node's public I/O method.
struct BlockNode::Tracked {
  uint64_t offset = 0;  // range used for overlap checks (aligned for RMW)
  uint64_t bytes = 0;
  uint64_t seq = 0;
  bool serialising = false;
  Tracked* prev = nullptr;
  Tracked* next = nullptr;
};

namespace {

// Suspends the caller and records its handle in a wait list.
struct WaitOn {
  std::vector<std::coroutine_handle<>>* list;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) const { list->push_back(h); }
  void await_resume() const noexcept {}
};

bool IsPow2(uint64_t v) { return v && !(v & (v - 1)); }
uint64_t AlignDown(uint64_t v, uint64_t a) { return v & ~(a - 1); }
uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

// Bytes of zeros written per request by the write-zeroes fallback.
constexpr uint64_t kZeroChunk = 1 << 20;

}  // namespace

BlockNode::BlockNode(std::unique_ptr<BlockDriver> drv, std::string node_name, bool read_only)
    : drv_(std::move(drv)), node_name_(std::move(node_name)), read_only_(read_only) {
  limits_ = drv_->limits();
  caps_ = drv_->caps();
  if (!IsPow2(limits_.request_alignment)) limits_.request_alignment = 1;
  if (!IsPow2(limits_.memory_alignment)) limits_.memory_alignment = 1;
  if (limits_.max_transfer) {
    limits_.max_transfer = AlignDown(limits_.max_transfer, limits_.request_alignment);
    if (!limits_.max_transfer) limits_.max_transfer = limits_.request_alignment;
  }
  if (limits_.max_iov < 1) limits_.max_iov = 1;
}

BlockNode::~BlockNode() {
  assert(in_flight_ == 0);
  if (ctx_) detach_aio_context();
}

void BlockNode::attach_aio_context(AioContext& ctx) {
  ctx_ = &ctx;
  drv_->attach_aio_context(ctx);
}

void BlockNode::detach_aio_context() {
  assert(in_flight_ == 0);
  if (!ctx_) return;
  drv_->detach_aio_context();
  ctx_ = nullptr;
}

// ---- tracking ----

// check_request() and begin() are `inline` so that RequestScope::enter_now()
// takes them in rather than calling them (see its cost note).
inline Status BlockNode::check_request(uint64_t offset, uint64_t bytes, bool write) const {
  if (write && read_only_) return Status(-EPERM);
  uint64_t len = drv_->length();
  if (offset > len || bytes > len - offset) return Status(-EIO);
  return Status();
}

inline void BlockNode::begin(Tracked* t, uint64_t offset, uint64_t bytes) {
  t->offset = offset;
  t->bytes = bytes;
  t->seq = next_seq_++;
  t->prev = tail_;
  t->next = nullptr;
  if (tail_) tail_->next = t; else head_ = t;
  tail_ = t;
  in_flight_++;
}

void BlockNode::begin_write(Tracked* t, uint64_t offset, uint64_t bytes) {
  begin(t, offset, bytes);
  const uint64_t align = limits_.request_alignment;
  if ((offset | bytes) & (align - 1)) {
    // A read-modify-write: claim the whole aligned range now, before any
    // suspension, so requests that start later see it and wait.
    t->serialising = true;
    serialising_++;
    t->offset = AlignDown(offset, align);
    t->bytes = AlignUp(offset + bytes, align) - t->offset;
  }
}

void BlockNode::end(Tracked* t) {
  if (t->prev) t->prev->next = t->next; else head_ = t->next;
  if (t->next) t->next->prev = t->prev; else tail_ = t->prev;
  if (t->serialising) serialising_--;
  in_flight_--;
  if (!overlap_waiters_.empty()) {
    for (auto h : overlap_waiters_) ctx_->defer(h);
    overlap_waiters_.clear();
  }
  if (in_flight_ == 0 && !drain_waiters_.empty()) {
    for (auto h : drain_waiters_) ctx_->defer(h);
    drain_waiters_.clear();
  }
}

// True when an older in-flight request overlaps `t` and one of the two is a
// read-modify-write.
bool BlockNode::overlaps_older(const Tracked* t) const {
  for (const Tracked* o = head_; o && o != t; o = o->next) {
    if (!(t->serialising || o->serialising)) continue;
    if (o->offset < t->offset + t->bytes && t->offset < o->offset + o->bytes) return true;
  }
  return false;
}

// Waits while overlaps_older(t).  Only older requests are waited for, so no
// cycle.
Task<void> BlockNode::wait_serialising(Tracked* t) {
  while (overlaps_older(t)) co_await WaitOn{&overlap_waiters_};
}

Task<void> BlockNode::wait_not_drained() {
  while (drained_ > 0) co_await WaitOn{&drained_waiters_};
}

void BlockNode::drained_begin() { drained_++; }

void BlockNode::drained_end() {
  assert(drained_ > 0);
  if (--drained_ == 0) {
    for (auto h : drained_waiters_) ctx_->defer(h);
    drained_waiters_.clear();
  }
}

Task<void> BlockNode::co_drain() {
  bool waited = false;
  while (in_flight_ > 0) {
    waited = true;
    co_await WaitOn{&drain_waiters_};  // end() resumes through the ready queue
  }
  // Even with nothing in flight, return from the loop's ready queue: the
  // caller may be a coroutine that a driver's completion path resumed
  // directly (LinuxAio reaping its ring), and closing the graph right after
  // the drain would free that driver while its reaping loop is still on the
  // stack.
  if (!waited && ctx_) co_await ctx_->yield();
}

void BlockNode::account(IoOp op, uint64_t bytes, Status s, int64_t t0) {
  OpStats& o = stats_[op];
  o.ops++;
  if (s.ok()) o.bytes += bytes; else o.errors++;
  if (account_latency_) o.latency_ns.record(uint64_t(NowNs() - t0));
}

// ---- the request scope ----

// What every public I/O method does around its request, written once:
// admission, tracking and accounting.  One per request, in the frame of the
// public method:
//
//   RequestScope<IoOp::kRead> rq(*this, offset, bytes);
//   if (!rq.enter_now()) co_await rq.wait_to_enter();
//   Status s = rq.status();
//   if (!s.ok()) co_return s;      // refused
//   s = ...the request (rq.tracked() for the read-modify-write paths)...;
//   co_return rq.finish(s);
//
// Entering is, in this order:
//   1. off the loop thread: -EXDEV; nothing touched, nothing accounted;
//   2. waiting while the node is drained (drained_begin);
//   3. starting the latency clock (when latency accounting is on);
//   4. bounds (-EIO) and read-only (-EPERM; writes, discard, write-zeroes),
//      not for flush; a refusal is accounted like a completed request;
//   5. joining the in-flight list (what co_drain waits for); a write or
//      write-zeroes not aligned to request_alignment claims its whole
//      aligned range (it will read-modify-write);
//   6. except for flush: waiting while an older in-flight request overlaps
//      it and one of the two is a read-modify-write.
// status() is then OK (admitted and tracked) or the refusal.  Once
// admitted, finish() must follow: it leaves the list (waking drain and
// overlap waiters through the loop's ready queue) and accounts `s` with
// `bytes`.
//
// Cost (null_bench, callgrind: the same instructions per request as the
// five hand-written prologues it replaced): the operation is a template
// argument, so each method compiles only its own checks; enter_now() takes
// the common case (not drained, no read-modify-write in flight) with no
// suspension and no coroutine frame, and only a wait runs wait_to_enter(),
// a coroutine.  enter_now() is out of line on purpose: inlined into the
// public coroutine it made GCC save two more registers on each of that
// coroutine's resumptions (+25 instructions per request); a plain awaiter
// in place of the two calls cost +17.
template <IoOp kOp>
class BlockNode::RequestScope {
 public:
  RequestScope(BlockNode& node, uint64_t offset, uint64_t bytes)
      : node_(node), offset_(offset), bytes_(bytes) {}
  RequestScope(const RequestScope&) = delete;
  RequestScope& operator=(const RequestScope&) = delete;

  // Steps 1 to 6 without waiting: true when decided (status() says how),
  // false when the request must wait (step 2 or 6): co_await
  // wait_to_enter() next.
  [[gnu::noinline]] bool enter_now() {
    if (!node_.on_loop_thread()) {
      status_ = Status(-EXDEV);
      return true;
    }
    if (node_.drained_) return false;
    if (!start()) return true;
    return !must_wait_for_overlap();
  }
  // The rest of entering from where enter_now() stopped: at step 2 while
  // the node is drained (nothing ran in between), else at step 6.
  Task<void> wait_to_enter() {
    if (node_.drained_) {
      co_await node_.wait_not_drained();
      if (!start()) co_return;
      if (!kBounded || !node_.serialising_) co_return;
    }
    co_await node_.wait_serialising(&tracked_);
  }
  // OK when admitted, else the refusal.
  Status status() const { return status_; }

  // REQUIRES: admitted.  Returns `s`.
  Status finish(Status s) {
    node_.end(&tracked_);
    node_.account(kOp, bytes_, s, t0_);
    return s;
  }

  // The in-flight entry (for the read-modify-write paths' checks).
  Tracked* tracked() { return &tracked_; }

 private:
  static constexpr bool kWrites = kOp != IoOp::kRead && kOp != IoOp::kFlush;
  static constexpr bool kMayRmw = kOp == IoOp::kWrite || kOp == IoOp::kWriteZeroes;
  static constexpr bool kBounded = kOp != IoOp::kFlush;

  // Steps 3 to 5; false (status_ set, accounted) when refused.
  bool start() {
    t0_ = node_.account_latency_ ? NowNs() : 0;
    if constexpr (kBounded) {
      status_ = node_.check_request(offset_, bytes_, kWrites);
      if (!status_.ok()) {
        node_.account(kOp, bytes_, status_, t0_);
        return false;
      }
    }
    if constexpr (kMayRmw) node_.begin_write(&tracked_, offset_, bytes_);
    else node_.begin(&tracked_, offset_, bytes_);
    return true;
  }

  bool must_wait_for_overlap() const {
    return kBounded && node_.serialising_ && node_.overlaps_older(&tracked_);
  }

  BlockNode& node_;
  const uint64_t offset_;
  const uint64_t bytes_;
  int64_t t0_;  // set by start()
  Status status_;
  Tracked tracked_;
};

// ---- reads and writes ----

// True when the driver can take (offset, qiov) as it is: offset and length
// aligned, buffers aligned, not too many segments (max_transfer aside).
bool BlockNode::meets_limits(uint64_t offset, const IoVec& qiov) const {
  const uint64_t amask = limits_.request_alignment - 1;
  return ((offset | qiov.size()) & amask) == 0 &&
         (limits_.memory_alignment == 1 ||
          qiov.is_aligned(limits_.memory_alignment, limits_.memory_alignment)) &&
         qiov.count() <= limits_.max_iov;
}

Task<Status> BlockNode::co_preadv(uint64_t offset, const IoVec& qiov, uint32_t flags) {
  const uint64_t bytes = qiov.size();
  RequestScope<IoOp::kRead> rq(*this, offset, bytes);
  if (!rq.enter_now()) co_await rq.wait_to_enter();
  Status s = rq.status();
  if (!s.ok()) co_return s;
  const bool aligned = meets_limits(offset, qiov);
  if (bytes == 0) {
    s = Status();
  } else if (aligned && (!limits_.max_transfer || bytes <= limits_.max_transfer)) {
    s = co_await drv_->co_preadv(offset, bytes, qiov, flags);
  } else if (aligned) {
    s = co_await do_split(IoOp::kRead, offset, qiov, flags);
  } else {
    s = co_await do_padded(IoOp::kRead, offset, qiov, flags, rq.tracked());
  }
  co_return rq.finish(s);
}

Task<Status> BlockNode::co_pwritev(uint64_t offset, const IoVec& qiov, uint32_t flags) {
  const uint64_t bytes = qiov.size();
  RequestScope<IoOp::kWrite> rq(*this, offset, bytes);
  if (!rq.enter_now()) co_await rq.wait_to_enter();
  Status s = rq.status();
  if (!s.ok()) co_return s;
  const bool emulate_fua = (flags & kReqFua) && !caps_.fua;
  if (emulate_fua) flags &= ~uint32_t(kReqFua);
  const bool aligned = meets_limits(offset, qiov);
  if (bytes == 0) {
    s = Status();
  } else if (aligned && (!limits_.max_transfer || bytes <= limits_.max_transfer)) {
    s = co_await drv_->co_pwritev(offset, bytes, qiov, flags);
  } else if (aligned) {
    s = co_await do_split(IoOp::kWrite, offset, qiov, flags);
  } else {
    s = co_await do_padded(IoOp::kWrite, offset, qiov, flags, rq.tracked());
  }
  if (s.ok() && emulate_fua) {
    stats_.fua_emulated++;
    s = co_await drv_->co_flush();
  }
  co_return rq.finish(s);
}

// Aligned (offset, size, memory) request that may exceed max_transfer.
Task<Status> BlockNode::do_split(IoOp op, uint64_t offset, const IoVec& qiov, uint32_t flags) {
  const uint64_t bytes = qiov.size();
  const uint64_t max = limits_.max_transfer;
  if (!max || bytes <= max) {
    if (op == IoOp::kRead) co_return co_await drv_->co_preadv(offset, bytes, qiov, flags);
    co_return co_await drv_->co_pwritev(offset, bytes, qiov, flags);
  }
  stats_.split_requests++;
  for (uint64_t pos = 0; pos < bytes;) {
    uint64_t chunk = std::min(max, bytes - pos);
    IoVec sub = qiov.slice(pos, chunk);
    Status s = op == IoOp::kRead ? co_await drv_->co_preadv(offset + pos, chunk, sub, flags)
                                 : co_await drv_->co_pwritev(offset + pos, chunk, sub, flags);
    if (!s.ok()) co_return s;
    pos += chunk;
  }
  co_return Status();
}

// Request misaligned in offset, length or memory: goes through an aligned
// bounce buffer.  A misaligned write becomes a read-modify-write of the
// aligned range, serialised against overlapping requests.
Task<Status> BlockNode::do_padded(IoOp op, uint64_t offset, const IoVec& qiov, uint32_t flags,
                                  Tracked* req) {
  stats_.padded_requests++;
  const uint64_t align = limits_.request_alignment;
  const uint64_t bytes = qiov.size();
  const uint64_t a_off = AlignDown(offset, align);
  const uint64_t a_end = AlignUp(offset + bytes, align);
  const uint64_t a_len = a_end - a_off;
  AlignedBuffer buf(a_len, std::max<size_t>({limits_.memory_alignment, align, 64}));
  if (!buf.data()) co_return Status(-ENOMEM);
  IoVec biov = buf.iov();

  if (op == IoOp::kRead) {
    Status s = co_await do_split(IoOp::kRead, a_off, biov, flags);
    if (s.ok()) qiov.copy_from(0, buf.data() + (offset - a_off), bytes);
    co_return s;
  }

  const bool rmw = a_off != offset || a_end != offset + bytes;
  if (rmw) {
    // begin_write() marked the request serialising over its aligned range
    // and the caller waited for older overlapping requests.
    assert(req->serialising && req->offset <= a_off && a_end <= req->offset + req->bytes);
    (void)req;
    if (a_off != offset) {
      IoVec head = biov.slice(0, align);
      Status s = co_await drv_->co_preadv(a_off, align, head, 0);
      if (!s.ok()) co_return s;
    }
    const uint64_t tail_off = a_end - align;
    if (a_end != offset + bytes && (tail_off != a_off || a_off == offset)) {
      IoVec tail = biov.slice(tail_off - a_off, align);
      Status s = co_await drv_->co_preadv(tail_off, align, tail, 0);
      if (!s.ok()) co_return s;
    }
  }
  qiov.copy_to(0, buf.data() + (offset - a_off), bytes);
  co_return co_await do_split(IoOp::kWrite, a_off, biov, flags);
}

// ---- flush, discard, write-zeroes ----

Task<Status> BlockNode::co_flush() {
  RequestScope<IoOp::kFlush> rq(*this, 0, 0);
  if (!rq.enter_now()) co_await rq.wait_to_enter();
  Status s = rq.status();
  if (!s.ok()) co_return s;
  s = co_await drv_->co_flush();
  co_return rq.finish(s);
}

Task<Status> BlockNode::co_pdiscard(uint64_t offset, uint64_t bytes) {
  RequestScope<IoOp::kDiscard> rq(*this, offset, bytes);
  if (!rq.enter_now()) co_await rq.wait_to_enter();
  Status s = rq.status();
  if (!s.ok()) co_return s;
  if (caps_.discard) {
    // Discard is advisory: only the aligned middle is passed down.
    const uint64_t align = limits_.request_alignment;
    uint64_t start = AlignUp(offset, align);
    uint64_t stop = AlignDown(offset + bytes, align);
    const uint64_t max = limits_.max_discard ? AlignDown(limits_.max_discard, align) : 0;
    while (start < stop) {
      uint64_t chunk = stop - start;
      if (max && chunk > max) chunk = max;
      s = co_await drv_->co_pdiscard(start, chunk);
      if (s.error() == -ENOTSUP) s = Status();
      if (!s.ok()) break;
      start += chunk;
    }
  }
  co_return rq.finish(s);
}

Task<Status> BlockNode::co_pwrite_zeroes(uint64_t offset, uint64_t bytes, uint32_t flags) {
  RequestScope<IoOp::kWriteZeroes> rq(*this, offset, bytes);
  if (!rq.enter_now()) co_await rq.wait_to_enter();
  Status s = rq.status();
  if (!s.ok()) co_return s;
  s = co_await do_write_zeroes(offset, bytes, flags, rq.tracked());
  co_return rq.finish(s);
}

Task<Result<BlockStatus>> BlockNode::co_block_status(uint64_t offset, uint64_t bytes) {
  if (!on_loop_thread()) co_return Status(-EXDEV);
  if (drained_) co_await wait_not_drained();
  const uint64_t len = drv_->length();
  if (bytes == 0 || offset >= len) co_return Status(-EIO);
  bytes = std::min(bytes, len - offset);
  Tracked t;
  begin(&t, offset, bytes);
  Result<BlockStatus> r = co_await drv_->co_block_status(offset, bytes);
  end(&t);
  if (!r.ok()) co_return r;
  BlockStatus st = r.value();
  if (st.length == 0) co_return Status(-EIO);  // a driver bug: callers would loop
  st.length = std::min(st.length, bytes);
  const uint64_t align = limits_.request_alignment;
  const uint64_t stop = offset + st.length;
  if (stop < len && (stop & (align - 1))) {
    if (AlignDown(stop, align) > offset) {
      st.length = AlignDown(stop, align) - offset;
    } else {
      st.flags = kBlockData;
      st.length = std::min(AlignUp(stop, align), offset + bytes) - offset;
    }
  }
  co_return st;
}

Task<Status> BlockNode::do_write_zeroes(uint64_t offset, uint64_t bytes, uint32_t flags,
                                        Tracked* req) {
  if (bytes == 0) co_return Status();
  const bool fua = (flags & kReqFua) != 0;
  if (!caps_.write_zeroes) co_return co_await write_zero_buffers(offset, bytes, flags, req);

  const uint64_t align = limits_.request_alignment;
  const uint64_t start = AlignUp(offset, align);
  const uint64_t stop = AlignDown(offset + bytes, align);
  if (start >= stop) co_return co_await write_zero_buffers(offset, bytes, flags, req);
  if (start > offset) {
    Status s = co_await write_zero_buffers(offset, start - offset, flags, req);
    if (!s.ok()) co_return s;
  }
  const uint64_t max = limits_.max_write_zeroes ? AlignDown(limits_.max_write_zeroes, align) : 0;
  uint32_t dflags = flags & (caps_.fua ? ~0u : ~uint32_t(kReqFua));
  for (uint64_t pos = start; pos < stop;) {
    uint64_t chunk = stop - pos;
    if (max && chunk > max) chunk = max;
    Status s = co_await drv_->co_pwrite_zeroes(pos, chunk, dflags);
    if (s.error() == -ENOTSUP) s = co_await write_zero_buffers(pos, chunk, dflags, req);
    if (!s.ok()) co_return s;
    pos += chunk;
  }
  if (stop < offset + bytes) {
    Status s = co_await write_zero_buffers(stop, offset + bytes - stop, flags, req);
    if (!s.ok()) co_return s;
  }
  if (fua && !caps_.fua) co_return co_await drv_->co_flush();
  co_return Status();
}

Task<Status> BlockNode::write_zero_buffers(uint64_t offset, uint64_t bytes, uint32_t flags,
                                           Tracked* req) {
  stats_.zeroes_emulated++;
  flags &= caps_.fua ? ~uint32_t(kReqMayUnmap) : ~uint32_t(kReqMayUnmap | kReqFua);
  const uint64_t align = limits_.request_alignment;
  const size_t chunk_max = std::max<uint64_t>(AlignDown(kZeroChunk, align), align);
  AlignedBuffer zeros =
      AlignedBuffer::zeroed(std::min<uint64_t>(chunk_max, AlignUp(bytes, align)),
                            std::max<size_t>({limits_.memory_alignment, align, 64}));
  if (!zeros.data()) co_return Status(-ENOMEM);
  for (uint64_t pos = 0; pos < bytes;) {
    // Keep pieces aligned where possible so only the edges pay for RMW.
    uint64_t off = offset + pos;
    uint64_t chunk = std::min<uint64_t>(bytes - pos, zeros.size());
    if ((off & (align - 1)) && chunk > align - (off & (align - 1))) {
      chunk = align - (off & (align - 1));
    }
    IoVec iov(zeros.data(), chunk);
    Status s;
    if (((off | chunk) & (align - 1)) == 0) {
      s = co_await do_split(IoOp::kWrite, off, iov, flags);
    } else {
      s = co_await do_padded(IoOp::kWrite, off, iov, flags, req);
    }
    if (!s.ok()) co_return s;
    pos += chunk;
  }
  co_return Status();
}

}  // namespace blk
