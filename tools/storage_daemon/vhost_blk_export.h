// VhostBlkExport: one graph served as a vhost-user-blk device on a unix
// socket, so a QEMU guest can use it with
//   -chardev socket,id=c,path=SOCK -device vhost-user-blk-pci,chardev=c
// (and shared guest memory: memory-backend-memfd,share=on).
//
// The export listens on its socket and serves one front end at a time (a
// second connection is accepted and closed at once).  A session reads the
// front end's vhost-user messages (vhost_user_wire.h) in one coroutine,
// maps the guest memory SET_MEM_TABLE hands over, and runs each virtqueue
// (virtqueue.h) from its kick eventfd: every virtio-blk request (IN, OUT,
// FLUSH, GET_ID, DISCARD, WRITE_ZEROES) is a coroutine on the export's
// loop, reading and writing guest memory directly, and completing through
// the used ring and the call eventfd.  GET_VRING_BASE, SET_MEM_TABLE and a
// disconnect wait for the requests in flight before the ring stops or the
// memory is unmapped.
//
// A malformed ring stops its queue (logged on stderr); a request whose
// header, sector range or layout is bad completes with VIRTIO_BLK_S_IOERR;
// an unknown request type with VIRTIO_BLK_S_UNSUPP.  A malformed message
// closes the session.  Replies are small and sent at once; a front end
// that does not read them is disconnected.
//
// Threading: everything on the loop of the graph (`blk->ctx()`), which is
// the loop of the export's iothread=.  Construct, listen(), shutdown() and
// destroy on that thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <blkstack/block/backend.h>
#include <blkstack/util/aio_context.h>
#include <blkstack/util/result.h>

namespace blk::vhost {

class Session;

// virtio-blk request types (virtio 1.1, 5.2.6).
inline constexpr uint32_t kBlkTIn = 0;
inline constexpr uint32_t kBlkTOut = 1;
inline constexpr uint32_t kBlkTFlush = 4;
inline constexpr uint32_t kBlkTGetId = 8;
inline constexpr uint32_t kBlkTDiscard = 11;
inline constexpr uint32_t kBlkTWriteZeroes = 13;

// One request (one segment of a DISCARD / WRITE_ZEROES) as it enters the
// graph: byte offset and length (0 and 0 for FLUSH).
struct BlkRequest {
  uint32_t type;
  uint64_t offset;
  uint64_t length;
};

class VhostBlkExport {
 public:
  // `blk` must outlive the export.  num_queues in 1..kMaxQueues.
  VhostBlkExport(std::string id, std::string path, BlockBackend* blk, bool writable,
                 uint32_t num_queues);
  // REQUIRES: shutdown() has reported idle (or no session was ever made).
  ~VhostBlkExport();
  VhostBlkExport(const VhostBlkExport&) = delete;
  VhostBlkExport& operator=(const VhostBlkExport&) = delete;

  static constexpr uint32_t kMaxQueues = 64;

  // Creates the socket at path() and starts accepting.  The error names
  // the export and the path.
  Expected<void> listen();
  // Stops accepting and removes the socket file; closes the session once
  // its requests in flight have completed.  `idle` runs on the loop when
  // nothing is left (at once if no session).
  void shutdown(std::function<void()> idle);

  const std::string& id() const { return id_; }
  const std::string& path() const { return path_; }
  AioContext& ctx() const { return blk_->ctx(); }
  BlockBackend& blk() const { return *blk_; }
  bool read_only() const { return !writable_; }
  uint32_t num_queues() const { return num_queues_; }
  // The virtio feature bits offered in GET_FEATURES.
  uint64_t features() const;
  // Called on the loop thread for every request admitted to the graph
  // (it passed the checks), before its I/O: for --export write-iolog=.
  // Set before listen().
  using RequestObserver = std::function<void(const BlkRequest&)>;
  void set_observer(RequestObserver fn) { observer_ = std::move(fn); }

 private:
  friend class Session;
  void accept_ready();
  void session_closed();

  std::string id_, path_;
  BlockBackend* blk_;
  bool writable_;
  uint32_t num_queues_;
  int listen_fd_ = -1;
  Session* session_ = nullptr;
  bool stopping_ = false;
  std::function<void()> idle_;
  RequestObserver observer_;
};

}  // namespace blk::vhost
