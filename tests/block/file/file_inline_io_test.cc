// The file driver's aio=mmap, falloc, ftruncate and splice (InlineIo) on
// real files: mmap moves the file's bytes both ways through its mapping
// (and stays coherent with the page cache other calls see), falloc
// allocates blocks without moving data, ftruncate sets the file's length to
// each write's offset, splice moves the bytes through a pipe.
#include <sys/stat.h>

#include <cstring>

#include "tests/block/file/file_test_util.h"

namespace blk::test {
namespace {

std::string Spec(const std::string& path, const std::string& extra) {
  return "driver=file,filename=" + path + "," + extra;
}

struct stat Stat(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st;
}

// A sparse file of `size` bytes (no block allocated); removed on destruction.
class SparseFile {
 public:
  explicit SparseFile(uint64_t size) {
    path_ = TempDir() + "/blksparseXXXXXX";
    const int fd = mkstemp(path_.data());
    EXPECT_GE(fd, 0) << path_;
    EXPECT_EQ(ftruncate(fd, off_t(size)), 0);
    close(fd);
  }
  ~SparseFile() { unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Read through another descriptor (the same page cache): `data` at `off` of
// a TempFile, its pattern on either side.  REQUIRES: off > 0.
void ExpectWrittenAt(const std::string& path, uint64_t off, const AlignedBuffer& data) {
  const int fd = open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  std::vector<uint8_t> back(data.size() + 2);
  ASSERT_EQ(pread(fd, back.data(), back.size(), off_t(off - 1)), ssize_t(back.size()));
  close(fd);
  EXPECT_EQ(back[0], TempFile::Pattern(off - 1));
  EXPECT_EQ(memcmp(back.data() + 1, data.data(), data.size()), 0);
  EXPECT_EQ(back.back(), TempFile::Pattern(off + data.size()));
}

TEST(FileInlineIoTest, MmapReadsTheFileAtAnyOffset) {
  TempFile f(1 << 20);
  AioContext ctx;
  auto b = Open(ctx, Spec(f.path(), "aio=mmap"));
  ASSERT_TRUE(b);
  std::vector<uint8_t> buf(8191);
  ASSERT_EQ(Read(*b, 12345, buf.data(), buf.size()), 0);
  for (size_t i = 0; i < buf.size(); i++) ASSERT_EQ(buf[i], TempFile::Pattern(12345 + i)) << i;
  ASSERT_EQ(Read(*b, 0, buf.data(), 512), 0);
  EXPECT_EQ(buf[0], TempFile::Pattern(0));
  EXPECT_EQ(Counter(*b, "mmap_requests"), 2u);
  EXPECT_EQ(Counter(*b, "mmap_mappings"), 1u);  // one mapping of the whole file
  EXPECT_EQ(Counter(*b, "sync_syscalls"), 0u);  // nothing went through the engine
}

// One mapping serves every request, pass after pass (fio 3.33 maps once
// per open of the file).
TEST(FileInlineIoTest, MmapMapsOnce) {
  TempFile f(1 << 16);
  AioContext ctx;
  auto b = Open(ctx, Spec(f.path(), "aio=mmap"));
  ASSERT_TRUE(b);
  std::vector<uint8_t> buf(4096);
  for (int pass = 0; pass < 3; pass++) {
    for (uint64_t off = 0; off < (1 << 16); off += buf.size()) {
      ASSERT_EQ(Read(*b, off, buf.data(), buf.size()), 0);
      ASSERT_EQ(buf[7], TempFile::Pattern(off + 7)) << off;
    }
  }
  EXPECT_EQ(Counter(*b, "mmap_requests"), 48u);
  EXPECT_EQ(Counter(*b, "mmap_mappings"), 1u);
}

// Writes through the mapping are the file's: another descriptor reads them
// (the page cache is the same), and after a flush they are on disk.
TEST(FileInlineIoTest, MmapWritesReachTheFile) {
  for (const char* direct : {"cache.direct=off", "cache.direct=on"}) {
    SCOPED_TRACE(direct);
    TempFile f(1 << 20);
    AioContext ctx;
    auto b = Open(ctx, Spec(f.path(), std::string("aio=mmap,") + direct));
    ASSERT_TRUE(b);
    AlignedBuffer data = Filled(10000, 3);
    ASSERT_EQ(Write(*b, 70001, data.data(), data.size()), 0);  // unaligned both ends
    ASSERT_TRUE(RunSync(ctx, b->flush()).ok());
    ExpectWrittenAt(f.path(), 70001, data);
  }
}

// A discard (hole punched by the driver's pool) reads back as zeros through
// the mapping: one page cache under both.
TEST(FileInlineIoTest, MmapSeesADiscardAsZeros) {
  TempFile f(1 << 20);
  AioContext ctx;
  auto b = Open(ctx, Spec(f.path(), "aio=mmap,discard=unmap"));
  ASSERT_TRUE(b);
  std::vector<uint8_t> buf(65536);
  ASSERT_EQ(Read(*b, 65536, buf.data(), buf.size()), 0);  // maps, and faults the pages in
  ASSERT_TRUE(RunSync(ctx, b->discard(65536, 65536)).ok());
  ASSERT_EQ(Read(*b, 65536, buf.data(), buf.size()), 0);
  for (size_t i = 0; i < buf.size(); i++) ASSERT_EQ(buf[i], 0) << i;
}

TEST(FileInlineIoTest, MmapRefusesACharacterDevice) {
  AioContext ctx;
  auto b = OpenBackend(ctx, "driver=file,filename=/dev/zero,size=1M,aio=mmap");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("aio=mmap needs a regular file or a block device"),
            std::string::npos)
      << b.error().message;
}

TEST(FileInlineIoTest, MmapReadOnlyReadsAndRefusesWrites) {
  TempFile f(1 << 16);
  AioContext ctx;
  auto b = Open(ctx, Spec(f.path(), "aio=mmap,read-only=on"));
  ASSERT_TRUE(b);
  uint8_t c = 0;
  ASSERT_EQ(Read(*b, 100, &c, 1), 0);
  EXPECT_EQ(c, TempFile::Pattern(100));
  EXPECT_LT(Write(*b, 100, &c, 1), 0);
}

// fio's falloc engine: a write is fallocate mode 0, a read fallocate
// KEEP_SIZE; both allocate the range and neither moves a byte.
TEST(FileInlineIoTest, FallocAllocatesWithoutMovingData) {
  SparseFile f(1 << 20);
  ASSERT_EQ(Stat(f.path()).st_blocks, 0);
  AioContext ctx;
  auto b = Open(ctx, Spec(f.path(), "aio=falloc"));
  ASSERT_TRUE(b);
  std::vector<uint8_t> buf(65536, 0xab);
  ASSERT_EQ(Write(*b, 0, buf.data(), buf.size()), 0);
  const blkcnt_t after_write = Stat(f.path()).st_blocks;
  EXPECT_GE(after_write, 65536 / 512);
  ASSERT_EQ(Read(*b, 524288, buf.data(), buf.size()), 0);
  EXPECT_GE(Stat(f.path()).st_blocks, after_write + 65536 / 512);
  for (size_t i = 0; i < buf.size(); i++) ASSERT_EQ(buf[i], 0xab) << i;  // untouched
  EXPECT_EQ(Stat(f.path()).st_size, 1 << 20);
  // The file holds zeros where the "write" went: no data was written.
  const int fd = open(f.path().c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pread(fd, buf.data(), 4096, 0), 4096);
  close(fd);
  EXPECT_EQ(buf[0], 0);
  EXPECT_EQ(Counter(*b, "falloc_requests"), 2u);
  EXPECT_TRUE(RunSync(ctx, b->flush()).ok());
}

// fio's ftruncate engine: a write truncates the file to its offset, a read
// fails.
TEST(FileInlineIoTest, FtruncateSetsTheLengthToTheWriteOffset) {
  TempFile f(1 << 20);
  AioContext ctx;
  auto b = Open(ctx, Spec(f.path(), "aio=ftruncate"));
  ASSERT_TRUE(b);
  uint8_t buf[4096] = {};
  ASSERT_EQ(Write(*b, 8192, buf, sizeof buf), 0);
  EXPECT_EQ(Stat(f.path()).st_size, 8192);
  ASSERT_EQ(Write(*b, 65536, buf, sizeof buf), 0);
  EXPECT_EQ(Stat(f.path()).st_size, 65536);
  EXPECT_EQ(Read(*b, 0, buf, sizeof buf), -EINVAL);
}

TEST(FileInlineIoTest, FallocAndFtruncateRefuseDevices) {
  AioContext ctx;
  for (const char* aio : {"falloc", "ftruncate"}) {
    auto b = OpenBackend(ctx, std::string("driver=file,filename=/dev/zero,size=1M,aio=") + aio);
    ASSERT_FALSE(b.ok()) << aio;
    EXPECT_NE(b.error().message.find("needs a regular file"), std::string::npos)
        << b.error().message;
  }
}

}  // namespace
}  // namespace blk::test

namespace blk::test {
namespace {

// e4defrag: the donor is required and allocated at open (a length of 0
// fails as fallocate(2) does, naming the donor); reads fail with -EINVAL.
// The moves themselves need an ext4 that allows them: block-bench's
// e4defrag_e2e_test runs them on a loop device.
TEST(FileInlineIoTest, E4defragDonorAndReads) {
  TempFile f(1 << 20);
  AioContext ctx;
  auto none = OpenBackend(ctx, Spec(f.path(), "aio=e4defrag"));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("needs e4defrag-donor="), std::string::npos)
      << none.error().message;
  const std::string donor = f.path() + ".donor";
  auto empty = OpenBackend(ctx, Spec(f.path(), "aio=e4defrag,e4defrag-donor=" + donor));
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, -EINVAL);
  EXPECT_NE(empty.error().message.find("fallocate of the donor file " + donor), std::string::npos)
      << empty.error().message;
  {
    auto b = Open(ctx, Spec(f.path(), "aio=e4defrag,e4defrag-donor=" + donor +
                                          ",e4defrag-donor-length=1M"));
    ASSERT_TRUE(b);
    EXPECT_EQ(Stat(donor).st_size, 1 << 20);  // allocated once, at open
    std::vector<uint8_t> buf(4096);
    EXPECT_EQ(Read(*b, 0, buf.data(), buf.size()), -EINVAL);
  }
  {
    auto b = Open(ctx, Spec(f.path(), "aio=e4defrag,e4defrag-donor=" + donor +
                                          ",e4defrag-inplace=on"));
    ASSERT_TRUE(b);  // nothing allocated at open
  }
  unlink(donor.c_str());
}

// splice: reads and writes of many pipe-fulls (64 KiB each), at unaligned
// offsets and through a buffer in several pieces, are the file's bytes.
TEST(FileInlineIoTest, SpliceMovesTheFileBothWays) {
  TempFile f(1 << 20);
  AioContext ctx;
  auto b = Open(ctx, Spec(f.path(), "aio=splice"));
  ASSERT_TRUE(b);
  std::vector<uint8_t> buf(300001);
  ASSERT_EQ(Read(*b, 12345, buf.data(), buf.size()), 0);
  for (size_t i = 0; i < buf.size(); i++) ASSERT_EQ(buf[i], TempFile::Pattern(12345 + i)) << i;
  AlignedBuffer data = Filled(200003, 9);
  ASSERT_EQ(Write(*b, 70001, data.data(), data.size()), 0);
  ASSERT_TRUE(RunSync(ctx, b->flush()).ok());
  ExpectWrittenAt(f.path(), 70001, data);
  // A read through a buffer in pieces (a scatter list of three).
  std::vector<uint8_t> a(1000), m(70000), z(5000);
  IoVec v;
  v.add(a.data(), a.size());
  v.add(m.data(), m.size());
  v.add(z.data(), z.size());
  ASSERT_TRUE(RunSync(ctx, b->read(70001, v)).ok());
  EXPECT_EQ(memcmp(a.data(), data.data(), a.size()), 0);
  EXPECT_EQ(memcmp(m.data(), data.data() + a.size(), m.size()), 0);
  EXPECT_EQ(memcmp(z.data(), data.data() + a.size() + m.size(), z.size()), 0);
  EXPECT_EQ(Counter(*b, "splice_requests"), 4u);
  EXPECT_EQ(Counter(*b, "sync_syscalls"), 0u);  // nothing went through the engine
}

// cache.direct=on opens with O_DIRECT, and aligned requests pass.
TEST(FileInlineIoTest, SpliceWithODirect) {
  TempFile f(1 << 20);
  AioContext ctx;
  auto b = Open(ctx, Spec(f.path(), "aio=splice,cache.direct=on"));
  ASSERT_TRUE(b);
  AlignedBuffer data = Filled(128 << 10, 4);
  ASSERT_EQ(Write(*b, 64 << 10, data.data(), data.size()), 0);
  AlignedBuffer back(128 << 10, 4096);
  ASSERT_EQ(Read(*b, 64 << 10, back.data(), back.size()), 0);
  EXPECT_EQ(memcmp(back.data(), data.data(), data.size()), 0);
}

}  // namespace
}  // namespace blk::test
