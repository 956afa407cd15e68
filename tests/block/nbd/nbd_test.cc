// The nbd driver (block/nbd/nbd.h) against real servers: nbdkit's memory
// plugin on a unix socket, started here, with nbdkit's error, delay and
// read-only variants; QEMU-style addresses; a server killed with requests
// in flight.
#include <blkstack/block/nbd/nbd.h>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <blkstack/block/registry.h>
#include <blkstack/util/task.h>

namespace blk {
namespace {

// An nbdkit serving `args` (plugin and its parameters) on a unix socket in
// the test's temporary directory, in the foreground; killed at the end.
class Nbdkit {
 public:
  explicit Nbdkit(std::vector<std::string> args, std::vector<std::string> pre = {}) {
    // A unix socket's path has at most 107 bytes: bazel's TEST_TMPDIR is
    // longer, so the socket lives in a directory of its own under /tmp.
    char dir[] = "/tmp/nbd_test.XXXXXX";
    if (mkdtemp(dir)) dir_ = dir;
    sock_ = dir_ + "/sock";
    pidfile_ = dir_ + "/pid";
    // nbdkit writes the pid file once it accepts connections (the socket
    // exists earlier, between bind and listen: a connect then is refused).
    std::vector<std::string> argv = {"nbdkit", "-f", "--exit-with-parent", "-U", sock_,
                                     "-P", pidfile_};
    argv.insert(argv.end(), pre.begin(), pre.end());
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = fork();
    if (pid_ == 0) {
      std::vector<char*> c;
      for (auto& s : argv) c.push_back(s.data());
      c.push_back(nullptr);
      execvp("nbdkit", c.data());
      _exit(127);
    }
    struct stat st;
    for (int i = 0; i < 1000 && !(stat(pidfile_.c_str(), &st) == 0 && st.st_size > 0); i++) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;  // nbdkit refused its arguments (its message is on stderr)
        break;
      }
      usleep(10000);
    }
  }
  ~Nbdkit() {
    kill();
    unlink(sock_.c_str());
    unlink(pidfile_.c_str());
    rmdir(dir_.c_str());
  }
  void kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  const std::string& sock() const { return sock_; }
  std::string uri() const { return "nbd+unix:///?socket=" + sock_; }

 private:
  std::string dir_ = "/tmp";
  std::string sock_;
  std::string pidfile_;
  pid_t pid_ = -1;
};

std::unique_ptr<BlockBackend> MustOpen(AioContext& ctx, const std::string& spec) {
  auto b = OpenBackend(ctx, spec);
  EXPECT_TRUE(b.ok()) << spec << ": " << (b.ok() ? "" : b.error().message);
  return b.ok() ? std::move(b.value()) : nullptr;
}

std::string OpenError(AioContext& ctx, const std::string& spec) {
  auto b = OpenBackend(ctx, spec);
  EXPECT_FALSE(b.ok()) << "spec unexpectedly opened: " << spec;
  return b.ok() ? "" : b.error().message;
}

Task<void> WriteBlock(BlockBackend& b, uint64_t i, WaitGroup* wg, int* errors) {
  std::vector<uint8_t> buf(4096, uint8_t(i * 7 + 1));
  Status s = co_await b.write(i * 4096, IoVec(buf.data(), buf.size()));
  if (!s.ok()) (*errors)++;
  wg->done();
}

Task<void> ReadBlock(BlockBackend& b, uint64_t i, WaitGroup* wg, int* errors, int* wrong) {
  std::vector<uint8_t> buf(4096);
  Status s = co_await b.read(i * 4096, IoVec(buf.data(), buf.size()));
  if (!s.ok()) (*errors)++;
  else if (buf != std::vector<uint8_t>(4096, uint8_t(i * 7 + 1))) (*wrong)++;
  wg->done();
}

Task<void> Many(AioContext& ctx, BlockBackend& b, bool write, int n, int* errors, int* wrong) {
  WaitGroup wg(ctx);
  wg.add(n);
  for (int i = 0; i < n; i++)
    Spawn(ctx, write ? WriteBlock(b, i, &wg, errors) : ReadBlock(b, i, &wg, errors, wrong));
  co_await wg.wait();
}

TEST(NbdDriverTest, ManyInFlightWritesReadBack) {
  Nbdkit srv({"memory", "64M"});
  AioContext ctx;
  auto b = MustOpen(ctx, "driver=nbd,uri=" + srv.uri());
  ASSERT_TRUE(b);
  EXPECT_EQ(b->length(), 64u << 20);
  int errors = 0, wrong = 0;
  RunSync(ctx, Many(ctx, *b, true, 256, &errors, &wrong));
  EXPECT_EQ(errors, 0);
  RunSync(ctx, Many(ctx, *b, false, 256, &errors, &wrong));
  EXPECT_EQ(errors, 0);
  EXPECT_EQ(wrong, 0);
  // A transfer larger than one command (32 MiB) is split by the block layer.
  std::vector<uint8_t> big(40u << 20), back(40u << 20);
  for (size_t i = 0; i < big.size(); i++) big[i] = uint8_t(i * 131 >> 12);
  EXPECT_TRUE(RunSync(ctx, b->write(8u << 20, IoVec(big.data(), big.size()), kReqFua)).ok());
  EXPECT_TRUE(RunSync(ctx, b->flush()).ok());
  EXPECT_TRUE(RunSync(ctx, b->read(8u << 20, IoVec(back.data(), back.size()))).ok());
  EXPECT_EQ(big == back, true);
  // Out of bounds: refused by the block layer, never sent.
  EXPECT_EQ(RunSync(ctx, b->read(64u << 20, IoVec(back.data(), 4096))).error(), -EIO);
}

TEST(NbdDriverTest, TrimAndWriteZeroesReadBackZeros) {
  Nbdkit srv({"memory", "16M"});
  AioContext ctx;
  auto b = MustOpen(ctx, "driver=nbd,server.type=unix,server.path=" + srv.sock());
  ASSERT_TRUE(b);
  std::vector<uint8_t> buf(1 << 20, 0x5a);
  ASSERT_TRUE(RunSync(ctx, b->write(0, IoVec(buf.data(), buf.size()))).ok());
  ASSERT_TRUE(RunSync(ctx, b->write_zeroes(4096, 65536)).ok());
  ASSERT_TRUE(RunSync(ctx, b->write_zeroes(131072, 65536, kReqMayUnmap)).ok());
  ASSERT_TRUE(RunSync(ctx, b->discard(524288, 65536)).ok());  // memory: reads zeros after
  std::vector<uint8_t> back(1 << 20);
  ASSERT_TRUE(RunSync(ctx, b->read(0, IoVec(back.data(), back.size()))).ok());
  for (size_t i = 0; i < back.size(); i++) {
    const bool zero = (i >= 4096 && i < 4096 + 65536) || (i >= 131072 && i < 131072 + 65536) ||
                      (i >= 524288 && i < 524288 + 65536);
    ASSERT_EQ(back[i], zero ? 0 : 0x5a) << "byte " << i;
  }
}

TEST(NbdDriverTest, ServerErrorsReachTheCaller) {
  // nbdkit's error filter: every read fails with EIO, every write ENOSPC.
  Nbdkit srv({"memory", "16M", "error-pread=EIO", "error-pread-rate=100%", "error-pwrite=ENOSPC",
              "error-pwrite-rate=100%"},
             {"--filter=error"});
  AioContext ctx;
  auto b = MustOpen(ctx, "driver=nbd,uri=" + srv.uri());
  ASSERT_TRUE(b);
  std::vector<uint8_t> buf(4096);
  EXPECT_EQ(RunSync(ctx, b->read(0, IoVec(buf.data(), buf.size()))).error(), -EIO);
  EXPECT_EQ(RunSync(ctx, b->write(0, IoVec(buf.data(), buf.size()))).error(), -ENOSPC);
  EXPECT_TRUE(RunSync(ctx, b->flush()).ok());
}

TEST(NbdDriverTest, ReadOnlyExport) {
  Nbdkit srv({"memory", "1M"}, {"-r"});
  AioContext ctx;
  const std::string err = OpenError(ctx, "driver=nbd,uri=" + srv.uri());
  EXPECT_NE(err.find("read-only"), std::string::npos) << err;
  OpenFlags ro;
  ro.read_only = true;
  auto b = OpenBackend(ctx, "driver=nbd,uri=" + srv.uri(), ro);
  ASSERT_TRUE(b.ok()) << b.error().message;
  std::vector<uint8_t> buf(4096, 1);
  EXPECT_TRUE(RunSync(ctx, (*b)->read(0, IoVec(buf.data(), buf.size()))).ok());
  EXPECT_EQ(buf[0], 0);
}

TEST(NbdDriverTest, OptionErrors) {
  AioContext ctx;
  std::string err = OpenError(ctx, "driver=nbd,uri=nbd+unix:///?socket=/nonexistent/sock");
  EXPECT_NE(err.find("connecting to nbd+unix:///?socket=/nonexistent/sock"), std::string::npos)
      << err;
  err = OpenError(ctx, "driver=nbd");
  EXPECT_NE(err.find("needs uri= or server.type"), std::string::npos) << err;
  err = OpenError(ctx, "driver=nbd,uri=nbd://x,export=a");
  EXPECT_NE(err.find("uri or export, not both"), std::string::npos) << err;
  err = OpenError(ctx, "driver=nbd,server.type=inet");
  EXPECT_NE(err.find("server.host"), std::string::npos) << err;
}

TEST(NbdDriverTest, QemuAddressesBecomeUris) {
  EXPECT_EQ(NbdUri("unix", "/run/a b.sock", "", "", "disk 1").value(),
            "nbd+unix:///disk%201?socket=/run/a%20b.sock");
  EXPECT_EQ(NbdUri("inet", "", "localhost", "10810", "e").value(), "nbd://localhost:10810/e");
  EXPECT_EQ(NbdUri("inet", "", "::1", "", "").value(), "nbd://[::1]/");
  EXPECT_FALSE(NbdUri("inet", "", "h", "12x", "").ok());
  EXPECT_FALSE(NbdUri("unix", "", "", "", "").ok());
}

TEST(NbdDriverTest, ServerKilledWithRequestsInFlight) {
  // Every read waits 2 s in the server: the requests are in flight when it dies.
  Nbdkit srv({"memory", "16M", "rdelay=2"}, {"--filter=delay"});
  AioContext ctx;
  auto b = MustOpen(ctx, "driver=nbd,uri=" + srv.uri());
  ASSERT_TRUE(b);
  int errors = 0, wrong = 0;
  Timer killer(ctx, [&] { srv.kill(); });
  killer.arm_in(200 * 1000000LL);
  RunSync(ctx, Many(ctx, *b, false, 8, &errors, &wrong));
  EXPECT_EQ(errors, 8);
  std::vector<uint8_t> buf(4096);
  EXPECT_LT(RunSync(ctx, b->read(0, IoVec(buf.data(), buf.size()))).error(), 0);
}

}  // namespace
}  // namespace blk
