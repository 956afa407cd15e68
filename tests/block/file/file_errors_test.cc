// Bad input: every failure names the path (whole: QuoteName keeps up to
// PATH_MAX bytes) and the errno.
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tests/block/file/file_test_util.h"
#include <blkstack/util/quote.h>

namespace blk::test {
namespace {

std::string OpenError(AioContext& ctx, const std::string& spec) {
  auto b = OpenBackend(ctx, spec);
  EXPECT_FALSE(b.ok()) << spec;
  return b.ok() ? std::string() : b.error().message;
}

TEST(FileErrorsTest, MissingFile) {
  AioContext ctx;
  const std::string path = TempDir() + "/no-such-file";
  std::string msg = OpenError(ctx, "driver=file,filename=" + path);
  EXPECT_NE(msg.find(QuoteName(path)), std::string::npos) << msg;
  EXPECT_NE(msg.find("No such file or directory"), std::string::npos) << msg;
}

TEST(FileErrorsTest, Directory) {
  AioContext ctx;
  const std::string dir = TempDir();
  std::string msg = OpenError(ctx, "driver=file,filename=" + dir);
  EXPECT_NE(msg.find(QuoteName(dir)), std::string::npos) << msg;
  EXPECT_NE(msg.find("directory"), std::string::npos) << msg;
  // Read-only, open() succeeds on a directory: fstat catches it.
  msg = OpenError(ctx, "driver=file,read-only=on,filename=" + dir);
  EXPECT_NE(msg.find("is a directory"), std::string::npos) << msg;
}

// Opens `path` read-write (must fail with a permission error naming the
// file and suggesting read-only=on) and read-only (must work); exits 0 if
// all holds, printing what did not.
[[noreturn]] void CheckNoWritePermission(const std::string& path) {
  AioContext ctx;
  auto rw = OpenBackend(ctx, "driver=file,filename=" + path);
  const std::string msg = rw.ok() ? std::string("opened read-write") : rw.error().message;
  bool good = !rw.ok() && msg.find(path) != std::string::npos &&
              msg.find("read-write") != std::string::npos &&
              msg.find("read-only=on may work") != std::string::npos &&
              (msg.find("Operation not permitted") != std::string::npos ||
               msg.find("Permission denied") != std::string::npos);
  auto ro = OpenBackend(ctx, "driver=file,read-only=on,filename=" + path);
  good = good && ro.ok();
  std::fprintf(stderr, "%s%s\n", msg.c_str(), ro.ok() ? "" : " / read-only open failed too");
  _exit(good ? 0 : 1);
}

// Clears CAP_DAC_OVERRIDE from this process's effective capabilities, so
// that mode bits apply to root too (also inside Bazel's sandbox, a user
// namespace where no other uid exists to switch to).  0 or -errno.
int DropDacOverride() {
  struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &hdr, data) != 0) return -errno;
  data[CAP_DAC_OVERRIDE / 32].effective &= ~(1u << (CAP_DAC_OVERRIDE % 32));
  if (syscall(SYS_capset, &hdr, data) != 0) return -errno;
  return 0;
}

TEST(FileErrorsTest, NoPermission) {
  // A file nobody may write (mode 0444).  Root bypasses mode bits through
  // CAP_DAC_OVERRIDE: the check runs in a child without it.
  TempFile f(4096, "/dev/shm");
  ASSERT_EQ(chmod(f.path().c_str(), 0444), 0);
  EXPECT_EXIT(
      {
        if (int r = DropDacOverride(); r != 0) {
          std::fprintf(stderr, "cannot drop CAP_DAC_OVERRIDE: %s\n", std::strerror(-r));
          _exit(2);
        }
        CheckNoWritePermission(f.path());
      },
      testing::ExitedWithCode(0), "Permission denied");
}

TEST(FileErrorsTest, WriteToReadOnlyNodeIsEperm) {
  AioContext ctx;
  TempFile f(65536);
  auto b = Open(ctx, "driver=file,read-only=on,aio=native,cache.direct=on,filename=" + f.path());
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->read_only());
  AlignedBuffer w = Filled(4096, 1);
  EXPECT_EQ(Write(*b, 0, w.data(), 4096), -EPERM);
  EXPECT_EQ(RunSync(ctx, b->write_zeroes(0, 4096)).error(), -EPERM);
  AlignedBuffer r(4096);
  EXPECT_EQ(Read(*b, 0, r.data(), 4096), 0);
  EXPECT_EQ(r.data()[7], TempFile::Pattern(7));
}

TEST(FileErrorsTest, NativeNeedsODirect) {
  AioContext ctx;
  TempFile f(4096);
  std::string msg = OpenError(ctx, "driver=file,aio=native,filename=" + f.path());
  EXPECT_NE(msg.find("cache.direct=on"), std::string::npos) << msg;
  EXPECT_NE(msg.find(QuoteName(f.path())), std::string::npos) << msg;
}

TEST(FileErrorsTest, BadOptionValues) {
  AioContext ctx;
  TempFile f(4096);
  std::string msg = OpenError(ctx, "driver=file,aio=io_uring_please,filename=" + f.path());
  EXPECT_NE(msg.find("aio"), std::string::npos) << msg;
  msg = OpenError(ctx, "driver=file,aio-max-batch=0,filename=" + f.path());
  EXPECT_NE(msg.find("aio-max-batch"), std::string::npos) << msg;
  msg = OpenError(ctx, "driver=file");
  EXPECT_NE(msg.find("filename"), std::string::npos) << msg;
}

TEST(FileErrorsTest, NotAFileOrDevice) {
  AioContext ctx;
  const std::string fifo = TempDir() + "/fifo";
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string msg = OpenError(ctx, "driver=file,read-only=on,filename=" + fifo);
  unlink(fifo.c_str());
  EXPECT_NE(msg.find(QuoteName(fifo) + " is a FIFO"), std::string::npos) << msg;
  EXPECT_NE(msg.find("neither a regular file, a block device nor a character device"),
            std::string::npos)
      << msg;
}

// A character device has no length: without size= it is refused naming
// both; size= on anything else is refused too.
TEST(FileErrorsTest, CharacterDeviceNeedsSizeAndOnlyIt) {
  AioContext ctx;
  std::string msg = OpenError(ctx, "driver=file,read-only=on,filename=/dev/null");
  EXPECT_NE(msg.find("'/dev/null' is a character device, which has no length: give it with size="),
            std::string::npos)
      << msg;
  TempFile f(4096);
  msg = OpenError(ctx, "driver=file,filename=" + f.path() + ",size=1M");
  EXPECT_NE(msg.find("size= is only for a character device"), std::string::npos) << msg;
  EXPECT_NE(msg.find(QuoteName(f.path())), std::string::npos) << msg;
}

TEST(FileErrorsTest, ODirectRefusedByFilesystem) {
  AioContext ctx;
  TempFile f(4096, "/dev/shm");
  // tmpfs refuses O_DIRECT before Linux 6.6; procfs on every kernel (a
  // regular file, opened read-only).
  std::string spec = "driver=file,cache.direct=on,filename=" + f.path();
  std::string path = f.path();
  if (OpenBackend(ctx, spec).ok()) {
    path = "/proc/version";
    spec = "driver=file,cache.direct=on,read-only=on,filename=" + path;
  }
  auto b = OpenBackend(ctx, spec);
  ASSERT_FALSE(b.ok()) << path << " accepted O_DIRECT";
  const std::string& msg = b.error().message;
  EXPECT_EQ(b.error().code, -EINVAL);
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("does not support O_DIRECT"), std::string::npos) << msg;
}

}  // namespace
}  // namespace blk::test
