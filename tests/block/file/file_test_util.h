// Helpers for the file driver tests: temporary files on a disk filesystem,
// opening a backend on the calling thread's loop, running I/O to completion,
// reading a driver counter, and whether a test may skip.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <blkstack/block/backend.h>
#include <blkstack/block/registry.h>
#include <blkstack/util/aio_context.h>
#include <blkstack/util/aligned_buffer.h>
#include <blkstack/util/task.h>

namespace blk::test {

// True when a test that lacks what it needs (a device, a kernel feature)
// must fail instead of skipping: BLK_TEST_NO_SKIP set and not "0"
// (scripts/test.sh sets it to 1: in CI nothing may be skipped).
inline bool SkipForbidden() {
  const char* v = getenv("BLK_TEST_NO_SKIP");
  return v && *v && std::string(v) != "0";
}

// A directory for test files: TEST_TMPDIR (Bazel's, on the disk holding the
// output base) or /var/tmp.  Not /dev/shm: the tests want a disk filesystem.
inline std::string TempDir() {
  const char* t = getenv("TEST_TMPDIR");
  return t && *t ? t : "/var/tmp";
}

// A file of `size` bytes filled with Pattern(); removed on destruction.
class TempFile {
 public:
  explicit TempFile(uint64_t size, const std::string& dir = TempDir()) {
    path_ = dir + "/blkfileXXXXXX";
    int fd = mkstemp(path_.data());
    EXPECT_GE(fd, 0) << path_;
    std::vector<uint8_t> buf(size);
    for (uint64_t i = 0; i < size; i++) buf[i] = Pattern(i);
    EXPECT_EQ(pwrite(fd, buf.data(), size, 0), ssize_t(size));
    close(fd);
  }
  ~TempFile() { unlink(path_.c_str()); }
  const std::string& path() const { return path_; }
  // The initial content of byte `off`.
  static uint8_t Pattern(uint64_t off) { return uint8_t((off * 7 + (off >> 12)) ^ 0x5a); }

 private:
  std::string path_;
};

// Opens `spec` on `ctx`; fails the test on error.
inline std::unique_ptr<BlockBackend> Open(AioContext& ctx, const std::string& spec) {
  auto b = OpenBackend(ctx, spec);
  EXPECT_TRUE(b.ok()) << spec << ": " << (b.ok() ? "" : b.error().message);
  if (!b.ok()) return nullptr;
  return std::move(b.value());
}

inline int Read(BlockBackend& b, uint64_t off, void* buf, size_t len) {
  IoVec iov(buf, len);
  return RunSync(b.ctx(), b.read(off, iov)).error();
}
inline int Write(BlockBackend& b, uint64_t off, const void* buf, size_t len) {
  IoVec iov(const_cast<void*>(buf), len);
  return RunSync(b.ctx(), b.write(off, iov)).error();
}

// The driver counter `name`, or UINT64_MAX if absent.
inline uint64_t Counter(BlockBackend& b, const std::string& name) {
  std::vector<DriverCounter> v;
  b.root().driver().counters(&v);
  for (const auto& c : v) {
    if (c.name == name) return c.value;
  }
  return UINT64_MAX;
}

inline AlignedBuffer Filled(size_t len, uint8_t seed) {
  AlignedBuffer buf(len, 4096);
  for (size_t i = 0; i < len; i++) buf.data()[i] = uint8_t(seed + i * 13 + (i >> 9));
  return buf;
}

// `qd` coroutines, each reading `per` 4 KiB blocks of the first 1 MiB at
// once; returns how many reads failed or returned a byte other than
// pattern(offset) (checked at one byte per block).
inline int ConcurrentReads(AioContext& ctx, BlockBackend& b, int qd, int per,
                           uint8_t (*pattern)(uint64_t)) {
  int failures = 0;
  auto worker = [](BlockBackend& b, int id, int per, uint8_t (*pattern)(uint64_t),
                   int* failures, WaitGroup* wg) -> Task<void> {
    AlignedBuffer buf(4096);
    for (int j = 0; j < per; j++) {
      const uint64_t off = uint64_t((id * per + j) % 256) * 4096;
      IoVec iov(buf.data(), 4096);
      Status s = co_await b.read(off, iov);
      if (!s.ok() || buf.data()[7] != pattern(off + 7)) (*failures)++;
    }
    wg->done();
  };
  auto all = [&]() -> Task<void> {
    WaitGroup wg(ctx);
    for (int i = 0; i < qd; i++) {
      wg.add();
      SpawnNow(worker(b, i, per, pattern, &failures, &wg));
    }
    co_await wg.wait();
  };
  RunSync(ctx, all());
  return failures;
}

// `n` coroutines at once, all started under one plug (so they leave in
// batches, and more than a ring holds wait in the queue), the i-th writing
// (or reading) (*bufs)[i] at offset i * 4096; counts the failed requests in
// *failures.  REQUIRES: bufs->size() >= n, 4096-byte buffers.
inline Task<void> ManyRequests(BlockBackend& b, int n, int* failures,
                               std::vector<AlignedBuffer>* bufs, bool write) {
  WaitGroup wg(b.ctx());
  auto one = [](BlockBackend& b, int i, AlignedBuffer* buf, bool write, int* failures,
                WaitGroup* wg) -> Task<void> {
    IoVec iov(buf->data(), buf->size());
    Status s = write ? co_await b.write(uint64_t(i) * 4096, iov)
                     : co_await b.read(uint64_t(i) * 4096, iov);
    if (!s.ok()) (*failures)++;
    wg->done();
  };
  b.plug();
  for (int i = 0; i < n; i++) {
    wg.add();
    SpawnNow(one(b, i, &(*bufs)[size_t(i)], write, failures, &wg));
  }
  b.unplug();
  co_await wg.wait();
}

}  // namespace blk::test
