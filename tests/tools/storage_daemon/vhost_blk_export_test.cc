// VhostBlkExport with a front end played by the test: a real unix socket,
// guest memory in a real memfd passed with SCM_RIGHTS, kick and call
// eventfds, a real file graph on an IOThread.  The test writes descriptor
// chains into "guest" memory as a virtio driver would and checks the
// status bytes, the used ring and the backing file.  Covers what a booted
// guest does not: WRITE_ZEROES, errors (range, type, layout), malformed
// rings and messages, GET_VRING_BASE, a second front end, read-only.
#include "tools/storage_daemon/vhost_blk_export.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <blkstack/block/registry.h>
#include "tools/storage_daemon/vhost_user_wire.h"
#include "tools/storage_daemon/virtqueue.h"
#include <blkstack/util/iothread.h>

namespace blk::vhost {
namespace {

constexpr size_t kMem = 1 << 20;
constexpr uint64_t kGpa = 0x100000;  // guest-physical base of the region
constexpr uint32_t kNum = 16;
constexpr uint64_t kDesc = 0, kAvail = 0x1000, kUsed = 0x2000;
constexpr uint64_t kHdr = 0x10000, kData = 0x20000, kStatus = 0xF0000;
constexpr uint64_t kDiskBytes = 4 << 20;

std::string TmpPath(const std::string& name) {
  const char* d = getenv("TEST_TMPDIR");
  std::string base = d ? d : "/tmp";
  if (base.size() > 60) base = "/tmp";
  return base + "/" + name + "." + std::to_string(getpid());
}

class FrontEnd {
 public:
  ~FrontEnd() {
    if (fd_ >= 0) close(fd_);
  }
  bool connect_to(const std::string& path) {
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un sa = {};
    sa.sun_family = AF_UNIX;
    std::strncpy(sa.sun_path, path.c_str(), sizeof sa.sun_path - 1);
    timeval tv = {5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return ::connect(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0;
  }
  void send(uint32_t req, const std::string& payload, std::vector<int> fds = {},
            uint32_t flags = kVersion) {
    std::string m = EncodeHeader({req, flags, uint32_t(payload.size())}) + payload;
    iovec iov = {m.data(), m.size()};
    msghdr mh = {};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int) * 8)];
    if (!fds.empty()) {
      mh.msg_control = cbuf;
      mh.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
      cmsghdr* c = CMSG_FIRSTHDR(&mh);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
      std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    }
    ASSERT_EQ(sendmsg(fd_, &mh, MSG_NOSIGNAL), ssize_t(m.size()));
  }
  // Reads one reply; "" (and eof = true) if the back end closed.
  std::string reply(uint32_t want_req, bool* eof = nullptr) {
    uint8_t h[kHeaderSize];
    if (!read_all(h, sizeof h)) {
      if (eof) *eof = true;
      return "";
    }
    MsgHeader mh;
    EXPECT_TRUE(ParseHeader(h, sizeof h, &mh));
    EXPECT_EQ(mh.request, want_req);
    EXPECT_TRUE(mh.flags & kFlagReply);
    std::string p(mh.size, '\0');
    EXPECT_TRUE(read_all(reinterpret_cast<uint8_t*>(p.data()), p.size()));
    return p;
  }
  uint64_t reply_u64(uint32_t req) {
    const std::string p = reply(req);
    uint64_t v = ~0ull;
    if (p.size() == 8) std::memcpy(&v, p.data(), 8);
    return v;
  }
  // True when the back end closed the connection (within 5 s).
  bool closed_by_peer() {
    uint8_t b;
    return recv(fd_, &b, 1, 0) == 0;
  }
  int fd() const { return fd_; }

 private:
  bool read_all(uint8_t* p, size_t n) {
    while (n > 0) {
      const ssize_t r = recv(fd_, p, n, 0);
      if (r <= 0) return false;
      p += r;
      n -= size_t(r);
    }
    return true;
  }
  int fd_ = -1;
};

class VhostExport : public ::testing::Test {
 protected:
  void SetUp() override { Start(true); }
  void TearDown() override { Stop(); }

  void Start(bool writable) {
    disk_ = TmpPath("vhost-disk");
    sock_ = TmpPath("vhost-sock");
    unlink(sock_.c_str());
    int f = open(disk_.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(f, 0);
    ASSERT_EQ(ftruncate(f, kDiskBytes), 0);
    close(f);
    auto t = IOThread::Create("vhost-test");
    ASSERT_TRUE(t.ok());
    thread_ = std::move(*t);
    Expected<void> listened;
    thread_->run_sync([&] {
      auto b = OpenBackend(thread_->ctx(), "driver=file,filename=" + disk_ + ",discard=unmap");
      ASSERT_TRUE(b.ok()) << b.error().message;
      blk_ = std::move(*b);
      exp_ = std::make_unique<VhostBlkExport>("vdisk-test", sock_, blk_.get(), writable, 2);
      listened = exp_->listen();
    });
    ASSERT_TRUE(listened.ok()) << listened.error().message;
  }
  void Stop() {
    if (!thread_) return;
    std::atomic<bool> idle{false};
    thread_->run_sync([&] { exp_->shutdown([&] { idle = true; }); });
    for (int i = 0; i < 500 && !idle; i++) usleep(10000);
    EXPECT_TRUE(idle);
    thread_->run_sync([&] {
      exp_.reset();
      blk_.reset();
    });
    thread_.reset();
    EXPECT_NE(access(sock_.c_str(), F_OK), 0) << "socket file left behind";
    unlink(disk_.c_str());
    if (mem_) munmap(mem_, kMem);
    mem_ = nullptr;
    for (int f : {memfd_, kick_, call_}) if (f >= 0) close(f);
    memfd_ = kick_ = call_ = -1;
  }

  // The front end's side of QEMU's start-up sequence for queue 0.
  void Handshake(FrontEnd& fe, uint32_t qi = 0) {
    ASSERT_TRUE(fe.connect_to(sock_));
    fe.send(kGetFeatures, "");
    const uint64_t features = fe.reply_u64(kGetFeatures);
    features_ = features;
    fe.send(kSetFeatures, EncodeU64(features & ((1ull << kFVersion1) | (1ull << kFProtocolFeatures) |
                                                (1ull << kBlkFDiscard) | (1ull << kBlkFWriteZeroes) |
                                                (1ull << kBlkFFlush) | (1ull << kRingFIndirectDesc))));
    fe.send(kGetProtocolFeatures, "");
    const uint64_t pf = fe.reply_u64(kGetProtocolFeatures);
    ASSERT_TRUE(pf & (1ull << kProtocolConfig));
    ASSERT_TRUE(pf & (1ull << kProtocolReplyAck));
    fe.send(kSetProtocolFeatures, EncodeU64((1ull << kProtocolConfig) | (1ull << kProtocolReplyAck)));
    fe.send(kSetOwner, "");
    if (!mem_) {
      memfd_ = memfd_create("guest", MFD_CLOEXEC);
      ASSERT_EQ(ftruncate(memfd_, kMem), 0);
      mem_ = static_cast<uint8_t*>(mmap(nullptr, kMem, PROT_READ | PROT_WRITE, MAP_SHARED, memfd_, 0));
      ASSERT_NE(mem_, MAP_FAILED);
    }
    uva_ = reinterpret_cast<uint64_t>(mem_);
    fe.send(kSetMemTable, EncodeMemTable({{kGpa, kMem, uva_, 0}}), {memfd_},
            kVersion | kFlagNeedReply);
    ASSERT_EQ(fe.reply_u64(kSetMemTable), 0u);
    StartRing(fe, qi);
  }
  // Starts queue `qi` on the one ring layout of this fixture.
  void StartRing(FrontEnd& fe, uint32_t qi = 0) {
    std::memset(mem_, 0, 0x3000);
    avail_ = 0;
    fe.send(kSetVringNum, EncodeVringState({qi, kNum}));
    fe.send(kSetVringBase, EncodeVringState({qi, 0}));
    fe.send(kSetVringAddr, EncodeVringAddr({qi, 0, uva_ + kDesc, uva_ + kUsed, uva_ + kAvail, 0}),
            {}, kVersion | kFlagNeedReply);
    ASSERT_EQ(fe.reply_u64(kSetVringAddr), 0u);
    if (kick_ < 0) kick_ = eventfd(0, EFD_CLOEXEC);
    if (call_ < 0) call_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    fe.send(kSetVringCall, EncodeU64(qi), {call_});
    fe.send(kSetVringKick, EncodeU64(qi), {kick_});
    fe.send(kSetVringEnable, EncodeVringState({qi, 1}), {}, kVersion | kFlagNeedReply);
    ASSERT_EQ(fe.reply_u64(kSetVringEnable), 0u);
  }

  void Desc(uint16_t i, uint64_t off, uint32_t len, uint16_t flags, uint16_t next) {
    uint8_t* d = mem_ + kDesc + 16 * i;
    const uint64_t gpa = kGpa + off;
    std::memcpy(d, &gpa, 8);
    std::memcpy(d + 8, &len, 4);
    std::memcpy(d + 12, &flags, 2);
    std::memcpy(d + 14, &next, 2);
  }
  void Header(uint32_t type, uint64_t sector) {
    std::memset(mem_ + kHdr, 0, 16);
    std::memcpy(mem_ + kHdr, &type, 4);
    std::memcpy(mem_ + kHdr + 8, &sector, 8);
  }
  // Makes chain `head` available and kicks.
  void Offer(uint16_t head) {
    std::memcpy(mem_ + kAvail + 4 + 2 * (avail_ % kNum), &head, 2);
    avail_++;
    __atomic_store_n(reinterpret_cast<uint16_t*>(mem_ + kAvail + 2), avail_, __ATOMIC_RELEASE);
    const uint64_t one = 1;
    ASSERT_EQ(write(kick_, &one, 8), 8);
  }
  // Waits for the call eventfd and the used index to reach `n`.
  bool WaitUsed(uint16_t n, int ms = 5000) {
    for (int waited = 0; waited < ms; waited += 10) {
      if (__atomic_load_n(reinterpret_cast<uint16_t*>(mem_ + kUsed + 2), __ATOMIC_ACQUIRE) == n) {
        pollfd p = {call_, POLLIN, 0};
        return poll(&p, 1, ms) == 1;
      }
      usleep(10000);
    }
    return false;
  }
  uint32_t UsedLen(uint16_t i) {
    uint32_t v;
    std::memcpy(&v, mem_ + kUsed + 4 + 8 * (i % kNum) + 4, 4);
    return v;
  }
  // A three-descriptor request: header, data (device-writable for IN),
  // status.  Returns the status byte.
  uint8_t Rw(uint32_t type, uint64_t sector, uint32_t len) {
    Header(type, sector);
    mem_[kStatus] = 0xee;
    const uint16_t w = (type == 0 || type == 8) ? kDescFWrite : 0;  // IN, GET_ID
    Desc(0, kHdr, 16, kDescFNext, 1);
    Desc(1, kData, len, kDescFNext | w, 2);
    Desc(2, kStatus, 1, kDescFWrite, 0);
    const uint16_t before = avail_;
    Offer(0);
    EXPECT_TRUE(WaitUsed(uint16_t(before + 1)));
    return mem_[kStatus];
  }
  std::string FileBytes(off_t off, size_t n) {
    std::string s(n, '\0');
    int f = open(disk_.c_str(), O_RDONLY);
    EXPECT_EQ(pread(f, s.data(), n, off), ssize_t(n));
    close(f);
    return s;
  }

  std::string disk_, sock_;
  std::unique_ptr<IOThread> thread_;
  std::unique_ptr<BlockBackend> blk_;
  std::unique_ptr<VhostBlkExport> exp_;
  int memfd_ = -1, kick_ = -1, call_ = -1;
  uint8_t* mem_ = nullptr;
  uint64_t uva_ = 0;
  uint64_t features_ = 0;
  uint16_t avail_ = 0;
};

TEST_F(VhostExport, FeaturesQueuesAndConfig) {
  FrontEnd fe;
  Handshake(fe);
  EXPECT_TRUE(features_ & (1ull << kFVersion1));
  EXPECT_TRUE(features_ & (1ull << kBlkFWriteZeroes));
  EXPECT_FALSE(features_ & (1ull << kBlkFRo));
  EXPECT_FALSE(features_ & (1ull << kRingFEventIdx));
  fe.send(kGetQueueNum, "");
  EXPECT_EQ(fe.reply_u64(kGetQueueNum), 2u);
  fe.send(kGetConfig, EncodeConfig({0, 60, 0, std::string(60, '\0')}));
  ConfigMsg c;
  const std::string r = fe.reply(kGetConfig);
  ASSERT_TRUE(ParseConfig(reinterpret_cast<const uint8_t*>(r.data()), r.size(), &c));
  uint64_t capacity;
  std::memcpy(&capacity, c.payload.data(), 8);
  EXPECT_EQ(capacity, kDiskBytes / 512);
  EXPECT_EQ(uint8_t(c.payload[34]), 2);  // num_queues
  // SET_CONFIG: nothing is writable; REPLY_ACK says so.
  fe.send(kSetConfig, EncodeConfig({32, 1, 0, std::string(1, '\1')}), {},
          kVersion | kFlagNeedReply);
  EXPECT_EQ(fe.reply_u64(kSetConfig), 1u);
}

TEST_F(VhostExport, WriteReadFlushGetId) {
  FrontEnd fe;
  Handshake(fe);
  for (uint32_t i = 0; i < 8192; i++) mem_[kData + i] = uint8_t(i * 7 + 3);
  const std::string pattern(reinterpret_cast<char*>(mem_ + kData), 8192);
  EXPECT_EQ(Rw(1, 24, 8192), 0);  // OUT at sector 24
  EXPECT_EQ(FileBytes(24 * 512, 8192), pattern);
  std::memset(mem_ + kData, 0, 8192);
  EXPECT_EQ(Rw(0, 24, 8192), 0);  // IN
  EXPECT_EQ(std::string(reinterpret_cast<char*>(mem_ + kData), 8192), pattern);
  EXPECT_EQ(UsedLen(1), 8193u);  // data + status
  EXPECT_EQ(Rw(4, 0, 0 + 0 * 0 + 0), 0);  // FLUSH (empty data descriptor is skipped)
  std::memset(mem_ + kData, 'x', 20);
  EXPECT_EQ(Rw(8, 0, 20), 0);  // GET_ID
  EXPECT_EQ(std::string(reinterpret_cast<char*>(mem_ + kData), 10), "vdisk-test");
  EXPECT_EQ(mem_[kData + 10], 0);
}

TEST_F(VhostExport, IndirectChainAndHeaderSharingTheData) {
  FrontEnd fe;
  Handshake(fe);
  // One readable buffer holding header and data (ANY_LAYOUT), in an
  // indirect table.
  const uint64_t table = 0x8000, buf = 0x30000;
  const uint32_t type = 1;
  const uint64_t sector = 100;
  std::memset(mem_ + buf, 0, 16);
  std::memcpy(mem_ + buf, &type, 4);
  std::memcpy(mem_ + buf + 8, &sector, 8);
  std::memset(mem_ + buf + 16, 0x5a, 512);
  auto put = [&](uint64_t toff, uint16_t i, uint64_t off, uint32_t len, uint16_t fl, uint16_t nx) {
    uint8_t* d = mem_ + toff + 16 * i;
    const uint64_t gpa = kGpa + off;
    std::memcpy(d, &gpa, 8);
    std::memcpy(d + 8, &len, 4);
    std::memcpy(d + 12, &fl, 2);
    std::memcpy(d + 14, &nx, 2);
  };
  put(table, 0, buf, 16 + 512, kDescFNext, 1);
  put(table, 1, kStatus, 1, kDescFWrite, 0);
  Desc(3, table, 32, kDescFIndirect, 0);
  mem_[kStatus] = 0xee;
  Offer(3);
  ASSERT_TRUE(WaitUsed(1));
  EXPECT_EQ(mem_[kStatus], 0);
  EXPECT_EQ(FileBytes(100 * 512, 512), std::string(512, '\x5a'));
}

TEST_F(VhostExport, WriteZeroesAndDiscard) {
  FrontEnd fe;
  Handshake(fe);
  std::memset(mem_ + kData, 0xff, 65536);
  ASSERT_EQ(Rw(1, 0, 65536), 0);
  // Segments: {sector, num_sectors, flags} after the header.
  auto zero_req = [&](uint32_t type, uint64_t sector, uint32_t n, uint32_t flags) {
    Header(type, 0);
    std::memcpy(mem_ + kHdr + 16, &sector, 8);
    std::memcpy(mem_ + kHdr + 24, &n, 4);
    std::memcpy(mem_ + kHdr + 28, &flags, 4);
    mem_[kStatus] = 0xee;
    Desc(0, kHdr, 32, kDescFNext, 2);
    Desc(2, kStatus, 1, kDescFWrite, 0);
    const uint16_t before = avail_;
    Offer(0);
    EXPECT_TRUE(WaitUsed(uint16_t(before + 1)));
    return mem_[kStatus];
  };
  EXPECT_EQ(zero_req(13, 8, 8, 0), 0);   // WRITE_ZEROES 4 KiB at 4 KiB
  EXPECT_EQ(zero_req(13, 32, 8, 1), 0);  // with UNMAP
  EXPECT_EQ(zero_req(11, 64, 16, 0), 0); // DISCARD 8 KiB at 32 KiB
  EXPECT_EQ(FileBytes(4096, 4096), std::string(4096, '\0'));
  EXPECT_EQ(FileBytes(16384, 4096), std::string(4096, '\0'));
  EXPECT_EQ(FileBytes(32768, 8192), std::string(8192, '\0'));
  EXPECT_EQ(FileBytes(0, 4096), std::string(4096, '\xff'));
  EXPECT_EQ(FileBytes(8192, 8192), std::string(8192, '\xff'));
  EXPECT_EQ(zero_req(13, kDiskBytes / 512, 1, 0), 1);  // past the end: IOERR
  EXPECT_EQ(zero_req(13, 0, 1, 4), 2);                  // unknown flag: UNSUPP
}

TEST_F(VhostExport, BadRequestsGetIoErrOrUnsupp) {
  FrontEnd fe;
  Handshake(fe);
  EXPECT_EQ(Rw(0, kDiskBytes / 512 - 1, 1024), 1);  // runs past the end
  EXPECT_EQ(Rw(0, ~0ull / 2, 512), 1);              // far past; no overflow
  EXPECT_EQ(Rw(1, 0, 100), 1);                      // not whole sectors
  EXPECT_EQ(Rw(99, 0, 512), 2);                     // unknown type
  // A header shorter than 16 bytes.
  Desc(0, kHdr, 8, kDescFNext, 2);
  Desc(2, kStatus, 1, kDescFWrite, 0);
  mem_[kStatus] = 0xee;
  Offer(0);
  ASSERT_TRUE(WaitUsed(avail_));
  EXPECT_EQ(mem_[kStatus], 1);
}

TEST_F(VhostExport, MalformedRingStopsTheQueueNotTheDaemon) {
  FrontEnd fe;
  Handshake(fe);
  Desc(0, kHdr, 16, kDescFNext, 1);
  Desc(1, kHdr, 16, kDescFNext, 0);  // a loop
  Offer(0);
  EXPECT_FALSE(WaitUsed(1, 300));
  // The session still answers, and GET_VRING_BASE tells how far it got.
  fe.send(kGetVringBase, EncodeVringState({0, 0}));
  const std::string r = fe.reply(kGetVringBase);
  VringState st;
  ASSERT_TRUE(ParseVringState(reinterpret_cast<const uint8_t*>(r.data()), r.size(), &st));
  EXPECT_EQ(st.num, 1u);  // the looping chain was consumed, then the queue stopped
  // A restarted ring works again; a buffer outside guest memory stops it
  // again.
  StartRing(fe);
  EXPECT_EQ(Rw(1, 0, 512), 0);
  Desc(0, kMem + 4096, 16, 0, 0);
  Offer(0);
  EXPECT_FALSE(WaitUsed(2, 300));
  StartRing(fe);
  EXPECT_EQ(Rw(0, 0, 512), 0);
}

TEST_F(VhostExport, GetVringBaseCountsConsumedRequests) {
  FrontEnd fe;
  Handshake(fe);
  for (int i = 0; i < 5; i++) ASSERT_EQ(Rw(0, uint64_t(i), 512), 0);
  fe.send(kGetVringBase, EncodeVringState({0, 0}));
  const std::string r = fe.reply(kGetVringBase);
  uint32_t num;
  std::memcpy(&num, r.data() + 4, 4);
  EXPECT_EQ(num, 5u);
  // Stopped: a kick is not served.
  Header(0, 0);
  Offer(0);
  EXPECT_FALSE(WaitUsed(6, 300));
}

TEST_F(VhostExport, MalformedMessageClosesOnlyThatSession) {
  {
    FrontEnd fe;
    Handshake(fe);
    fe.send(kSetVringNum, EncodeVringState({7, kNum}));  // no queue 7
    EXPECT_TRUE(fe.closed_by_peer());
  }
  {
    FrontEnd fe;
    ASSERT_TRUE(fe.connect_to(sock_));
    const std::string bad = EncodeHeader({kGetFeatures, 0 /* version 0 */, 0});
    ASSERT_EQ(::send(fe.fd(), bad.data(), bad.size(), MSG_NOSIGNAL), ssize_t(bad.size()));
    EXPECT_TRUE(fe.closed_by_peer());
  }
  {
    FrontEnd fe;
    ASSERT_TRUE(fe.connect_to(sock_));
    const std::string huge = EncodeHeader({kSetMemTable, kVersion, 1u << 30});
    ASSERT_EQ(::send(fe.fd(), huge.data(), huge.size(), MSG_NOSIGNAL), ssize_t(huge.size()));
    EXPECT_TRUE(fe.closed_by_peer());
  }
  FrontEnd fe;
  Handshake(fe);
  EXPECT_EQ(Rw(1, 0, 512), 0);
}

TEST_F(VhostExport, RegionLargerThanItsFileIsRefused) {
  // Mapping it would succeed, and the first guest access past the file's
  // end would kill the daemon with SIGBUS.
  FrontEnd fe;
  ASSERT_TRUE(fe.connect_to(sock_));
  int small = memfd_create("small", MFD_CLOEXEC);
  ASSERT_EQ(ftruncate(small, 4096), 0);
  fe.send(kSetMemTable, EncodeMemTable({{kGpa, kMem, 0x7f0000000000, 0}}), {small});
  close(small);
  EXPECT_TRUE(fe.closed_by_peer());
  FrontEnd ok;
  Handshake(ok);
  EXPECT_EQ(Rw(1, 0, 512), 0);
}

TEST_F(VhostExport, SecondFrontEndIsRefused) {
  FrontEnd a;
  Handshake(a);
  FrontEnd b;
  ASSERT_TRUE(b.connect_to(sock_));
  EXPECT_TRUE(b.closed_by_peer());
  EXPECT_EQ(Rw(1, 0, 512), 0);  // the first one is unaffected
}

TEST_F(VhostExport, SecondQueue) {
  // num-queues=2: queue 1 runs on its own; queue 2 does not exist.
  FrontEnd fe;
  Handshake(fe, 1);
  std::memset(mem_ + kData, 0x42, 4096);
  EXPECT_EQ(Rw(1, 8, 4096), 0);
  EXPECT_EQ(FileBytes(4096, 4096), std::string(4096, '\x42'));
  fe.send(kGetVringBase, EncodeVringState({1, 0}));
  uint32_t num;
  const std::string r = fe.reply(kGetVringBase);
  ASSERT_EQ(r.size(), 8u);
  std::memcpy(&num, r.data() + 4, 4);
  EXPECT_EQ(num, 1u);
  fe.send(kSetVringEnable, EncodeVringState({2, 1}));
  EXPECT_TRUE(fe.closed_by_peer());
}

TEST_F(VhostExport, ReadOnlyExport) {
  Stop();
  Start(false);
  FrontEnd fe;
  Handshake(fe);
  EXPECT_TRUE(features_ & (1ull << kBlkFRo));
  EXPECT_FALSE(features_ & (1ull << kBlkFDiscard));
  EXPECT_EQ(Rw(1, 0, 512), 1);
  EXPECT_EQ(Rw(0, 0, 512), 0);
}

}  // namespace
}  // namespace blk::vhost
