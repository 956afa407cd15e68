#include "tools/storage_daemon/nbd_server.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "tools/storage_daemon/async_socket.h"
#include "tools/storage_daemon/nbd_wire.h"

namespace blk::nbd {

NbdServer::NbdServer(AioContext& main, std::vector<NbdExport*> exports)
    : main_(main), exports_(std::move(exports)) {}

NbdServer::~NbdServer() {
  stop();
}

void NbdServer::stop() {
  stopped_ = true;
  for (int fd : listen_fds_) {
    main_.remove_fd_handler(fd);
    ::close(fd);
  }
  listen_fds_.clear();
  for (const std::string& p : unix_paths_) ::unlink(p.c_str());
  unix_paths_.clear();
  for (AsyncSocket* s : negotiating_) s->cancel();
}

namespace {
Error SockError(const std::string& what, const std::string& addr, int err) {
  return MakeError(-err, "--nbd-server: " + what + " " + addr + ": " + std::strerror(err));
}
}  // namespace

Expected<void> NbdServer::listen_unix(const std::string& path) {
  struct sockaddr_un sa = {};
  sa.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof sa.sun_path) {
    return MakeError(-ENAMETOOLONG, "--nbd-server: addr.path '" + path +
                                        "' is empty or longer than " +
                                        std::to_string(sizeof sa.sun_path - 1) + " bytes");
  }
  std::memcpy(sa.sun_path, path.data(), path.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return SockError("socket for", path, errno);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) < 0 || ::listen(fd, 1024) < 0) {
    const int e = errno;
    ::close(fd);
    return SockError("cannot listen on unix socket", path, e);
  }
  listen_fds_.push_back(fd);
  unix_paths_.push_back(path);
  main_.set_fd_handler(fd, [this, fd] { accept_ready(fd); });
  return {};
}

Expected<void> NbdServer::listen_inet(const std::string& host, const std::string& port) {
  struct addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  struct addrinfo* res = nullptr;
  const std::string addr = host + ":" + port;
  if (int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &res);
      rc != 0) {
    return MakeError(-EINVAL, "--nbd-server: cannot resolve " + addr + ": " + gai_strerror(rc));
  }
  int err = 0;
  for (auto* ai = res; ai; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      err = errno;
      continue;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || ::listen(fd, 1024) < 0) {
      err = errno;
      ::close(fd);
      continue;
    }
    listen_fds_.push_back(fd);
    main_.set_fd_handler(fd, [this, fd] { accept_ready(fd); });
    ::freeaddrinfo(res);
    return {};
  }
  ::freeaddrinfo(res);
  return SockError("cannot listen on", addr, err ? err : EADDRNOTAVAIL);
}

void NbdServer::accept_ready(int lfd) {
  // Level-triggered: take what is queued now, the rest on the next pass.
  for (int i = 0; i < 64 && !stopped_; i++) {
    const int fd = ::accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or EMFILE: try again next pass
    Spawn(main_, negotiate(fd));
  }
}

NbdExport* NbdServer::find(const std::string& name) const {
  for (NbdExport* e : exports_) {
    if (e->name() == name) return e;
  }
  if (name.empty() && !exports_.empty()) return exports_[0];
  return nullptr;
}

Task<void> NbdServer::negotiate(int fd) {
  auto sock = std::make_unique<AsyncSocket>(main_, fd);
  AsyncSocket* s = sock.get();
  negotiating_.insert(s);
  Timer deadline(main_, [s] { s->cancel(); });
  deadline.arm_in(kNegotiationTimeoutNs);
  if (stopped_) s->cancel();

  NbdExport* chosen = nullptr;
  Negotiated neg;
  bool export_name_reply = false;  // NBD_OPT_EXPORT_NAME: no option reply
  bool no_zeroes = false;
  std::string out = EncodeGreeting(kFlagFixedNewstyle | kFlagNoZeroes);
  int rc = co_await s->write_all(out);
  uint8_t buf4[4];
  if (rc == 0) rc = co_await s->read_exact(buf4, 4);
  if (rc == 0) {
    const uint32_t cflags = Load32(buf4);
    no_zeroes = cflags & kClientNoZeroes;
    if (cflags & ~(kClientFixedNewstyle | kClientNoZeroes)) rc = -EINVAL;
  }
  std::string data;
  while (rc == 0 && !chosen) {
    uint8_t hdr[kOptionHeaderSize];
    rc = co_await s->read_exact(hdr, sizeof hdr);
    if (rc < 0) break;
    OptionHeader oh;
    if (!ParseOptionHeader(hdr, sizeof hdr, &oh) || oh.length > kMaxOptionData) {
      rc = -EPROTO;
      break;
    }
    data.resize(oh.length);
    rc = co_await s->read_exact(data.data(), oh.length);
    if (rc < 0) break;
    const auto* d = reinterpret_cast<const uint8_t*>(data.data());
    auto reply = [&](uint32_t type, std::string_view payload = {}) -> Task<int> {
      out = EncodeOptionReply(oh.option, type, payload);
      return s->write_all(out);
    };
    switch (oh.option) {
      case kOptExportName: {
        NbdExport* e = find(data);
        if (!e) {
          rc = -ENOENT;  // the protocol's only answer: close
          break;
        }
        out = EncodeExportNameReply(e->size(), e->tx_flags(), no_zeroes);
        rc = co_await s->write_all(out);
        if (rc == 0) chosen = e, export_name_reply = true;
        break;
      }
      case kOptAbort:
        co_await reply(kRepAck);
        rc = -ECONNABORTED;
        break;
      case kOptList:
        if (oh.length != 0) {
          rc = co_await reply(kRepErrInvalid);
          break;
        }
        for (NbdExport* e : exports_) {
          if (rc == 0) rc = co_await reply(kRepServer, EncodeRepServer(e->name()));
        }
        if (rc == 0) rc = co_await reply(kRepAck);
        break;
      case kOptInfo:
      case kOptGo: {
        InfoRequest ir;
        if (!ParseInfoRequest(d, oh.length, &ir)) {
          rc = co_await reply(kRepErrInvalid);
          break;
        }
        NbdExport* e = find(ir.name);
        if (!e) {
          rc = co_await reply(kRepErrUnknown);
          break;
        }
        rc = co_await reply(kRepInfo, EncodeInfoExport(e->size(), e->tx_flags()));
        for (uint16_t t : ir.infos) {
          if (rc == 0 && t == kInfoName) rc = co_await reply(kRepInfo, EncodeInfoName(e->name()));
          if (rc == 0 && t == kInfoDescription && !e->description().empty()) {
            std::string desc;
            Put16(&desc, kInfoDescription);
            desc += e->description();
            rc = co_await reply(kRepInfo, desc);
          }
        }
        // Always sent: the graph's alignment is a real constraint.
        if (rc == 0) {
          rc = co_await reply(kRepInfo, EncodeInfoBlockSize(e->min_block(), e->preferred_block(),
                                                            kMaxPayload));
        }
        if (rc == 0) rc = co_await reply(kRepAck);
        if (rc == 0 && oh.option == kOptGo) chosen = e;
        break;
      }
      case kOptStructuredReply:
        if (oh.length != 0 || neg.structured) {
          rc = co_await reply(kRepErrInvalid);
          break;
        }
        neg.structured = true;
        rc = co_await reply(kRepAck);
        break;
      case kOptListMetaContext:
      case kOptSetMetaContext: {
        MetaContextRequest mr;
        if (!ParseMetaContextRequest(d, oh.length, &mr) ||
            (oh.option == kOptSetMetaContext && !neg.structured)) {
          rc = co_await reply(kRepErrInvalid);
          break;
        }
        if (!find(mr.name)) {
          rc = co_await reply(kRepErrUnknown);
          break;
        }
        bool base = oh.option == kOptListMetaContext && mr.queries.empty();
        for (const std::string& q : mr.queries) base = base || QueryMatchesBaseAllocation(q);
        if (oh.option == kOptSetMetaContext) neg.base_allocation = base;
        if (base) {
          rc = co_await reply(kRepMetaContext,
                              EncodeRepMetaContext(kBaseAllocationId, kBaseAllocation));
        }
        if (rc == 0) rc = co_await reply(kRepAck);
        break;
      }
      default:
        rc = co_await reply(kRepErrUnsup);
        break;
    }
  }
  (void)export_name_reply;
  deadline.cancel();
  negotiating_.erase(s);
  if (rc < 0 || !chosen || stopped_) {
    sock.reset();
    ::close(fd);
    co_return;
  }
  std::string rest = s->take_buffered();
  sock.reset();  // off the main loop before the export's loop takes the fd
  chosen->ctx().post([chosen, fd, neg, rest = std::move(rest)]() mutable {
    chosen->adopt(fd, neg, std::move(rest));
  });
}

}  // namespace blk::nbd
