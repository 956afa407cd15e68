#include <blkstack/util/input_file.h>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace blk {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

class InputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A writer into a pipe whose reader gave up gets EPIPE, not a signal.
    signal(SIGPIPE, SIG_IGN);
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir_ = std::string(tmp ? tmp : "/tmp") + "/input_file_test.XXXXXX";
    ASSERT_NE(mkdtemp(dir_.data()), nullptr);
  }
  std::string Write(const std::string& name, const std::string& body) {
    const std::string p = dir_ + "/" + name;
    const int fd = open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(write(fd, body.data(), body.size()), ssize_t(body.size()));
    close(fd);
    return p;
  }
  std::string dir_;
};

InputLimit Limit(uint64_t max, std::function<bool()> interrupted = {}) {
  InputLimit l;
  l.max_bytes = max;
  l.what = "a test input";
  l.how_to_raise = "--test-limit=";
  l.interrupted = std::move(interrupted);
  return l;
}

TEST_F(InputFileTest, ReadsARegularFileUpToAndAtTheLimit) {
  std::string body(3 << 20, 'x');
  body[12345] = '\n';
  const std::string p = Write("f", body);
  auto r = ReadInputFile(p, Limit(body.size()));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, body);
  auto e = ReadInputFile(Write("empty", ""), Limit(1));
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(*e, "");
}

TEST_F(InputFileTest, RefusesARegularFileOverTheLimitBeforeReading) {
  // A sparse 1 TiB file: read, it would take minutes and all memory.
  const std::string p = dir_ + "/huge";
  const int fd = open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, off_t(1) << 40), 0);
  close(fd);
  int polls = 0;
  auto r = ReadInputFile(p, Limit(1 << 20, [&] { return ++polls, false; }));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -EFBIG);
  EXPECT_EQ(r.error().message,
            p + ": 1 TiB, over the limit of 1 MiB for a test input; raise it with --test-limit=");
  EXPECT_EQ(polls, 0) << "nothing may be read from a file known to be too large";
  // One byte over.
  auto one = ReadInputFile(Write("g", std::string(1025, 'y')), Limit(1024));
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.error().code, -EFBIG);
}

TEST_F(InputFileTest, AFixedLimitSaysSo) {
  InputLimit l = Limit(10);
  l.how_to_raise = "";
  auto r = ReadInputFile(Write("h", std::string(11, 'z')), l);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("over the limit of 10 bytes for a test input (a fixed limit)"),
            std::string::npos)
      << r.error().message;
}

TEST_F(InputFileTest, RefusesDevicesAndDirectoriesAtOnce) {
  const auto t0 = Clock::now();
  auto z = ReadInputFile("/dev/zero", Limit(uint64_t(1) << 40));
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.error().code, -EINVAL);
  EXPECT_EQ(z.error().message,
            "/dev/zero: a character device, not a test input (read from a regular file or a pipe)");
  auto d = ReadInputFile(dir_, Limit(1 << 20));
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, -EISDIR);
  EXPECT_NE(d.error().message.find(dir_ + ": a directory"), std::string::npos);
  auto missing = ReadInputFile(dir_ + "/none", Limit(1 << 20));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, -ENOENT);
  EXPECT_EQ(missing.error().message, dir_ + "/none: No such file or directory");
  // As standard input, /dev/zero is refused too (only a terminal may be a
  // device there).
  const int fd = open("/dev/zero", O_RDONLY);
  ASSERT_GE(fd, 0);
  auto s = ReadInputFd(fd, "-", Limit(uint64_t(1) << 40));
  close(fd);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, -EINVAL);
  EXPECT_NE(s.error().message.find("-: a character device"), std::string::npos);
  EXPECT_LT(SecondsSince(t0), 1.0);
}

TEST_F(InputFileTest, ReadsAPipeToItsEnd) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  const std::string body(300000, 'p');  // more than the pipe holds
  std::thread writer([&] {
    EXPECT_EQ(write(p[1], body.data(), body.size()), ssize_t(body.size()));
    close(p[1]);
  });
  auto r = ReadInputFd(p[0], "-", Limit(body.size()));
  writer.join();
  close(p[0]);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, body);
}

TEST_F(InputFileTest, RefusesAnEndlessPipeAtTheLimit) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  std::atomic<uint64_t> written{0};
  std::thread writer([&] {
    const std::string block(65536, 'y');
    while (true) {
      const ssize_t n = write(p[1], block.data(), block.size());
      if (n <= 0) break;  // EPIPE: the reader gave up
      written += uint64_t(n);
    }
    close(p[1]);
  });
  auto r = ReadInputFd(p[0], "-", Limit(4 << 20));
  close(p[0]);
  writer.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -EFBIG);
  EXPECT_EQ(r.error().message,
            "-: more than the limit of 4 MiB for a test input came from the pipe; raise it with "
            "--test-limit=");
  // It stopped at the limit: what was written is the limit plus what the
  // pipe and one write held.
  EXPECT_LT(written.load(), uint64_t(4 << 20) + (1 << 20));
}

TEST_F(InputFileTest, ANamedFifoIsReadAndItsOpenDoesNotWaitForAWriter) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const int fd = open(fifo.c_str(), O_WRONLY);
    EXPECT_EQ(write(fd, "abc\n", 4), 4);
    close(fd);
  });
  auto r = ReadInputFile(fifo, Limit(100));
  writer.join();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, "abc\n");
  // No writer ever: a stop request ends the wait.
  const auto t0 = Clock::now();
  auto stopped = ReadInputFile(fifo, Limit(100, [&] { return SecondsSince(t0) > 0.3; }));
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error().code, -EINTR);
  EXPECT_EQ(stopped.error().message, fifo + ": reading interrupted by a signal");
  EXPECT_LT(SecondsSince(t0), 1.0);
}

TEST_F(InputFileTest, AStopRequestEndsASilentPipeWithinOneSecond) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  ASSERT_EQ(write(p[1], "x", 1), 1);  // a writer that never finishes
  std::atomic<bool> stop{false};
  std::thread requester([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = true;
  });
  const auto t0 = Clock::now();
  auto r = ReadInputFd(p[0], "-", Limit(1 << 20, [&] { return stop.load(); }));
  const double took = SecondsSince(t0);
  requester.join();
  close(p[0]);
  close(p[1]);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -EINTR);
  EXPECT_GT(took, 0.25);
  EXPECT_LT(took, 1.0);
}

TEST_F(InputFileTest, AStopRequestEndsARegularFileRead) {
  const std::string p = Write("big", std::string(8 << 20, 'b'));
  int polls = 0;
  auto r = ReadInputFile(p, Limit(16 << 20, [&] { return ++polls > 2; }));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -EINTR);
  EXPECT_EQ(polls, 3) << "polled once per 1 MiB read";
}

TEST(FormatLimitTest, WholeUnitsWhereTheyFit) {
  EXPECT_EQ(FormatLimit(64 << 20), "64 MiB");
  EXPECT_EQ(FormatLimit(uint64_t(4) << 30), "4 GiB");
  EXPECT_EQ(FormatLimit(1), "1 byte");
  EXPECT_EQ(FormatLimit(1000), "1000 bytes");
  EXPECT_EQ(FormatLimit(1536), "1.5 KiB");
}

}  // namespace
}  // namespace blk
