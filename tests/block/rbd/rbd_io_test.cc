// I/O through driver=rbd against the test cluster (CEPH_CONF): round trips
// (single and vectored, every completion method), queue depth 32, 4M and 16M
// requests at depth 32, snapshots, discard/write-zeroes, flush, write cache.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/block/rbd/rbd_test_util.h"

namespace blk::rbdtest {
namespace {

constexpr uint64_t kMiB = 1 << 20;

std::unique_ptr<BlockBackend> MustOpen(AioContext& ctx, const std::string& spec,
                                       const OpenFlags& flags = {}) {
  auto b = OpenBackend(ctx, spec, flags);
  EXPECT_TRUE(b.ok()) << spec << ": " << (b.ok() ? "" : b.error().message);
  if (!b.ok()) return nullptr;
  return std::move(b.value());
}

// Runs `n` requests concurrently (all submitted before any completes is not
// guaranteed, but up to n are in flight) and returns the first error.
int RunConcurrent(AioContext& ctx, int n, const std::function<Task<Status>(int)>& make) {
  int done = 0, err = 0;
  auto one = [](Task<Status> t, int* d, int* e) -> Task<void> {
    Status s = co_await std::move(t);
    if (!s.ok() && *e == 0) *e = s.error();
    ++*d;
  };
  for (int i = 0; i < n; ++i) Spawn(ctx, one(make(i), &done, &err));
  ctx.run_until([&] { return done == n; });
  return err;
}

class RbdIoTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::string Extra() const { return ",completion=" + GetParam(); }
  AioContext ctx_;
};

TEST_P(RbdIoTest, RoundTripSingleUnaligned) {
  RBD_REQUIRE_CLUSTER();
  ScratchImage img("rt", 64 * kMiB);
  ASSERT_EQ(img.rc(), 0);
  auto b = MustOpen(ctx_, img.Spec(Extra()));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->length(), 64 * kMiB);
  auto data = Pattern(65536 + 123, 1);
  ASSERT_EQ(Write(*b, kMiB + 511, data), 0);
  std::vector<uint8_t> back;
  ASSERT_EQ(Read(*b, kMiB + 511, &back, data.size()), 0);
  EXPECT_TRUE(back == data);
  // Never-written space reads as zeros.
  ASSERT_EQ(Read(*b, 32 * kMiB, &back, 8192), 0);
  EXPECT_EQ(std::vector<uint8_t>(8192, 0), back);
  ASSERT_EQ(Sync(ctx_, b->flush()), 0);
}

// Each request's SubmitStamp is marked once rbd_aio_* returned: after the
// request started, before it completed.
TEST_P(RbdIoTest, SubmitStampMarksTheHandOver) {
  RBD_REQUIRE_CLUSTER();
  ScratchImage img("stamp", 16 * kMiB);
  ASSERT_EQ(img.rc(), 0);
  auto b = MustOpen(ctx_, img.Spec(Extra()));
  ASSERT_TRUE(b);
  constexpr int kN = 4;
  std::vector<uint8_t> data = Pattern(4096, 3);
  SubmitStamp stamps[kN];
  int64_t done[kN] = {};
  int errs[kN] = {};
  auto one = [](BlockBackend& bb, uint64_t off, std::vector<uint8_t>* d, SubmitStamp* st,
                int64_t* dn, int* e) -> Task<void> {
    IoVec iov(d->data(), d->size());
    Task<Status> t = bb.write(off, iov);
    t.set_submit_stamp(st);
    Status s = co_await std::move(t);
    *dn = NowNs();
    *e = s.error();
  };
  const int64_t start = NowNs();
  for (int i = 0; i < kN; i++)
    SpawnNow(one(*b, uint64_t(i) * kMiB, &data, &stamps[i], &done[i], &errs[i]));
  ctx_.run_until([&] {
    for (int64_t d : done)
      if (!d) return false;
    return true;
  });
  for (int i = 0; i < kN; i++) {
    EXPECT_EQ(errs[i], 0) << i;
    EXPECT_GE(stamps[i].ns, start) << i;
    EXPECT_LE(stamps[i].ns, done[i]) << i;
  }
}

TEST_P(RbdIoTest, RoundTripVectored) {
  RBD_REQUIRE_CLUSTER();
  ScratchImage img("vec", 16 * kMiB);
  ASSERT_EQ(img.rc(), 0);
  auto b = MustOpen(ctx_, img.Spec(Extra()));
  ASSERT_TRUE(b);
  // Five segments of odd sizes, scattered in memory.
  std::vector<std::vector<uint8_t>> segs;
  size_t sizes[] = {4096, 1, 777, 65536, 3000};
  IoVec wv;
  std::vector<uint8_t> flat;
  for (size_t i = 0; i < 5; ++i) {
    segs.push_back(Pattern(sizes[i], 10 + i));
    flat.insert(flat.end(), segs.back().begin(), segs.back().end());
  }
  for (auto& s : segs) wv.add(s.data(), s.size());
  ASSERT_EQ(wv.count(), 5);
  ASSERT_EQ(Sync(ctx_, b->write(12345, wv)), 0);
  // Read back through a different scatter list.
  std::vector<uint8_t> r1(1000), r2(flat.size() - 1000);
  IoVec rv;
  rv.add(r1.data(), r1.size());
  rv.add(r2.data(), r2.size());
  ASSERT_EQ(Sync(ctx_, b->read(12345, rv)), 0);
  std::vector<uint8_t> back(r1);
  back.insert(back.end(), r2.begin(), r2.end());
  EXPECT_TRUE(back == flat);
}

TEST_P(RbdIoTest, Depth32RandomWritesThenReads) {
  RBD_REQUIRE_CLUSTER();
  ScratchImage img("qd", 64 * kMiB);
  ASSERT_EQ(img.rc(), 0);
  auto b = MustOpen(ctx_, img.Spec(Extra()));
  ASSERT_TRUE(b);
  constexpr int kN = 256;
  std::vector<std::vector<uint8_t>> data(kN);
  std::vector<IoVec> iovs(kN);
  for (int i = 0; i < kN; ++i) {
    data[i] = Pattern(4096, 100 + i);
    iovs[i] = IoVec(data[i].data(), 4096);
  }
  // Block i goes to (i * 7919 % 16384) * 4096: distinct, scattered.
  auto off = [](int i) { return uint64_t(i) * 7919 % 16384 * 4096; };
  for (int round = 0; round < kN / 32; ++round) {
    ASSERT_EQ(RunConcurrent(ctx_, 32, [&](int j) {
                int i = round * 32 + j;
                return b->write(off(i), iovs[i]);
              }),
              0);
  }
  ASSERT_EQ(Sync(ctx_, b->flush()), 0);
  std::vector<std::vector<uint8_t>> back(kN, std::vector<uint8_t>(4096));
  std::vector<IoVec> riovs(kN);
  for (int i = 0; i < kN; ++i) riovs[i] = IoVec(back[i].data(), 4096);
  for (int round = 0; round < kN / 32; ++round) {
    ASSERT_EQ(RunConcurrent(ctx_, 32, [&](int j) {
                int i = round * 32 + j;
                return b->read(off(i), riovs[i]);
              }),
              0);
  }
  for (int i = 0; i < kN; ++i) EXPECT_TRUE(back[i] == data[i]) << "block " << i;
  if (GetParam() != "bh") {
    EXPECT_EQ(Counter(*b, "rbd_completed"), Counter(*b, "rbd_submitted"));
  }
}

INSTANTIATE_TEST_SUITE_P(Completion, RbdIoTest, ::testing::Values("eventfd", "bh", "poll"),
                         [](const auto& info) { return info.param; });

// bs 4M and 16M at iodepth 32 (fio's rbd engine hung above 1M).
class RbdLargeTest : public ::testing::TestWithParam<uint64_t> {
 protected:
  AioContext ctx_;
};

TEST_P(RbdLargeTest, Depth32) {
  RBD_REQUIRE_CLUSTER();
  const uint64_t bs = GetParam();
  constexpr int kDepth = 32;
  ScratchImage img("large", bs * kDepth);
  ASSERT_EQ(img.rc(), 0);
  auto b = MustOpen(ctx_, img.Spec());
  ASSERT_TRUE(b);
  // One pattern buffer, each request tagged in its first 8 bytes.
  std::vector<std::vector<uint8_t>> data(kDepth);
  std::vector<IoVec> iovs(kDepth);
  auto base = Pattern(bs, 7);
  for (int i = 0; i < kDepth; ++i) {
    data[i] = base;
    std::memcpy(data[i].data(), &i, sizeof i);
    std::memcpy(data[i].data() + bs - sizeof i, &i, sizeof i);
    iovs[i] = IoVec(data[i].data(), bs);
  }
  int64_t t0 = NowMs();
  ASSERT_EQ(RunConcurrent(ctx_, kDepth, [&](int i) { return b->write(i * bs, iovs[i]); }), 0);
  ASSERT_EQ(Sync(ctx_, b->flush()), 0);
  std::vector<std::vector<uint8_t>> back(kDepth, std::vector<uint8_t>(bs));
  std::vector<IoVec> riovs(kDepth);
  for (int i = 0; i < kDepth; ++i) riovs[i] = IoVec(back[i].data(), bs);
  ASSERT_EQ(RunConcurrent(ctx_, kDepth, [&](int i) { return b->read(i * bs, riovs[i]); }), 0);
  for (int i = 0; i < kDepth; ++i) EXPECT_TRUE(back[i] == data[i]) << "request " << i;
  std::printf("bs %llu x %d: write+flush+read in %lld ms\n", (unsigned long long)bs, kDepth,
              (long long)(NowMs() - t0));
}

INSTANTIATE_TEST_SUITE_P(Sizes, RbdLargeTest, ::testing::Values(4 * kMiB, 16 * kMiB),
                         [](const auto& info) { return std::to_string(info.param >> 20) + "M"; });

class RbdTest : public ::testing::Test {
 protected:
  AioContext ctx_;
};

TEST_F(RbdTest, SnapshotIsReadOnlyAndFrozen) {
  RBD_REQUIRE_CLUSTER();
  ScratchImage img("snap", 8 * kMiB);
  ASSERT_EQ(img.rc(), 0);
  auto a = Pattern(8192, 21), bdata = Pattern(8192, 22);
  {
    auto b = MustOpen(ctx_, img.Spec());
    ASSERT_TRUE(b);
    ASSERT_EQ(Write(*b, 4096, a), 0);
    ASSERT_EQ(Sync(ctx_, b->flush()), 0);
  }
  ASSERT_EQ(SharedAdmin().Snapshot(img.name(), "s1"), 0);
  {
    auto b = MustOpen(ctx_, img.Spec());
    ASSERT_TRUE(b);
    ASSERT_EQ(Write(*b, 4096, bdata), 0);
    ASSERT_EQ(Sync(ctx_, b->flush()), 0);
  }
  // Read-write open of a snapshot is refused with a clear message.
  auto rw = OpenBackend(ctx_, img.Spec(",snapshot=s1"));
  ASSERT_FALSE(rw.ok());
  EXPECT_NE(rw.error().message.find("read-only"), std::string::npos) << rw.error().message;

  for (const std::string& spec :
       {img.Spec(",snapshot=s1,read-only=on"),
        "driver=rbd,read-only=on,filename=rbd:rbd/" + img.name() + "@s1"}) {
    auto s = MustOpen(ctx_, spec);
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->read_only());
    std::vector<uint8_t> back;
    ASSERT_EQ(Read(*s, 4096, &back, 8192), 0);
    EXPECT_TRUE(back == a) << spec;
    EXPECT_EQ(Write(*s, 0, a), -EPERM);
    // No flush on a read-only open.
    EXPECT_EQ(Counter(*s, "rbd_open_flushes"), 0u);
  }
  // The head has the new data.
  auto h = MustOpen(ctx_, img.Spec(",read-only=on"));
  ASSERT_TRUE(h);
  std::vector<uint8_t> back;
  ASSERT_EQ(Read(*h, 4096, &back, 8192), 0);
  EXPECT_TRUE(back == bdata);
  EXPECT_EQ(Counter(*h, "rbd_open_flushes"), 0u);
}

TEST_F(RbdTest, WriteZeroesReadsZerosAndKeepsNeighbours) {
  RBD_REQUIRE_CLUSTER();
  ScratchImage img("wz", 16 * kMiB);
  ASSERT_EQ(img.rc(), 0);
  for (const char* mode : {"eventfd", "bh"}) {
    auto b = MustOpen(ctx_, img.Spec(std::string(",completion=") + mode));
    ASSERT_TRUE(b);
    auto data = Pattern(256 * 1024, 31);
    ASSERT_EQ(Write(*b, 0, data), 0);
    // Small and unaligned: a discard here could leave old data; write-zeroes
    // must not.
    ASSERT_EQ(Sync(ctx_, b->write_zeroes(5000, 3000)), 0);
    ASSERT_EQ(Sync(ctx_, b->write_zeroes(65536, 4096, kReqMayUnmap)), 0);
    std::vector<uint8_t> back;
    ASSERT_EQ(Read(*b, 0, &back, data.size()), 0);
    auto expect = data;
    std::fill(expect.begin() + 5000, expect.begin() + 8000, 0);
    std::fill(expect.begin() + 65536, expect.begin() + 65536 + 4096, 0);
    EXPECT_TRUE(back == expect) << mode;
  }
}

TEST_F(RbdTest, DiscardIsAdvisoryAndWholeObjectsReadZero) {
  RBD_REQUIRE_CLUSTER();
  ScratchImage img("disc", 16 * kMiB);
  ASSERT_EQ(img.rc(), 0);
  auto b = MustOpen(ctx_, img.Spec());
  ASSERT_TRUE(b);
  auto data = Pattern(8 * kMiB, 41);
  ASSERT_EQ(Write(*b, 0, data), 0);
  // A small discard succeeds; the range reads as old data or zeros.
  ASSERT_EQ(Sync(ctx_, b->discard(4096, 4096)), 0);
  std::vector<uint8_t> back;
  ASSERT_EQ(Read(*b, 0, &back, 3 * 4096), 0);
  EXPECT_TRUE(std::equal(back.begin(), back.begin() + 4096, data.begin()));
  bool old = std::equal(back.begin() + 4096, back.begin() + 8192, data.begin() + 4096);
  bool zero = std::all_of(back.begin() + 4096, back.begin() + 8192, [](uint8_t c) { return !c; });
  EXPECT_TRUE(old || zero);
  EXPECT_TRUE(std::equal(back.begin() + 8192, back.end(), data.begin() + 8192));
  // A whole 4M object discarded reads as zeros (librbd removes the object).
  ASSERT_EQ(Sync(ctx_, b->discard(4 * kMiB, 4 * kMiB)), 0);
  ASSERT_EQ(Sync(ctx_, b->flush()), 0);
  ASSERT_EQ(Read(*b, 4 * kMiB, &back, 4 * kMiB), 0);
  EXPECT_TRUE(std::all_of(back.begin(), back.end(), [](uint8_t c) { return !c; }));
}

TEST_F(RbdTest, WriteCacheOnFlushesOnceAfterReadWriteOpen) {
  RBD_REQUIRE_CLUSTER();
  ScratchImage img("wc", 8 * kMiB);
  ASSERT_EQ(img.rc(), 0);
  auto data = Pattern(4096, 51);
  {
    auto b = MustOpen(ctx_, img.Spec());  // default write-cache=on
    ASSERT_TRUE(b);
    EXPECT_EQ(Counter(*b, "rbd_cache"), 1u);
    EXPECT_EQ(Counter(*b, "rbd_open_flushes"), 1u);
    ASSERT_EQ(Write(*b, 0, data), 0);
    ASSERT_EQ(Sync(ctx_, b->flush()), 0);
  }
  {
    auto b = MustOpen(ctx_, img.Spec(",write-cache=off"));
    ASSERT_TRUE(b);
    EXPECT_EQ(Counter(*b, "rbd_cache"), 0u);
    EXPECT_EQ(Counter(*b, "rbd_open_flushes"), 0u);
    std::vector<uint8_t> back;
    ASSERT_EQ(Read(*b, 0, &back, 4096), 0);
    EXPECT_TRUE(back == data);
    auto d2 = Pattern(4096, 52);
    ASSERT_EQ(Write(*b, 4096, d2), 0);
    ASSERT_EQ(Sync(ctx_, b->flush()), 0);
  }
  {
    auto b = MustOpen(ctx_, img.Spec(",write-cache=on,read-only=on"));
    ASSERT_TRUE(b);
    EXPECT_EQ(Counter(*b, "rbd_open_flushes"), 0u);
  }
}

// Write-back really is on after the open flush: sequential 4k writes at
// depth 1 are much faster than with the cache off (measured 35 us vs 441 us
// per write with librbd's writethrough-until-flush).  Loose factor 2.
TEST_F(RbdTest, WriteCacheOnIsWriteBack) {
  RBD_REQUIRE_CLUSTER();
  ScratchImage img("wb", 8 * kMiB);
  ASSERT_EQ(img.rc(), 0);
  auto time_writes = [&](const std::string& extra) -> int64_t {
    auto b = MustOpen(ctx_, img.Spec(extra));
    if (!b) return -1;
    auto data = Pattern(4096, 61);
    int64_t t0 = NowMs();
    for (int i = 0; i < 200; ++i) {
      if (Write(*b, uint64_t(i) * 4096, data) != 0) return -1;
    }
    int64_t ms = NowMs() - t0;
    if (Sync(ctx_, b->flush()) != 0) return -1;
    return ms;
  };
  int64_t off_ms = time_writes(",write-cache=off");
  int64_t on_ms = time_writes(",write-cache=on");
  ASSERT_GE(off_ms, 0);
  ASSERT_GE(on_ms, 0);
  std::printf("200 x 4k writes at depth 1: cache off %lld ms, on %lld ms\n", (long long)off_ms,
              (long long)on_ms);
  EXPECT_LT(on_ms * 2, off_ms + 2);
}

TEST_F(RbdTest, RadosPassThroughAndFilenameForm) {
  RBD_REQUIRE_CLUSTER();
  ScratchImage img("pt", 8 * kMiB);
  ASSERT_EQ(img.rc(), 0);
  auto data = Pattern(4096, 71);
  {
    auto b = MustOpen(ctx_, img.Spec(",rados.ms_async_op_threads=4,"
                                     "rados.rados_osd_op_timeout=30,user=admin,conf=" +
                                     std::string(CephConf())));
    ASSERT_TRUE(b);
    ASSERT_EQ(Write(*b, 0, data), 0);
    ASSERT_EQ(Sync(ctx_, b->flush()), 0);
  }
  {
    // JSON spec with a nested rados object.
    auto b = MustOpen(ctx_, "{\"driver\": \"rbd\", \"pool\": \"rbd\", \"image\": \"" +
                                img.name() + "\", \"rados\": {\"rbd_cache\": false}}");
    ASSERT_TRUE(b);
    std::vector<uint8_t> back;
    ASSERT_EQ(Read(*b, 0, &back, 4096), 0);
    EXPECT_TRUE(back == data);
  }
  {
    auto b = MustOpen(ctx_, "driver=rbd,filename=rbd:rbd/" + img.name() +
                                ":id=admin:rbd_cache=false:conf=" + CephConf());
    ASSERT_TRUE(b);
    std::vector<uint8_t> back;
    ASSERT_EQ(Read(*b, 0, &back, 4096), 0);
    EXPECT_TRUE(back == data);
  }
}

}  // namespace
}  // namespace blk::rbdtest
