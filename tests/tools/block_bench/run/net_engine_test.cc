// NetEngine (run/net_engine.h) on a real loop and real loopback sockets:
// fio's link messages byte for byte, fio's engine-init checks, a tcp and a
// unix transfer whole blocks at a time, the close message ending the
// reader, pingpong's answer, udp's sequence trailer counting lost
// datagrams, a refused connection, and an interrupted wait.
#include "tools/block_bench/run/net_engine.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <blkstack/util/aio_context.h>
#include <blkstack/util/task.h>

namespace blk::bench {
namespace {

std::string Hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) out += std::string{d[c >> 4], d[c & 15]};
  return out;
}

// A port nothing listens on now (bound and released).
uint32_t FreePort(int type) {
  const int fd = ::socket(AF_INET, type, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

JobOptions NetJob(RwMode rw, uint64_t size) {
  JobOptions j;
  j.name = "j";
  j.ioengine = IoEngine::kNet;
  j.rw = rw;
  j.size = SizeSpec{size, false};
  return j;
}

TEST(NetEngine, LinkMessagesAreFios) {
  EXPECT_EQ(Hex(NetCloseMessage()), "6b6e696c89000000");  // little-endian "link", 0x89
  EXPECT_EQ(Hex(NetOpenMessage()), "6c696e6b00000098");   // big-endian "link", 0x98
}

TEST(NetEngine, JobProblemsInFiosWords) {
  JobOptions j = NetJob(RwMode::kRead, 1 << 20);
  j.net.port = 8888;
  j.net.listen = true;
  EXPECT_EQ(NetJobProblem(j), "");
  j.rw = RwMode::kRandRead;
  EXPECT_EQ(NetJobProblem(j), "network IO can't be random");
  j.rw = RwMode::kRead;
  j.filenames = {"127.0.0.1"};
  EXPECT_EQ(NetJobProblem(j), "hostname not valid for non-multicast inbound network IO");
  j.net.listen = false;
  EXPECT_EQ(NetJobProblem(j), "");  // a tcp reader that connects
  j.filenames.clear();
  EXPECT_EQ(NetJobProblem(j),
            "connect with no host to connect to (did you forget to set 'listen'?)");
  j.net.protocol = NetOptions::Protocol::kUdp;
  j.net.listen = true;
  EXPECT_EQ(NetJobProblem(j), "listen only valid for TCP proto IO");
  j.net.listen = false;
  j.rw = RwMode::kReadWrite;
  EXPECT_EQ(NetJobProblem(j), "datagram network connections must be read OR write");
  j.rw = RwMode::kRead;
  j.filenames = {"239.0.0.1"};
  EXPECT_EQ(NetJobProblem(j), "");  // a multicast reader names its group
  j.net.interface = "eth0";
  EXPECT_EQ(NetJobProblem(j), "interface not valid interface IP");
  j.net.interface.clear();
  j.net.protocol = NetOptions::Protocol::kUnix;
  EXPECT_EQ(NetJobProblem(j), "network IO port not valid with unix socket");
  j.net.port = 0;
  j.filenames.clear();
  EXPECT_EQ(NetJobProblem(j), "UNIX sockets need host/filename");
  j.net.protocol = NetOptions::Protocol::kTcp;
  EXPECT_EQ(NetJobProblem(j), "network IO requires port for tcp or udp");
  j.rw = RwMode::kTrim;
  j.net.port = 1;
  EXPECT_EQ(NetJobProblem(j), "network IO moves reads and writes, not trims");
}

// A receiver and a sender engine on one loop; the receiver opens first.
struct Pair {
  std::unique_ptr<NetEngine> rx, tx;
  SleepGroup rx_sleeps, tx_sleeps;

  void open(AioContext& ctx) {
    int rr = 1, tr = 1;
    auto go = [](NetEngine* e, AioContext* c, SleepGroup* s, int* out) -> Task<void> {
      *out = co_await e->open(*c, *s, nullptr);
    };
    Spawn(ctx, go(rx.get(), &ctx, &rx_sleeps, &rr));
    Spawn(ctx, go(tx.get(), &ctx, &tx_sleeps, &tr));
    ctx.run_until([&] { return rr != 1 && tr != 1; });
    ASSERT_EQ(rr, 0) << rx->error();
    ASSERT_EQ(tr, 0) << tx->error();
  }
  // One block each way at once: the writer's and the reader's results.
  std::pair<int64_t, int64_t> move(AioContext& ctx, std::vector<uint8_t>& out,
                                   std::vector<uint8_t>& in) {
    int64_t w = INT64_MIN, r = INT64_MIN;
    auto xfer = [](NetEngine* e, Dir d, std::vector<uint8_t>* b, SleepGroup* s,
                   int64_t* res) -> Task<void> {
      *res = co_await e->transfer(d, b->data(), b->size(), *s);
    };
    Spawn(ctx, xfer(tx.get(), Dir::kWrite, &out, &tx_sleeps, &w));
    Spawn(ctx, xfer(rx.get(), Dir::kRead, &in, &rx_sleeps, &r));
    ctx.run_until([&] { return w != INT64_MIN && r != INT64_MIN; });
    return {w, r};
  }
};

void Fill(std::vector<uint8_t>& b, uint8_t seed) {
  for (size_t i = 0; i < b.size(); i++) b[i] = uint8_t(seed + i * 7);
}

TEST(NetEngine, TcpMovesWholeBlocksAndTheCloseMessageEndsTheReader) {
  AioContext ctx;
  const uint32_t port = FreePort(SOCK_STREAM);
  JobOptions r = NetJob(RwMode::kRead, 3 << 20);
  r.net.port = port;
  r.net.listen = true;
  JobOptions w = NetJob(RwMode::kWrite, 3 << 20);
  w.net.port = port;
  w.filenames = {"127.0.0.1"};
  Pair p;
  auto rx = NetEngine::Create(r, 0, true);
  ASSERT_TRUE(rx.ok()) << rx.error().message;
  auto tx = NetEngine::Create(w, 0, false);
  ASSERT_TRUE(tx.ok()) << tx.error().message;
  p.rx = std::move(rx.value());
  p.tx = std::move(tx.value());
  p.open(ctx);
  // Blocks of 1 MiB: bigger than a socket's buffer, so each takes many
  // sends and receives, and the reader gets the whole block.
  for (int i = 0; i < 3; i++) {
    std::vector<uint8_t> out(1 << 20), in(1 << 20);
    Fill(out, uint8_t(i));
    const auto [wr, rd] = p.move(ctx, out, in);
    EXPECT_EQ(wr, 1 << 20);
    EXPECT_EQ(rd, 1 << 20);
    EXPECT_TRUE(in == out) << "block " << i;
  }
  p.tx->close();
  std::vector<uint8_t> in(4096);
  int64_t rd = INT64_MIN;
  auto read = [](NetEngine* e, std::vector<uint8_t>* b, SleepGroup* s, int64_t* res) -> Task<void> {
    *res = co_await e->transfer(Dir::kRead, b->data(), b->size(), *s);
  };
  Spawn(ctx, read(p.rx.get(), &in, &p.rx_sleeps, &rd));
  ctx.run_until([&] { return rd != INT64_MIN; });
  EXPECT_EQ(rd, 0);  // the peer's close message: done
}

// A raw tcp client plays fio's writer: a block, then fio's close message on
// its own while the connection stays open (the message, not the end of the
// stream, ends the reader); then, on a second connection, a block and the
// end of the stream.
TEST(NetEngine, CloseMessageOrEndOfStreamEndsTheReader) {
  for (const bool eof : {false, true}) {
    AioContext ctx;
    const uint32_t port = FreePort(SOCK_STREAM);
    JobOptions r = NetJob(RwMode::kRead, 1 << 20);
    r.net.port = port;
    r.net.listen = true;
    auto rx = NetEngine::Create(r, 0, true);
    ASSERT_TRUE(rx.ok()) << rx.error().message;
    const int c = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(uint16_t(port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(c, reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
    SleepGroup sleeps;
    ASSERT_EQ(RunSync(ctx, (*rx)->open(ctx, sleeps, nullptr)), 0) << (*rx)->error();
    const std::string block(4096, 'b');
    ASSERT_EQ(::send(c, block.data(), block.size(), 0), ssize_t(block.size()));
    std::vector<uint8_t> in(4096);
    EXPECT_EQ(RunSync(ctx, (*rx)->transfer(Dir::kRead, in.data(), in.size(), sleeps)), 4096);
    if (eof) {
      ::shutdown(c, SHUT_WR);
    } else {
      const std::string m = NetCloseMessage();
      ASSERT_EQ(::send(c, m.data(), m.size(), 0), ssize_t(m.size()));
    }
    // A reader that missed the end would wait: cancelled after 5 s, it
    // returns -ECANCELED instead of 0.
    Timer guard(ctx, [&] { (*rx)->cancel(); });
    guard.arm_in(5'000'000'000);
    EXPECT_EQ(RunSync(ctx, (*rx)->transfer(Dir::kRead, in.data(), in.size(), sleeps)), 0)
        << (eof ? "end of stream" : "close message");
    guard.cancel();
    ::close(c);
  }
}

TEST(NetEngine, UnixPingpongAnswersEachBlock) {
  AioContext ctx;
  char dir[] = "/tmp/netengine.XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/s";
  JobOptions r = NetJob(RwMode::kRead, 1 << 20);
  r.net.protocol = NetOptions::Protocol::kUnix;
  r.net.pingpong = true;
  r.filenames = {path};
  JobOptions w = r;
  w.rw = RwMode::kWrite;
  Pair p;
  p.rx = std::move(NetEngine::Create(r, 0, true).value());
  p.tx = std::move(NetEngine::Create(w, 0, false).value());
  p.open(ctx);
  std::vector<uint8_t> out(4096), in(4096);
  Fill(out, 3);
  const std::vector<uint8_t> sent = out;
  const auto [wr, rd] = p.move(ctx, out, in);
  EXPECT_EQ(wr, 4096);
  EXPECT_EQ(rd, 4096);
  EXPECT_TRUE(in == sent);
  EXPECT_TRUE(out == sent);  // the writer's buffer holds the echo
  p.rx->close();
  p.tx->close();
  EXPECT_NE(::access(path.c_str(), F_OK), 0) << "socket file left";
  ::rmdir(dir);
}

TEST(NetEngine, UdpTrailerCountsLostDatagrams) {
  // The receiver engine against a raw socket playing fio's sender: the open
  // message, datagrams with sequence numbers 0 and 3 (1 and 2 lost), then
  // the close message.
  AioContext ctx;
  const uint32_t port = FreePort(SOCK_DGRAM);
  JobOptions r = NetJob(RwMode::kRead, 1 << 20);
  r.net.protocol = NetOptions::Protocol::kUdp;
  r.net.port = port;
  auto rx = NetEngine::Create(r, 0, true);
  ASSERT_TRUE(rx.ok()) << rx.error().message;
  const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(uint16_t(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const auto send = [&](const std::string& d) {
    ASSERT_EQ(::sendto(fd, d.data(), d.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to),
              ssize_t(d.size()));
  };
  const auto datagram = [](uint64_t seq) {
    std::string d(1024, 'x');
    const uint64_t t[3] = {htole64(kNetSeqMagic), htole64(seq), htole64(1024)};
    std::memcpy(d.data() + d.size() - kNetSeqTrailer, t, sizeof t);
    return d;
  };
  send(NetOpenMessage());
  send(datagram(0));
  send(datagram(3));
  send(NetCloseMessage());
  SleepGroup sleeps;
  ASSERT_EQ(RunSync(ctx, (*rx)->open(ctx, sleeps, nullptr)), 0) << (*rx)->error();
  std::vector<uint8_t> in(1024);
  const auto recv_one = [&] { return RunSync(ctx, (*rx)->transfer(Dir::kRead, in.data(), in.size(), sleeps)); };
  EXPECT_EQ(recv_one(), 1024);
  EXPECT_EQ((*rx)->dropped(), 0u);
  EXPECT_EQ(recv_one(), 1024);
  EXPECT_EQ((*rx)->dropped(), 2u);
  EXPECT_EQ(recv_one(), 0);  // the close message
  ::close(fd);
}

TEST(NetEngine, RefusedConnectionNamesThePeer) {
  AioContext ctx;
  JobOptions w = NetJob(RwMode::kWrite, 1 << 20);
  w.net.port = FreePort(SOCK_STREAM);
  w.filenames = {"127.0.0.1"};
  auto tx = NetEngine::Create(w, 0, false);
  ASSERT_TRUE(tx.ok());
  SleepGroup sleeps;
  const int r = RunSync(ctx, (*tx)->open(ctx, sleeps, nullptr));
  EXPECT_EQ(r, -ECONNREFUSED);
  EXPECT_EQ((*tx)->error(), "connect (127.0.0.1 port " + std::to_string(w.net.port) + ")");
}

TEST(NetEngine, CancelEndsTheWaitForAConnection) {
  AioContext ctx;
  JobOptions r = NetJob(RwMode::kRead, 1 << 20);
  r.net.port = FreePort(SOCK_STREAM);
  r.net.listen = true;
  auto rx = NetEngine::Create(r, 0, true);
  ASSERT_TRUE(rx.ok()) << rx.error().message;
  SleepGroup sleeps;
  int res = 1;
  auto go = [](NetEngine* e, AioContext* c, SleepGroup* s, int* out) -> Task<void> {
    *out = co_await e->open(*c, *s, nullptr);
  };
  Spawn(ctx, go(rx->get(), &ctx, &sleeps, &res));
  ctx.run_until([&] { return !sleeps.empty(); });
  EXPECT_EQ(res, 1);  // still waiting
  // Another owner's cancel of the clone's sleeps (a rate sleep ending) is
  // not the job ending: the wait goes on.
  sleeps.cancel_all();
  ctx.run_until([&] { return !sleeps.empty(); });
  EXPECT_EQ(res, 1);
  (*rx)->cancel();
  ctx.run_until([&] { return res != 1; });
  EXPECT_EQ(res, -ECANCELED);
  // And every later wait ends at once.
  EXPECT_EQ(RunSync(ctx, (*rx)->open(ctx, sleeps, nullptr)), -ECANCELED);
}

}  // namespace
}  // namespace blk::bench
