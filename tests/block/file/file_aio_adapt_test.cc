// The adaptive submit batch of aio=native measured on a real device that
// completes reads after io_submit returns: a loop device (direct-io=on) over
// a FUSE file whose reads take a millisecond in a userspace server
// (SlowFile: nbdfuse over nbdkit's delay filter), so no read can complete
// inside io_submit whatever the host's disk (a loop device over a disk file
// completed 40 % of its reads there on the CI host).  Tagged "timing" (the
// optimised build only: sanitizers slow the code between io_submit and the
// ring peek), "exclusive", and "local" (FUSE and loop devices need the real
// /dev).  The rule itself is tested without timing in batch_sizer_test.
#include <cstdio>

#include <blkstack/block/file/queue_engine.h>
#include "tests/block/file/file_test_util.h"
#include "tests/block/file/loop_device.h"
#include "tests/block/file/slow_file.h"

namespace blk::test {
namespace {

// QD 32: aio-batch-adapt lowers the batch to 4 once a window of 512 requests
// saw the device complete after io_submit (io_submit calls then carry at
// most 4), while aio-batch-adapt=off keeps 32.
TEST(FileAioAdaptTest, BatchFollowsTheDevice) {
  AioContext ctx;
  TempFile f(1 << 20);
  SlowFile slow(f.path(), /*delay_ms=*/1);
  ASSERT_FALSE(slow.path().empty()) << slow.why();
  LoopDevice loop(slow.path(), /*direct_io=*/true);
  ASSERT_FALSE(loop.dev().empty()) << loop.why();
  const std::string spec = "driver=file,filename=" + loop.dev() + ",aio=native,cache.direct=on";
  const int qd = 32, per = 256;
  auto run = [&](BlockBackend& b) {
    EXPECT_EQ(ConcurrentReads(ctx, b, qd, per, TempFile::Pattern), 0);
    EXPECT_EQ(Counter(b, "aio_requests_submitted"), uint64_t(qd * per));
  };
  auto fixed = Open(ctx, spec + ",aio-batch-adapt=off");
  ASSERT_TRUE(fixed);
  run(*fixed);
  EXPECT_EQ(Counter(*fixed, "aio_batch_limit"), 32u);
  EXPECT_EQ(Counter(*fixed, "aio_batch_changes"), 0u);
  fixed.reset();

  auto b = Open(ctx, spec);
  ASSERT_TRUE(b);
  run(*b);
  const uint64_t n = Counter(*b, "aio_requests_submitted");
  const uint64_t found = Counter(*b, "aio_reaped_after_submit");
  ASSERT_LT(found * 4, n) << "the loop device completed " << found << " of " << n
                          << " reads inside io_submit; the rule under test needs an "
                             "asynchronous device";
  EXPECT_EQ(Counter(*b, "aio_batch_limit"), 4u);
  EXPECT_GE(Counter(*b, "aio_batch_changes"), 1u);
  const uint64_t in_big_batches = Counter(*b, "aio_requests_per_submit_8-15") * 8 +
                                  Counter(*b, "aio_requests_per_submit_16-31") * 16 +
                                  Counter(*b, "aio_requests_per_submit_32-63") * 32;
  // Each window of 512 requests decides the next one's batch from what it
  // saw, so the first window still sends batches of 32 (480 of the 8192
  // requests in batches of 8 or more), and so would one in which the device
  // looked fast.  Most of the 16 windows must use small batches.
  EXPECT_LE(in_big_batches * 4, n) << found << " of " << n << " found done right after io_submit";
  EXPECT_GT(Counter(*b, "aio_requests_per_submit_4-7"), 0u);
}

}  // namespace
}  // namespace blk::test
