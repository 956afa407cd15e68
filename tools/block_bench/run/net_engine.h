// NetEngine: the I/O of fio's net engine (ioengine=net): a job's writes
// are sends and its reads receives on a socket to a peer (fio's net engine,
// or another block-bench job), one I/O at a time in the clone's thread.
// The clone's target is the null driver, never touched.
//
// Roles and set-up, as fio 3.33's engines/net.c:
//  * tcp/tcpv6: listen=1 binds the job's port on every address and accepts
//    one connection; otherwise the job connects to filename=/hostname= (no
//    retry: a refused connection is the job's error).
//  * udp/udpv6: a job that reads binds the port (on a multicast group when
//    filename= names one, joined on interface=), a job that writes sends
//    to filename= (multicast: IP_MULTICAST_TTL ttl=, IP_MULTICAST_IF).  The
//    sender opens the link with fio's 8-byte message (magic "link", 0x98,
//    big-endian); the receiver waits for it and answers datagrams to its
//    source.
//  * unix: a reader binds and listens on filename= (unlinked first, as
//    fio's), a writer connects to it.
// The port is port= plus the clone's index (numjobs).  nodelay= sets
// TCP_NODELAY, window_size= SO_RCVBUF (receiver, pingpong) and SO_SNDBUF
// (sender, pingpong), mss= TCP_MAXSEG.  Bind and listen happen in Create,
// accept and connect in open(), before the job's runtime starts (fio resets
// its statistics after accept).
//
// Transfers: a write sends the whole block (stream sockets: MSG_MORE while
// more of size= follows, as fio; udp: one datagram whose last 24 bytes carry
// fio's sequence trailer unless verify= is set); a read receives a whole
// block (stream: until it is complete, where fio counts the pieces of a
// short receive as separate I/Os and loses their bytes; udp: one
// datagram, the trailer's sequence counting lost datagrams).  pingpong=1:
// each transfer is answered, the same block the other way, and the I/O's
// latency is the round trip.  fio's close message (magic "link" 0x89,
// little-endian), received as a whole datagram or receive, or the end of
// the stream, ends a reading job (transfer() returns 0).  close() sends the
// close message (unix included, where fio's sendto fails with EISCONN).
//
// Waiting: sockets are non-blocking and registered (edge-triggered) on the
// clone's loop; a transfer that would block sleeps in `sleeps` (the clone's
// SleepGroup) until the socket is ready or cancel() is called (-ECANCELED).
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "tools/block_bench/jobfile/job.h"
#include <blkstack/util/aio_context.h>
#include <blkstack/util/result.h>
#include <blkstack/util/task.h>

namespace blk::bench {

// fio's link messages (struct udp_close_msg: two 32-bit words).
inline constexpr uint32_t kNetLinkMagic = 0x6c696e6b;  // "link"
inline constexpr uint32_t kNetLinkOpen = 0x98;          // sent big-endian
inline constexpr uint32_t kNetLinkClose = 0x89;         // sent little-endian
// fio's udp sequence trailer: the last 24 bytes of a datagram.
inline constexpr uint64_t kNetSeqMagic = 0x657375716e556563ull;
inline constexpr size_t kNetSeqTrailer = 24;

// The 8 bytes of fio's close message.
std::string NetCloseMessage();
// The 8 bytes of fio's udp open message.
std::string NetOpenMessage();

class NetEngine {
 public:
  // Binds (and listens) when the job is the receiving side.  Errors name
  // the address and the failing call.  `clone`: the clone's index (added to
  // the port); `reads`: the job reads.
  static Expected<std::unique_ptr<NetEngine>> Create(const JobOptions& job, uint32_t clone,
                                                     bool reads);
  ~NetEngine();
  NetEngine(const NetEngine&) = delete;
  NetEngine& operator=(const NetEngine&) = delete;

  // Accepts or connects (udp: the open message).  0, -ECANCELED when the
  // clone was interrupted while waiting, or -errno (`error()` says where).
  // `info` (may be null) gets fio's "waiting for connection" line.
  Task<int> open(AioContext& ctx, SleepGroup& sleeps, FILE* info);
  // One I/O of `len` bytes at `buf` in direction `d` (a write may change
  // the udp trailer's bytes).  len; 0 when the peer ended the stream (a
  // reading job is done); -ECANCELED when interrupted; -errno.
  Task<int64_t> transfer(Dir d, uint8_t* buf, size_t len, SleepGroup& sleeps);
  // Sends the close message (waiting up to 2 s for room in the socket,
  // unless cancelled) and closes the socket.  Idempotent.
  void close();
  // The job is ending: a wait in open() or transfer() returns -ECANCELED
  // now, and every later one at once.  (Other cancels of the clone's
  // SleepGroup, e.g. a rate sleep's, do not end a wait.)
  void cancel();

  // Where the last failure happened, for the job's error ("connect to
  // 127.0.0.1 port 8888").
  const std::string& error() const { return error_; }
  // Datagrams the udp trailer says were lost.
  uint64_t dropped() const { return dropped_; }
  // The peer, for messages: "HOST port N" or the socket's path.
  const std::string& display() const { return display_; }

 private:
  NetEngine(const JobOptions& job, uint32_t clone, bool reads);
  Expected<void> init();
  int fail(const std::string& where, int err);
  void set_options(int fd, bool accepted);
  int watch(AioContext& ctx, int fd);  // 0 or -errno
  Task<int> wait(SleepGroup& sleeps);
  Task<int64_t> send_all(const uint8_t* buf, size_t len, int flags, SleepGroup& sleeps);
  Task<int64_t> recv_block(uint8_t* buf, size_t len, SleepGroup& sleeps);
  // netsplice over tcp: a send through the pipe (copied in, spliced to the
  // socket), and one receive (spliced from the socket, read out of the
  // pipe): as recv(2), bytes, 0 at the end of the stream, or -1 and errno.
  Task<int64_t> splice_send(const uint8_t* buf, size_t len, SleepGroup& sleeps);
  ssize_t splice_recv(uint8_t* buf, size_t len);

  const NetOptions o_;
  const std::string peer_;
  const bool stream_;
  const bool listener_;
  const bool udp_trailer_;
  const uint64_t size_;
  uint32_t port_;
  std::string display_;
  const bool splice_;  // netsplice over tcp
  std::string error_;
  int pipe_[2] = {-1, -1};  // splice_: [0] read end, [1] write end
  size_t in_pipe_ = 0;      // splice_: bytes of a send still in the pipe
  static constexpr size_t kPipeChunk = 64 * 1024;  // a pipe's capacity
  int listen_fd_ = -1;
  int fd_ = -1;
  AioContext* ctx_ = nullptr;
  SleepGroup* sleeps_ = nullptr;
  int watched_ = -1;
  bool woke_ = false;
  bool waiting_ = false;
  bool closed_ = false;
  bool cancelled_ = false;
  sockaddr_storage addr_{};  // the peer (sender: where to send; udp receiver: the source)
  socklen_t addr_len_ = 0;
  uint64_t sent_ = 0;       // bytes sent so far (MSG_MORE until size)
  uint64_t seq_ = 0;        // udp trailer: next sequence number to send / expect
  bool seq_check_ = true;
  uint64_t dropped_ = 0;
};

}  // namespace blk::bench
