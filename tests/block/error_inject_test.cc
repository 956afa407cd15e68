// Tests of the error-injection filter stacked on the null driver.
#include <blkstack/block/error_inject/error_inject.h>

#include <gtest/gtest.h>

#include <vector>

#include <blkstack/block/registry.h>

namespace blk {
namespace {

struct Stack {
  AioContext ctx;
  std::unique_ptr<BlockBackend> blk;
  std::vector<uint8_t> buf = std::vector<uint8_t>(4096);
  explicit Stack(const std::string& spec) {
    auto b = OpenBackend(ctx, spec);
    EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().message);
    if (b.ok()) blk = std::move(b.value());
  }
  int read(uint64_t off) {
    IoVec iov(buf.data(), buf.size());
    return RunSync(ctx, blk->read(off, iov)).error();
  }
  int write(uint64_t off) {
    IoVec iov(buf.data(), buf.size());
    return RunSync(ctx, blk->write(off, iov)).error();
  }
  uint64_t counter(const std::string& name) {
    std::vector<DriverCounter> cs;
    blk->root().driver().counters(&cs);
    for (auto& c : cs) {
      if (c.name == name) return c.value;
    }
    ADD_FAILURE() << "no counter " << name;
    return 0;
  }
};

TEST(ErrorInjectTest, FailsOnlyMatchingRequestsInRange) {
  Stack s("driver=error-inject,event=write,errno=28,offset=1M,length=64K,"
          "file.driver=null,file.size=16M");
  ASSERT_TRUE(s.blk);
  EXPECT_EQ(s.write(0), 0);
  EXPECT_EQ(s.write(1 << 20), -ENOSPC);
  EXPECT_EQ(s.write((1 << 20) + 60 * 1024), -ENOSPC);  // overlaps the end
  EXPECT_EQ(s.write((1 << 20) + 64 * 1024), 0);        // just past it
  EXPECT_EQ(s.read(1 << 20), 0);                       // reads are not matched
  EXPECT_EQ(s.counter("error_inject.injected"), 2u);
  EXPECT_EQ(s.blk->stats()[IoOp::kWrite].errors, 2u);
}

TEST(ErrorInjectTest, AfterAndCountLimitWhichMatchesFail) {
  Stack s("driver=error-inject,event=read,after=2,count=1,file.driver=null");
  ASSERT_TRUE(s.blk);
  EXPECT_EQ(s.read(0), 0);
  EXPECT_EQ(s.read(0), 0);
  EXPECT_EQ(s.read(0), -EIO);
  EXPECT_EQ(s.read(0), 0);
  EXPECT_EQ(s.counter("error_inject.matched"), 4u);
}

TEST(ErrorInjectTest, FailAfterChildCompletedStillReachesChild) {
  Stack s("driver=error-inject,event=any,immediately=off,file.driver=null,file.read-zeroes=on");
  ASSERT_TRUE(s.blk);
  s.buf.assign(4096, 0xaa);
  EXPECT_EQ(s.read(0), -EIO);
  EXPECT_EQ(s.buf[0], 0);  // the child did read (zeros) before the error
}

TEST(ErrorInjectTest, BadOptionsAreClearErrors) {
  AioContext ctx;
  auto b = OpenBackend(ctx, "driver=error-inject");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("file"), std::string::npos) << b.error().message;
  b = OpenBackend(ctx, "driver=error-inject,event=sometimes,file.driver=null");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("sometimes"), std::string::npos) << b.error().message;
  b = OpenBackend(ctx, "driver=error-inject,file.driver=null,file.sise=1");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("node 'file'"), std::string::npos) << b.error().message;
}

}  // namespace
}  // namespace blk
