// SyncFileRange (run/features/sync_file_range.h): after every N writes a
// sync_file_range(2) with the job's flags on the file written last, over
// the range of its writes completed since the previous call; no call (but
// a sync timed) with none; none after the job's last write.  The
// tracker alone, then on a real submit loop over the null driver with the
// call recorded, then the real system call on a real file.
#include "tools/block_bench/run/features/sync_file_range.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/tools/block_bench/run/loop_fixture.h"

namespace blk::bench {
namespace {

using testing::LoopFixture;
using testing::Read;
using testing::Write;

TEST(SyncRangeTracker, SpansTheWritesSinceTheLastTake) {
  SyncRangeTracker t(2);
  EXPECT_EQ(t.take(0).len, 0u) << "nothing written";
  t.written(0, 8192, 4096);
  t.written(0, 0, 4096);
  t.written(1, 65536, 512);
  SyncRangeTracker::Range r = t.take(0);
  EXPECT_EQ(r.offset, 0u);
  EXPECT_EQ(r.len, 12288u) << "first..last, holes included (fio's first_write..last_write)";
  EXPECT_EQ(t.take(0).len, 0u) << "reset by the take";
  t.written(0, 16384, 4096);
  r = t.take(0);
  EXPECT_EQ(r.offset, 16384u);
  EXPECT_EQ(r.len, 4096u);
  r = t.take(1);
  EXPECT_EQ(r.offset, 65536u);
  EXPECT_EQ(r.len, 512u);
  t.written(7, 0, 4096);  // no such file: ignored
  EXPECT_EQ(t.take(7).len, 0u);
}

struct CallRecord {
  int fd;
  uint64_t offset, len;
  unsigned flags;
};

JobOptions Job(uint32_t every) {
  JobOptions j;
  j.name = "s";
  j.ioengine = IoEngine::kNull;
  j.iodepth = 1;
  j.sync_file_range = every;
  j.sync_file_range_flags = 2;
  return j;
}

struct Rig {
  Rig(uint32_t every, unsigned flags, std::vector<IoUnit> ios, int fd = 42)
      : fx(Job(every), std::move(ios)),
        s(every, flags, 1, [fd](uint32_t f) { return f == 0 ? fd : -1; }, fx.time,
          [this](int fd, uint64_t off, uint64_t len, unsigned fl) {
            calls.push_back({fd, off, len, fl});
            return result;
          }) {}
  LoopFixture fx;
  std::vector<CallRecord> calls;
  int result = 0;
  SyncFileRange s;
};

TEST(SyncFileRange, EveryNWritesOverTheRangeSinceTheLastCall) {
  // sync_file_range=wait_before,write:2 over five writes and a read: after
  // the 2nd and 4th write, none after the 5th (the job's last).
  Rig r(2, 3, {Write(0), Read(0), Write(4096), Write(12288), Write(8192), Write(16384)});
  r.fx.open_null();
  r.fx.make_loop().add_hook(&r.s);
  r.fx.run();
  ASSERT_EQ(r.calls.size(), 2u);
  EXPECT_EQ(r.calls[0].fd, 42);
  EXPECT_EQ(r.calls[0].offset, 0u);
  EXPECT_EQ(r.calls[0].len, 8192u);
  EXPECT_EQ(r.calls[0].flags, 3u);
  EXPECT_EQ(r.calls[1].offset, 8192u);
  EXPECT_EQ(r.calls[1].len, 8192u);
  EXPECT_EQ(r.fx.res.sync_lat.count(), 2u) << "timed with the syncs";
  EXPECT_EQ(r.fx.res.syncs, 0u) << "not in their total, as fio's (fsyncs only)";
  EXPECT_EQ(r.fx.res.dir[int(Dir::kWrite)].ios, 5u);
  EXPECT_EQ(r.fx.res.error, 0);
}

TEST(SyncFileRange, NoDescriptorNoCallButCounted) {
  Rig r(1, 2, {Write(0), Write(4096)}, -1);
  r.fx.open_null();
  r.fx.make_loop().add_hook(&r.s);
  r.fx.run();
  EXPECT_TRUE(r.calls.empty());
  EXPECT_EQ(r.fx.res.sync_lat.count(), 1u);
}

TEST(SyncFileRange, AFailedCallIsTheClonesError) {
  Rig r(1, 2, {Write(0), Write(4096)});
  r.result = -EIO;
  r.fx.open_null();
  r.fx.make_loop().add_hook(&r.s);
  r.fx.run();
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.fx.res.error, EIO);
  EXPECT_NE(r.fx.res.error_message.find("sync_file_range failed"), std::string::npos)
      << r.fx.res.error_message;
}

// The real system call on a real file: 0 on a written range, -EINVAL for
// flags the kernel does not know, -EBADF without a descriptor.
TEST(SyncFileRange, SystemCallOnARealFile) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/sfr.XXXXXX";
  const int fd = mkstemp(path.data());
  ASSERT_GE(fd, 0);
  std::string data(8192, 'x');
  ASSERT_EQ(write(fd, data.data(), data.size()), ssize_t(data.size()));
  const int ro = open(path.c_str(), O_RDONLY);  // as CloneFiles' side descriptor
  EXPECT_EQ(SyncFileRange::SystemCall(ro, 0, 8192, 1 | 2 | 4), 0);
  EXPECT_EQ(SyncFileRange::SystemCall(ro, 0, 8192, 8), -EINVAL);
  EXPECT_EQ(SyncFileRange::SystemCall(-1, 0, 8192, 2), -EBADF);
  close(ro);
  close(fd);
  unlink(path.c_str());
}

}  // namespace
}  // namespace blk::bench
