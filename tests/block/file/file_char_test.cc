// The file driver on character devices (/dev/zero, /dev/null, /dev/full):
// the length is the spec's size=, and the kernel's answers stand, as fio's
// on the same devices: /dev/zero reads zeros, /dev/null takes writes and
// gives no data (a read fails with -EIO, fio's "full resid"), /dev/full
// fails writes with -ENOSPC.  Every engine that can open them.
#include <cstring>

#include "tests/block/file/file_test_util.h"

namespace blk::test {
namespace {

class FileCharTest : public ::testing::TestWithParam<const char*> {
 protected:
  std::unique_ptr<BlockBackend> OpenDev(const char* dev) {
    return Open(ctx_, std::string("driver=file,filename=") + dev + ",size=1M," + GetParam());
  }
  AioContext ctx_;
};

TEST_P(FileCharTest, LengthIsTheGivenSize) {
  auto b = OpenDev("/dev/zero");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->length(), 1u << 20);
  AlignedBuffer buf(4096);
  // Past the given length: the generic layer's bounds.
  EXPECT_EQ(Read(*b, 1 << 20, buf.data(), 4096), -EIO);
}

TEST_P(FileCharTest, ZeroReadsZeros) {
  auto b = OpenDev("/dev/zero");
  ASSERT_TRUE(b);
  AlignedBuffer buf(65536);
  memset(buf.data(), 0xab, buf.size());
  ASSERT_EQ(Read(*b, 8192, buf.data(), buf.size()), 0);
  for (size_t i = 0; i < buf.size(); i++) ASSERT_EQ(buf.data()[i], 0) << i;
  EXPECT_EQ(Write(*b, 0, buf.data(), 4096), 0);
}

TEST_P(FileCharTest, NullTakesWritesAndGivesNoData) {
  auto b = OpenDev("/dev/null");
  ASSERT_TRUE(b);
  AlignedBuffer buf(4096);
  EXPECT_EQ(Write(*b, 4096, buf.data(), 4096), 0);
  EXPECT_EQ(Read(*b, 4096, buf.data(), 4096), -EIO);
}

TEST_P(FileCharTest, FullFailsWritesWithEnospc) {
  auto b = OpenDev("/dev/full");
  ASSERT_TRUE(b);
  AlignedBuffer buf(4096);
  EXPECT_EQ(Write(*b, 0, buf.data(), 4096), -ENOSPC);
  EXPECT_EQ(Read(*b, 0, buf.data(), 4096), 0);
}

INSTANTIATE_TEST_SUITE_P(Engines, FileCharTest,
                         ::testing::Values("aio=sync", "aio=threads", "aio=io_uring"),
                         [](const auto& info) {
                           std::string n = info.param;
                           return n.substr(4) == "io_uring" ? std::string("uring") : n.substr(4);
                         });

}  // namespace
}  // namespace blk::test
