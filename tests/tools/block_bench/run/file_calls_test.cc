// File calls (run/file_calls.h) on real files: SideFd, write_hint's fcntl.
#include "tools/block_bench/run/file_calls.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace blk::bench {
namespace {

#ifndef F_GET_RW_HINT
#define F_GET_RW_HINT 1035
#endif

std::string TempFile() {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/file_calls.XXXXXX";
  const int fd = mkstemp(path.data());
  EXPECT_GE(fd, 0);
  if (fd >= 0) close(fd);
  return path;
}

uint64_t InodeHint(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  uint64_t h = 99;
  EXPECT_EQ(fcntl(fd, F_GET_RW_HINT, &h), 0) << errno;
  close(fd);
  return h;
}

TEST(SideFd, OpensReadOnlyAndCloses) {
  const std::string path = TempFile();
  SideFd s;
  EXPECT_FALSE(s.valid());
  ASSERT_EQ(s.open(path), 0);
  const int fd = s.get();
  EXPECT_EQ(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
  SideFd moved = std::move(s);
  EXPECT_FALSE(s.valid());
  EXPECT_EQ(moved.get(), fd);
  moved = SideFd();
  EXPECT_EQ(fcntl(fd, F_GETFD), -1);  // closed
  EXPECT_EQ(s.open(path + ".missing"), -ENOENT);
  unlink(path.c_str());
}

// The hint set on our own descriptor is the inode's: another descriptor
// of the file (the driver's) reads it back.
TEST(SetWriteHint, BufferedSetsTheInodesLifeTime) {
  const std::string path = TempFile();
  SideFd s;
  ASSERT_EQ(s.open(path), 0);
  const JobOptions::WriteHint hints[] = {
      JobOptions::WriteHint::kShort, JobOptions::WriteHint::kExtreme,
      JobOptions::WriteHint::kNone, JobOptions::WriteHint::kMedium, JobOptions::WriteHint::kLong};
  for (JobOptions::WriteHint h : hints) {
    ASSERT_EQ(SetWriteHint(s.get(), h, false), 0);
    EXPECT_EQ(InodeHint(path), uint64_t(h));
  }
  unlink(path.c_str());
}

TEST(SetWriteHint, DirectUsesTheOpenFilesCommandAsFio) {
  EXPECT_EQ(WriteHintCommand(false), 1036);  // F_SET_RW_HINT
  EXPECT_EQ(WriteHintCommand(true), 1038);   // F_SET_FILE_RW_HINT
  // Linux 5.17 removed F_SET_FILE_RW_HINT: fio's direct=1 job fails with
  // EINVAL there, and so does ours (older kernels: accepted).
  const std::string path = TempFile();
  SideFd s;
  ASSERT_EQ(s.open(path), 0);
  const int r = SetWriteHint(s.get(), JobOptions::WriteHint::kShort, true);
  EXPECT_TRUE(r == 0 || r == -EINVAL) << r;
  EXPECT_EQ(SetWriteHint(-1, JobOptions::WriteHint::kShort, false), -EBADF);
  unlink(path.c_str());
}

}  // namespace
}  // namespace blk::bench
