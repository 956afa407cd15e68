// Data-path tests of the file driver through BlockBackend, run in every
// engine configuration: native AIO with peek-after-submit on and off, with
// io_getevents instead of the ring, with bottom-half submission; io_uring
// with O_DIRECT and buffered, with SQPOLL, with a registered file and no
// peek; and the aio=threads pool (buffered and O_DIRECT).
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "tests/block/file/file_test_util.h"

namespace blk::test {
namespace {

struct Mode {
  const char* name;
  const char* opts;
  bool native;  // a kernel interface (QueueEngine): aio=native or aio=io_uring
  bool direct;
  bool uring;
  // aio=threads,aio-threads-handover=on: queueing for a worker marks the
  // request's SubmitStamp (a slat, as fio's posixaio).
  bool handover = false;
};

const Mode kModes[] = {
    {"native_peek", "aio=native,cache.direct=on,peek-after-submit=on", true, true, false},
    {"native_nopeek", "aio=native,cache.direct=on,peek-after-submit=off", true, true, false},
    {"native_getevents", "aio=native,cache.direct=on,aio-ring-peek=off", true, true, false},
    {"native_bh", "aio=native,cache.direct=on,aio-submit=bh", true, true, false},
    {"uring", "aio=io_uring,cache.direct=on", true, true, true},
    {"uring_buffered", "aio=io_uring", true, false, true},
    {"uring_sqpoll", "aio=io_uring,cache.direct=on,aio-sqpoll=on,aio-sqpoll-idle-ms=20", true,
     true, true},
    {"uring_regfile_nopeek",
     "aio=io_uring,cache.direct=on,aio-register-file=on,peek-after-submit=off", true, true, true},
    {"threads", "aio=threads", false, false, false},
    {"threads_direct", "aio=threads,cache.direct=on", false, true, false},
    {"threads_handover", "aio=threads,aio-threads-handover=on", false, false, false, true},
};

class FileIoTest : public ::testing::TestWithParam<Mode> {
 protected:
  std::unique_ptr<BlockBackend> OpenFile(const TempFile& f, const std::string& extra = "") {
    std::string spec = "driver=file,filename=" + f.path() + "," + GetParam().opts;
    if (!extra.empty()) spec += "," + extra;
    return Open(ctx_, spec);
  }
  AioContext ctx_;
};

TEST_P(FileIoTest, WriteReadRoundTrip) {
  TempFile f(1 << 20);
  auto b = OpenFile(f);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->length(), 1u << 20);
  AlignedBuffer w = Filled(65536, 3);
  ASSERT_EQ(Write(*b, 8192, w.data(), w.size()), 0);
  AlignedBuffer r(65536);
  memset(r.data(), 0xee, r.size());
  ASSERT_EQ(Read(*b, 8192, r.data(), r.size()), 0);
  EXPECT_EQ(memcmp(w.data(), r.data(), w.size()), 0);
  // Bytes around the write are untouched.
  ASSERT_EQ(Read(*b, 4096, r.data(), 4096), 0);
  for (int i = 0; i < 4096; i++) ASSERT_EQ(r.data()[i], TempFile::Pattern(4096 + i)) << i;
  if (GetParam().native) {
    EXPECT_GE(Counter(*b, "aio_requests_submitted"), 3u);
    EXPECT_GE(Counter(*b, "aio_submit_calls"), 1u);
    EXPECT_EQ(Counter(*b, "aio_in_flight"), 0u);
  }
}

// A job's last coroutine, resumed by its last completion (directly from the
// ring reap in native mode), drains and closes the graph, as block-bench
// does at the end of a job: the driver must not be freed while its reaping
// loop is still on the stack (a use-after-free ASan reports, and a crash in
// optimised builds).
Task<void> ReadThenClose(std::unique_ptr<BlockBackend>* b, int reads, bool* done) {
  AlignedBuffer buf(4096);
  IoVec iov = buf.iov();
  for (int i = 0; i < reads; i++) EXPECT_EQ((co_await (*b)->read(uint64_t(i) * 4096, iov)).error(), 0);
  co_await (*b)->drain();
  b->reset();
  *done = true;
}

TEST_P(FileIoTest, CloseRightAfterTheLastCompletion) {
  TempFile f(1 << 20);
  for (int round = 0; round < 40; round++) {
    // Alternate the reap paths: eventfd (no polling) and the poll handler.
    ctx_.set_poll_params({.max_ns = round % 2 ? 2000000 : 0, .grow = 0, .shrink = 0});
    std::string extra = GetParam().native && round % 2 ? "aio-poll=on" : "";
    auto b = OpenFile(f, extra);
    ASSERT_TRUE(b);
    bool done = false;
    Spawn(ctx_, ReadThenClose(&b, 1 + round % 4, &done));
    ctx_.run_until([&] { return done; });
    EXPECT_FALSE(b);
  }
}

TEST_P(FileIoTest, VectoredRequests) {
  TempFile f(1 << 20);
  auto b = OpenFile(f);
  ASSERT_TRUE(b);
  AlignedBuffer a = Filled(4096, 1), c = Filled(8192, 2), d = Filled(4096, 3);
  IoVec wv;
  wv.add(a.data(), a.size());
  wv.add(c.data(), c.size());
  wv.add(d.data(), d.size());
  ASSERT_EQ(RunSync(ctx_, b->write(65536, wv)).error(), 0);
  // Read back with a different segmentation.
  AlignedBuffer r1(12288), r2(4096);
  IoVec rv;
  rv.add(r2.data(), 4096);
  rv.add(r1.data(), 12288);
  ASSERT_EQ(RunSync(ctx_, b->read(65536, rv)).error(), 0);
  EXPECT_EQ(memcmp(r2.data(), a.data(), 4096), 0);
  EXPECT_EQ(memcmp(r1.data(), c.data(), 8192), 0);
  EXPECT_EQ(memcmp(r1.data() + 8192, d.data(), 4096), 0);
}

TEST_P(FileIoTest, UnalignedRequestsThroughGenericLayer) {
  TempFile f(1 << 20);
  auto b = OpenFile(f);
  ASSERT_TRUE(b);
  std::vector<uint8_t> model(1 << 20);
  for (size_t i = 0; i < model.size(); i++) model[i] = TempFile::Pattern(i);
  // Odd offsets, lengths and (std::vector) buffer addresses.
  const struct { uint64_t off; size_t len; } writes[] = {{1000, 100}, {4095, 2}, {12345, 9000}};
  for (auto w : writes) {
    std::vector<uint8_t> buf(w.len + 1);
    for (size_t i = 0; i < w.len; i++) buf[i + 1] = uint8_t(w.off + i * 3);
    ASSERT_EQ(Write(*b, w.off, buf.data() + 1, w.len), 0);
    memcpy(&model[w.off], buf.data() + 1, w.len);
  }
  std::vector<uint8_t> r(30001);
  ASSERT_EQ(Read(*b, 499, r.data() + 1, 30000), 0);
  EXPECT_EQ(memcmp(r.data() + 1, &model[499], 30000), 0);
  if (GetParam().direct) {
    EXPECT_GT(b->root().stats().padded_requests, 0u);
  }
}

TEST_P(FileIoTest, ReadAtEndOfUnalignedFileReadsZerosPastEof) {
  const uint64_t size = 3 * 4096 + 1000;  // not a multiple of any O_DIRECT alignment
  TempFile f(size);
  auto b = OpenFile(f);
  ASSERT_TRUE(b);
  ASSERT_EQ(b->length(), size);
  std::vector<uint8_t> r(3000, 0xee);
  ASSERT_EQ(Read(*b, size - 3000, r.data(), 3000), 0);
  for (int i = 0; i < 3000; i++) ASSERT_EQ(r[i], TempFile::Pattern(size - 3000 + i)) << i;
  // Past the end is refused by the generic layer.
  EXPECT_EQ(Read(*b, size - 10, r.data(), 20), -EIO);
  if (GetParam().direct) {
    // The driver saw the aligned read [12288, 16384) and a short result.
    EXPECT_GE(Counter(*b, "file_eof_zero_fills"), 1u);
  }
}

// A write in the last, partial block of a file: with O_DIRECT the generic
// layer pads it to whole blocks, which would grow the file with zeros up to
// the alignment.  The size stays, the data around the write stays.
TEST_P(FileIoTest, WriteInTheLastPartialBlockKeepsTheSize) {
  const uint64_t size = 10000;
  TempFile f(size);
  auto b = OpenFile(f);
  ASSERT_TRUE(b);
  auto w = Filled(1000, 3);
  ASSERT_EQ(Write(*b, size - 1000 - 7, w.data(), 1000), 0);
  ASSERT_EQ(Write(*b, size - 5, w.data(), 5), 0);
  struct stat st;
  ASSERT_EQ(stat(f.path().c_str(), &st), 0);
  EXPECT_EQ(uint64_t(st.st_size), size);
  EXPECT_EQ(b->length(), size);
  std::vector<uint8_t> r(size);
  ASSERT_EQ(Read(*b, 0, r.data(), size), 0);
  for (uint64_t i = 0; i < size; i++) {
    uint8_t want = TempFile::Pattern(i);
    if (i >= size - 1007 && i < size - 7) want = w.data()[i - (size - 1007)];
    if (i >= size - 5) want = w.data()[i - (size - 5)];
    ASSERT_EQ(r[i], want) << i;
  }
  if (GetParam().direct) {
    EXPECT_EQ(Counter(*b, "file_eof_trims"), 2u);
  } else {
    EXPECT_EQ(Counter(*b, "file_eof_trims"), 0u);  // buffered: no padding
  }
}

TEST_P(FileIoTest, DiscardThenReadGivesZeros) {
  TempFile f(1 << 20);
  auto b = OpenFile(f, "discard=unmap");
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->root().caps().discard);
  ASSERT_EQ(RunSync(ctx_, b->discard(65536, 131072)).error(), 0);
  AlignedBuffer r(131072 + 8192);
  ASSERT_EQ(Read(*b, 65536 - 4096, r.data(), r.size()), 0);
  for (int i = 0; i < 4096; i++) ASSERT_EQ(r.data()[i], TempFile::Pattern(65536 - 4096 + i));
  for (int i = 4096; i < 4096 + 131072; i++) ASSERT_EQ(r.data()[i], 0) << i;
  for (int i = 4096 + 131072; i < int(r.size()); i++) {
    ASSERT_EQ(r.data()[i], TempFile::Pattern(65536 - 4096 + i));
  }
}

TEST_P(FileIoTest, DiscardIgnoredByDefault) {
  TempFile f(1 << 20);
  auto b = OpenFile(f);
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->root().caps().discard);
  ASSERT_EQ(RunSync(ctx_, b->discard(0, 65536)).error(), 0);
  AlignedBuffer r(4096);
  ASSERT_EQ(Read(*b, 0, r.data(), 4096), 0);
  EXPECT_EQ(r.data()[100], TempFile::Pattern(100));
}

TEST_P(FileIoTest, WriteZeroes) {
  TempFile f(1 << 20);
  auto b = OpenFile(f);
  ASSERT_TRUE(b);
  // Aligned middle goes to fallocate; the unaligned edges are written.
  ASSERT_EQ(RunSync(ctx_, b->write_zeroes(10000, 200000)).error(), 0);
  std::vector<uint8_t> r(220000);
  ASSERT_EQ(Read(*b, 0, r.data(), r.size()), 0);
  for (size_t i = 0; i < r.size(); i++) {
    uint8_t want = (i >= 10000 && i < 210000) ? 0 : TempFile::Pattern(i);
    ASSERT_EQ(r[i], want) << i;
  }
  EXPECT_GE(Counter(*b, "file_pool_jobs"), 1u);
}

TEST_P(FileIoTest, Flush) {
  TempFile f(1 << 20);
  auto b = OpenFile(f);
  ASSERT_TRUE(b);
  AlignedBuffer w = Filled(4096, 9);
  ASSERT_EQ(Write(*b, 0, w.data(), 4096), 0);
  ASSERT_EQ(RunSync(ctx_, b->flush()).error(), 0);
  ASSERT_EQ(RunSync(ctx_, b->flush()).error(), 0);
  const uint64_t via_aio = Counter(*b, "file_flush_fdsync_aio");
  const uint64_t via_pool = Counter(*b, "file_flush_fdatasync_pool");
  EXPECT_EQ(via_aio + via_pool, 2u);
  if (!GetParam().native) {
    // fdatasync on a worker, through the engine like the I/O.
    EXPECT_EQ(via_aio, 2u);
    EXPECT_EQ(Counter(*b, "threads_jobs"), 3u);
  }
}

TEST_P(FileIoTest, MoreRequestsThanTheRingHolds) {
  const int n = 300;
  TempFile f(uint64_t(n) * 4096);
  auto b = OpenFile(f, GetParam().native ? "aio-ring-size=8,aio-max-batch=4" : "");
  ASSERT_TRUE(b);
  std::vector<AlignedBuffer> bufs;
  for (int i = 0; i < n; i++) bufs.push_back(Filled(4096, uint8_t(i)));
  int failures = 0;
  RunSync(ctx_, ManyRequests(*b, n, &failures, &bufs, true));
  ASSERT_EQ(failures, 0);
  std::vector<AlignedBuffer> rbufs;
  for (int i = 0; i < n; i++) rbufs.emplace_back(4096);
  RunSync(ctx_, ManyRequests(*b, n, &failures, &rbufs, false));
  ASSERT_EQ(failures, 0);
  for (int i = 0; i < n; i++) ASSERT_EQ(memcmp(bufs[i].data(), rbufs[i].data(), 4096), 0) << i;
  if (GetParam().native) {
    // Without the peek after io_submit nothing frees a slot inside the
    // submission, so the queue must have waited for room.  With the peek it
    // waits only if the device has not completed anything yet: timing.
    if (strstr(GetParam().opts, "peek-after-submit=off")) {
      EXPECT_GT(Counter(*b, "aio_ring_full_blocks"), 0u);
    }
    EXPECT_EQ(Counter(*b, "aio_requests_submitted"), uint64_t(2 * n));
    // Never more than max-batch per io_submit.
    EXPECT_EQ(Counter(*b, "aio_requests_per_submit_8-15"), 0u);
    EXPECT_GT(Counter(*b, "aio_requests_per_submit_4-7"), 0u);
    EXPECT_EQ(Counter(*b, "aio_in_flight"), 0u);
  }
}

TEST_P(FileIoTest, PeekAfterSubmitCountersFollowTheOption) {
  TempFile f(1 << 20);
  auto b = OpenFile(f);
  ASSERT_TRUE(b);
  AlignedBuffer r(4096);
  for (int i = 0; i < 20; i++) ASSERT_EQ(Read(*b, uint64_t(i) * 4096, r.data(), 4096), 0);
  const std::string opts = GetParam().opts;
  if (!GetParam().native) {
    // The worker pool under the same policy: its jobs, the policy's
    // counters (a peek after each hand-over), no kernel queue's, and the
    // node's own fallback pool unused.
    EXPECT_EQ(Counter(*b, "threads_jobs"), 20u);
    EXPECT_EQ(Counter(*b, "aio_requests_submitted"), 20u);
    EXPECT_GE(Counter(*b, "aio_reaps_after_submit"), 20u);
    EXPECT_EQ(Counter(*b, "io_uring_sqes"), UINT64_MAX);
    EXPECT_EQ(Counter(*b, "file_pool_jobs"), 0u);
    return;
  }
  const uint64_t after_submit = Counter(*b, "aio_reaps_after_submit");
  if (opts.find("peek-after-submit=off") != std::string::npos) {
    EXPECT_EQ(after_submit, 0u);
  } else {
    EXPECT_GE(after_submit, 20u);
  }
  if (GetParam().uring) {
    EXPECT_EQ(Counter(*b, "io_uring_sqes"), 20u);
    EXPECT_GE(Counter(*b, "io_uring_enters"), 1u);
    EXPECT_EQ(Counter(*b, "io_uring_sqpoll"), opts.find("aio-sqpoll=on") != std::string::npos);
    EXPECT_EQ(Counter(*b, "io_uring_registered_file"),
              opts.find("aio-register-file=on") != std::string::npos);
    EXPECT_EQ(Counter(*b, "io_uring_submit_errors"), 0u);
    EXPECT_EQ(Counter(*b, "aio_ring_peek"), UINT64_MAX);  // libaio's
  } else {
    const bool ring = opts.find("aio-ring-peek=off") == std::string::npos;
    EXPECT_EQ(Counter(*b, "aio_ring_peek"), ring ? 1u : 0u);
    if (!ring) {
      EXPECT_GT(Counter(*b, "aio_getevents_fallbacks"), 0u);
    }
  }
  EXPECT_EQ(Counter(*b, "aio_resumed_inline") + Counter(*b, "aio_resumed_deferred") +
                Counter(*b, "aio_resumed_direct"),
            20u);
}

// A read whose request carries `stamp`; records when it completed.
Task<void> StampedRead(BlockBackend& b, uint64_t off, void* buf, SubmitStamp* stamp,
                       int64_t* done_ns, int* err) {
  IoVec iov(buf, 4096);
  Task<Status> t = b.read(off, iov);
  t.set_submit_stamp(stamp);
  Status st = co_await std::move(t);
  *done_ns = NowNs();
  *err = st.error();
}

// The kernel modes mark a request's stamp when the system call that handed
// it over returned: after unplug (not when it was queued), before it
// completed, with one clock read per system call.  The thread pool hands
// nothing over (its system calls return when the I/O is done): no mark.
TEST_P(FileIoTest, SubmitStampMarksTheHandOver) {
  constexpr int kN = 8;
  TempFile f(kN * 4096);
  auto b = OpenFile(f);
  ASSERT_TRUE(b);
  std::vector<AlignedBuffer> bufs;
  for (int i = 0; i < kN; i++) bufs.emplace_back(4096);
  SubmitStamp stamps[kN];
  int64_t done[kN] = {};
  int errs[kN] = {};
  const uint64_t calls0 = GetParam().native ? Counter(*b, "aio_submit_calls") : 0;
  b->plug();
  for (int i = 0; i < kN; i++)
    SpawnNow(StampedRead(*b, uint64_t(i) * 4096, bufs[size_t(i)].data(), &stamps[i], &done[i],
                         &errs[i]));
  const int64_t unplug_ns = NowNs();
  b->unplug();
  ctx_.run_until([&] {
    for (int64_t d : done)
      if (!d) return false;
    return true;
  });
  std::set<int64_t> distinct;
  for (int i = 0; i < kN; i++) {
    EXPECT_EQ(errs[i], 0) << i;
    const uint8_t* got = static_cast<const uint8_t*>(bufs[size_t(i)].data());
    for (uint64_t k = 0; k < 4096; k += 511)
      ASSERT_EQ(got[k], TempFile::Pattern(uint64_t(i) * 4096 + k)) << i << " " << k;
    if (!GetParam().native && !GetParam().handover) {
      EXPECT_EQ(stamps[i].ns, 0) << i;
      continue;
    }
    EXPECT_GE(stamps[i].ns, unplug_ns) << i;
    EXPECT_LE(stamps[i].ns, done[i]) << i;
    distinct.insert(stamps[i].ns);
  }
  if (GetParam().native) {
    const uint64_t calls = Counter(*b, "aio_submit_calls") - calls0;
    EXPECT_GE(calls, 1u);
    EXPECT_LE(distinct.size(), calls);
  }
}

// The I/O priority in the request flags (ReqPrioFlags) reaches the kernel
// with each request on the kernel interfaces (libaio: aio_reqprio with
// IOCB_FLAG_IOPRIO; io_uring: sqe->ioprio): the kernel checks it when it
// takes the request, so class 7 (none such) fails with -EINVAL there while
// the best-effort class passes.  (The real-time class needs CAP_SYS_ADMIN,
// which Bazel's sandbox takes away: -EPERM there.)  Without the field
// the request would carry no priority and succeed.  The worker pool runs
// plain preadv/pwritev: the value does not go with the request.
TEST_P(FileIoTest, IoPriorityReachesTheKernel) {
  TempFile f(1 << 20);
  auto b = OpenFile(f);
  ASSERT_TRUE(b);
  AlignedBuffer buf(4096);
  IoVec iov = buf.iov();
  auto read = [&](uint16_t prio) { return RunSync(ctx_, b->read(0, iov, ReqPrioFlags(prio))).error(); };
  auto write = [&](uint16_t prio) { return RunSync(ctx_, b->write(0, iov, ReqPrioFlags(prio))).error(); };
  const uint16_t kBestEffort4 = (2 << 13) | 4, kBadClass = 7 << 13;
  EXPECT_EQ(read(kBestEffort4), 0);
  EXPECT_EQ(write(kBestEffort4), 0);
  if (GetParam().native) {
    EXPECT_EQ(read(kBadClass), -EINVAL);
    EXPECT_EQ(write(kBadClass), -EINVAL);
  } else {
    EXPECT_EQ(read(kBadClass), 0);
  }
  EXPECT_EQ(read(0), 0);
}

// How many of the pages of `path` (mapped from a descriptor `fd`, `len`
// bytes) are in the page cache (mincore).
size_t CachedPages(int fd, size_t len) {
  void* p = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return len;  // unknown: as if cached
  std::vector<unsigned char> vec((len + 4095) / 4096);
  size_t n = 0;
  if (mincore(p, len, vec.data()) == 0) {
    for (unsigned char v : vec) n += v & 1;
  } else {
    n = vec.size();
  }
  munmap(p, len);
  return n;
}

// Drops `path`'s pages from the page cache (written back first), again
// until none is cached (pages still being written back or read ahead stay
// after one POSIX_FADV_DONTNEED), for up to a second.
void DropCache(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(fdatasync(fd), 0);
  const off_t len = lseek(fd, 0, SEEK_END);
  for (int i = 0; i < 100; i++) {
    ASSERT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
    if (len <= 0 || CachedPages(fd, size_t(len)) == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  close(fd);
}

// Reads [0, len) of `path` through the page cache (from a descriptor of
// its own): the pages are cached afterwards.
void CacheRange(const std::string& path, size_t len) {
  const int fd = open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0) << path;
  std::vector<char> buf(len);
  ASSERT_EQ(pread(fd, buf.data(), len, 0), ssize_t(len));
  close(fd);
}

// kReqNoWait reaches the kernel as RWF_NOWAIT with each read and write
// (libaio: aio_rw_flags; io_uring: sqe->rw_flags; the worker pool:
// preadv2/pwritev2).  The kernel's answers show it: a buffered read of
// pages not in the cache fails with -EAGAIN instead of reading the disk,
// and succeeds once they are cached; an O_DIRECT write over cached pages
// fails with -EAGAIN (it would have to invalidate them) where a plain one
// succeeds.  Without the flag every request here succeeds.
TEST_P(FileIoTest, NoWaitReachesTheKernel) {
  TempFile f(1 << 20);
  DropCache(f.path());
  auto b = OpenFile(f);
  ASSERT_TRUE(b);
  AlignedBuffer buf(4096);
  IoVec iov = buf.iov();
  auto read = [&](uint32_t flags) { return RunSync(ctx_, b->read(0, iov, flags)).error(); };
  auto write = [&](uint32_t flags) { return RunSync(ctx_, b->write(0, iov, flags)).error(); };
  if (!GetParam().direct) {
    // Only while the page is not cached: the kernel may bring it in behind
    // the test (readahead), so a success is tried again, up to 3 times; a
    // mode that dropped the flag would read it every time.
    int first = read(kReqNoWait);
    for (int attempt = 1; attempt < 3 && first == 0; attempt++) {
      DropCache(f.path());
      first = read(kReqNoWait);
    }
    EXPECT_EQ(first, -EAGAIN);
    EXPECT_EQ(read(0), 0);  // now cached
    EXPECT_EQ(read(kReqNoWait), 0);
  } else {
    EXPECT_EQ(read(kReqNoWait), 0);
    CacheRange(f.path(), 4096);
    EXPECT_EQ(write(kReqNoWait), -EAGAIN);
    EXPECT_EQ(write(0), 0);
  }
}

// The same for aio=sync, which runs each request on the loop's own thread.
TEST(FileSyncNoWait, BufferedReadOfUncachedPagesFailsWithEagain) {
  AioContext ctx;
  TempFile f(1 << 20);
  DropCache(f.path());
  auto b = Open(ctx, "driver=file,filename=" + f.path() + ",aio=sync");
  ASSERT_TRUE(b);
  AlignedBuffer buf(4096);
  IoVec iov = buf.iov();
  EXPECT_EQ(RunSync(ctx, b->read(0, iov, kReqNoWait)).error(), -EAGAIN);
  EXPECT_EQ(RunSync(ctx, b->read(0, iov, 0)).error(), 0);
  EXPECT_EQ(RunSync(ctx, b->read(0, iov, kReqNoWait)).error(), 0);
}

// The status flags (/proc/self/fdinfo) of the one descriptor this process
// holds on `path`, or -1 when there is none.
long OpenFlagsOf(const std::string& path) {
  for (int fd = 0; fd < 4096; fd++) {
    char link[4096];
    const std::string proc = "/proc/self/fd/" + std::to_string(fd);
    const ssize_t n = readlink(proc.c_str(), link, sizeof(link) - 1);
    if (n <= 0 || std::string(link, size_t(n)) != path) continue;
    FILE* info = fopen(("/proc/self/fdinfo/" + std::to_string(fd)).c_str(), "r");
    if (!info) return -1;
    long flags = -1;
    char line[256];
    while (fgets(line, sizeof(line), info)) {
      if (sscanf(line, "flags: %lo", &flags) == 1) break;
    }
    fclose(info);
    return flags;
  }
  return -1;
}

// open-sync= is the file's open flag in every engine (fio's sync=): O_DSYNC
// alone for dsync, O_SYNC (which includes O_DSYNC's bit) for sync, neither by
// default; writes still reach the file.
TEST_P(FileIoTest, OpenSyncSetsTheFileStatusFlag) {
  struct Case {
    const char* value;
    int want;
  };
  for (const Case c : {Case{nullptr, 0}, Case{"off", 0}, Case{"dsync", O_DSYNC},
                       Case{"sync", O_SYNC}}) {
    TempFile f(1 << 20);
    auto b = OpenFile(f, c.value ? std::string("open-sync=") + c.value : "");
    ASSERT_TRUE(b);
    const long flags = OpenFlagsOf(f.path());
    ASSERT_NE(flags, -1) << "no descriptor on " << f.path();
    EXPECT_EQ(flags & O_SYNC, c.want) << (c.value ? c.value : "default") << ": flags 0" << std::oct
                                      << flags;
    AlignedBuffer w = Filled(8192, 9);
    ASSERT_EQ(Write(*b, 4096, w.data(), w.size()), 0);
    AlignedBuffer r(8192);
    ASSERT_EQ(Read(*b, 4096, r.data(), r.size()), 0);
    EXPECT_EQ(memcmp(w.data(), r.data(), w.size()), 0);
  }
}

TEST(FileOpenSyncTest, UnknownValueIsRefusedWithTheChoices) {
  TempFile f(65536);
  AioContext ctx;
  auto b = OpenBackend(ctx, "driver=file,filename=" + f.path() + ",open-sync=yes");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("open-sync"), std::string::npos) << b.error().message;
  EXPECT_NE(b.error().message.find("dsync"), std::string::npos) << b.error().message;
}

INSTANTIATE_TEST_SUITE_P(Modes, FileIoTest, ::testing::ValuesIn(kModes),
                         [](const auto& info) { return std::string(info.param.name); });

// -EAGAIN from io_submit: allow far more requests in flight than the kernel
// context has slots, and do not reap between submissions.
TEST(FileAioTest, EagainKeepsRequestsQueued) {
  AioContext ctx;
  const int n = 600;
  TempFile f(uint64_t(n) * 4096);
  auto b = Open(ctx, "driver=file,filename=" + f.path() +
                         ",aio=native,cache.direct=on,aio-ring-size=1,aio-max-inflight=100000,"
                         "peek-after-submit=off,aio-max-batch=64");
  ASSERT_TRUE(b);
  std::vector<AlignedBuffer> bufs;
  for (int i = 0; i < n; i++) bufs.push_back(Filled(4096, uint8_t(i * 5)));
  int failures = 0;
  RunSync(ctx, ManyRequests(*b, n, &failures, &bufs, true));
  ASSERT_EQ(failures, 0);
  EXPECT_GT(Counter(*b, "aio_eagain"), 0u);
  EXPECT_EQ(Counter(*b, "aio_requests_submitted"), uint64_t(n));
  AlignedBuffer r(4096);
  for (int i = 0; i < n; i += 37) {
    ASSERT_EQ(Read(*b, uint64_t(i) * 4096, r.data(), 4096), 0);
    ASSERT_EQ(memcmp(r.data(), bufs[i].data(), 4096), 0) << i;
  }
}

// io_uring with far more requests in flight than its completion ring
// holds (2 SQ entries, 4 CQ entries, 200 in flight): the kernel keeps the
// surplus on its overflow list and flags IORING_SQ_CQ_OVERFLOW; the peeks
// flush it with an enter.  Every request completes, with its data.
TEST(FileAioTest, IoUringCqOverflowLosesNothing) {
  AioContext ctx;
  const int n = 200;
  TempFile f(uint64_t(n) * 4096);
  auto b = Open(ctx, "driver=file,filename=" + f.path() +
                         ",aio=io_uring,cache.direct=on,aio-ring-size=2,aio-max-inflight=100000,"
                         "peek-after-submit=off,aio-max-batch=64,aio-poll=off");
  ASSERT_TRUE(b);
  std::vector<AlignedBuffer> bufs;
  for (int i = 0; i < n; i++) bufs.push_back(Filled(4096, uint8_t(i * 3 + 1)));
  int failures = 0;
  RunSync(ctx, ManyRequests(*b, n, &failures, &bufs, true));
  ASSERT_EQ(failures, 0);
  std::vector<AlignedBuffer> rbufs;
  for (int i = 0; i < n; i++) rbufs.push_back(AlignedBuffer(4096));
  RunSync(ctx, ManyRequests(*b, n, &failures, &rbufs, false));
  ASSERT_EQ(failures, 0);
  for (int i = 0; i < n; i++) {
    ASSERT_EQ(memcmp(rbufs[i].data(), bufs[i].data(), 4096), 0) << i;
  }
  EXPECT_EQ(Counter(*b, "aio_requests_submitted"), uint64_t(2 * n));
  EXPECT_EQ(Counter(*b, "io_uring_sqes"), uint64_t(2 * n));
  // Submissions of at most 2 SQEs (the SQ ring's size), many in flight.
  EXPECT_GE(Counter(*b, "io_uring_enters"), uint64_t(n));
  EXPECT_GT(Counter(*b, "io_uring_cq_overflows"), 0u);
  EXPECT_EQ(Counter(*b, "io_uring_submit_errors"), 0u);
  EXPECT_EQ(Counter(*b, "aio_in_flight"), 0u);
}

// The loop's busy polling reaps completions from the ring.
TEST(FileAioTest, PollHandlerReapsWhenPolling) {
  AioContext ctx;
  ctx.set_poll_params({.max_ns = 2000000, .grow = 0, .shrink = 0});
  TempFile f(1 << 20);
  auto b = Open(ctx, "driver=file,filename=" + f.path() +
                         ",aio=native,cache.direct=on,peek-after-submit=off,aio-poll=on");
  ASSERT_TRUE(b);
  AlignedBuffer r(4096);
  for (int i = 0; i < 200; i++) ASSERT_EQ(Read(*b, uint64_t(i % 256) * 4096, r.data(), 4096), 0);
  EXPECT_GT(Counter(*b, "aio_reaped_poll"), 0u);
  EXPECT_EQ(Counter(*b, "aio_reaped_poll") + Counter(*b, "aio_reaped_eventfd"), 200u);
}

// Without the ring in user space (io_getevents fallback) the poll handler
// cannot see completions: it is not registered, even with aio-poll=on, so the
// loop never spins on it.
TEST(FileAioTest, NoRingNoSpin) {
  AioContext ctx;
  ctx.set_poll_params({.max_ns = 2000000, .grow = 0, .shrink = 0});
  TempFile f(1 << 20);
  auto b = Open(ctx, "driver=file,filename=" + f.path() +
                         ",aio=native,cache.direct=on,aio-ring-peek=off,aio-poll=on");
  ASSERT_TRUE(b);
  EXPECT_EQ(Counter(*b, "aio_ring_peek"), 0u);
  AlignedBuffer r(4096);
  for (int i = 0; i < 50; i++) ASSERT_EQ(Read(*b, uint64_t(i) * 4096, r.data(), 4096), 0);
  EXPECT_EQ(ctx.stats().poll_phases, 0u);
  EXPECT_EQ(Counter(*b, "aio_reaped_poll"), 0u);
  EXPECT_EQ(Counter(*b, "aio_polling"), 0u);
}

// aio-poll=off: the ring is never polled, the eventfd reaps everything.
TEST(FileAioTest, PollOffNeverPolls) {
  AioContext ctx;
  ctx.set_poll_params({.max_ns = 2000000, .grow = 0, .shrink = 0});
  TempFile f(1 << 20);
  auto b = Open(ctx, "driver=file,filename=" + f.path() +
                         ",aio=native,cache.direct=on,peek-after-submit=off,aio-poll=off");
  ASSERT_TRUE(b);
  AlignedBuffer r(4096);
  for (int i = 0; i < 50; i++) ASSERT_EQ(Read(*b, uint64_t(i) * 4096, r.data(), 4096), 0);
  EXPECT_EQ(Counter(*b, "aio_reaps_poll"), 0u);
  EXPECT_EQ(Counter(*b, "aio_polling"), 0u);
  EXPECT_EQ(Counter(*b, "aio_reaped_eventfd"), 50u);
}

// A device that completes inside io_submit (tmpfs O_DIRECT, like zram): with
// peek-after-submit the completions found right after io_submit are resumed
// together inside a plug, so the next requests still go out in batches
// (not one io_submit per request).
TEST(FileAioTest, PeekAfterSubmitKeepsBatching) {
  AioContext ctx;
  TempFile f(1 << 20, "/dev/shm");
  auto spec = "driver=file,filename=" + f.path() + ",aio=native,cache.direct=on";
  auto probe = OpenBackend(ctx, spec);
  if (!probe.ok()) GTEST_SKIP() << "no O_DIRECT on /dev/shm: " << probe.error().message;
  probe.value().reset();
  auto b = Open(ctx, spec + ",peek-after-submit=on,aio-max-batch=32");
  ASSERT_TRUE(b);
  const int qd = 32, per = 50;
  ASSERT_EQ(ConcurrentReads(ctx, *b, qd, per, TempFile::Pattern), 0);
  const uint64_t n = Counter(*b, "aio_requests_submitted");
  EXPECT_EQ(n, uint64_t(qd * per));
  if (Counter(*b, "aio_reaped_after_submit") < n / 2) {
    GTEST_SKIP() << "tmpfs O_DIRECT did not complete inside io_submit";
  }
  // Mostly full batches: far fewer io_submit calls than requests.
  EXPECT_LT(Counter(*b, "aio_submit_calls") * 4, n);
  EXPECT_GT(Counter(*b, "aio_requests_per_submit_32-63"), 0u);
  EXPECT_EQ(Counter(*b, "aio_in_flight"), 0u);
  // aio-batch-adapt keeps the full batch on a device that completes inside
  // io_submit.
  EXPECT_EQ(Counter(*b, "aio_batch_limit"), 32u);
}

}  // namespace
}  // namespace blk::test
