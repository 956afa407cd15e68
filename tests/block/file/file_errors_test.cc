// Bad input: every failure names the path and the errno.
#include <sys/stat.h>

#include <cstdlib>

#include "tests/block/file/file_test_util.h"

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
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("No such file or directory"), std::string::npos) << msg;
}

TEST(FileErrorsTest, Directory) {
  AioContext ctx;
  const std::string dir = TempDir();
  std::string msg = OpenError(ctx, "driver=file,filename=" + dir);
  EXPECT_NE(msg.find(dir), std::string::npos) << msg;
  EXPECT_NE(msg.find("directory"), std::string::npos) << msg;
  // Read-only, open() succeeds on a directory: fstat catches it.
  msg = OpenError(ctx, "driver=file,read-only=on,filename=" + dir);
  EXPECT_NE(msg.find("is a directory"), std::string::npos) << msg;
}

TEST(FileErrorsTest, NoPermission) {
  // Root bypasses mode bits, not the immutable attribute.
  AioContext ctx;
  TempFile f(4096);
  if (geteuid() != 0) {
    chmod(f.path().c_str(), 0400);
  } else if (system(("chattr +i " + f.path() + " 2>/dev/null").c_str()) != 0) {
    GTEST_SKIP() << "running as root and chattr +i failed: root bypasses permissions";
  }
  std::string msg = OpenError(ctx, "driver=file,filename=" + f.path());
  if (geteuid() == 0) (void)!system(("chattr -i " + f.path()).c_str());
  EXPECT_NE(msg.find(f.path()), std::string::npos) << msg;
  EXPECT_NE(msg.find("read-write"), std::string::npos) << msg;
  EXPECT_TRUE(msg.find("Operation not permitted") != std::string::npos ||
              msg.find("Permission denied") != std::string::npos)
      << msg;
  // Read-only works.
  auto b = OpenBackend(ctx, "driver=file,read-only=on,filename=" + f.path());
  EXPECT_TRUE(b.ok());
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
  EXPECT_NE(msg.find(f.path()), std::string::npos) << msg;
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

TEST(FileErrorsTest, NotAFileOrBlockDevice) {
  AioContext ctx;
  std::string msg = OpenError(ctx, "driver=file,read-only=on,filename=/dev/null");
  EXPECT_NE(msg.find("/dev/null"), std::string::npos) << msg;
  EXPECT_NE(msg.find("neither a regular file nor a block device"), std::string::npos) << msg;
}

TEST(FileErrorsTest, ODirectRefusedByFilesystem) {
  AioContext ctx;
  TempFile f(4096, "/dev/shm");
  auto b = OpenBackend(ctx, "driver=file,cache.direct=on,filename=" + f.path());
  if (b.ok()) {
    GTEST_SKIP() << "tmpfs accepts O_DIRECT on this kernel (Linux >= 6.6): no filesystem "
                    "at hand refuses it";
  }
  const std::string& msg = b.error().message;
  EXPECT_EQ(b.error().code, -EINVAL);
  EXPECT_NE(msg.find(f.path()), std::string::npos) << msg;
  EXPECT_NE(msg.find("does not support O_DIRECT"), std::string::npos) << msg;
}

}  // namespace
}  // namespace blk::test
