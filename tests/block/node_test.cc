// Tests of the generic layer (BlockNode) over the MemDriver test seam:
// padding, read-modify-write serialisation, splitting, bounds, fallbacks,
// drain.  Data is checked byte for byte against a reference buffer.
#include <blkstack/block/node.h>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include <blkstack/block/backend.h>
#include "tests/block/mem_driver.h"
#include <blkstack/util/aligned_buffer.h>

namespace blk {
namespace {

using testing::MemDriver;
using testing::MemDriverLog;

constexpr uint64_t kSize = 1 << 20;

struct Fixture {
  AioContext ctx;
  MemDriverLog log;
  MemDriver* mem = nullptr;
  std::unique_ptr<BlockNode> node;

  Fixture(BlockLimits limits, Capabilities caps = {}, int yields = 1, bool ro = false,
          uint64_t size = kSize) {
    auto d = std::make_unique<MemDriver>(size, limits, caps, &log, yields);
    mem = d.get();
    node = std::make_unique<BlockNode>(std::move(d), "mem", ro);
    node->attach_aio_context(ctx);
  }
  ~Fixture() { node.reset(); }
};

BlockLimits Aligned(uint32_t req, uint32_t mem = 1, uint64_t max_transfer = 0) {
  BlockLimits l;
  l.request_alignment = req;
  l.memory_alignment = mem;
  l.max_transfer = max_transfer;
  return l;
}

Task<Status> ReadInto(BlockNode& n, uint64_t off, std::vector<uint8_t>* out) {
  IoVec iov(out->data(), out->size());
  co_return co_await n.co_preadv(off, iov);
}

Task<Status> WriteFrom(BlockNode& n, uint64_t off, const std::vector<uint8_t>* in,
                       uint32_t flags = 0) {
  IoVec iov(const_cast<uint8_t*>(in->data()), in->size());
  co_return co_await n.co_pwritev(off, iov, flags);
}

TEST(BlockNodeTest, UnalignedReadsAndWritesMatchReferenceByteForByte) {
  Fixture f(Aligned(512, 512, 8192), {}, 2);
  std::vector<uint8_t> ref(kSize);
  std::mt19937_64 rng(7);
  for (auto& b : ref) b = uint8_t(rng());
  f.mem->data() = ref;
  for (int i = 0; i < 300; i++) {
    uint64_t off = rng() % (kSize - 1);
    uint64_t len = 1 + rng() % std::min<uint64_t>(20000, kSize - off);
    if (rng() % 2) {
      std::vector<uint8_t> buf(len);
      for (auto& b : buf) b = uint8_t(rng());
      ASSERT_TRUE(RunSync(f.ctx, WriteFrom(*f.node, off, &buf)).ok());
      std::memcpy(ref.data() + off, buf.data(), len);
    } else {
      std::vector<uint8_t> buf(len);
      ASSERT_TRUE(RunSync(f.ctx, ReadInto(*f.node, off, &buf)).ok());
      ASSERT_EQ(0, std::memcmp(buf.data(), ref.data() + off, len)) << "read at " << off;
    }
  }
  EXPECT_EQ(f.mem->data(), ref);
  EXPECT_EQ(f.log.contract_violations, 0);
  EXPECT_GT(f.node->stats().padded_requests, 0u);
}

TEST(BlockNodeTest, VectoredMisalignedMemoryIsBounced) {
  Fixture f(Aligned(512, 4096));
  std::vector<uint8_t> a(1000, 1), b(3096, 2);  // 4096 bytes in two odd segments
  IoVec iov;
  iov.add(a.data(), a.size());
  iov.add(b.data(), b.size());
  ASSERT_TRUE(RunSync(f.ctx, f.node->co_pwritev(4096, iov)).ok());
  EXPECT_EQ(f.log.contract_violations, 0);
  EXPECT_EQ(f.mem->data()[4096], 1);
  EXPECT_EQ(f.mem->data()[4096 + 999], 1);
  EXPECT_EQ(f.mem->data()[4096 + 1000], 2);
  EXPECT_EQ(f.mem->data()[8191], 2);
  std::vector<uint8_t> c(1000), d(3096);
  IoVec riov;
  riov.add(c.data(), c.size());
  riov.add(d.data(), d.size());
  ASSERT_TRUE(RunSync(f.ctx, f.node->co_preadv(4096, riov)).ok());
  EXPECT_EQ(c, a);
  EXPECT_EQ(d, b);
}

// Concurrent writes to distinct bytes of the same sector: each is a
// read-modify-write of the whole sector; without serialisation one would
// overwrite the other's bytes with stale data.
Task<void> WritePiece(BlockNode& n, uint64_t off, uint8_t v, WaitGroup* wg, int* errors) {
  std::vector<uint8_t> buf(64, v);
  Status s = co_await WriteFrom(n, off, &buf);
  if (!s.ok()) (*errors)++;
  wg->done();
}

Task<void> ConcurrentPieces(AioContext& ctx, BlockNode& n, int* errors) {
  WaitGroup wg(ctx);
  wg.add(16);
  for (int i = 0; i < 16; i++) Spawn(ctx, WritePiece(n, 512 + i * 64, uint8_t(i + 1), &wg, errors));
  co_await wg.wait();
}

TEST(BlockNodeTest, OverlappingReadModifyWritesAreSerialised) {
  Fixture f(Aligned(4096), {}, 3);
  int errors = 0;
  RunSync(f.ctx, ConcurrentPieces(f.ctx, *f.node, &errors));
  EXPECT_EQ(errors, 0);
  for (int i = 0; i < 16; i++) {
    for (int j = 0; j < 64; j++) {
      ASSERT_EQ(f.mem->data()[512 + i * 64 + j], i + 1) << "piece " << i << " lost";
    }
  }
  EXPECT_EQ(f.node->in_flight(), 0);
}

TEST(BlockNodeTest, LargeRequestsAreSplitAtMaxTransfer) {
  Fixture f(Aligned(512, 1, 4096));
  std::vector<uint8_t> buf(65536, 9);
  ASSERT_TRUE(RunSync(f.ctx, WriteFrom(*f.node, 8192, &buf)).ok());
  int writes = 0;
  for (auto& op : f.log.ops) {
    if (op.kind == 'w') {
      writes++;
      EXPECT_LE(op.bytes, 4096u);
    }
  }
  EXPECT_EQ(writes, 16);
  EXPECT_EQ(f.log.contract_violations, 0);
  std::vector<uint8_t> back(65536);
  ASSERT_TRUE(RunSync(f.ctx, ReadInto(*f.node, 8192, &back)).ok());
  EXPECT_EQ(back, buf);
  EXPECT_EQ(f.node->stats().split_requests, 2u);
}

TEST(BlockNodeTest, OutOfBoundsIsEioAndReadOnlyIsEperm) {
  Fixture f(Aligned(1));
  std::vector<uint8_t> buf(4096);
  EXPECT_EQ(RunSync(f.ctx, ReadInto(*f.node, kSize - 100, &buf)).error(), -EIO);
  EXPECT_EQ(RunSync(f.ctx, WriteFrom(*f.node, kSize, &buf)).error(), -EIO);
  EXPECT_EQ(RunSync(f.ctx, WriteFrom(*f.node, ~uint64_t(0) - 10, &buf)).error(), -EIO);
  EXPECT_TRUE(RunSync(f.ctx, ReadInto(*f.node, kSize - 4096, &buf)).ok());
  EXPECT_TRUE(f.log.ops.size() == 1);  // only the valid one reached the driver
  EXPECT_EQ(f.node->stats()[IoOp::kRead].errors, 1u);

  Fixture ro(Aligned(1), {}, 1, true);
  EXPECT_EQ(RunSync(ro.ctx, WriteFrom(*ro.node, 0, &buf)).error(), -EPERM);
  EXPECT_EQ(RunSync(ro.ctx, ro.node->co_pdiscard(0, 4096)).error(), -EPERM);
  EXPECT_EQ(RunSync(ro.ctx, ro.node->co_pwrite_zeroes(0, 4096)).error(), -EPERM);
  EXPECT_TRUE(ro.log.ops.empty());
}

TEST(BlockNodeTest, UnalignedTailOfDeviceReadsAsZeros) {
  // Device size not a multiple of the alignment: the padded read of the last
  // sector goes past the end, and the driver returns zeros there.
  Fixture f(Aligned(512), {}, 1, false, 1000);
  std::vector<uint8_t> buf(10, 0xee);
  std::memset(f.mem->data().data() + 990, 0x5a, 10);
  ASSERT_TRUE(RunSync(f.ctx, ReadInto(*f.node, 990, &buf)).ok());
  EXPECT_EQ(buf, std::vector<uint8_t>(10, 0x5a));
  EXPECT_EQ(f.log.contract_violations, 0);
}

TEST(BlockNodeTest, FuaIsEmulatedWithFlushWhenUnsupported) {
  Fixture f(Aligned(512));
  std::vector<uint8_t> buf(512, 3);
  ASSERT_TRUE(RunSync(f.ctx, WriteFrom(*f.node, 0, &buf, kReqFua)).ok());
  ASSERT_EQ(f.log.ops.size(), 2u);
  EXPECT_EQ(f.log.ops[0].kind, 'w');
  EXPECT_EQ(f.log.ops[0].flags & kReqFua, 0u);
  EXPECT_EQ(f.log.ops[1].kind, 'f');
  EXPECT_EQ(f.log.contract_violations, 0);

  Capabilities caps;
  caps.fua = true;
  Fixture g(Aligned(512), caps);
  ASSERT_TRUE(RunSync(g.ctx, WriteFrom(*g.node, 0, &buf, kReqFua)).ok());
  ASSERT_EQ(g.log.ops.size(), 1u);
  EXPECT_NE(g.log.ops[0].flags & kReqFua, 0u);
}

TEST(BlockNodeTest, WriteZeroesFallsBackToWritingZeros) {
  Fixture f(Aligned(512));
  std::fill(f.mem->data().begin(), f.mem->data().end(), 0xff);
  ASSERT_TRUE(RunSync(f.ctx, f.node->co_pwrite_zeroes(100, 300000)).ok());
  for (uint64_t i = 0; i < kSize; i++) {
    bool inside = i >= 100 && i < 300100;
    ASSERT_EQ(f.mem->data()[i], inside ? 0 : 0xff) << "byte " << i;
  }
  EXPECT_EQ(f.log.contract_violations, 0);
  for (auto& op : f.log.ops) EXPECT_NE(op.kind, 'z');
}

TEST(BlockNodeTest, NativeWriteZeroesGetsAlignedMiddleOnly) {
  Capabilities caps;
  caps.write_zeroes = true;
  Fixture f(Aligned(4096), caps);
  std::fill(f.mem->data().begin(), f.mem->data().end(), 0xff);
  ASSERT_TRUE(RunSync(f.ctx, f.node->co_pwrite_zeroes(1000, 20000)).ok());
  for (uint64_t i = 0; i < 30000; i++) {
    bool inside = i >= 1000 && i < 21000;
    ASSERT_EQ(f.mem->data()[i], inside ? 0 : 0xff) << "byte " << i;
  }
  int native = 0;
  for (auto& op : f.log.ops) {
    if (op.kind == 'z') {
      native++;
      EXPECT_EQ(op.offset, 4096u);
      EXPECT_EQ(op.bytes, 16384u);
    }
  }
  EXPECT_EQ(native, 1);
  EXPECT_EQ(f.log.contract_violations, 0);
}

TEST(BlockNodeTest, DiscardIsAdvisoryAndAligned) {
  Fixture none(Aligned(512));
  EXPECT_TRUE(RunSync(none.ctx, none.node->co_pdiscard(0, 8192)).ok());
  EXPECT_TRUE(none.log.ops.empty());  // no discard capability: a no-op

  Capabilities caps;
  caps.discard = true;
  Fixture f(Aligned(4096), caps);
  EXPECT_TRUE(RunSync(f.ctx, f.node->co_pdiscard(100, 9000)).ok());
  ASSERT_EQ(f.log.ops.size(), 1u);
  EXPECT_EQ(f.log.ops[0].offset, 4096u);
  EXPECT_EQ(f.log.ops[0].bytes, 4096u);
}

Task<void> SlowRead(BlockNode& n, std::vector<uint8_t>* buf, int* done) {
  IoVec iov(buf->data(), buf->size());
  Status s = co_await n.co_preadv(0, iov);
  if (s.ok()) (*done)++;
}

Task<int> DrainWhileBusy(AioContext& ctx, BlockNode& n, int* done) {
  std::vector<std::vector<uint8_t>> bufs(32, std::vector<uint8_t>(4096));
  for (auto& b : bufs) Spawn(ctx, SlowRead(n, &b, done));
  co_await ctx.yield();  // let them start
  int in_flight_at_start = n.in_flight();
  co_await n.co_drain();
  EXPECT_EQ(n.in_flight(), 0);
  co_return in_flight_at_start;
}

TEST(BlockNodeTest, DrainWaitsForRequestsInFlight) {
  Fixture f(Aligned(512), {}, 10);
  int done = 0;
  int started = RunSync(f.ctx, DrainWhileBusy(f.ctx, *f.node, &done));
  EXPECT_EQ(started, 32);
  EXPECT_EQ(done, 32);
}

Task<void> DrainIdle(BlockNode& n, const bool* caller_went_on, bool* seen, bool* done) {
  co_await n.co_drain();
  *seen = *caller_went_on;
  *done = true;
}

// With nothing in flight the drain still returns through the loop (never
// inside its caller's call stack): a coroutine that a driver's completion
// path resumed can close the graph right after it.
TEST(BlockNodeTest, DrainReturnsAtTheLoopsTopLevelEvenWhenIdle) {
  Fixture f(Aligned(512));
  bool went_on = false, seen = false, done = false;
  SpawnNow(DrainIdle(*f.node, &went_on, &seen, &done));
  EXPECT_FALSE(done);  // suspended instead of finishing inside SpawnNow
  went_on = true;
  f.ctx.run_until([&] { return done; });
  EXPECT_TRUE(seen);
}

Task<void> HeldBack(BlockNode& n, bool* finished) {
  std::vector<uint8_t> buf(512);
  IoVec iov(buf.data(), buf.size());
  Status s = co_await n.co_preadv(0, iov);
  *finished = s.ok();
}

TEST(BlockNodeTest, DrainedSectionHoldsNewRequests) {
  Fixture f(Aligned(512));
  bool finished = false;
  f.node->drained_begin();
  Spawn(f.ctx, HeldBack(*f.node, &finished));
  for (int i = 0; i < 10; i++) f.ctx.run_once(false);
  EXPECT_FALSE(finished);
  EXPECT_TRUE(f.log.ops.empty());
  f.node->drained_end();
  f.ctx.run_until([&] { return finished; });
  EXPECT_TRUE(finished);
}

Task<void> HeldWrite(BlockNode& n, uint64_t off, Status* out, bool* finished) {
  std::vector<uint8_t> buf(512, 0x5a);
  *out = co_await WriteFrom(n, off, &buf);
  *finished = true;
}

Task<void> HeldFlush(BlockNode& n, Status* out, bool* finished) {
  *out = co_await n.co_flush();
  *finished = true;
}

// A request held back by a drained section is checked and tracked when it
// enters, after drained_end(), like one that never waited: out of bounds it
// fails -EIO and counts as an error; an unaligned write still waits for an
// overlapping read-modify-write that entered before it.
TEST(BlockNodeTest, HeldRequestsAreCheckedAndSerialisedWhenTheyEnter) {
  Fixture f(Aligned(4096), {}, 3);
  Status oob, first, second, flush;
  bool oob_done = false, first_done = false, second_done = false, flush_done = false;
  f.node->drained_begin();
  Spawn(f.ctx, HeldWrite(*f.node, kSize, &oob, &oob_done));
  Spawn(f.ctx, HeldWrite(*f.node, 100, &first, &first_done));
  Spawn(f.ctx, HeldWrite(*f.node, 300, &second, &second_done));
  Spawn(f.ctx, HeldFlush(*f.node, &flush, &flush_done));
  for (int i = 0; i < 10; i++) f.ctx.run_once(false);
  EXPECT_FALSE(oob_done || first_done || second_done || flush_done);
  EXPECT_EQ(f.node->stats()[IoOp::kWrite].ops, 0u);
  EXPECT_EQ(f.node->in_flight(), 0);
  f.node->drained_end();
  f.ctx.run_until([&] { return oob_done && first_done && second_done && flush_done; });
  EXPECT_EQ(oob.error(), -EIO);
  EXPECT_TRUE(first.ok());
  EXPECT_TRUE(second.ok());
  EXPECT_TRUE(flush.ok());
  const NodeStats& s = f.node->stats();
  EXPECT_EQ(s[IoOp::kWrite].ops, 3u);
  EXPECT_EQ(s[IoOp::kWrite].errors, 1u);
  EXPECT_EQ(s[IoOp::kWrite].bytes, 1024u);
  EXPECT_EQ(s[IoOp::kFlush].ops, 1u);
  EXPECT_EQ(f.node->in_flight(), 0);
  // Both read-modify-writes of block 0 kept their bytes: the second waited.
  for (int j = 0; j < 512; j++) {
    ASSERT_EQ(f.mem->data()[100 + j], 0x5a) << j;
    ASSERT_EQ(f.mem->data()[300 + j], 0x5a) << j;
  }
}

TEST(BlockNodeTest, StatsCountOpsBytesErrorsAndLatency) {
  Fixture f(Aligned(1));
  std::vector<uint8_t> buf(4096);
  for (int i = 0; i < 10; i++) ASSERT_TRUE(RunSync(f.ctx, ReadInto(*f.node, 0, &buf)).ok());
  ASSERT_TRUE(RunSync(f.ctx, WriteFrom(*f.node, 0, &buf)).ok());
  ASSERT_FALSE(RunSync(f.ctx, WriteFrom(*f.node, kSize, &buf)).ok());
  const NodeStats& s = f.node->stats();
  EXPECT_EQ(s[IoOp::kRead].ops, 10u);
  EXPECT_EQ(s[IoOp::kRead].bytes, 40960u);
  EXPECT_EQ(s[IoOp::kWrite].ops, 2u);
  EXPECT_EQ(s[IoOp::kWrite].bytes, 4096u);
  EXPECT_EQ(s[IoOp::kWrite].errors, 1u);
  EXPECT_EQ(s[IoOp::kRead].latency_ns.count(), 10u);
  EXPECT_GT(s[IoOp::kRead].latency_ns.max(), 0u);
}

void OnDone(void* opaque, int ret) {
  auto* p = static_cast<std::pair<int, int>*>(opaque);
  p->first++;
  p->second = ret;
}

TEST(BlockBackendTest, CallbackApiCompletesOnTheLoopNotInline) {
  AioContext ctx;
  MemDriverLog log;
  auto node = std::make_unique<BlockNode>(
      std::make_unique<MemDriver>(kSize, Aligned(512), Capabilities{}, &log), "mem", false);
  BlockBackend blk(ctx, std::move(node));
  std::vector<uint8_t> buf(4096, 7);
  std::pair<int, int> res{0, 1};
  blk.aio_write(0, IoVec(buf.data(), buf.size()), &OnDone, &res);
  EXPECT_EQ(res.first, 0);  // never inside the submitting call
  ctx.run_until([&] { return res.first == 1; });
  EXPECT_EQ(res.second, 0);
  std::pair<int, int> bad{0, 0};
  blk.aio_read(kSize, IoVec(buf.data(), buf.size()), &OnDone, &bad);
  ctx.run_until([&] { return bad.first == 1; });
  EXPECT_EQ(bad.second, -EIO);
}

}  // namespace
}  // namespace blk
