// What a clone issues and how deep (run/clone_source.h): QueueShapeOf's
// depth, refill point, batch and completion minimum; the smallest and
// largest blocks with bssplit; and the keys that lay a job's files end to
// end (FileKeys, run/clone_files.h), also as CloneFiles::open() sets them
// over several null targets.
#include "tools/block_bench/run/clone_source.h"

#include <gtest/gtest.h>

#include <mutex>

#include "tests/tools/block_bench/run/bench_test_util.h"
#include "tools/block_bench/run/clone_files.h"
#include "tools/block_bench/trace/trace.h"
#include <blkstack/util/aio_context.h>
#include <blkstack/util/task.h>

namespace blk::bench {
namespace {

JobOptions Async(uint32_t depth) {
  JobOptions j;
  j.ioengine = IoEngine::kLibaio;
  j.iodepth = depth;
  return j;
}

TEST(QueueShapeOf, DefaultsRefillAfterEveryCompletionOneRequestPerBatch) {
  const QueueShape q = QueueShapeOf(Async(8), nullptr);
  EXPECT_EQ(q.depth, 8u);
  EXPECT_EQ(q.low, 7u);
  EXPECT_EQ(q.batch, 1u);
  EXPECT_EQ(q.complete_min, 1u);
}

TEST(QueueShapeOf, IodepthLowIsTheRefillPointBelowTheDepth) {
  JobOptions j = Async(8);
  j.iodepth_low = 2;
  EXPECT_EQ(QueueShapeOf(j, nullptr).low, 2u);
  j.iodepth_low = 0;
  EXPECT_EQ(QueueShapeOf(j, nullptr).low, 0u);
  j.iodepth_low = 64;  // above the depth: refill after every completion
  EXPECT_EQ(QueueShapeOf(j, nullptr).low, 7u);
}

TEST(QueueShapeOf, BatchSubmitZeroMeansTheDepth) {
  JobOptions j = Async(16);
  j.iodepth_batch_submit = 0;
  EXPECT_EQ(QueueShapeOf(j, nullptr).batch, 16u);
  j.iodepth_batch_submit = 4;
  EXPECT_EQ(QueueShapeOf(j, nullptr).batch, 4u);
}

TEST(QueueShapeOf, CompleteMinIsClampedToOneThroughTheDepth) {
  JobOptions j = Async(8);
  j.iodepth_batch_complete_min = 0;
  EXPECT_EQ(QueueShapeOf(j, nullptr).complete_min, 1u);
  j.iodepth_batch_complete_min = 5;
  EXPECT_EQ(QueueShapeOf(j, nullptr).complete_min, 5u);
  j.iodepth_batch_complete_min = 100;
  EXPECT_EQ(QueueShapeOf(j, nullptr).complete_min, 8u);
}

TEST(QueueShapeOf, SynchronousEnginesRunOneAtATime) {
  for (IoEngine e : {IoEngine::kPsync, IoEngine::kSync, IoEngine::kPvsync, IoEngine::kPvsync2}) {
    JobOptions j = Async(32);
    j.ioengine = e;
    const QueueShape q = QueueShapeOf(j, nullptr);
    EXPECT_EQ(q.depth, 1u);
    EXPECT_EQ(q.low, 0u);
  }
  // ... unless blockdev= gives the graph (the engine is not used).
  JobOptions b = Async(32);
  b.ioengine = IoEngine::kPsync;
  b.blockdev = "driver=null";
  EXPECT_EQ(QueueShapeOf(b, nullptr).depth, 32u);
  // A zero depth is one.
  EXPECT_EQ(QueueShapeOf(Async(0), nullptr).depth, 1u);
}

TEST(QueueShapeOf, AReplayTakesTheTracesDepthUnlessIodepthIsGiven) {
  trace::Trace t;
  t.max_outstanding = 12;
  JobOptions j = Async(1);
  j.iodepth_given = false;
  EXPECT_EQ(QueueShapeOf(j, &t).depth, 12u);
  EXPECT_EQ(QueueShapeOf(j, &t).low, 11u);
  t.max_outstanding.reset();
  EXPECT_EQ(QueueShapeOf(j, &t).depth, kDefaultReplayDepth);
  j.iodepth = 3;
  j.iodepth_given = true;
  t.max_outstanding = 12;
  EXPECT_EQ(QueueShapeOf(j, &t).depth, 3u);
  // A synchronous engine is one at a time whatever the trace says.
  JobOptions s = Async(1);
  s.ioengine = IoEngine::kPsync;
  s.iodepth_given = false;
  EXPECT_EQ(QueueShapeOf(s, &t).depth, 1u);
}

// A trace that lost its completion events shows tens of thousands
// outstanding: the replay's depth stops at kReplayDepthCap and says so;
// iodepth= given still sets any depth.
TEST(QueueShapeOf, AReplaysDepthFromTheTraceIsCapped) {
  trace::Trace t;
  t.max_outstanding = 49900;
  JobOptions j = Async(1);
  j.iodepth_given = false;
  QueueShape q = QueueShapeOf(j, &t);
  EXPECT_EQ(q.depth, kReplayDepthCap);
  EXPECT_EQ(q.capped_from, 49900u);
  EXPECT_EQ(q.low, kReplayDepthCap - 1);
  t.max_outstanding = kReplayDepthCap;
  EXPECT_EQ(QueueShapeOf(j, &t).depth, kReplayDepthCap);
  EXPECT_EQ(QueueShapeOf(j, &t).capped_from, 0u);
  j.iodepth = 5000;
  j.iodepth_given = true;
  t.max_outstanding = 49900;
  EXPECT_EQ(QueueShapeOf(j, &t).depth, 5000u);
  EXPECT_EQ(QueueShapeOf(j, &t).capped_from, 0u);
  EXPECT_EQ(QueueShapeOf(j, nullptr).capped_from, 0u);
}

TEST(BlockSize, BsRangeWithoutBssplit) {
  JobOptions j;
  j.bs[int(Dir::kRead)] = {1024, 8192};
  j.bs[int(Dir::kWrite)] = {4096, 4096};
  EXPECT_EQ(MinBlockSize(j, Dir::kRead), 1024u);
  EXPECT_EQ(MaxBlockSize(j, Dir::kRead), 8192u);
  EXPECT_EQ(MinBlockSize(j, Dir::kWrite), 4096u);
  EXPECT_EQ(MaxBlockSize(j, Dir::kWrite), 4096u);
}

TEST(BlockSize, BssplitEntriesWithAShare) {
  JobOptions j;
  j.bs[int(Dir::kWrite)] = {4096, 4096};
  j.bssplit[int(Dir::kWrite)] = {{512, 0}, {16384, 30}, {2048, 70}, {1 << 20, 0}};
  EXPECT_EQ(MinBlockSize(j, Dir::kWrite), 2048u);   // 512 has no share
  EXPECT_EQ(MaxBlockSize(j, Dir::kWrite), 16384u);  // nor does 1 MiB
  // Another direction's split does not count.
  EXPECT_EQ(MinBlockSize(j, Dir::kRead), 4096u);
  EXPECT_EQ(MaxBlockSize(j, Dir::kRead), 4096u);
  // The parser's bssplit through the command line.
  JobOptions p = testing::ParseJob({"--name=s", "--rw=randwrite", "--bssplit=4k/10:64k/90"});
  EXPECT_EQ(MinBlockSize(p, Dir::kWrite), 4096u);
  EXPECT_EQ(MaxBlockSize(p, Dir::kWrite), 65536u);
}

IoUnit At(uint32_t file, uint64_t offset) {
  IoUnit u;
  u.file = file;
  u.offset = offset;
  return u;
}

TEST(FileKeys, KeysLayTheFilesEndToEnd) {
  const FileKeys k({0, 1'000'000, 5'000'000});
  EXPECT_EQ(k.key(At(0, 4096)), 4096u);
  EXPECT_EQ(k.key(At(1, 0)), 1'000'000u);
  EXPECT_EQ(k.key(At(1, 4096)), 1'004'096u);
  EXPECT_EQ(k.key(At(2, 123)), 5'000'123u);
  EXPECT_EQ(k.base(2), 5'000'000u);
}

TEST(FileKeys, ReadAtFindsTheFileOfAKey) {
  const FileKeys k({0, 1'000'000, 5'000'000});
  for (const IoUnit& u : {At(0, 0), At(0, 999'999), At(1, 0), At(1, 8192), At(2, 0), At(2, 1 << 20)}) {
    const IoUnit r = k.read_at(k.key(u), 512);
    EXPECT_EQ(r.dir, Dir::kRead);
    EXPECT_EQ(r.file, u.file) << "key " << k.key(u);
    EXPECT_EQ(r.offset, u.offset) << "key " << k.key(u);
    EXPECT_EQ(r.len, 512u);
    EXPECT_FALSE(r.flush);
  }
}

TEST(FileKeys, AddAppendsAFile) {
  FileKeys k;
  EXPECT_EQ(k.read_at(77, 1).file, 0u);
  k.add(10'000);
  EXPECT_EQ(k.base(1), 10'000u);
  EXPECT_EQ(k.key(At(1, 5)), 10'005u);
  EXPECT_EQ(k.read_at(9'999, 1).file, 0u);
  EXPECT_EQ(k.read_at(10'000, 1).file, 1u);
}

// CloneFiles::open() over nrfiles null targets: each file's keys start
// after the previous file's end plus 4096.
TEST(CloneFiles, OpenLaysTheFilesKeysEndToEnd) {
  JobOptions job = testing::ParseJob(
      {"--name=k", "--ioengine=null", "--nrfiles=3", "--size=3m", "--rw=randwrite"});
  AioContext ctx;
  CloneResult res;
  res.job = &job;
  RunOptions opts;
  opts.messages = nullptr;
  TraceCache traces;
  std::mutex setup;
  CloneFiles files(job, &res, opts, &traces, &setup);
  auto opened = files.open(ctx, nullptr);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files.keys().base(0), 0u);
  for (uint32_t f = 1; f < 3; f++) {
    EXPECT_GT(files.blk(f - 1).length(), 0u);
    EXPECT_EQ(files.keys().base(f), files.keys().base(f - 1) + files.blk(f - 1).length() + 4096);
  }
  // A key in the second file reads back from it.
  const IoUnit r = files.keys().read_at(files.keys().key(At(1, 8192)), 4096);
  EXPECT_EQ(r.file, 1u);
  EXPECT_EQ(r.offset, 8192u);
  EXPECT_NE(res.target.find("(+2 more files)"), std::string::npos) << res.target;
  blk::RunSync(ctx, files.close());
}

}  // namespace
}  // namespace blk::bench
