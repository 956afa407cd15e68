// aio=io_uring when the kernel refuses io_uring: the open fails with the
// cause named, and never falls back to another engine.  Sets the
// kernel.io_uring_disabled sysctl (Linux 6.6) for the duration of the test
// and restores it: tagged "exclusive" (no other test may run meanwhile) and
// "local" (the sysctl is written outside Bazel's sandbox).
#include <cerrno>
#include <fstream>
#include <string>

#include "tests/block/file/file_test_util.h"

namespace blk::test {
namespace {

constexpr const char* kSysctl = "/proc/sys/kernel/io_uring_disabled";

class UringDisabledTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(kSysctl);
    if (!(in >> saved_)) {
      GTEST_SKIP() << "SKIPPED: " << kSysctl << " is missing (Linux older than 6.6)";
    }
    if (!Write(2)) GTEST_SKIP() << "SKIPPED: cannot write " << kSysctl << " (not root?)";
    changed_ = true;
  }
  void TearDown() override {
    if (changed_) {
      EXPECT_TRUE(Write(saved_)) << "could not restore " << kSysctl;
    }
  }
  static bool Write(int v) {
    std::ofstream out(kSysctl);
    out << v << "\n";
    out.flush();
    return bool(out);
  }
  int saved_ = 0;
  bool changed_ = false;
};

TEST_F(UringDisabledTest, OpenFailsNamingTheSysctl) {
  AioContext ctx;
  TempFile f(1 << 20);
  auto bad = OpenBackend(ctx, "driver=file,aio=io_uring,cache.direct=on,filename=" + f.path());
  ASSERT_FALSE(bad.ok()) << "io_uring opened although kernel.io_uring_disabled=2";
  EXPECT_EQ(bad.error().code, -EPERM);
  const std::string msg = bad.error().message;
  EXPECT_NE(msg.find("aio=io_uring: io_uring_queue_init(128): "), std::string::npos) << msg;
  EXPECT_NE(msg.find("io_uring is disabled: kernel.io_uring_disabled=2"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find(f.path()), std::string::npos) << msg;
  // The other engines are unaffected.
  auto b = Open(ctx, "driver=file,aio=native,cache.direct=on,filename=" + f.path());
  ASSERT_TRUE(b);
}

}  // namespace
}  // namespace blk::test
