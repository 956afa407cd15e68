#include "tools/block_bench/run/net_engine.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <endian.h>
#include <utility>

#include <blkstack/util/clock.h>

namespace blk::bench {

namespace {

using Protocol = NetOptions::Protocol;

bool IsV6(Protocol p) { return p == Protocol::kTcpV6 || p == Protocol::kUdpV6; }

// Two 32-bit words as they lie in memory.
std::string Words(uint32_t a, uint32_t b) {
  return std::string(reinterpret_cast<char*>(&a), 4) + std::string(reinterpret_cast<char*>(&b), 4);
}

}  // namespace

std::string NetCloseMessage() { return Words(htole32(kNetLinkMagic), htole32(kNetLinkClose)); }
std::string NetOpenMessage() { return Words(htonl(kNetLinkMagic), htonl(kNetLinkOpen)); }

NetEngine::NetEngine(const JobOptions& job, uint32_t clone, bool reads)
    : o_(job.net),
      peer_(NetPeer(job)),
      stream_(job.net.protocol == Protocol::kUnix || NetTcp(job.net.protocol)),
      listener_(NetListens(job.net, reads)),
      udp_trailer_(NetUdp(job.net.protocol) && job.verify == VerifyMethod::kNone),
      size_(job.size ? job.size->value : 0),
      port_(job.net.port + clone),
      display_(NetDisplay(job, clone)),
      splice_(job.ioengine == IoEngine::kNetsplice && NetTcp(job.net.protocol)) {}

NetEngine::~NetEngine() {
  if (watched_ >= 0 && ctx_) ctx_->remove_fd_handler(watched_);
  for (int p : pipe_) {
    if (p >= 0) ::close(p);
  }
  if (fd_ >= 0 && fd_ != listen_fd_) ::close(fd_);
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (listen_fd_ >= 0 && o_.protocol == Protocol::kUnix) ::unlink(peer_.c_str());
}

int NetEngine::fail(const std::string& where, int err) {
  error_ = where + " (" + display_ + ")";
  return -err;
}

Expected<std::unique_ptr<NetEngine>> NetEngine::Create(const JobOptions& job, uint32_t clone,
                                                       bool reads) {
  std::unique_ptr<NetEngine> e(new NetEngine(job, clone, reads));
  Expected<void> r = e->init();
  if (!r.ok()) return r.error();
  return e;
}

void NetEngine::set_options(int fd, bool accepted) {
  const int one = 1;
  if (o_.nodelay && NetTcp(o_.protocol)) ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (accepted) return;
  if (o_.window_size && o_.protocol != Protocol::kUnix) {
    const int w = int(o_.window_size);
    if (listener_ || o_.pingpong) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &w, sizeof w);
    if (!listener_ || o_.pingpong) ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &w, sizeof w);
  }
  if (o_.mss && NetTcp(o_.protocol)) {
    const int m = int(o_.mss);
    ::setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &m, sizeof m);
  }
}

Expected<void> NetEngine::init() {
  const auto err = [&](const std::string& what) {
    const int e = errno;
    return MakeError(-e, what + " (" + display_ + "): " + std::strerror(e));
  };
  // netsplice over tcp: the pipe every block goes through.
  if (splice_ && ::pipe2(pipe_, O_CLOEXEC | O_NONBLOCK) != 0) return err("pipe");
  const int type = (stream_ ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC;
  if (o_.protocol == Protocol::kUnix) {
    sockaddr_un un{};
    un.sun_family = AF_UNIX;
    std::memcpy(un.sun_path, peer_.data(), peer_.size());
    std::memcpy(&addr_, &un, sizeof un);
    addr_len_ = socklen_t(offsetof(sockaddr_un, sun_path) + peer_.size() + 1);
    if (!listener_) return {};
    listen_fd_ = ::socket(AF_UNIX, type, 0);
    if (listen_fd_ < 0) return err("socket");
    ::unlink(peer_.c_str());
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr_), addr_len_) < 0) return err("bind");
    if (::listen(listen_fd_, 10) < 0) return err("listen");
    return {};
  }
  const int family = IsV6(o_.protocol) ? AF_INET6 : AF_INET;
  if (!listener_) {
    // The peer: an address or a name (getaddrinfo takes both).
    addrinfo hints{};
    hints.ai_family = family;
    hints.ai_socktype = stream_ ? SOCK_STREAM : SOCK_DGRAM;
    addrinfo* res = nullptr;
    const int g = getaddrinfo(peer_.c_str(), nullptr, &hints, &res);
    if (g != 0) return MakeError(-EINVAL, "getaddrinfo (" + display_ + "): " + gai_strerror(g));
    std::memcpy(&addr_, res->ai_addr, res->ai_addrlen);
    addr_len_ = res->ai_addrlen;
    freeaddrinfo(res);
    if (family == AF_INET) reinterpret_cast<sockaddr_in*>(&addr_)->sin_port = htons(uint16_t(port_));
    else reinterpret_cast<sockaddr_in6*>(&addr_)->sin6_port = htons(uint16_t(port_));
    return {};
  }
  listen_fd_ = ::socket(family, type, 0);
  if (listen_fd_ < 0) return err("socket");
  const int one = 1;
  if (::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0)
    return err("setsockopt SO_REUSEADDR");
  if (::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0)
    return err("setsockopt SO_REUSEPORT");
  set_options(listen_fd_, false);
  sockaddr_storage a{};
  socklen_t len;
  if (family == AF_INET) {
    sockaddr_in in{};
    in.sin_family = AF_INET;
    in.sin_port = htons(uint16_t(port_));
    in.sin_addr.s_addr = htonl(INADDR_ANY);
    if (NetUdp(o_.protocol) && NetMulticast(peer_)) {
      ip_mreq m{};
      inet_pton(AF_INET, peer_.c_str(), &m.imr_multiaddr);
      m.imr_interface.s_addr = htonl(INADDR_ANY);
      if (!o_.interface.empty()) inet_pton(AF_INET, o_.interface.c_str(), &m.imr_interface);
      if (::setsockopt(listen_fd_, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof m) < 0)
        return err("setsockopt IP_ADD_MEMBERSHIP");
      in.sin_addr = m.imr_multiaddr;
    }
    std::memcpy(&a, &in, sizeof in);
    len = sizeof in;
  } else {
    sockaddr_in6 in6{};
    in6.sin6_family = AF_INET6;
    in6.sin6_port = htons(uint16_t(port_));
    in6.sin6_addr = in6addr_any;
    std::memcpy(&a, &in6, sizeof in6);
    len = sizeof in6;
  }
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), len) < 0) return err("bind");
  if (stream_ && ::listen(listen_fd_, 10) < 0) return err("listen");
  return {};
}

int NetEngine::watch(AioContext& ctx, int fd) {
  if (watched_ == fd) return 0;
  if (watched_ >= 0) ctx.remove_fd_handler(watched_);
  ctx_ = &ctx;
  watched_ = fd;
  // Edge-triggered: every wait follows an EAGAIN, so no readiness is missed.
  const auto wake = [this] {
    if (!waiting_) return;
    waiting_ = false;
    woke_ = true;
    sleeps_->cancel_all();
  };
  const int r = ctx.set_fd_handler(fd, wake, wake, AioContext::FdTrigger::kEdge);
  if (r < 0) watched_ = -1;
  return r;
}

Task<int> NetEngine::wait(SleepGroup& sleeps) {
  // The socket's readiness ends the sleep by cancelling the clone's group;
  // woke_ says it was the socket, cancelled_ that the job is ending.  Any
  // other cancel of the group (a rate or ramp sleep's owner) is not ours:
  // wait again.
  if (cancelled_) co_return -ECANCELED;
  sleeps_ = &sleeps;
  waiting_ = true;
  woke_ = false;
  while (!woke_ && !cancelled_) (void)co_await sleeps.until(*ctx_, NowNs() + 3'600'000'000'000);
  waiting_ = false;
  co_return woke_ ? 0 : -ECANCELED;
}

void NetEngine::cancel() {
  cancelled_ = true;
  if (waiting_ && sleeps_) sleeps_->cancel_all();
}

Task<int> NetEngine::open(AioContext& ctx, SleepGroup& sleeps, FILE* info) {
  ctx_ = &ctx;
  if (listener_ && stream_) {
    if (info) {
      std::fprintf(info, "fio: waiting for connection\n");
      std::fflush(info);
    }
    if (const int w = watch(ctx, listen_fd_); w < 0) co_return fail("epoll_ctl", -w);
    for (;;) {
      fd_ = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd_ >= 0) break;
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) co_return fail("accept", errno);
      const int w = co_await wait(sleeps);
      if (w < 0) co_return w;
    }
    set_options(fd_, true);
    if (const int w = watch(ctx, fd_); w < 0) co_return fail("epoll_ctl", -w);
    co_return 0;
  }
  if (listener_) {  // udp: the sender's open message says who it is
    fd_ = listen_fd_;
    if (const int w = watch(ctx, fd_); w < 0) co_return fail("epoll_ctl", -w);
    for (;;) {
      uint32_t msg[2];
      addr_len_ = sizeof addr_;
      const ssize_t r = ::recvfrom(fd_, msg, sizeof msg, 0, reinterpret_cast<sockaddr*>(&addr_),
                                   &addr_len_);
      if (r == ssize_t(sizeof msg)) {
        if (ntohl(msg[0]) != kNetLinkMagic || ntohl(msg[1]) != kNetLinkOpen) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "bad udp open magic %x/%x", ntohl(msg[0]), ntohl(msg[1]));
          co_return fail(buf, EINVAL);
        }
        co_return 0;
      }
      if (r >= 0) co_return fail("udp open message of " + std::to_string(r) + " bytes", EINVAL);
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) co_return fail("recvfrom", errno);
      const int w = co_await wait(sleeps);
      if (w < 0) co_return w;
    }
  }
  const int family = reinterpret_cast<sockaddr*>(&addr_)->sa_family;
  fd_ = ::socket(family, (stream_ ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) co_return fail("socket", errno);
  set_options(fd_, false);
  if (const int w = watch(ctx, fd_); w < 0) co_return fail("epoll_ctl", -w);
  if (!stream_) {
    if (NetMulticast(peer_)) {
      if (!o_.interface.empty()) {
        in_addr a;
        inet_pton(AF_INET, o_.interface.c_str(), &a);
        if (::setsockopt(fd_, IPPROTO_IP, IP_MULTICAST_IF, &a, sizeof a) < 0)
          co_return fail("setsockopt IP_MULTICAST_IF", errno);
      }
      const int ttl = int(o_.ttl);
      if (::setsockopt(fd_, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof ttl) < 0)
        co_return fail("setsockopt IP_MULTICAST_TTL", errno);
    }
    const std::string m = NetOpenMessage();
    if (::sendto(fd_, m.data(), m.size(), 0, reinterpret_cast<sockaddr*>(&addr_), addr_len_) < 0)
      co_return fail("sendto udp link open", errno);
    co_return 0;
  }
  for (;;) {
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr_), addr_len_) == 0) co_return 0;
    // A unix listener's full backlog: nothing started, try again shortly.
    if (errno != EAGAIN || family != AF_UNIX) break;
    (void)co_await sleeps.until(ctx, NowNs() + 10'000'000);
    if (cancelled_) co_return -ECANCELED;
  }
  if (errno != EINPROGRESS) co_return fail("connect", errno);
  const int w = co_await wait(sleeps);
  if (w < 0) co_return w;
  int soerr = 0;
  socklen_t l = sizeof soerr;
  ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &soerr, &l);
  if (soerr != 0) co_return fail("connect", soerr);
  co_return 0;
}

Task<int64_t> NetEngine::splice_send(const uint8_t* buf, size_t len, SleepGroup& sleeps) {
  size_t done = 0;
  while (done < len) {
    // The block is copied into the pipe (write(2)), not vmspliced: tcp keeps
    // references to spliced pages until they are acknowledged, and the
    // slot's buffer is the next block's.
    if (in_pipe_ == 0) {
      const ssize_t put = ::write(pipe_[1], buf + done, std::min(len - done, kPipeChunk));
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) co_return fail("write to the splice pipe", put < 0 ? errno : EIO);
      in_pipe_ = size_t(put);
    }
    const ssize_t r = ::splice(pipe_[0], nullptr, fd_, nullptr, in_pipe_,
                               SPLICE_F_NONBLOCK | SPLICE_F_MOVE |
                                   (sent_ + done + in_pipe_ < size_ ? SPLICE_F_MORE : 0u));
    if (r > 0) {
      in_pipe_ -= size_t(r);
      done += size_t(r);
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno != EAGAIN) co_return fail("splice to the socket", errno);
    const int w = co_await wait(sleeps);
    if (w < 0) co_return w;
  }
  co_return int64_t(len);
}

Task<int64_t> NetEngine::send_all(const uint8_t* buf, size_t len, int flags, SleepGroup& sleeps) {
  if (splice_) co_return co_await splice_send(buf, len, sleeps);
  size_t done = 0;
  while (done < len) {
    ssize_t r;
    if (stream_) {
      r = ::send(fd_, buf + done, len - done, flags | MSG_NOSIGNAL);
    } else {
      r = ::sendto(fd_, buf, len, flags | MSG_NOSIGNAL, reinterpret_cast<sockaddr*>(&addr_),
                   addr_len_);
      if (r >= 0) r = ssize_t(len);  // one datagram
    }
    if (r >= 0) {
      done += size_t(r);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) co_return fail("send", errno);
    const int w = co_await wait(sleeps);
    if (w < 0) co_return w;
  }
  co_return int64_t(len);
}

ssize_t NetEngine::splice_recv(uint8_t* buf, size_t len) {
  const ssize_t r = ::splice(fd_, nullptr, pipe_[1], nullptr, std::min(len, kPipeChunk),
                             SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
  if (r <= 0) return r;  // the end of the stream, or errno (EAGAIN: wait)
  size_t got = 0;
  while (got < size_t(r)) {
    const ssize_t n = ::read(pipe_[0], buf + got, size_t(r) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      errno = n < 0 ? errno : EIO;  // the pipe held less than splice put in
      return -1;
    }
    got += size_t(n);
  }
  return r;
}

Task<int64_t> NetEngine::recv_block(uint8_t* buf, size_t len, SleepGroup& sleeps) {
  const std::string close_msg = NetCloseMessage();
  size_t done = 0;
  while (done < len) {
    ssize_t r;
    if (stream_) {
      r = splice_ ? splice_recv(buf + done, len - done) : ::recv(fd_, buf + done, len - done, 0);
    } else {
      sockaddr_storage from{};
      socklen_t from_len = sizeof from;
      r = ::recvfrom(fd_, buf, len, 0, reinterpret_cast<sockaddr*>(&from), &from_len);
      if (r >= 0 && listener_) {
        addr_ = from;
        addr_len_ = from_len;
      }
    }
    if (r > 0) {
      // fio's close message, received on its own: the peer is done.
      if (done == 0 && r == ssize_t(close_msg.size()) &&
          std::memcmp(buf, close_msg.data(), close_msg.size()) == 0)
        co_return 0;
      if (!stream_) {
        if (udp_trailer_ && seq_check_ && size_t(r) >= kNetSeqTrailer) {
          uint64_t t[3];
          std::memcpy(t, buf + r - kNetSeqTrailer, sizeof t);
          if (le64toh(t[0]) == kNetSeqMagic) {
            if (le64toh(t[2]) != len) {
              seq_check_ = false;  // fio: another block size, no more checks
            } else {
              const uint64_t seq = le64toh(t[1]);
              if (seq > seq_) dropped_ += seq - seq_;
              seq_ = seq + 1;
            }
          }
        }
        co_return int64_t(len);  // one datagram is the I/O
      }
      done += size_t(r);
      continue;
    }
    if (r == 0) {
      if (!stream_) continue;  // an empty datagram
      co_return 0;  // the end of the stream (a block it cut short is not counted)
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) co_return fail("recv", errno);
    const int w = co_await wait(sleeps);
    if (w < 0) co_return w;
  }
  co_return int64_t(len);
}

Task<int64_t> NetEngine::transfer(Dir d, uint8_t* buf, size_t len, SleepGroup& sleeps) {
  if (fd_ < 0) co_return -ENOTCONN;
  if (d == Dir::kWrite) {
    if (udp_trailer_ && len >= kNetSeqTrailer) {
      const uint64_t t[3] = {htole64(kNetSeqMagic), htole64(seq_++), htole64(len)};
      std::memcpy(buf + len - kNetSeqTrailer, t, sizeof t);
    }
    // MSG_MORE while more of size= follows (fio's rule), never in pingpong.
    // (Per pass of size= bytes: loops= and time_based start again.)
    const int flags =
        stream_ && !o_.pingpong && size_ && sent_ % size_ + len < size_ ? MSG_MORE : 0;
    const int64_t r = co_await send_all(buf, len, flags, sleeps);
    if (r <= 0) co_return r;
    sent_ += len;
    if (o_.pingpong) co_return co_await recv_block(buf, len, sleeps);
    co_return r;
  }
  const int64_t r = co_await recv_block(buf, len, sleeps);
  if (r <= 0 || !o_.pingpong) co_return r;
  co_return co_await send_all(buf, len, 0, sleeps);
}

void NetEngine::close() {
  if (closed_) return;
  closed_ = true;
  if (fd_ >= 0 && (stream_ || addr_len_)) {
    // fio's close message, whole: a reader whose size= is larger than what
    // was sent ends on it.  The socket may be full at the end of a fast
    // send: wait for room, at most kCloseWaitMs (less when interrupted:
    // none; a peer that is gone: an error at once).
    constexpr int kCloseWaitMs = 2000;
    const std::string m = NetCloseMessage();
    size_t done = 0;
    const int64_t deadline = NowNs() + int64_t(kCloseWaitMs) * 1'000'000;
    while (done < m.size()) {
      const ssize_t r =
          stream_ ? ::send(fd_, m.data() + done, m.size() - done, MSG_NOSIGNAL | MSG_DONTWAIT)
                  : ::sendto(fd_, m.data(), m.size(), MSG_NOSIGNAL | MSG_DONTWAIT,
                             reinterpret_cast<sockaddr*>(&addr_), addr_len_);
      if (r >= 0) {
        done = stream_ ? done + size_t(r) : m.size();
        continue;
      }
      if (errno == EINTR) continue;
      const int64_t left_ms = (deadline - NowNs()) / 1'000'000;
      if ((errno != EAGAIN && errno != EWOULDBLOCK) || cancelled_ || left_ms <= 0) break;
      pollfd p{fd_, POLLOUT, 0};
      (void)::poll(&p, 1, int(std::min<int64_t>(left_ms, 100)));
    }
  }
  if (watched_ >= 0 && ctx_) ctx_->remove_fd_handler(watched_);
  watched_ = -1;
  if (fd_ >= 0 && fd_ != listen_fd_) ::close(fd_);
  fd_ = -1;
  if (listen_fd_ >= 0) {
    ::close(listen_fd_);
    if (o_.protocol == Protocol::kUnix) ::unlink(peer_.c_str());
  }
  listen_fd_ = -1;
}

}  // namespace blk::bench
