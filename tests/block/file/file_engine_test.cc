// The engine is per loop (block/file/loop_engine.h): file nodes on one loop
// with the same settings share one worker pool, libaio context or io_uring, their requests leave in the same submissions, the last node to
// close destroys it, and a node moved to another loop joins that loop's.
// Real O_DIRECT files in TEST_TMPDIR.
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <future>
#include <string>
#include <vector>

#include <blkstack/block/file/loop_engine.h>
#include "tests/block/file/file_test_util.h"
#include <blkstack/util/iothread.h>

namespace blk {
namespace {

using test::Counter;
using test::Open;
using test::TempFile;

// Open descriptors of this process.
int OpenFds() {
  int n = 0;
  DIR* d = opendir("/proc/self/fd");
  if (!d) return -1;
  while (readdir(d)) n++;
  closedir(d);
  return n;
}

std::string Spec(const TempFile& f, const std::string& aio, const std::string& extra = "") {
  return "driver=file,filename=" + f.path() + ",aio=" + aio + ",cache.direct=on" + extra;
}

// The settings key the specs above give with no `extra` (the defaults).
std::string DefaultKey(EngineSettings::Kind kind) {
  EngineSettings s;
  s.kind = kind;
  return s.key();
}

class FileEngineTest : public ::testing::TestWithParam<std::string> {
 protected:
  EngineSettings::Kind kind() const {
    return GetParam() == "threads"  ? EngineSettings::Kind::kThreads
           : GetParam() == "native" ? EngineSettings::Kind::kNative
           : GetParam() == "sync"   ? EngineSettings::Kind::kSync
                                    : EngineSettings::Kind::kIoUring;
  }
};

TEST_P(FileEngineTest, NodesWithTheSameSettingsShareOneEngine) {
  const int fds0 = OpenFds();
  {
    AioContext ctx;
    TempFile f1(1 << 20), f2(1 << 20);
    auto b1 = Open(ctx, Spec(f1, GetParam()));
    auto b2 = Open(ctx, Spec(f2, GetParam()));
    ASSERT_TRUE(b1 && b2);
    EXPECT_EQ(Counter(*b1, "aio_engine_users"), 2u);
    EXPECT_EQ(Counter(*b2, "aio_engine_users"), 2u);
    EXPECT_NE(ctx.find_service(DefaultKey(kind())), nullptr);
    ASSERT_EQ(test::ConcurrentReads(ctx, *b1, 8, 20, TempFile::Pattern), 0);
    ASSERT_EQ(test::ConcurrentReads(ctx, *b2, 8, 20, TempFile::Pattern), 0);
    // One engine: both nodes report its requests, all 320 of them.
    EXPECT_EQ(Counter(*b1, "aio_requests_submitted"), 320u);
    EXPECT_EQ(Counter(*b2, "aio_requests_submitted"), 320u);

    // The last to close destroys it; until then the other keeps working.
    b1.reset();
    EXPECT_EQ(Counter(*b2, "aio_engine_users"), 1u);
    ASSERT_EQ(test::ConcurrentReads(ctx, *b2, 4, 10, TempFile::Pattern), 0);
    b2.reset();
    EXPECT_EQ(ctx.find_service(DefaultKey(kind())), nullptr);
  }
  // Nothing of the rings, eventfds or files is left open.
  EXPECT_EQ(OpenFds(), fds0);
}

// A plug on one node holds the other's requests too: both leave in one
// submission, as with QEMU's per-loop LinuxAioState.
TEST_P(FileEngineTest, OnePlugBatchesRequestsOfBothNodes) {
  AioContext ctx;
  TempFile f1(1 << 20), f2(1 << 20);
  const std::string extra = ",aio-batch-adapt=off,aio-max-batch=32";
  auto b1 = Open(ctx, Spec(f1, GetParam(), extra));
  auto b2 = Open(ctx, Spec(f2, GetParam(), extra));
  ASSERT_TRUE(b1 && b2);
  const uint64_t calls0 = Counter(*b1, "aio_submit_calls");
  int failures = 0;
  std::vector<AlignedBuffer> bufs;
  for (int i = 0; i < 16; i++) bufs.emplace_back(4096, 4096);
  auto both = [&]() -> Task<void> {
    WaitGroup wg(ctx);
    auto one = [](BlockBackend& b, uint64_t off, AlignedBuffer* buf, int* failures,
                  WaitGroup* wg) -> Task<void> {
      IoVec iov(buf->data(), 4096);
      Status s = co_await b.read(off, iov);
      if (!s.ok() || buf->data()[5] != TempFile::Pattern(off + 5)) (*failures)++;
      wg->done();
    };
    b1->plug();
    for (int i = 0; i < 16; i++) {
      wg.add();
      SpawnNow(one(i % 2 ? *b2 : *b1, uint64_t(i) * 4096, &bufs[size_t(i)], &failures, &wg));
    }
    b1->unplug();
    co_await wg.wait();
  };
  RunSync(ctx, both());
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(Counter(*b1, "aio_requests_submitted"), 16u);
  EXPECT_EQ(Counter(*b1, "aio_submit_calls") - calls0, 1u);
  EXPECT_EQ(Counter(*b1, "aio_requests_per_submit_16-31"), 1u);
}

// Settings that cannot share (another ring size, another aio=) get engines
// of their own on the same loop.
TEST_P(FileEngineTest, DifferentSettingsGetEnginesOfTheirOwn) {
  AioContext ctx;
  TempFile f1(1 << 20), f2(1 << 20), f3(1 << 20);
  const std::string other = GetParam() == "native" ? "io_uring" : "native";
  auto b1 = Open(ctx, Spec(f1, GetParam()));
  auto b2 = Open(ctx, Spec(f2, GetParam(), ",aio-ring-size=64"));
  auto b3 = Open(ctx, Spec(f3, other));
  ASSERT_TRUE(b1 && b2 && b3);
  for (auto* b : {b1.get(), b2.get(), b3.get()}) {
    EXPECT_EQ(Counter(*b, "aio_engine_users"), 1u);
    ASSERT_EQ(test::ConcurrentReads(ctx, *b, 4, 8, TempFile::Pattern), 0);
    EXPECT_EQ(Counter(*b, "aio_requests_submitted"), 32u);
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, FileEngineTest,
                         ::testing::Values("threads", "native", "io_uring", "sync"),
                         [](const auto& info) { return info.param; });

// aio-register-file on a shared ring: each node has its own index in the
// ring's file table, and the data goes to the right file.
TEST(FileEngineUringTest, RegisteredFilesShareTheRingsTable) {
  AioContext ctx;
  TempFile f1(1 << 20), f2(1 << 20);
  auto b1 = Open(ctx, Spec(f1, "io_uring", ",aio-register-file=on"));
  auto b2 = Open(ctx, Spec(f2, "io_uring", ",aio-register-file=on"));
  auto b3 = Open(ctx, Spec(f2, "io_uring"));  // same ring, not registered
  ASSERT_TRUE(b1 && b2 && b3);
  EXPECT_EQ(Counter(*b1, "aio_engine_users"), 3u);
  EXPECT_EQ(Counter(*b1, "io_uring_registered_file"), 1u);
  EXPECT_EQ(Counter(*b2, "io_uring_registered_file"), 1u);
  EXPECT_EQ(Counter(*b3, "io_uring_registered_file"), 0u);
  EXPECT_EQ(Counter(*b1, "io_uring_registered_files"), 2u);
  AlignedBuffer w1 = test::Filled(8192, 1), w2 = test::Filled(8192, 2), r(8192);
  ASSERT_EQ(test::Write(*b1, 65536, w1.data(), 8192), 0);
  ASSERT_EQ(test::Write(*b2, 65536, w2.data(), 8192), 0);
  ASSERT_EQ(test::Read(*b1, 65536, r.data(), 8192), 0);
  EXPECT_EQ(memcmp(r.data(), w1.data(), 8192), 0);
  ASSERT_EQ(test::Read(*b3, 65536, r.data(), 8192), 0);  // f2 through its plain fd
  EXPECT_EQ(memcmp(r.data(), w2.data(), 8192), 0);
  b1.reset();
  EXPECT_EQ(Counter(*b2, "io_uring_registered_files"), 1u);
  ASSERT_EQ(test::Read(*b2, 65536, r.data(), 8192), 0);
  EXPECT_EQ(memcmp(r.data(), w2.data(), 8192), 0);
}

// aio-fixed-buffers=on: requests inside a registered range go as
// READ_FIXED / WRITE_FIXED, others as plain requests, with the same data;
// unregistering (or the node closing) takes the range back.
TEST(FileEngineUringTest, FixedBuffersCarryRequestsInsideThem) {
  for (const char* direct : {"on", "off"}) {
    SCOPED_TRACE(direct);
    AioContext ctx;
    TempFile f(1 << 20);
    auto b = Open(ctx, "driver=file,filename=" + f.path() + ",aio=io_uring,cache.direct=" +
                           direct + ",aio-fixed-buffers=on");
    ASSERT_TRUE(b);
    AlignedBuffer pinned(65536), other(8192);
    ASSERT_EQ(b->register_buf(pinned.data(), pinned.size()), 0);
    // Overlapping an earlier range: refused.
    EXPECT_EQ(b->register_buf(pinned.data() + 4096, 4096), -EEXIST);
    EXPECT_EQ(Counter(*b, "io_uring_registered_buffers"), 1u);
    EXPECT_EQ(Counter(*b, "io_uring_fixed_buffers"), 1u);
    // A write from the middle of the range, read back into its end.
    for (int i = 0; i < 8192; i++) pinned.data()[8192 + i] = uint8_t(i * 31 + 7);
    ASSERT_EQ(test::Write(*b, 40960, pinned.data() + 8192, 8192), 0);
    ASSERT_EQ(test::Read(*b, 40960, pinned.data() + 65536 - 8192, 8192), 0);
    EXPECT_EQ(memcmp(pinned.data() + 8192, pinned.data() + 65536 - 8192, 8192), 0);
    EXPECT_EQ(Counter(*b, "io_uring_fixed_sqes"), 2u);
    // Outside it: a plain request, the same bytes.
    ASSERT_EQ(test::Read(*b, 40960, other.data(), 8192), 0);
    EXPECT_EQ(memcmp(other.data(), pinned.data() + 8192, 8192), 0);
    EXPECT_EQ(Counter(*b, "io_uring_fixed_sqes"), 2u);
    EXPECT_EQ(Counter(*b, "io_uring_sqes"), 3u);
    b->unregister_buf(pinned.data(), pinned.size());
    EXPECT_EQ(Counter(*b, "io_uring_registered_buffers"), 0u);
    ASSERT_EQ(test::Read(*b, 0, pinned.data(), 4096), 0);
    EXPECT_EQ(pinned.data()[100], TempFile::Pattern(100));
    EXPECT_EQ(Counter(*b, "io_uring_fixed_sqes"), 2u);
  }
}

// Without aio-fixed-buffers, register_buf is a no-op that succeeds; the
// option needs aio=io_uring.
TEST(FileEngineUringTest, FixedBuffersOnlyWhenAsked) {
  AioContext ctx;
  TempFile f(1 << 20);
  auto b = Open(ctx, Spec(f, "io_uring"));
  ASSERT_TRUE(b);
  AlignedBuffer buf(8192);
  EXPECT_EQ(b->register_buf(buf.data(), buf.size()), 0);
  EXPECT_EQ(Counter(*b, "io_uring_registered_buffers"), 0u);
  ASSERT_EQ(test::Read(*b, 0, buf.data(), 4096), 0);
  EXPECT_EQ(Counter(*b, "io_uring_fixed_sqes"), 0u);
  auto n = OpenBackend(ctx, Spec(f, "native", ",aio-fixed-buffers=on"));
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.error().message.find("aio-fixed-buffers=on needs aio=io_uring"), std::string::npos)
      << n.error().message;
}

// aio-threads-handover is the worker pool's: refused with another aio=.
TEST(FileEngineThreadsTest, HandoverOnlyWithThreads) {
  AioContext ctx;
  TempFile f(1 << 20);
  for (const char* aio : {"native", "io_uring", "sync"}) {
    auto n = OpenBackend(ctx, Spec(f, aio, ",aio-threads-handover=on"));
    ASSERT_FALSE(n.ok()) << aio;
    EXPECT_NE(n.error().message.find("aio-threads-handover=on needs aio=threads"), std::string::npos)
        << n.error().message;
  }
  EXPECT_TRUE(Open(ctx, Spec(f, "threads", ",aio-threads-handover=on")));
}

// aio=sync: each request's system call runs inside the submission, in the
// loop's thread; the peek right after it finds the result, so nothing waits
// for the eventfd, and requests carry no submission stamp (no slat).  32
// coroutines at once still all complete, with their data.
TEST(FileEngineSyncTest, RequestsRunInsideTheSubmission) {
  for (const char* direct : {"on", "off"}) {
    SCOPED_TRACE(direct);
    AioContext ctx;
    TempFile f(1 << 20);
    auto b = Open(ctx, "driver=file,filename=" + f.path() + ",aio=sync,cache.direct=" + direct +
                           ",peek-after-submit=off");  // forced on: see sync_queue.h
    ASSERT_TRUE(b);
    AlignedBuffer w = test::Filled(8192, 3), r(8192);
    ASSERT_EQ(test::Write(*b, 12288, w.data(), 8192), 0);
    ASSERT_EQ(RunSync(ctx, b->flush()).error(), 0);
    ASSERT_EQ(test::Read(*b, 12288, r.data(), 8192), 0);
    EXPECT_EQ(memcmp(r.data(), w.data(), 8192), 0);
    EXPECT_EQ(Counter(*b, "file_flush_fdsync_aio"), 1u);
    ASSERT_EQ(test::ConcurrentReads(ctx, *b, 32, 4, [](uint64_t off) {
                return off >= 12288 && off < 20480 ? uint8_t(3 + (off - 12288) * 13 +
                                                             ((off - 12288) >> 9))
                                                   : TempFile::Pattern(off);
              }),
              0);
    const uint64_t n = 3 + 32 * 4;
    EXPECT_EQ(Counter(*b, "sync_syscalls"), n);
    EXPECT_EQ(Counter(*b, "aio_requests_submitted"), n);
    EXPECT_EQ(Counter(*b, "aio_reaped_after_submit"), n);
    EXPECT_EQ(Counter(*b, "aio_reaped_eventfd"), 0u);
    EXPECT_EQ(Counter(*b, "aio_in_flight"), 0u);
    EXPECT_GT(Counter(*b, "aio_resumed_inline"), 0u);
    // A plain stamped read: the engine leaves the stamp unmarked.
    SubmitStamp stamp;
    auto one = [&]() -> Task<Status> {
      IoVec iov(r.data(), 4096);
      Task<Status> t = b->read(0, iov);
      t.set_submit_stamp(&stamp);
      co_return co_await std::move(t);
    };
    ASSERT_EQ(RunSync(ctx, one()).error(), 0);
    EXPECT_EQ(stamp.ns, 0);
  }
}

// Pages of [off, off + len) of `path` in the page cache (mincore).
int CachedPages(const std::string& path, uint64_t off, uint64_t len) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return -1;
  void* m = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, off_t(off));
  close(fd);
  if (m == MAP_FAILED) return -1;
  std::vector<unsigned char> v(len / 4096);
  int n = mincore(m, len, v.data()) == 0 ? 0 : -1;
  for (unsigned char c : v) n += (n >= 0 && (c & 1)) ? 1 : 0;
  munmap(m, len);
  return n;
}

// fadvise=random: a buffered read brings only its own page into the cache;
// fadvise=sequential: read-ahead brings the following ones too.
TEST(FileEngineSyncTest, FadviseSetsTheFilesReadAhead) {
  TempFile f(4 << 20);
  for (const char* advice : {"random", "sequential"}) {
    SCOPED_TRACE(advice);
    {  // Out of the page cache: written back, then dropped.
      const int fd = open(f.path().c_str(), O_RDWR);
      ASSERT_GE(fd, 0);
      ASSERT_EQ(fsync(fd), 0);
      ASSERT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
      close(fd);
    }
    ASSERT_EQ(CachedPages(f.path(), 0, 512 << 10), 0);
    AioContext ctx;
    auto b = Open(ctx, "driver=file,filename=" + f.path() + ",aio=sync,fadvise=" + advice);
    ASSERT_TRUE(b);
    AlignedBuffer r(4096);
    // At the start of the file: where the kernel reads ahead at once
    // unless told the reads are random.
    ASSERT_EQ(test::Read(*b, 0, r.data(), 4096), 0);
    EXPECT_EQ(r.data()[17], TempFile::Pattern(17));
    const int cached = CachedPages(f.path(), 0, 512 << 10);
    if (std::string(advice) == "random") {
      EXPECT_EQ(cached, 1);
    } else {
      EXPECT_GT(cached, 1);  // the kernel's initial window: 4 pages here
    }
  }
  AioContext ctx;
  auto bad = OpenBackend(ctx, "driver=file,filename=" + f.path() + ",fadvise=often");
  EXPECT_FALSE(bad.ok());
}

// Runs `fn` on `t`'s loop thread and waits.
template <class F>
void On(IOThread& t, F fn) {
  t.run_sync(fn);
}

// Moves `blk` from `from`'s loop to `to`'s (BlockBackend::move_to, started
// on `from`); false if that did not finish within 10 s.
bool Move(BlockBackend& blk, IOThread& from, IOThread& to) {
  std::promise<void> moved;
  auto mover = [](BlockBackend* blk, AioContext* dst, std::promise<void>* p) -> Task<void> {
    co_await blk->move_to(*dst);
    p->set_value();
  };
  Spawn(from.ctx(), mover(&blk, &to.ctx(), &moved));
  return moved.get_future().wait_for(std::chrono::seconds(10)) == std::future_status::ready;
}

// move_to(): the node leaves its engine on the old loop (destroyed there:
// it was the only user) and joins the new loop's, shared with the node
// already there.
TEST(FileEngineMoveTest, MovedNodeJoinsTheNewLoopsEngine) {
  IOThread a("engine-a"), b("engine-b");
  TempFile f1(1 << 20), f2(1 << 20);
  std::unique_ptr<BlockBackend> n1, n2;
  AlignedBuffer pinned(16384);
  On(a, [&] {
    n1 = Open(a.ctx(), Spec(f1, "io_uring", ",aio-fixed-buffers=on"));
    ASSERT_TRUE(n1);
    ASSERT_EQ(n1->register_buf(pinned.data(), pinned.size()), 0);
  });
  On(b, [&] { n2 = Open(b.ctx(), Spec(f2, "io_uring")); });
  ASSERT_TRUE(n1 && n2);
  ASSERT_TRUE(Move(*n1, a, b));
  const std::string key = DefaultKey(EngineSettings::Kind::kIoUring);
  On(a, [&] { EXPECT_EQ(a.ctx().find_service(key), nullptr); });
  On(b, [&] {
    // The registered range went with it, into the new loop's ring.
    ASSERT_EQ(test::Read(*n1, 8192, pinned.data(), 4096), 0);
    EXPECT_EQ(pinned.data()[9], TempFile::Pattern(8192 + 9));
    EXPECT_EQ(Counter(*n1, "io_uring_fixed_buffers"), 1u);
    EXPECT_EQ(Counter(*n1, "io_uring_fixed_sqes"), 1u);
    // aio-fixed-buffers is the node's option, not the engine's: one ring.
    EXPECT_EQ(Counter(*n1, "aio_engine_users"), 2u);
    EXPECT_EQ(Counter(*n2, "aio_engine_users"), 2u);
    n1.reset();
    n2.reset();
    EXPECT_EQ(b.ctx().find_service(key), nullptr);
  });
}

// Joining the new loop's engine fails (no file descriptor left for a new
// ring): the node's requests fail with that errno; nothing falls back to
// another engine.
TEST(FileEngineMoveTest, FailedJoinFailsRequestsWithTheCause) {
  IOThread a("engine-a"), b("engine-b");
  TempFile f(1 << 20);
  std::unique_ptr<BlockBackend> n;
  On(a, [&] { n = Open(a.ctx(), Spec(f, "io_uring")); });
  ASSERT_TRUE(n);
  ASSERT_TRUE(Move(*n, a, b));
  On(b, [&] {
    struct rlimit old;
    ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &old), 0);
    // The lowest free descriptor becomes the limit: no new one can open.
    const int lowest = dup(0);
    ASSERT_GE(lowest, 0);
    close(lowest);
    struct rlimit low = old;
    low.rlim_cur = rlim_t(lowest);
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
    AlignedBuffer r(4096);
    const int e1 = test::Read(*n, 0, r.data(), 4096);
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &old), 0);
    EXPECT_EQ(e1, -EMFILE);
    // The error stays until the node is attached again: no silent retry
    // into a different state mid-run.
    EXPECT_EQ(test::Read(*n, 0, r.data(), 4096), -EMFILE);
    EXPECT_EQ(Counter(*n, "aio_engine_users"), 0u);
    n.reset();
  });
}

}  // namespace
}  // namespace blk
