// The file driver on a real block device: a loop device over a file in
// /dev/shm (fast, and needs no disk).  Skipped when losetup is unavailable;
// the device is detached even when a test fails.
#include <cstdio>
#include <cstring>

#include <blkstack/block/file/completion_pace.h>
#include "tests/block/file/file_test_util.h"
#include "tests/block/file/loop_device.h"

namespace blk::test {
namespace {

constexpr uint64_t kSize = 64 << 20;

// A sparse /dev/shm file of kSize bytes, removed at the end.
class ShmFile {
 public:
  ShmFile() {
    path_ = "/dev/shm/blkfile-loopXXXXXX";
    const int fd = mkstemp(path_.data());
    EXPECT_GE(fd, 0) << path_;
    if (fd >= 0) {
      EXPECT_EQ(ftruncate(fd, kSize), 0);
      close(fd);
    }
  }
  ~ShmFile() { unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class FileLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (loop_.dev().empty()) GTEST_SKIP() << "no loop device: " << loop_.why();
  }
  ShmFile backing_;
  LoopDevice loop_{backing_.path()};
  AioContext ctx_;
};

TEST_F(FileLoopTest, NativeRoundTripOnBlockDevice) {
  auto b = Open(ctx_, "driver=file,aio=native,cache.direct=on,discard=unmap,filename=" +
                          loop_.dev());
  ASSERT_TRUE(b);
  EXPECT_EQ(b->length(), kSize);  // BLKGETSIZE64
  EXPECT_GE(b->root().limits().request_alignment, 512u);
  AlignedBuffer w = Filled(1 << 20, 4);
  ASSERT_EQ(Write(*b, 1 << 20, w.data(), w.size()), 0);
  AlignedBuffer r(1 << 20);
  ASSERT_EQ(Read(*b, 1 << 20, r.data(), r.size()), 0);
  EXPECT_EQ(memcmp(w.data(), r.data(), w.size()), 0);
  // Unaligned, through the generic layer.
  std::vector<uint8_t> u(1000, 0x77);
  ASSERT_EQ(Write(*b, 12345, u.data(), u.size()), 0);
  std::vector<uint8_t> ru(1000);
  ASSERT_EQ(Read(*b, 12345, ru.data(), ru.size()), 0);
  EXPECT_EQ(u, ru);
  ASSERT_EQ(RunSync(ctx_, b->flush()).error(), 0);
}

TEST_F(FileLoopTest, WriteZeroesAndDiscardOnBlockDevice) {
  auto b = Open(ctx_, "driver=file,aio=native,cache.direct=on,discard=unmap,filename=" +
                          loop_.dev());
  ASSERT_TRUE(b);
  AlignedBuffer w = Filled(1 << 20, 8);
  ASSERT_EQ(Write(*b, 0, w.data(), w.size()), 0);
  ASSERT_EQ(RunSync(ctx_, b->write_zeroes(65536, 131072)).error(), 0);  // BLKZEROOUT
  AlignedBuffer r(1 << 20);
  ASSERT_EQ(Read(*b, 0, r.data(), r.size()), 0);
  for (int i = 0; i < (1 << 20); i++) {
    bool zero = i >= 65536 && i < 65536 + 131072;
    ASSERT_EQ(r.data()[i], zero ? 0 : w.data()[i]) << i;
  }
  // Discard is advisory: it must succeed; the data read after is either.
  EXPECT_EQ(RunSync(ctx_, b->discard(0, 1 << 20)).error(), 0);
}

// io_uring on a block device, in every set-up the driver offers: data,
// unaligned requests through the generic layer, flush through
// IORING_OP_FSYNC, and requests from 32 coroutines at once.
TEST_F(FileLoopTest, IoUringOnBlockDevice) {
  for (const char* opts : {"aio=io_uring", "aio=io_uring,aio-sqpoll=on,aio-sqpoll-idle-ms=5",
                           "aio=io_uring,aio-register-file=on,peek-after-submit=off",
                           "aio=io_uring,aio-force-async=on"}) {
    SCOPED_TRACE(opts);
    auto b = Open(ctx_, std::string("driver=file,cache.direct=on,") + opts +
                            ",filename=" + loop_.dev());
    ASSERT_TRUE(b);
    EXPECT_EQ(b->length(), kSize);
    AlignedBuffer w = Filled(1 << 20, 6);
    ASSERT_EQ(Write(*b, 2 << 20, w.data(), w.size()), 0);
    AlignedBuffer r(1 << 20);
    ASSERT_EQ(Read(*b, 2 << 20, r.data(), r.size()), 0);
    EXPECT_EQ(memcmp(w.data(), r.data(), w.size()), 0);
    std::vector<uint8_t> u(1000, 0x55);
    ASSERT_EQ(Write(*b, 54321, u.data(), u.size()), 0);
    std::vector<uint8_t> ru(1000);
    ASSERT_EQ(Read(*b, 54321, ru.data(), ru.size()), 0);
    EXPECT_EQ(u, ru);
    ASSERT_EQ(RunSync(ctx_, b->flush()).error(), 0);
    EXPECT_EQ(Counter(*b, "file_flush_fdsync_aio"), 1u);
    AlignedBuffer z(1 << 20);
    memset(z.data(), 0, z.size());
    ASSERT_EQ(Write(*b, 0, z.data(), z.size()), 0);
    auto zero = [](uint64_t) -> uint8_t { return 0; };
    ASSERT_EQ(ConcurrentReads(ctx_, *b, 32, 64, zero), 0);
    EXPECT_EQ(Counter(*b, "io_uring_submit_errors"), 0u);
    EXPECT_EQ(Counter(*b, "aio_in_flight"), 0u);
    EXPECT_GE(Counter(*b, "io_uring_sqes"), 5u);
  }
}

TEST_F(FileLoopTest, ThreadsModeOnBlockDevice) {
  auto b = Open(ctx_, "driver=file,aio=threads,cache.direct=on,filename=" + loop_.dev());
  ASSERT_TRUE(b);
  EXPECT_EQ(b->length(), kSize);
  AlignedBuffer w = Filled(65536, 5);
  ASSERT_EQ(Write(*b, kSize - 65536, w.data(), w.size()), 0);
  AlignedBuffer r(65536);
  ASSERT_EQ(Read(*b, kSize - 65536, r.data(), r.size()), 0);
  EXPECT_EQ(memcmp(w.data(), r.data(), w.size()), 0);
}

// aio-poll=auto spins only while the queue is shallow enough for the next
// completion to come within the poll window (in_flight * pace <= max_ns).
// A window longer than any 32-deep queue takes (10 ms): the loop declines
// only when nothing is in flight.  A window shorter than one completion
// (1 us): once the device's pace is known, every wait is declined.
TEST_F(FileLoopTest, PollingDeclinedWhileTheQueueOutlastsThePollWindow) {
  // No peek after io_submit: completions are reaped only where the loop
  // waits, so every wait has requests in flight and the pace is sampled.
  const std::string spec =
      "driver=file,aio=native,cache.direct=on,peek-after-submit=off,filename=" + loop_.dev();
  auto zero = [](uint64_t) -> uint8_t { return 0; };
  uint64_t declined[2], phases[2], reaped[2];
  const int64_t windows[2] = {10'000'000, 1'000};
  for (int k = 0; k < 2; k++) {
    AioContext ctx;
    ctx.set_poll_params({.max_ns = windows[k], .grow = 0, .shrink = 0});
    auto b = Open(ctx, spec);
    ASSERT_TRUE(b);
    ASSERT_EQ(ConcurrentReads(ctx, *b, 32, 128, zero), 0);
    EXPECT_GT(Counter(*b, "aio_pace_ns"), 0u) << "4096 completions measure the pace";
    EXPECT_EQ(Counter(*b, "aio_poll_declined"), ctx.stats().poll_declined);
    declined[k] = Counter(*b, "aio_poll_declined");
    phases[k] = ctx.stats().poll_phases;
    reaped[k] = Counter(*b, "aio_reaped_poll") + Counter(*b, "aio_reaped_eventfd") +
                Counter(*b, "aio_reaped_after_submit");
    ASSERT_EQ(reaped[k], 4096u);
    EXPECT_EQ(Counter(*b, "aio_reaped_after_submit"), 0u);
  }
  EXPECT_LT(declined[0], 20u) << "declined with requests in flight and a 10 ms window";
  EXPECT_GT(declined[1], 100u);
  EXPECT_GT(phases[0], 0u);
  // Spinning only until the first pace window (256 completions) closed.  (A
  // declined wait still checks the ring once before sleeping, and often
  // finds completions there: that is no spin.)
  EXPECT_LE(phases[1], 2 * CompletionPace::kWindow);
}

}  // namespace
}  // namespace blk::test
