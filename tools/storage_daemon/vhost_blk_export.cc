#include "tools/storage_daemon/vhost_blk_export.h"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <coroutine>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include <blkstack/block/driver.h>
#include "tools/storage_daemon/vhost_user_wire.h"
#include "tools/storage_daemon/virtqueue.h"
#include <blkstack/util/iovec.h>
#include <blkstack/util/task.h>

namespace blk::vhost {

namespace {

// virtio-blk status values (virtio 1.1, 5.2.6).
constexpr uint8_t kBlkSOk = 0;
constexpr uint8_t kBlkSIoErr = 1;
constexpr uint8_t kBlkSUnsupp = 2;
constexpr uint32_t kBlkIdBytes = 20;
constexpr uint32_t kWriteZeroesFUnmap = 1;
constexpr uint64_t kSector = 512;
// seg_max in the configuration space: what fits a 128-entry queue (QEMU's
// default queue-size) after the header and status descriptors.
constexpr uint32_t kSegMax = 126;
// Largest discard / write-zeroes segment announced (sectors).
constexpr uint32_t kMaxZeroSectors = 1u << 22;  // 2 GiB

void CloseFd(int* fd) {
  if (*fd >= 0) ::close(*fd);
  *fd = -1;
}

}  // namespace

struct Queue {
  SplitQueue ring;
  uint32_t num = 0;
  VringAddr addr;
  bool addr_set = false;
  int kick = -1, call = -1, err = -1;
  bool started = false;  // has a kick fd and was not stopped by GET_VRING_BASE
  bool enabled = false;
  bool broken = false;
  int inflight = 0;
};

// One front end.  Owned by its export; deleted through the loop once its
// message coroutine has ended and no request is in flight.
class Session {
 public:
  Session(VhostBlkExport& exp, int fd) : exp_(exp), fd_(fd), queues_(exp.num_queues()) {}
  ~Session() {
    for (Queue& q : queues_) {
      stop_queue(q);
      CloseFd(&q.call);
      CloseFd(&q.err);
    }
    unmap();
    for (int f : fds_) ::close(f);
    ::close(fd_);
  }
  void start() { Spawn(exp_.ctx(), run()); }
  // Ends the message loop (the session then tears itself down).
  void cancel() {
    cancelled_ = true;
    if (read_waiter_) {
      exp_.ctx().remove_fd_handler(fd_);
      exp_.ctx().defer(std::exchange(read_waiter_, {}));
    }
  }

 private:
  struct WaitReadable {
    Session* s;
    bool await_ready() const noexcept { return s->cancelled_; }
    void await_suspend(std::coroutine_handle<> h) {
      s->read_waiter_ = h;
      s->exp_.ctx().set_fd_handler(s->fd_, [s = s] {
        s->exp_.ctx().remove_fd_handler(s->fd_);
        if (s->read_waiter_) s->exp_.ctx().defer(std::exchange(s->read_waiter_, {}));
      });
    }
    void await_resume() const noexcept {}
  };
  // Waits until *n (a queue's or the session's in-flight count) is 0.
  struct WaitZero {
    Session* s;
    const int* n;
    bool await_ready() const noexcept { return *n == 0; }
    void await_suspend(std::coroutine_handle<> h) noexcept {
      s->idle_waiter_ = h;
      s->idle_count_ = n;
    }
    void await_resume() const noexcept {}
  };

  Task<void> run();
  Task<int> read_exact(uint8_t* dst, size_t n, bool take_fds);
  // Handles one message; false closes the session.
  Task<bool> handle(const MsgHeader& h, const std::vector<uint8_t>& payload,
                    std::vector<int>& fds);
  bool reply(uint32_t request, const std::string& payload);
  bool set_mem_table(const uint8_t* p, size_t len, std::vector<int>& fds);
  void unmap();
  bool attach(Queue& q);
  void stop_queue(Queue& q);
  void kicked(uint32_t qi);
  void process(uint32_t qi);
  Task<void> serve(uint32_t qi, Chain c);
  Task<uint8_t> execute(const Chain& c, size_t n_out, uint32_t* written);
  void log(const std::string& msg) {
    std::fprintf(stderr, "blkstack-storage-daemon: vhost-user-blk export '%s': %s\n",
                 exp_.id().c_str(), msg.c_str());
  }

  VhostBlkExport& exp_;
  int fd_;
  std::vector<Queue> queues_;
  GuestMemory mem_;
  std::vector<std::pair<void*, size_t>> maps_;
  uint64_t features_ = 0;
  uint64_t protocol_ = 0;
  int inflight_ = 0;
  std::vector<int> fds_;  // received, not yet handed to a message
  std::coroutine_handle<> read_waiter_;
  std::coroutine_handle<> idle_waiter_;
  const int* idle_count_ = nullptr;
  bool cancelled_ = false;
};

Task<int> Session::read_exact(uint8_t* dst, size_t n, bool take_fds) {
  size_t got = 0;
  while (got < n) {
    if (cancelled_) co_return -ECANCELED;
    struct iovec iov = {dst + got, n - got};
    alignas(struct cmsghdr) char cbuf[CMSG_SPACE(sizeof(int) * kMaxFds)];
    struct msghdr m = {};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    if (take_fds) {
      m.msg_control = cbuf;
      m.msg_controllen = sizeof cbuf;
    }
    const ssize_t r = ::recvmsg(fd_, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      co_await WaitReadable{this};
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) co_return -errno;
    if (take_fds) {
      for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        const size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k; i++) {
          int f;
          std::memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof f);
          if (fds_.size() < kMaxFds) fds_.push_back(f); else ::close(f);
        }
      }
      if (m.msg_flags & MSG_CTRUNC) co_return -EMSGSIZE;
    }
    if (r == 0) co_return -ECONNRESET;
    got += size_t(r);
  }
  co_return 0;
}

Task<void> Session::run() {
  for (;;) {
    uint8_t hb[kHeaderSize];
    // The fds of a message come with its first bytes: read the header and
    // the payload exactly, so a recvmsg never reaches the next message.
    if (co_await read_exact(hb, sizeof hb, true) < 0) break;
    MsgHeader h;
    if (!ParseHeader(hb, sizeof hb, &h)) {
      log("malformed message header (version or size); closing the connection");
      break;
    }
    std::vector<uint8_t> payload(h.size);
    if (h.size > 0 && co_await read_exact(payload.data(), h.size, true) < 0) break;
    std::vector<int> fds = std::exchange(fds_, {});
    const bool ok = co_await handle(h, payload, fds);
    for (int f : fds) ::close(f);  // what the message did not take
    if (!ok) break;
  }
  // Teardown: no ring runs any more, the requests in flight finish (they
  // use the mapped memory), then the export frees the session.
  cancelled_ = true;
  for (Queue& q : queues_) stop_queue(q);
  co_await WaitZero{this, &inflight_};
  exp_.session_closed();
}

bool Session::reply(uint32_t request, const std::string& payload) {
  const std::string msg = EncodeReply(request, payload);
  // A reply is at most a few hundred bytes and the front end waits for it:
  // a full socket buffer means the front end is not reading.
  const ssize_t r = ::send(fd_, msg.data(), msg.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  if (r != ssize_t(msg.size())) {
    log(std::string("cannot send the reply to ") + RequestName(request) + "; closing");
    return false;
  }
  return true;
}

Task<bool> Session::handle(const MsgHeader& h, const std::vector<uint8_t>& payload,
                           std::vector<int>& fds) {
  const uint8_t* p = payload.data();
  const size_t len = payload.size();
  bool replied = false;  // the message has its own reply
  bool ok = true;        // what REPLY_ACK reports
  uint64_t u = 0;
  VringState st;
  auto queue_of = [&](uint32_t index) -> Queue* {
    return index < queues_.size() ? &queues_[index] : nullptr;
  };
  auto bad = [&](const char* what) {
    log(std::string(RequestName(h.request)) + ": " + what + "; closing the connection");
    return false;
  };
  switch (h.request) {
    case kGetFeatures:
      replied = true;
      if (!reply(h.request, EncodeU64(exp_.features()))) co_return false;
      break;
    case kSetFeatures:
      if (!ParseU64(p, len, &u)) co_return bad("short payload");
      if (u & ~exp_.features()) co_return bad("features the device did not offer");
      features_ = u;
      break;
    case kGetProtocolFeatures:
      replied = true;
      if (!reply(h.request, EncodeU64((1ull << kProtocolMq) | (1ull << kProtocolReplyAck) |
                                      (1ull << kProtocolConfig)))) {
        co_return false;
      }
      break;
    case kSetProtocolFeatures:
      if (!ParseU64(p, len, &u)) co_return bad("short payload");
      protocol_ = u;
      break;
    case kSetOwner:
      break;
    case kResetOwner:
      for (Queue& q : queues_) stop_queue(q);
      co_await WaitZero{this, &inflight_};
      features_ = 0;
      break;
    case kGetQueueNum:
      replied = true;
      if (!reply(h.request, EncodeU64(queues_.size()))) co_return false;
      break;
    case kSetMemTable:
      // Requests in flight read and write the old mapping.
      co_await WaitZero{this, &inflight_};
      if (!set_mem_table(p, len, fds)) co_return bad("malformed table or unmappable region");
      break;
    case kSetVringNum: {
      if (!ParseVringState(p, len, &st)) co_return bad("short payload");
      Queue* q = queue_of(st.index);
      if (!q || st.num == 0 || st.num > kMaxQueueSize || (st.num & (st.num - 1))) {
        co_return bad("bad queue index or size");
      }
      q->num = st.num;
      break;
    }
    case kSetVringAddr: {
      VringAddr a;
      if (!ParseVringAddr(p, len, &a)) co_return bad("malformed payload");
      Queue* q = queue_of(a.index);
      if (!q) co_return bad("bad queue index");
      q->addr = a;
      q->addr_set = true;
      if (!attach(*q)) co_return bad("a ring is outside the guest memory");
      break;
    }
    case kSetVringBase: {
      if (!ParseVringState(p, len, &st)) co_return bad("short payload");
      Queue* q = queue_of(st.index);
      if (!q || st.num > 0xffff) co_return bad("bad queue index or base");
      q->ring.set_last_avail(uint16_t(st.num));
      break;
    }
    case kGetVringBase: {
      if (!ParseVringState(p, len, &st)) co_return bad("short payload");
      Queue* q = queue_of(st.index);
      if (!q) co_return bad("bad queue index");
      stop_queue(*q);
      co_await WaitZero{this, &q->inflight};
      replied = true;
      if (!reply(h.request, EncodeVringState({st.index, q->ring.last_avail()}))) co_return false;
      break;
    }
    case kSetVringKick:
    case kSetVringCall:
    case kSetVringErr: {
      if (!ParseU64(p, len, &u)) co_return bad("short payload");
      Queue* q = queue_of(uint32_t(u & kVringIndexMask));
      if (!q) co_return bad("bad queue index");
      int fd = -1;
      if (!(u & kVringNoFd)) {
        if (fds.size() != 1) co_return bad("expected one file descriptor");
        fd = fds[0];
        fds.clear();
        // Never block the loop on the front end's fd (an eventfd from QEMU,
        // already non-blocking; anything else must not stall us).
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
      }
      const uint32_t qi = uint32_t(q - queues_.data());
      if (h.request == kSetVringCall) {
        CloseFd(&q->call);
        q->call = fd;
      } else if (h.request == kSetVringErr) {
        CloseFd(&q->err);
        q->err = fd;
      } else {
        stop_queue(*q);
        if (fd < 0) co_return bad("polling mode (no kick fd) is not supported");
        q->kick = fd;
        q->started = true;
        q->broken = false;
        // Without VHOST_USER_F_PROTOCOL_FEATURES a ring runs once started;
        // with it, SET_VRING_ENABLE decides.
        if (!(features_ & (1ull << kFProtocolFeatures))) q->enabled = true;
        exp_.ctx().set_fd_handler(fd, [this, qi] { kicked(qi); });
        process(qi);
      }
      break;
    }
    case kSetVringEnable: {
      if (!ParseVringState(p, len, &st)) co_return bad("short payload");
      Queue* q = queue_of(st.index);
      if (!q) co_return bad("bad queue index");
      q->enabled = st.num != 0;
      process(st.index);
      break;
    }
    case kGetConfig: {
      ConfigMsg c;
      if (!ParseConfig(p, len, &c)) co_return bad("malformed payload");
      BlockBackend& blk = exp_.blk();
      const BlockLimits& lim = blk.root().limits();
      BlkConfig cfg;
      cfg.capacity = blk.length() / kSector;
      cfg.seg_max = kSegMax;
      cfg.blk_size = std::max<uint32_t>(kSector, lim.request_alignment);
      cfg.num_queues = uint16_t(queues_.size());
      if (!exp_.read_only()) {
        cfg.max_discard_sectors = kMaxZeroSectors;
        cfg.max_discard_seg = 1;
        cfg.discard_sector_alignment = cfg.blk_size / kSector;
        cfg.max_write_zeroes_sectors = kMaxZeroSectors;
        cfg.max_write_zeroes_seg = 1;
        cfg.write_zeroes_may_unmap = 1;
      }
      c.payload = EncodeBlkConfig(cfg, c.offset, c.size);
      replied = true;
      if (!reply(h.request, EncodeConfig(c))) co_return false;
      break;
    }
    case kSetConfig: {
      ConfigMsg c;
      if (!ParseConfig(p, len, &c)) co_return bad("malformed payload");
      ok = false;  // no field of the configuration space is writable
      break;
    }
    default:
      if (!(h.flags & kFlagNeedReply) || !(protocol_ & (1ull << kProtocolReplyAck))) {
        co_return bad("unsupported request");
      }
      log(std::string("unsupported request ") + std::to_string(h.request) + " refused");
      ok = false;
      break;
  }
  if (!replied && (h.flags & kFlagNeedReply) && (protocol_ & (1ull << kProtocolReplyAck))) {
    if (!reply(h.request, EncodeU64(ok ? 0 : 1))) co_return false;
  }
  co_return true;
}

bool Session::set_mem_table(const uint8_t* p, size_t len, std::vector<int>& fds) {
  std::vector<MemRegionDesc> regions;
  if (!ParseMemTable(p, len, &regions) || regions.size() != fds.size()) return false;
  for (Queue& q : queues_) q.ring.detach();
  unmap();
  for (size_t i = 0; i < regions.size(); i++) {
    const MemRegionDesc& r = regions[i];
    // Mapped from offset 0 of the fd: mmap_offset need not be page-aligned.
    const size_t total = size_t(r.mmap_offset + r.size);
    // Touching a mapping past the end of its file raises SIGBUS: a region
    // larger than its fd is refused here, not found by a guest request.
    struct stat st;
    if (::fstat(fds[i], &st) != 0 || (S_ISREG(st.st_mode) && uint64_t(st.st_size) < total)) {
      log("a guest memory region is larger than its file");
      unmap();
      return false;
    }
    void* m = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fds[i], 0);
    if (m == MAP_FAILED) {
      log("mmap of a guest memory region failed: " + std::string(std::strerror(errno)));
      unmap();
      return false;
    }
    maps_.push_back({m, total});
    mem_.add({r.guest_addr, r.size, r.user_addr, static_cast<uint8_t*>(m) + r.mmap_offset});
  }
  for (int f : fds) ::close(f);
  fds.clear();
  for (Queue& q : queues_) {
    if (q.addr_set && !attach(q)) return false;
  }
  return true;
}

void Session::unmap() {
  for (auto& [m, n] : maps_) ::munmap(m, n);
  maps_.clear();
  mem_.clear();
}

bool Session::attach(Queue& q) {
  if (mem_.empty() || q.num == 0) return true;  // attached once both are known
  return q.ring.attach(&mem_, q.num, q.addr.desc_user_addr, q.addr.avail_user_addr,
                       q.addr.used_user_addr);
}

void Session::stop_queue(Queue& q) {
  if (q.kick >= 0) exp_.ctx().remove_fd_handler(q.kick);
  CloseFd(&q.kick);
  q.started = false;
}

void Session::kicked(uint32_t qi) {
  Queue& q = queues_[qi];
  // One read resets the eventfd's counter (the fd is non-blocking, and the
  // handler runs only when it is readable).
  uint64_t v;
  (void)!::read(q.kick, &v, sizeof v);
  process(qi);
}

void Session::process(uint32_t qi) {
  Queue& q = queues_[qi];
  while (q.started && q.enabled && !q.broken && !cancelled_ && q.ring.attached()) {
    Chain c;
    const SplitQueue::Pop r = q.ring.pop(&c);
    if (r == SplitQueue::Pop::kEmpty) return;
    if (r == SplitQueue::Pop::kBroken) {
      q.broken = true;
      log("queue " + std::to_string(qi) + " stopped: " + q.ring.why());
      return;
    }
    q.inflight++;
    inflight_++;
    Spawn(exp_.ctx(), serve(qi, std::move(c)));
  }
}

Task<void> Session::serve(uint32_t qi, Chain c) {
  Queue& q = queues_[qi];
  // Device-readable buffers come first, then device-writable ones; the
  // last writable byte is the status.
  size_t n_out = 0;
  while (n_out < c.segs.size() && !c.segs[n_out].writable) n_out++;
  bool layout_ok = n_out < c.segs.size();
  for (size_t i = n_out; i < c.segs.size(); i++) layout_ok = layout_ok && c.segs[i].writable;
  uint32_t written = 0;
  if (layout_ok) {
    const uint8_t status = co_await execute(c, n_out, &written);
    const Segment& last = c.segs.back();
    last.p[last.len - 1] = status;
    written += 1;
  } else {
    log("queue " + std::to_string(qi) + ": a request has no status byte or mixes its buffers");
  }
  q.ring.push(c.head, written);
  if (q.call >= 0) {
    const uint64_t one = 1;
    (void)!::write(q.call, &one, sizeof one);
  }
  q.inflight--;
  inflight_--;
  if (idle_waiter_ && *idle_count_ == 0) exp_.ctx().defer(std::exchange(idle_waiter_, {}));
}

Task<uint8_t> Session::execute(const Chain& c, size_t n_out, uint32_t* written) {
  IoVec out, in;
  for (size_t i = 0; i < n_out; i++) out.add(c.segs[i].p, c.segs[i].len);
  for (size_t i = n_out; i < c.segs.size(); i++) {
    const Segment& s = c.segs[i];
    in.add(s.p, i + 1 == c.segs.size() ? s.len - 1 : s.len);  // the status byte is not data
  }
  if (out.size() < 16) co_return kBlkSIoErr;
  uint8_t hdr[16];
  out.copy_to(0, hdr, sizeof hdr);
  uint32_t type;
  uint64_t sector;
  std::memcpy(&type, hdr, 4);
  std::memcpy(&sector, hdr + 8, 8);
  BlockBackend& blk = exp_.blk();
  const uint64_t capacity = blk.length() / kSector;
  auto in_range = [&](uint64_t s, uint64_t bytes) {
    return bytes % kSector == 0 && s <= capacity && bytes / kSector <= capacity - s;
  };
  auto observe = [&](uint64_t off, uint64_t len) {
    if (exp_.observer_) exp_.observer_({type, off, len});
  };
  Status st;
  switch (type) {
    case kBlkTIn: {
      if (!in_range(sector, in.size())) co_return kBlkSIoErr;
      observe(sector * kSector, in.size());
      if (in.size() > 0) st = co_await blk.read(sector * kSector, in);
      if (st.ok()) *written = uint32_t(in.size());
      break;
    }
    case kBlkTOut: {
      const uint64_t bytes = out.size() - 16;
      if (exp_.read_only() || !in_range(sector, bytes)) co_return kBlkSIoErr;
      observe(sector * kSector, bytes);
      IoVec data;
      data.add_slice(out, 16, bytes);
      if (bytes > 0) st = co_await blk.write(sector * kSector, data);
      break;
    }
    case kBlkTFlush:
      observe(0, 0);
      if (!exp_.read_only()) st = co_await blk.flush();
      break;
    case kBlkTGetId: {
      char id[kBlkIdBytes] = {};
      std::memcpy(id, exp_.id().data(), std::min<size_t>(exp_.id().size(), kBlkIdBytes));
      const size_t n = std::min<size_t>(in.size(), kBlkIdBytes);
      in.copy_from(0, id, n);
      *written = uint32_t(n);
      break;
    }
    case kBlkTDiscard:
    case kBlkTWriteZeroes: {
      if (exp_.read_only()) co_return kBlkSIoErr;
      const size_t bytes = out.size() - 16;
      if (bytes == 0 || bytes % 16 != 0) co_return kBlkSIoErr;
      for (size_t off = 16; off < out.size() && st.ok(); off += 16) {
        uint8_t seg[16];
        out.copy_to(off, seg, sizeof seg);
        uint64_t s;
        uint32_t n, flags;
        std::memcpy(&s, seg, 8);
        std::memcpy(&n, seg + 8, 4);
        std::memcpy(&flags, seg + 12, 4);
        if (!in_range(s, uint64_t(n) * kSector)) co_return kBlkSIoErr;
        if (flags & ~(type == kBlkTDiscard ? 0u : kWriteZeroesFUnmap)) co_return kBlkSUnsupp;
        observe(s * kSector, uint64_t(n) * kSector);
        if (type == kBlkTDiscard) {
          if (n > 0) st = co_await blk.discard(s * kSector, uint64_t(n) * kSector);
        } else {
          const uint32_t f = (flags & kWriteZeroesFUnmap) ? uint32_t(kReqMayUnmap) : 0u;
          if (n > 0) st = co_await blk.write_zeroes(s * kSector, uint64_t(n) * kSector, f);
        }
      }
      break;
    }
    default:
      co_return kBlkSUnsupp;
  }
  co_return st.ok() ? kBlkSOk : kBlkSIoErr;
}

// ---- VhostBlkExport ----

VhostBlkExport::VhostBlkExport(std::string id, std::string path, BlockBackend* blk,
                               bool writable, uint32_t num_queues)
    : id_(std::move(id)), path_(std::move(path)), blk_(blk),
      writable_(writable && !blk->read_only()), num_queues_(num_queues) {}

VhostBlkExport::~VhostBlkExport() {
  if (listen_fd_ >= 0) {
    ctx().remove_fd_handler(listen_fd_);
    ::close(listen_fd_);
    ::unlink(path_.c_str());
  }
  delete session_;
}

uint64_t VhostBlkExport::features() const {
  uint64_t f = (1ull << kFVersion1) | (1ull << kFProtocolFeatures) |
               (1ull << kRingFIndirectDesc) | (1ull << kBlkFSegMax) | (1ull << kBlkFBlkSize) |
               (1ull << kBlkFFlush) | (1ull << kBlkFMq);
  if (writable_) {
    f |= (1ull << kBlkFDiscard) | (1ull << kBlkFWriteZeroes);
  } else {
    f |= 1ull << kBlkFRo;
  }
  return f;
}

Expected<void> VhostBlkExport::listen() {
  struct sockaddr_un sa = {};
  sa.sun_family = AF_UNIX;
  const std::string what = "--export id=" + id_ + ": addr.path '" + path_ + "'";
  if (path_.empty() || path_.size() >= sizeof sa.sun_path) {
    return MakeError(-ENAMETOOLONG, what + " is empty or longer than " +
                                        std::to_string(sizeof sa.sun_path - 1) + " bytes");
  }
  std::memcpy(sa.sun_path, path_.data(), path_.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return MakeError(-errno, what + ": socket: " + std::strerror(errno));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) < 0 || ::listen(fd, 16) < 0) {
    const int e = errno;
    ::close(fd);
    return MakeError(-e, what + ": cannot listen: " + std::strerror(e));
  }
  listen_fd_ = fd;
  ctx().set_fd_handler(fd, [this] { accept_ready(); });
  return {};
}

void VhostBlkExport::accept_ready() {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    if (session_ || stopping_) {
      std::fprintf(stderr,
                   "blkstack-storage-daemon: vhost-user-blk export '%s': a front end is "
                   "already connected; a second connection was refused\n", id_.c_str());
      ::close(fd);
      continue;
    }
    session_ = new Session(*this, fd);
    session_->start();
  }
}

void VhostBlkExport::shutdown(std::function<void()> idle) {
  stopping_ = true;
  if (listen_fd_ >= 0) {
    ctx().remove_fd_handler(listen_fd_);
    ::close(listen_fd_);
    ::unlink(path_.c_str());
    listen_fd_ = -1;
  }
  if (!session_) {
    if (idle) idle();
    return;
  }
  idle_ = std::move(idle);
  session_->cancel();
}

void VhostBlkExport::session_closed() {
  // Freed from the loop's top level: the caller is the session's coroutine.
  ctx().post([this] {
    delete std::exchange(session_, nullptr);
    if (stopping_ && idle_) std::exchange(idle_, {})();
  });
}

}  // namespace blk::vhost
