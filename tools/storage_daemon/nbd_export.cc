#include "tools/storage_daemon/nbd_export.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <utility>
#include <vector>

#include <blkstack/block/driver.h>
#include "tools/storage_daemon/async_socket.h"
#include "tools/storage_daemon/buffer_cache.h"
#include <blkstack/util/aligned_buffer.h>
#include <blkstack/util/task.h>

namespace blk::nbd {

// One client in the transmission phase.  Owned by its export; deletes
// itself (through the loop, never inside its own coroutines) when closed.
class Connection {
 public:
  Connection(NbdExport& exp, int fd, Negotiated n, std::string buffered)
      : exp_(exp), fd_(fd), neg_(n), sock_(exp.ctx(), fd, std::move(buffered)),
        force_timer_(exp.ctx(), [this] { force_close(); }) {
    sock_.set_on_writable([this] {
      blocked_ = false;
      flush();
    });
    view_.size = exp.size();
    view_.read_only = exp.read_only();
    view_.max_payload = kMaxPayload;
    view_.structured = n.structured;
    view_.base_allocation = n.base_allocation;
  }
  // The socket's handler leaves the loop (sock_'s destructor) before the
  // descriptor is closed (fd_'s, declared before sock_): closed first, its
  // number could be another connection's by then, accepted on the main
  // loop, and lose that one its handler.
  ~Connection() = default;

  void start() { Spawn(exp_.ctx(), reader()); }
  // Stops reading new requests; forces the close after `ns` if replies
  // still cannot be sent.
  void stop(int64_t ns) {
    stopping_ = true;
    sock_.cancel();
    wake_reader();
    if (ns >= 0) force_timer_.arm_in(ns);
  }

 private:
  struct OutItem {
    std::string head;
    AlignedBuffer data;
    size_t data_len = 0;
    size_t total() const { return head.size() + data_len; }
  };
  struct WaitRoom {
    Connection* c;
    bool await_ready() const noexcept { return c->has_room(); }
    void await_suspend(std::coroutine_handle<> h) noexcept { c->room_waiter_ = h; }
    void await_resume() const noexcept {}
  };

  bool has_room() const {
    return broken_ || stopping_ ||
           (inflight_ < kMaxInflight && held_bytes_ < kMaxQueuedBytes);
  }
  void wake_reader() {
    if (room_waiter_ && has_room()) exp_.ctx().defer(std::exchange(room_waiter_, {}));
  }

  Task<void> reader();
  Task<void> serve(Request r, AlignedBuffer payload, uint64_t held);
  Task<Result<std::vector<std::pair<uint32_t, uint32_t>>>> block_status(const Request& r);
  void reply_error(const Request& r, uint32_t err, std::string_view msg);
  void reply_done(const Request& r);
  void queue(OutItem item);
  Task<void> flush_soon();
  void flush();
  void force_close();
  void maybe_close();

  NbdExport& exp_;
  struct OwnedFd {
    int fd;
    ~OwnedFd() { ::close(fd); }
    operator int() const { return fd; }
  } fd_;
  Negotiated neg_;
  ExportView view_;
  AsyncSocket sock_;
  Timer force_timer_;
  // Request and reply buffers kept for reuse (buffer_cache.h): at most
  // kCacheBytes per connection.
  static constexpr size_t kCacheBytes = 4 << 20;
  BufferCache cache_{kCacheBytes};
  std::deque<OutItem> out_;
  size_t out_sent_ = 0;  // bytes of out_.front() already sent
  int inflight_ = 0;
  uint64_t held_bytes_ = 0;  // payloads of requests in flight + queued replies
  std::coroutine_handle<> room_waiter_;
  bool blocked_ = false;       // the socket said EAGAIN; wait for on_writable
  bool flush_pending_ = false; // a flush_soon() task is queued
  bool broken_ = false;        // a send failed: replies are dropped
  bool stopping_ = false;
  bool reading_done_ = false;
  bool closing_ = false;
};

Task<void> Connection::reader() {
  uint8_t hdr[kRequestSize];
  for (;;) {
    // The next header needs a recv, and requests just read wait in the
    // ready queue: let them run first.  A request served at once (a
    // synchronous driver) then sends its reply before that recv, which at
    // queue depth 1 finds the socket empty: one syscall less between a
    // request and its reply.
    if (inflight_ > 0 && !sock_.has_buffered()) co_await exp_.ctx().yield();
    co_await WaitRoom{this};
    if (broken_ || stopping_) break;
    int rc = co_await sock_.read_exact(hdr, sizeof hdr);
    if (rc < 0) break;
    Request r;
    if (!ParseRequest(hdr, sizeof hdr, &r)) break;  // bad magic: framing is lost
    const Check c = CheckRequest(r, view_);
    if (c.verdict == Verdict::kDisconnect) break;
    AlignedBuffer payload;
    if (c.payload > 0) {
      payload = cache_.take(c.payload);
      if (!payload.ok()) break;
      rc = co_await sock_.read_exact(payload.data(), c.payload);
      if (rc < 0) break;
    }
    if (c.verdict == Verdict::kError) {
      reply_error(r, c.error, "request refused");
      continue;
    }
    if (r.type == kCmdDisc) break;
    if (exp_.observer_) exp_.observer_(r);
    const uint64_t held = r.type == kCmdRead ? r.length : c.payload;
    inflight_++;
    held_bytes_ += held;
    Spawn(exp_.ctx(), serve(r, std::move(payload), held));
  }
  reading_done_ = true;
  maybe_close();
}

Task<void> Connection::serve(Request r, AlignedBuffer payload, uint64_t held) {
  BlockBackend& blk = exp_.blk();
  Status st;
  AlignedBuffer data;
  std::vector<std::pair<uint32_t, uint32_t>> extents;  // BLOCK_STATUS reply
  switch (r.type) {
    case kCmdRead:
      if (r.length > 0) {
        data = cache_.take(r.length);
        if (!data.ok()) {
          st = Status(-ENOMEM);
          break;
        }
        IoVec v(data.data(), r.length);
        st = co_await blk.read(r.offset, v);
      }
      break;
    case kCmdWrite:
      if (r.length > 0) {
        IoVec v(payload.data(), r.length);
        st = co_await blk.write(r.offset, v, (r.flags & kCmdFlagFua) ? uint32_t(kReqFua) : 0u);
      }
      break;
    case kCmdFlush:
      st = co_await blk.flush();
      break;
    case kCmdTrim:
      if (r.length > 0) st = co_await blk.discard(r.offset, r.length);
      if (st.ok() && (r.flags & kCmdFlagFua)) st = co_await blk.flush();
      break;
    case kCmdWriteZeroes: {
      if ((r.flags & kCmdFlagFastZero) && !exp_.fast_zero()) {
        st = Status(-ENOTSUP);
        break;
      }
      uint32_t f = (r.flags & kCmdFlagNoHole) ? 0u : uint32_t(kReqMayUnmap);
      if (r.flags & kCmdFlagFua) f |= kReqFua;
      if (r.length > 0) st = co_await blk.write_zeroes(r.offset, r.length, f);
      break;
    }
    case kCmdBlockStatus: {
      auto ex = co_await block_status(r);
      if (ex.ok()) extents = std::move(ex.value()); else st = ex.status();
      break;
    }
    case kCmdCache:
      break;
  }
  cache_.give(std::move(payload));
  held_bytes_ -= held;
  inflight_--;
  if (!st.ok()) {
    reply_error(r, ErrnoToNbd(st.error()), ErrnoString(st.error()));
  } else if (r.type == kCmdRead && !(neg_.structured && r.length == 0)) {
    // (A structured empty read is answered by reply_done: a NONE chunk.)
    OutItem item;
    if (neg_.structured) {
      item.head = EncodeChunkHeader(kReplyFlagDone, kReplyTypeOffsetData, r.cookie,
                                    uint32_t(8 + r.length));
      Put64(&item.head, r.offset);
    } else {
      item.head = EncodeSimpleReply(r.cookie, 0);
    }
    item.data = std::move(data);
    item.data_len = r.length;
    queue(std::move(item));
  } else if (r.type == kCmdBlockStatus) {
    queue(OutItem{EncodeBlockStatusChunk(r.cookie, kBaseAllocationId, extents), {}, 0});
  } else {
    reply_done(r);
  }
  wake_reader();
  maybe_close();
}

// base:allocation of [r.offset, r.offset + r.length) from the graph's block
// status: NBD_STATE_HOLE for a range without data, NBD_STATE_ZERO for one
// that reads as zeros; neighbours with equal flags merged; together at most
// r.length (CheckRequest keeps the range inside the export), and with
// NBD_CMD_FLAG_REQ_ONE exactly one extent.
Task<Result<std::vector<std::pair<uint32_t, uint32_t>>>> Connection::block_status(
    const Request& r) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  const uint64_t stop = r.offset + r.length;
  for (uint64_t pos = r.offset; pos < stop;) {
    Result<BlockStatus> st = co_await exp_.blk().block_status(pos, stop - pos);
    if (!st.ok()) {
      if (out.empty()) co_return st.status();
      break;  // report what is known; the client asks again for the rest
    }
    const uint32_t flags = ((st->flags & kBlockData) ? 0u : kStateHole) |
                           ((st->flags & kBlockZero) ? kStateZero : 0u);
    const uint32_t len = uint32_t(st->length);  // <= r.length, a uint32_t
    if (!out.empty() && out.back().second == flags) {
      out.back().first += len;
    } else {
      if ((r.flags & kCmdFlagReqOne) || out.size() >= kMaxExtents) {
        if (!out.empty()) break;
      }
      out.emplace_back(len, flags);
    }
    pos += len;
  }
  co_return out;
}

void Connection::reply_error(const Request& r, uint32_t err, std::string_view msg) {
  if (neg_.structured) {
    queue(OutItem{EncodeErrorChunk(r.cookie, err, msg), {}, 0});
  } else {
    queue(OutItem{EncodeSimpleReply(r.cookie, err), {}, 0});
  }
}

void Connection::reply_done(const Request& r) {
  if (neg_.structured) {
    queue(OutItem{EncodeChunkHeader(kReplyFlagDone, kReplyTypeNone, r.cookie, 0), {}, 0});
  } else {
    queue(OutItem{EncodeSimpleReply(r.cookie, 0), {}, 0});
  }
}

void Connection::queue(OutItem item) {
  if (broken_) return;
  held_bytes_ += item.total();
  out_.push_back(std::move(item));
  if (blocked_) return;  // on_writable flushes
  // The last request in flight: nothing else will queue a reply to share
  // the sendmsg with, so send now.
  if (inflight_ == 0) {
    flush();
    return;
  }
  // Otherwise send from the loop's ready queue, after this iteration's
  // completions have queued their replies too: one sendmsg for all of them.
  if (!flush_pending_) {
    flush_pending_ = true;
    Spawn(exp_.ctx(), flush_soon());
  }
}

Task<void> Connection::flush_soon() {
  flush_pending_ = false;
  flush();
  co_return;
}

void Connection::flush() {
  while (!out_.empty() && !blocked_ && !broken_) {
    struct iovec iov[64];
    int n = 0;
    size_t skip = out_sent_;
    for (size_t i = 0; i < out_.size() && n + 2 <= 64; i++) {
      OutItem& it = out_[i];
      const size_t hs = it.head.size();
      if (skip < hs) {
        iov[n++] = {it.head.data() + skip, hs - skip};
        skip = 0;
      } else {
        skip -= hs;
      }
      if (it.data_len > skip) iov[n++] = {static_cast<uint8_t*>(it.data.data()) + skip,
                                          it.data_len - skip};
      skip = 0;
    }
    const ssize_t r = sock_.try_send(iov, n);
    if (r == -EAGAIN || r == -EWOULDBLOCK) {
      blocked_ = true;
      break;
    }
    if (r < 0) {
      force_close();
      return;
    }
    size_t sent = size_t(r);
    while (sent > 0) {
      const size_t left = out_.front().total() - out_sent_;
      if (sent < left) {
        out_sent_ += sent;
        break;
      }
      sent -= left;
      held_bytes_ -= out_.front().total();
      cache_.give(std::move(out_.front().data));
      out_.pop_front();
      out_sent_ = 0;
    }
  }
  wake_reader();
  maybe_close();
}

// The client is gone or will not read: drop what is queued, end the reader,
// and close once the requests still at the graph have completed.
void Connection::force_close() {
  if (broken_) return;
  broken_ = true;
  for (auto& it : out_) held_bytes_ -= it.total();
  out_.clear();
  out_sent_ = 0;
  ::shutdown(fd_, SHUT_RDWR);
  sock_.cancel();
  wake_reader();
  maybe_close();
}

void Connection::maybe_close() {
  if (closing_ || !reading_done_ || inflight_ > 0 || flush_pending_ ||
      (!out_.empty() && !broken_)) {
    return;
  }
  closing_ = true;
  force_timer_.cancel();
  exp_.closed(this);
}

NbdExport::NbdExport(std::string id, std::string name, std::string description,
                     BlockBackend* blk, bool writable)
    : id_(std::move(id)), name_(std::move(name)), description_(std::move(description)),
      blk_(blk), writable_(writable && !blk->read_only()), size_(blk->length()) {
  const BlockLimits& lim = blk->root().limits();
  min_block_ = std::max<uint32_t>(1, lim.request_alignment);
  preferred_block_ = std::max<uint32_t>(4096, min_block_);
  fast_zero_ = blk->root().caps().write_zeroes;
  // NBD_FLAG_CAN_MULTI_CONN for every export: all connections to an export
  // share its one BlockBackend on one loop, and nothing below keeps state
  // per connection (no per-connection cache or graph), so a write completed
  // on one connection is read by all, and a flush on any reaches the one
  // driver whose flush covers every completed write (file: fdatasync of the
  // one fd; rbd: rbd_aio_flush of the one image handle and its cache).  A
  // per-connection cache or graph would have to clear the flag.
  // tests/tools/storage_daemon/multiconn_e2e_test.sh checks it.
  tx_flags_ = kTxHasFlags | kTxSendFlush | kTxSendFua | kTxSendDf | kTxCanMultiConn;
  if (writable_) {
    tx_flags_ |= kTxSendTrim | kTxSendWriteZeroes | kTxSendFastZero;
  } else {
    tx_flags_ |= kTxReadOnly;
  }
}

NbdExport::~NbdExport() {
  for (Connection* c : conns_) delete c;
}

void NbdExport::adopt(int fd, Negotiated n, std::string buffered) {
  if (stopping_) {
    ::close(fd);
    return;
  }
  auto* c = new Connection(*this, fd, n, std::move(buffered));
  conns_.insert(c);
  c->start();
}

void NbdExport::shutdown(std::function<void()> idle, int64_t force_after_ns) {
  stopping_ = true;
  idle_ = std::move(idle);
  if (conns_.empty()) {
    if (idle_) std::exchange(idle_, {})();
    return;
  }
  for (Connection* c : conns_) c->stop(force_after_ns);
}

void NbdExport::closed(Connection* c) {
  // Freed from the loop's top level: the caller may be one of c's coroutines.
  ctx().post([this, c] {
    conns_.erase(c);
    delete c;
    if (stopping_ && conns_.empty() && idle_) std::exchange(idle_, {})();
  });
}

}  // namespace blk::nbd
