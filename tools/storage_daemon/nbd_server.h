// NbdServer: the listening sockets and the NBD handshake (fixed newstyle).
//
// The server runs on the daemon's main loop.  It accepts connections on
// unix and TCP sockets and negotiates each one as a coroutine:
// NBD_OPT_LIST, INFO, GO, EXPORT_NAME, ABORT, STRUCTURED_REPLY,
// LIST_META_CONTEXT and SET_META_CONTEXT (base:allocation); STARTTLS and
// unknown options get NBD_REP_ERR_UNSUP.  When the client picks an export,
// the socket is handed to the export's loop (NbdExport::adopt, posted).
// The empty export name selects the first export.  A negotiation that has
// not finished within kNegotiationTimeoutNs, or whose option data exceeds
// kMaxOptionData, is dropped.
//
// Threading: construct, listen and stop on the main loop's thread; the
// exports' loops are reached only by posting.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "tools/storage_daemon/nbd_export.h"
#include <blkstack/util/aio_context.h>
#include <blkstack/util/result.h>
#include <blkstack/util/task.h>

namespace blk {
class AsyncSocket;
}

namespace blk::nbd {

inline constexpr uint32_t kMaxOptionData = 64 * 1024;
inline constexpr int64_t kNegotiationTimeoutNs = 10'000'000'000;

class NbdServer {
 public:
  // `exports` outlive the server.
  NbdServer(AioContext& main, std::vector<NbdExport*> exports);
  // Closes listening sockets (removing unix socket files it created).
  ~NbdServer();
  NbdServer(const NbdServer&) = delete;
  NbdServer& operator=(const NbdServer&) = delete;

  // Binds and listens; the errors name the address and errno.
  Expected<void> listen_unix(const std::string& path);
  Expected<void> listen_inet(const std::string& host, const std::string& port);
  // Stops accepting and ends the negotiations in progress.
  void stop();
  size_t negotiating() const { return negotiating_.size(); }

 private:
  void accept_ready(int lfd);
  Task<void> negotiate(int fd);
  NbdExport* find(const std::string& name) const;

  AioContext& main_;
  std::vector<NbdExport*> exports_;
  std::vector<int> listen_fds_;
  std::vector<std::string> unix_paths_;
  std::unordered_set<AsyncSocket*> negotiating_;
  bool stopped_ = false;
};

}  // namespace blk::nbd
