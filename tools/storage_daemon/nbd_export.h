// NbdExport: one graph served over NBD, and the transmission phase of every
// connection to it.
//
// The export lives on the loop of its graph (the main loop, or the
// IOThread named by the export's iothread=).  Negotiation happens elsewhere
// (nbd_server.h); once a client has chosen this export the server hands the
// connected socket over with adopt(), posted to this loop.  From then on
// the connection's requests are read by one reader coroutine, and each
// request runs as its own coroutine on this loop, so many are in flight per
// connection; replies go out in completion order.
//
// Bounds per connection: at most kMaxInflight requests and about
// kMaxQueuedBytes of request and reply data held; beyond that the reader
// stops reading (a client that stops reading its replies only stalls
// itself).  A request's payload is at most kMaxPayload.
//
// Threading: describe() and the const accessors may be called from any
// thread (they read values fixed at construction); everything else on the
// export's loop thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_set>

#include <blkstack/block/backend.h>
#include "tools/storage_daemon/nbd_wire.h"
#include <blkstack/util/aio_context.h>

namespace blk::nbd {

inline constexpr uint32_t kMaxPayload = 32u << 20;
inline constexpr int kMaxInflight = 256;
inline constexpr uint64_t kMaxQueuedBytes = 64ull << 20;
// Most extents in one BLOCK_STATUS reply (8 bytes each); a client asks
// again for the rest of the range.
inline constexpr size_t kMaxExtents = 8192;

// What negotiation settled for one connection.
struct Negotiated {
  bool structured = false;
  bool base_allocation = false;
};

class Connection;

class NbdExport {
 public:
  // `blk` must outlive the export and be attached to `blk->ctx()`.
  // Constructed on blk's loop thread.
  NbdExport(std::string id, std::string name, std::string description, BlockBackend* blk,
            bool writable);
  ~NbdExport();
  NbdExport(const NbdExport&) = delete;
  NbdExport& operator=(const NbdExport&) = delete;

  const std::string& id() const { return id_; }
  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  uint64_t size() const { return size_; }
  uint16_t tx_flags() const { return tx_flags_; }
  uint32_t min_block() const { return min_block_; }
  uint32_t preferred_block() const { return preferred_block_; }
  AioContext& ctx() const { return blk_->ctx(); }
  BlockBackend& blk() const { return *blk_; }
  bool read_only() const { return !writable_; }
  bool fast_zero() const { return fast_zero_; }

  // Takes over a connected socket whose negotiation chose this export;
  // `buffered` is input the negotiation read past its end.  Loop thread.
  void adopt(int fd, Negotiated n, std::string buffered);
  // Stops reading requests on every connection; each closes once its
  // requests in flight have completed and their replies are sent (or after
  // `force_after_ns`, for clients that stop reading).  `idle` runs on the
  // loop thread when no connection is left (at once if none is).
  void shutdown(std::function<void()> idle, int64_t force_after_ns);
  // Called on the loop thread for every request admitted to the graph (it
  // passed CheckRequest), as it enters, before any I/O: for recording what
  // clients did (--export write-iolog=).  Set before the first adopt().
  using RequestObserver = std::function<void(const Request&)>;
  void set_observer(RequestObserver fn) { observer_ = std::move(fn); }
  size_t connections() const { return conns_.size(); }

 private:
  friend class Connection;
  void closed(Connection* c);

  std::string id_, name_, description_;
  BlockBackend* blk_;
  bool writable_;
  uint64_t size_;
  uint16_t tx_flags_;
  uint32_t min_block_, preferred_block_;
  bool fast_zero_;
  std::unordered_set<Connection*> conns_;
  bool stopping_ = false;
  std::function<void()> idle_;
  RequestObserver observer_;
};

}  // namespace blk::nbd
