// The file driver's data path on a zram device: a real block device that
// completes inside the submitting system call (the case QueueEngine's
// peek-after-submit and deferred resumption are written for), with 4 KiB
// logical blocks, and that stores all-zero and same-byte pages specially.
// Every engine mode: aio=threads, aio=native with O_DIRECT, and io_uring
// with O_DIRECT (interrupt mode), with SQPOLL, with a registered file, and
// buffered.
//
// Each test hot-adds its own device (ZramDevice) and removes it at the end.
// Without zram (not root, no module) the tests skip, or fail when
// BLK_TEST_NO_SKIP is set (CI).
#include <liburing.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "tests/block/file/file_test_util.h"
#include "tests/block/file/zram_device.h"
#include <blkstack/util/xorshift.h>

namespace blk::test {
namespace {

constexpr uint64_t kSize = 64 << 20;

enum class Engine { kThreads, kNative, kUring };

struct Mode {
  const char* name;
  const char* opts;
  Engine engine;
  bool direct;
  bool sqpoll;
  bool regfile;
};

const Mode kModes[] = {
    {"threads", "aio=threads", Engine::kThreads, false, false, false},
    {"native_direct", "aio=native,cache.direct=on", Engine::kNative, true, false, false},
    {"uring_direct", "aio=io_uring,cache.direct=on", Engine::kUring, true, false, false},
    {"uring_sqpoll", "aio=io_uring,cache.direct=on,aio-sqpoll=on,aio-sqpoll-idle-ms=20",
     Engine::kUring, true, true, false},
    {"uring_regfile", "aio=io_uring,cache.direct=on,aio-register-file=on", Engine::kUring, true,
     false, true},
    {"uring_buffered", "aio=io_uring", Engine::kUring, false, false, false},
};

void PrintTo(const Mode& m, std::ostream* os) { *os << m.name << " (" << m.opts << ")"; }

class FileZramTest : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    zram_ = std::make_unique<ZramDevice>(kSize);
    if (zram_->dev().empty()) {
      if (SkipForbidden()) {
        FAIL() << "no zram device (and BLK_TEST_NO_SKIP is set): " << zram_->why();
      }
      GTEST_SKIP() << "SKIPPED: no zram device: " << zram_->why();
    }
  }

  std::unique_ptr<BlockBackend> OpenZram() {
    return Open(ctx_, "driver=file,filename=" + zram_->dev() + "," + GetParam().opts);
  }

  // The counters that say the mode asked for is the one that ran, after
  // `requests` requests (at least) went through the engine.
  void ExpectModeRan(BlockBackend& b, uint64_t requests) {
    const Mode& m = GetParam();
    EXPECT_EQ(b.root().limits().request_alignment, m.direct ? 4096u : 1u)
        << "O_DIRECT on zram: its 4 KiB logical block size";
    if (m.engine == Engine::kThreads) {
      // The worker pool, under the same policy as the kernel queues.
      EXPECT_GE(Counter(b, "threads_jobs"), requests);
      EXPECT_EQ(Counter(b, "threads_workers"), 16u);
      EXPECT_EQ(Counter(b, "io_uring_sqes"), UINT64_MAX);
      return;
    }
    EXPECT_GE(Counter(b, "aio_requests_submitted"), requests);
    EXPECT_EQ(Counter(b, "aio_in_flight"), 0u);
    EXPECT_EQ(Counter(b, "aio_resumed_inline") + Counter(b, "aio_resumed_deferred") +
                  Counter(b, "aio_resumed_direct"),
              Counter(b, "aio_requests_submitted"));
    if (m.engine == Engine::kNative) {
      EXPECT_EQ(Counter(b, "aio_ring_peek"), 1u);
      EXPECT_EQ(Counter(b, "io_uring_sqes"), UINT64_MAX);
      // zram completes inside io_submit: the peek right after it finds them.
      EXPECT_GT(Counter(b, "aio_reaped_after_submit"), 0u);
      return;
    }
    EXPECT_GE(Counter(b, "io_uring_sqes"), requests);
    EXPECT_GE(Counter(b, "io_uring_enters"), 1u);
    EXPECT_EQ(Counter(b, "io_uring_submit_errors"), 0u);
    EXPECT_EQ(Counter(b, "io_uring_sqpoll"), m.sqpoll ? 1u : 0u);
    EXPECT_EQ(Counter(b, "io_uring_registered_file"), m.regfile ? 1u : 0u);
    const uint64_t flags = Counter(b, "io_uring_setup_flags");
    EXPECT_EQ((flags & IORING_SETUP_SQPOLL) != 0, m.sqpoll) << flags;
    // Interrupt mode: completions come from the device's end_io, never from
    // the kernel polling it.
    EXPECT_EQ(flags & IORING_SETUP_IOPOLL, 0u) << flags;
    EXPECT_EQ(Counter(b, "aio_ring_peek"), UINT64_MAX);  // libaio's
  }

  std::unique_ptr<ZramDevice> zram_;  // declared first: outlives the backend
  AioContext ctx_;
};

// Byte `i` of a block that compresses poorly (random bytes).
std::vector<uint8_t> Incompressible(size_t len, uint64_t seed) {
  std::vector<uint8_t> v(len);
  XorShift64 x(seed | 1);
  for (size_t i = 0; i < len; i += 8) {
    const uint64_t r = x.next();
    memcpy(&v[i], &r, std::min<size_t>(8, len - i));
  }
  return v;
}

// zram keeps all-zero and same-byte pages without compressing them, text-like
// pages compressed, random pages as they are: each kind reads back as
// written, and a partial overwrite through the generic layer (read-modify-
// write of 4 KiB blocks with O_DIRECT) keeps the bytes around it.
TEST_P(FileZramTest, PatternsReadBackAsWritten) {
  auto b = OpenZram();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->length(), kSize);  // BLKGETSIZE64
  struct Region {
    uint64_t off;
    std::vector<uint8_t> data;
  };
  std::vector<Region> regions;
  {
    AlignedBuffer f = Filled(1 << 20, 17);
    regions.push_back({0, std::vector<uint8_t>(f.data(), f.data() + f.size())});
  }
  regions.push_back({2 << 20, std::vector<uint8_t>(65536, 0)});
  regions.push_back({3 << 20, std::vector<uint8_t>(65536, 0xff)});
  regions.push_back({4 << 20, Incompressible(1 << 20, 99)});
  {
    std::vector<uint8_t> same_word(8192);
    for (size_t i = 0; i < same_word.size(); i++) same_word[i] = uint8_t(0xa5 ^ (i & 7));
    regions.push_back({6 << 20, same_word});
  }
  for (const Region& r : regions) {
    AlignedBuffer w(r.data.size());
    memcpy(w.data(), r.data.data(), r.data.size());
    ASSERT_EQ(Write(*b, r.off, w.data(), w.size()), 0) << r.off;
  }
  for (const Region& r : regions) {
    AlignedBuffer got(r.data.size());
    memset(got.data(), 0xee, got.size());
    ASSERT_EQ(Read(*b, r.off, got.data(), got.size()), 0) << r.off;
    EXPECT_EQ(memcmp(got.data(), r.data.data(), r.data.size()), 0) << r.off;
  }
  // Unaligned offset, length and buffer inside the random region.
  std::vector<uint8_t> model = regions[3].data;
  std::vector<uint8_t> u(1001);
  for (size_t i = 0; i < 1000; i++) u[i + 1] = uint8_t(i * 31 + 7);
  ASSERT_EQ(Write(*b, (4 << 20) + 12345, u.data() + 1, 1000), 0);
  memcpy(&model[12345], u.data() + 1, 1000);
  std::vector<uint8_t> r(20001);
  ASSERT_EQ(Read(*b, (4 << 20) + 4000, r.data() + 1, 20000), 0);
  EXPECT_EQ(memcmp(r.data() + 1, &model[4000], 20000), 0);
  if (GetParam().direct) {
    EXPECT_GT(b->root().stats().padded_requests, 0u);
  }
  ExpectModeRan(*b, regions.size() * 2 + 2);
}

// Depth 32: 32 coroutines, each writing its own blocks and reading each back
// right away (reads and writes in flight together), then 32 plugged writes
// and 32 plugged reads at once, then 32 readers over the first 1 MiB.
Task<void> WriteThenReadBack(BlockBackend& b, int id, int per, int* failures, WaitGroup* wg) {
  AlignedBuffer w(4096), r(4096);
  for (int j = 0; j < per; j++) {
    const uint64_t block = uint64_t(1024 + id * per + j);  // from 4 MiB up
    for (int k = 0; k < 4096; k++) w.data()[k] = uint8_t(block * 7 + uint64_t(k) * 13 + 1);
    const IoVec wv(w.data(), 4096), rv(r.data(), 4096);
    Status s = co_await b.write(block * 4096, wv);
    if (!s.ok()) (*failures)++;
    memset(r.data(), 0, 4096);
    s = co_await b.read(block * 4096, rv);
    if (!s.ok() || memcmp(r.data(), w.data(), 4096) != 0) (*failures)++;
  }
  wg->done();
}

TEST_P(FileZramTest, ConcurrentWritesAndReadsAtDepth32) {
  auto b = OpenZram();
  ASSERT_TRUE(b);
  constexpr int kQd = 32, kPer = 32;
  int failures = 0;
  auto mixed = [&]() -> Task<void> {
    WaitGroup wg(ctx_);
    for (int i = 0; i < kQd; i++) {
      wg.add();
      SpawnNow(WriteThenReadBack(*b, i, kPer, &failures, &wg));
    }
    co_await wg.wait();
  };
  RunSync(ctx_, mixed());
  ASSERT_EQ(failures, 0);

  std::vector<AlignedBuffer> wbufs, rbufs;
  for (int i = 0; i < kQd; i++) {
    wbufs.push_back(Filled(4096, uint8_t(i * 3 + 2)));
    rbufs.emplace_back(4096);
  }
  RunSync(ctx_, ManyRequests(*b, kQd, &failures, &wbufs, true));
  RunSync(ctx_, ManyRequests(*b, kQd, &failures, &rbufs, false));
  ASSERT_EQ(failures, 0);
  for (int i = 0; i < kQd; i++) {
    ASSERT_EQ(memcmp(wbufs[size_t(i)].data(), rbufs[size_t(i)].data(), 4096), 0) << i;
  }

  // The first 1 MiB holds TempFile::Pattern; 32 readers check it.
  AlignedBuffer p(1 << 20);
  for (uint64_t i = 0; i < p.size(); i++) p.data()[i] = TempFile::Pattern(i);
  ASSERT_EQ(Write(*b, 0, p.data(), p.size()), 0);
  ASSERT_EQ(ConcurrentReads(ctx_, *b, kQd, 64, TempFile::Pattern), 0);
  ExpectModeRan(*b, uint64_t(kQd * kPer * 2 + kQd * 2 + kQd * 64));
  if (GetParam().engine != Engine::kThreads) {
    // Several requests per submission: the 32 coroutines' next requests
    // were gathered (plugged batches, the deferred resumer's plug).
    EXPECT_LT(Counter(*b, "aio_submit_calls"), Counter(*b, "aio_requests_submitted"));
  }
}

// A flush reaches the device: through the kernel queue (IOCB_CMD_FDSYNC /
// IORING_OP_FSYNC) in the kernel modes, fdatasync on a worker with
// aio=threads; the data is there after it.
TEST_P(FileZramTest, Flush) {
  auto b = OpenZram();
  ASSERT_TRUE(b);
  AlignedBuffer w = Filled(65536, 9);
  ASSERT_EQ(Write(*b, 1 << 20, w.data(), w.size()), 0);
  ASSERT_EQ(RunSync(ctx_, b->flush()).error(), 0);
  ASSERT_EQ(RunSync(ctx_, b->flush()).error(), 0);
  const uint64_t via_aio = Counter(*b, "file_flush_fdsync_aio");
  const uint64_t via_pool = Counter(*b, "file_flush_fdatasync_pool");
  EXPECT_EQ(via_aio + via_pool, 2u);
  // Through the engine in every mode: fdatasync on a worker, or (a block
  // device has an fsync operation) aio's FDSYNC / io_uring's FSYNC.
  EXPECT_EQ(via_aio, 2u);
  AlignedBuffer r(65536);
  ASSERT_EQ(Read(*b, 1 << 20, r.data(), r.size()), 0);
  EXPECT_EQ(memcmp(r.data(), w.data(), w.size()), 0);
  ExpectModeRan(*b, 2);
}

// The last blocks of the device read back in full (a block device has no
// partial last block: no short read, no zero fill); a request that crosses
// the end is refused by the generic layer before it reaches the driver.
TEST_P(FileZramTest, ReadAtTheEndOfTheDevice) {
  auto b = OpenZram();
  ASSERT_TRUE(b);
  ASSERT_EQ(b->length(), kSize);
  AlignedBuffer w = Filled(65536, 21);
  ASSERT_EQ(Write(*b, kSize - 65536, w.data(), w.size()), 0);
  AlignedBuffer r(65536);
  memset(r.data(), 0xee, r.size());
  ASSERT_EQ(Read(*b, kSize - 4096, r.data(), 4096), 0);
  EXPECT_EQ(memcmp(r.data(), w.data() + 65536 - 4096, 4096), 0);
  ASSERT_EQ(Read(*b, kSize - 65536, r.data(), 65536), 0);
  EXPECT_EQ(memcmp(r.data(), w.data(), 65536), 0);
  // The last 100 bytes, unaligned (padded to the last block with O_DIRECT).
  std::vector<uint8_t> tail(100, 0xee);
  ASSERT_EQ(Read(*b, kSize - 100, tail.data(), 100), 0);
  EXPECT_EQ(memcmp(tail.data(), w.data() + 65536 - 100, 100), 0);
  EXPECT_EQ(Read(*b, kSize - 2048, r.data(), 4096), -EIO);
  EXPECT_EQ(Read(*b, kSize, r.data(), 4096), -EIO);
  EXPECT_EQ(Counter(*b, "file_short_reads"), 0u);
  EXPECT_EQ(Counter(*b, "file_eof_zero_fills"), 0u);
  ExpectModeRan(*b, 4);
}

// Reads and writes completed by the device so far (fields 1 and 5 of
// /sys/block/zramN/stat); {-1, -1} if unreadable.
std::pair<int64_t, int64_t> DeviceIos(const std::string& dev) {
  const std::string path = "/sys/block/" + dev.substr(dev.rfind('/') + 1) + "/stat";
  FILE* f = fopen(path.c_str(), "re");
  if (!f) return {-1, -1};
  long long v[5] = {};
  const int n = fscanf(f, "%lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4]);
  fclose(f);
  if (n != 5) return {-1, -1};
  return {v[0], v[4]};
}

// A request larger than the device's max_sectors_kb (zram: 124 KiB) leaves
// the generic layer whole, as fio's do: the kernel splits O_DIRECT bios at
// the device's limits itself, and zram, a bio-based device, takes a 128 KiB
// or 1 MiB bio as one I/O.  So the device counts as many I/Os as were
// issued.  (Buffered modes go through the page cache: only the generic
// layer's split counter applies to them.)
TEST_P(FileZramTest, LargeRequestsLeaveWhole) {
  auto b = OpenZram();
  ASSERT_TRUE(b);
  constexpr int kN = 16;
  const size_t kSizes[] = {128 << 10, 1 << 20};
  const auto before = DeviceIos(zram_->dev());
  ASSERT_GE(before.first, 0) << "cannot read the device's stat file";
  uint64_t off = 0;
  for (size_t len : kSizes) {
    AlignedBuffer w = Filled(len, uint8_t(len >> 10));
    AlignedBuffer r(len);
    for (int i = 0; i < kN; i++, off += len) {
      ASSERT_EQ(Write(*b, off, w.data(), len), 0);
      ASSERT_EQ(Read(*b, off, r.data(), len), 0);
      ASSERT_EQ(memcmp(r.data(), w.data(), len), 0);
    }
  }
  const auto after = DeviceIos(zram_->dev());
  EXPECT_EQ(b->stats().split_requests, 0u);
  if (GetParam().direct) {
    EXPECT_EQ(after.first - before.first, 2 * kN) << "reads the device saw";
    EXPECT_EQ(after.second - before.second, 2 * kN) << "writes the device saw";
  }
  ExpectModeRan(*b, 4 * kN);
}

INSTANTIATE_TEST_SUITE_P(Modes, FileZramTest, ::testing::ValuesIn(kModes),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace blk::test
