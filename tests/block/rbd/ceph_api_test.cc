// Loading librbd at run time (block/rbd/ceph_api.h).  Each case that sets
// BLKSTACK_LIBRBD runs in a child process (EXPECT_EXIT), because the first
// load in a process is final.
#include <blkstack/block/rbd/ceph_api.h>

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <blkstack/block/registry.h>

namespace blk {
namespace {

std::string Maps() {
  std::ifstream f("/proc/self/maps");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Opens an rbd image in a fresh child with BLKSTACK_LIBRBD=`lib`; prints the
// error and exits with its errno (0 if the open succeeded).
[[noreturn]] void OpenRbdWith(const char* lib) {
  setenv("BLKSTACK_LIBRBD", lib, 1);
  AioContext ctx;
  auto b = OpenBackend(ctx, "driver=rbd,pool=rbd,image=none");
  if (b.ok()) _exit(0);
  std::fprintf(stderr, "%s\n", b.error().message.c_str());
  _exit(-b.error().code);
}

// Loads the real librbd in a fresh child; exits 0 if every function of the
// table was resolved and librbd is now mapped.
[[noreturn]] void LoadRealLibrbd() {
  unsetenv("BLKSTACK_LIBRBD");
  auto api = LoadCephApi();
  if (!api.ok()) {
    std::fprintf(stderr, "%s\n", api.error().message.c_str());
    _exit(1);
  }
  bool all = true;
#define BLK_CHECK(fn) all = all && (*api)->fn != nullptr;
  BLK_CEPH_FUNCTIONS(BLK_CHECK)
#undef BLK_CHECK
  std::fprintf(stderr, "loaded %s\n", (*api)->path.c_str());
  _exit(all && Maps().find("librbd") != std::string::npos ? 0 : 2);
}

TEST(CephApiTest, ProgramWithoutRbdNeverMapsCeph) {
  AioContext ctx;
  auto b = OpenBackend(ctx, "driver=null,size=1M");
  ASSERT_TRUE(b.ok()) << b.error().message;
  const std::string maps = Maps();
  EXPECT_EQ(maps.find("librbd"), std::string::npos) << maps;
  EXPECT_EQ(maps.find("librados"), std::string::npos) << maps;
}

TEST(CephApiTest, MissingLibrbdIsAClearOpenError) {
  EXPECT_EXIT(OpenRbdWith("/nonexistent/librbd.so.1"), testing::ExitedWithCode(ENOENT),
              "driver 'rbd': cannot load librbd \\('/nonexistent/librbd.so.1', from "
              "BLKSTACK_LIBRBD\\): .*No such file.*apt install librbd1");
}

TEST(CephApiTest, LibraryWithoutTheFunctionsIsRefused) {
  // libaio is linked by every blkstack program and has no rados_create.
  EXPECT_EXIT(OpenRbdWith("libaio.so.1"), testing::ExitedWithCode(ENOSYS),
              "driver 'rbd': 'libaio.so.1' has no function rados_create");
}

TEST(CephApiTest, RealLibrbdLoadsEveryFunction) {
  if (access("/usr/lib/x86_64-linux-gnu/librbd.so.1", R_OK) != 0 &&
      !std::getenv("BLK_TEST_NO_SKIP")) {
    GTEST_SKIP() << "SKIPPED: librbd.so.1 is not installed (apt install librbd1)";
  }
  EXPECT_EXIT(LoadRealLibrbd(), testing::ExitedWithCode(0), "loaded librbd.so.1");
}

}  // namespace
}  // namespace blk
