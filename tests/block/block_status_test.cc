// Tests of block status (BlockNode::co_block_status and the drivers'
// co_block_status): the file driver on real sparse files in TEST_TMPDIR
// (holes made by truncate and fallocate(PUNCH_HOLE)), the null driver per
// read-zeroes, filters forwarding to their child, and the generic layer's
// clamping to the node's length and request alignment.
#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <blkstack/block/node.h>
#include <blkstack/block/registry.h>

#include "mem_driver.h"

namespace blk {
namespace {

using testing::MemDriver;
using testing::MemDriverLog;

struct Extent {
  uint64_t offset;
  uint64_t length;
  uint32_t flags;
  bool operator==(const Extent&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Extent& e) {
  return os << "{" << e.offset << "+" << e.length << " flags " << e.flags << "}";
}

// Every extent of [0, length) as the node reports it, asking from the end of
// the previous answer (as an NBD or qemu-img client does).
std::vector<Extent> Map(AioContext& ctx, BlockNode& node) {
  std::vector<Extent> out;
  for (uint64_t pos = 0; pos < node.length();) {
    Result<BlockStatus> r = RunSync(ctx, node.co_block_status(pos, node.length() - pos));
    EXPECT_TRUE(r.ok()) << r.error();
    if (!r.ok() || r->length == 0) break;
    out.push_back({pos, r->length, r->flags});
    pos += r->length;
  }
  return out;
}

std::unique_ptr<BlockBackend> MustOpen(AioContext& ctx, const std::string& spec) {
  auto b = OpenBackend(ctx, spec);
  EXPECT_TRUE(b.ok()) << spec << ": " << (b.ok() ? "" : b.error().message);
  return b.ok() ? std::move(b.value()) : nullptr;
}

// A sparse file in TEST_TMPDIR: `size` bytes, data only where written.
class SparseFile {
 public:
  explicit SparseFile(uint64_t size) {
    const char* t = getenv("TEST_TMPDIR");
    path_ = std::string(t && *t ? t : "/var/tmp") + "/sparseXXXXXX";
    fd_ = mkstemp(path_.data());
    EXPECT_GE(fd_, 0);
    EXPECT_EQ(ftruncate(fd_, off_t(size)), 0);
  }
  ~SparseFile() {
    close(fd_);
    unlink(path_.c_str());
  }
  void Fill(uint64_t off, uint64_t len) {
    std::vector<uint8_t> buf(len, 0xa5);
    ASSERT_EQ(pwrite(fd_, buf.data(), len, off_t(off)), ssize_t(len));
    ASSERT_EQ(fsync(fd_), 0);
  }
  // false when the file system cannot punch holes (the test then skips).
  bool Punch(uint64_t off, uint64_t len) {
    return fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(off), off_t(len)) == 0;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

constexpr uint64_t kMiB = 1 << 20;

TEST(BlockStatusTest, FileReportsDataAndHolesAsLseekFindsThem) {
  AioContext ctx;
  SparseFile f(8 * kMiB);
  f.Fill(1 * kMiB, 1 * kMiB);
  f.Fill(4 * kMiB, 2 * kMiB);
  ASSERT_TRUE(f.Punch(5 * kMiB, 256 * 1024)) << "fallocate(PUNCH_HOLE): " << errno;
  auto blk = MustOpen(ctx, "driver=file,filename=" + f.path());
  ASSERT_TRUE(blk);
  const std::vector<Extent> want = {
      {0, 1 * kMiB, kBlockZero},
      {1 * kMiB, 1 * kMiB, kBlockData},
      {2 * kMiB, 2 * kMiB, kBlockZero},
      {4 * kMiB, 1 * kMiB, kBlockData},
      {5 * kMiB, 256 * 1024, kBlockZero},
      {5 * kMiB + 256 * 1024, kMiB - 256 * 1024, kBlockData},
      {6 * kMiB, 2 * kMiB, kBlockZero},
  };
  EXPECT_EQ(Map(ctx, blk->root()), want);

  // A query inside an extent answers from there, at most `bytes`.
  auto r = RunSync(ctx, blk->block_status(1 * kMiB + 4096, 8192));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->flags, uint32_t(kBlockData));
  EXPECT_EQ(r->length, 8192u);
  r = RunSync(ctx, blk->block_status(2 * kMiB + 4096, 64 * kMiB));  // clamped to the node
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->flags, uint32_t(kBlockZero));
  EXPECT_EQ(r->length, 2 * kMiB - 4096);
}

TEST(BlockStatusTest, WriteZeroesWithUnmapLeavesAHole) {
  AioContext ctx;
  SparseFile f(4 * kMiB);
  f.Fill(0, 4 * kMiB);
  auto blk = MustOpen(ctx, "driver=file,discard=unmap,filename=" + f.path());
  ASSERT_TRUE(blk);
  EXPECT_EQ(Map(ctx, blk->root()), (std::vector<Extent>{{0, 4 * kMiB, kBlockData}}));
  ASSERT_TRUE(RunSync(ctx, blk->discard(1 * kMiB, 1 * kMiB)).ok());
  EXPECT_EQ(Map(ctx, blk->root()), (std::vector<Extent>{{0, 1 * kMiB, kBlockData},
                                                        {1 * kMiB, 1 * kMiB, kBlockZero},
                                                        {2 * kMiB, 2 * kMiB, kBlockData}}));
}

TEST(BlockStatusTest, BoundsAreRefused) {
  AioContext ctx;
  auto blk = MustOpen(ctx, "driver=null,size=1M");
  ASSERT_TRUE(blk);
  EXPECT_EQ(RunSync(ctx, blk->block_status(1 * kMiB, 4096)).error(), -EIO);
  EXPECT_EQ(RunSync(ctx, blk->block_status(0, 0)).error(), -EIO);
  auto r = RunSync(ctx, blk->block_status(kMiB - 512, 4096));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->length, 512u);
}

TEST(BlockStatusTest, NullIsAHoleThatReadsZerosOnlyWithReadZeroes) {
  AioContext ctx;
  auto zeroes = MustOpen(ctx, "driver=null,size=16M,read-zeroes=on");
  auto junk = MustOpen(ctx, "driver=null,size=16M");
  ASSERT_TRUE(zeroes && junk);
  EXPECT_EQ(Map(ctx, zeroes->root()), (std::vector<Extent>{{0, 16 * kMiB, kBlockZero}}));
  EXPECT_EQ(Map(ctx, junk->root()), (std::vector<Extent>{{0, 16 * kMiB, 0}}));
}

TEST(BlockStatusTest, FiltersForwardToTheirChild) {
  AioContext ctx;
  SparseFile f(4 * kMiB);
  f.Fill(2 * kMiB, 1 * kMiB);
  const std::vector<Extent> want = {{0, 2 * kMiB, kBlockZero},
                                    {2 * kMiB, 1 * kMiB, kBlockData},
                                    {3 * kMiB, 1 * kMiB, kBlockZero}};
  for (const std::string& filter :
       {std::string("driver=throttle,iops-total=100000,"),
        std::string("driver=error-inject,event=write,errno=5,")}) {
    auto blk = MustOpen(ctx, filter + "file.driver=file,file.filename=" + f.path());
    ASSERT_TRUE(blk);
    EXPECT_EQ(Map(ctx, blk->root()), want) << filter;
  }
}

// A driver whose answers are scripted, for the generic layer's part.
class ScriptedStatus : public MemDriver {
 public:
  ScriptedStatus(uint64_t size, uint32_t align, MemDriverLog* log)
      : MemDriver(size, Limits(align), Capabilities{}, log) {}
  static BlockLimits Limits(uint32_t align) {
    BlockLimits l;
    l.request_alignment = align;
    return l;
  }
  Task<Result<BlockStatus>> co_block_status(uint64_t offset, uint64_t bytes) override {
    asked.push_back({offset, bytes, 0});
    if (fail) co_return Status(-EIO);
    co_return BlockStatus{flags, std::min(bytes, answer)};
  }
  std::vector<Extent> asked;
  uint32_t flags = kBlockZero;
  uint64_t answer = 0;
  bool fail = false;
};

TEST(BlockStatusTest, GenericLayerDefaultsClampsAndAligns) {
  AioContext ctx;
  MemDriverLog log;
  // A driver without block status: all data.
  BlockNode plain(std::make_unique<MemDriver>(64 * 1024, BlockLimits{}, Capabilities{}, &log),
                  "plain", false);
  plain.attach_aio_context(ctx);
  EXPECT_EQ(Map(ctx, plain), (std::vector<Extent>{{0, 64 * 1024, kBlockData}}));

  auto drv = std::make_unique<ScriptedStatus>(64 * 1024 + 100, 4096, &log);
  ScriptedStatus* d = drv.get();
  BlockNode node(std::move(drv), "scripted", false);
  node.attach_aio_context(ctx);
  // The driver is asked only inside the node.
  d->answer = 1 << 30;
  auto r = RunSync(ctx, node.co_block_status(65536, 1 << 20));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->length, 100u);  // the unaligned tail at the end of the node is kept
  EXPECT_EQ(d->asked.back(), (Extent{65536, 100, 0}));
  // An extent ending inside the node off the alignment is cut to it...
  d->answer = 10000;
  r = RunSync(ctx, node.co_block_status(0, 65536));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->length, 8192u);
  EXPECT_EQ(r->flags, uint32_t(kBlockZero));
  // ...and one shorter than the alignment unit becomes data for the unit.
  d->answer = 1000;
  r = RunSync(ctx, node.co_block_status(4096, 65536));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->length, 4096u);
  EXPECT_EQ(r->flags, uint32_t(kBlockData));
  // A driver error reaches the caller; nothing stays in flight.
  d->fail = true;
  EXPECT_EQ(RunSync(ctx, node.co_block_status(0, 4096)).error(), -EIO);
  EXPECT_EQ(node.in_flight(), 0);
  // A driver answering 0 bytes would make callers loop: -EIO.
  d->fail = false;
  d->answer = 0;
  EXPECT_EQ(RunSync(ctx, node.co_block_status(0, 4096)).error(), -EIO);
}

}  // namespace
}  // namespace blk
