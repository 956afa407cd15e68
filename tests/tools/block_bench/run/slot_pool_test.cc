// SlotPool (run/slot_pool.h): the order slots are handed out in, the IoVec
// over a prefix of a slot's buffer, what allocating costs (nothing is
// touched), the fill in pieces and on first use, the memory budget, and
// the error when the buffers cannot be had.
#include "tools/block_bench/run/slot_pool.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "bench_test_util.h"

#include "tools/block_bench/run/buffer_fill.h"

namespace blk::bench {
namespace {

TEST(SlotPool, LowestSlotFirstThenAStackOfGivenBack) {
  SlotPool p;
  ASSERT_TRUE(p.allocate(4, 4096, nullptr).ok());
  EXPECT_EQ(p.size(), 4u);
  EXPECT_FALSE(p.empty());
  EXPECT_EQ(p.take(), 0u);
  EXPECT_EQ(p.take(), 1u);
  EXPECT_EQ(p.take(), 2u);
  EXPECT_EQ(p.take(), 3u);
  EXPECT_TRUE(p.empty());
  p.give(2);
  p.give(0);
  EXPECT_FALSE(p.empty());
  // The one given back last comes out first (its buffer is warm).
  EXPECT_EQ(p.take(), 0u);
  p.give(3);
  EXPECT_EQ(p.take(), 3u);
  EXPECT_EQ(p.take(), 2u);
  EXPECT_TRUE(p.empty());
}

TEST(SlotPool, EachSlotHasItsOwnAlignedBufferOfTheSize) {
  SlotPool p;
  ASSERT_TRUE(p.allocate(3, 8192, nullptr).ok());
  for (uint32_t s = 0; s < 3; s++) {
    EXPECT_TRUE(p[s].buf.ok());
    EXPECT_EQ(p[s].buf.size(), 8192u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p[s].buf.data()) % 4096, 0u);
    for (uint32_t o = 0; o < s; o++) EXPECT_NE(p[s].buf.data(), p[o].buf.data());
  }
  EXPECT_EQ(p.slots().size(), 3u);
}

TEST(SlotPool, IovCoversAPrefixOfTheSlotsBuffer) {
  SlotPool p;
  ASSERT_TRUE(p.allocate(2, 65536, nullptr).ok());
  const IoVec& a = p.iov(1, 4096);
  EXPECT_EQ(a.size(), 4096u);
  EXPECT_EQ(a.count(), 1);
  // The bytes the IoVec reads are the slot's buffer's.
  p[1].buf.data()[4095] = 0x5a;
  uint8_t last = 0;
  a.copy_to(4095, &last, 1);
  EXPECT_EQ(last, 0x5a);
  const IoVec& b = p.iov(1, 65536);
  EXPECT_EQ(b.size(), 65536u);
  EXPECT_EQ(p.iov(1, 512).size(), 512u);
  EXPECT_EQ(p.iov(0, 1024).size(), 1024u);
}

// Pages of [p, p + len) in memory now.
size_t ResidentPages(const uint8_t* p, size_t len) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> v((len + page - 1) / page);
  if (mincore(const_cast<uint8_t*>(p), len, v.data()) != 0) return SIZE_MAX;
  size_t n = 0;
  for (unsigned char c : v) n += c & 1;
  return n;
}

JobOptions Writes(std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--name=a", "--ioengine=null", "--rw=write", "--size=1m"};
  args.insert(args.end(), extra.begin(), extra.end());
  return testing::ParseJob(args);
}

// As fio's io_u buffers: allocating maps the buffers and touches none of
// them, filler or not (a 1 GiB-block read job costs nothing for them).
TEST(SlotPool, AllocatingTouchesNoBuffer) {
  const JobOptions job = Writes();
  BufferFiller filler(job, "", 1);
  SlotPool p;
  const uint64_t size = 16 << 20;
  ASSERT_TRUE(p.allocate(4, size, &filler).ok());
  for (uint32_t s = 0; s < 4; s++) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p[s].buf.data()) % 4096, 0u);
    EXPECT_EQ(ResidentPages(p[s].buf.data(), size), 0u) << "slot " << s;
    EXPECT_EQ(p[s].filled, 0u);
  }
}

// fill_piece fills the buffers slot by slot, at most a piece at a time,
// each to its whole size, then says it is done.
TEST(SlotPool, FillPieceFillsEveryBufferInBoundedPieces) {
  const JobOptions job = Writes({"--buffer_pattern=0xab"});
  BufferFiller filler(job, "\xab", 1);
  SlotPool p;
  const uint64_t size = SlotPool::kFillPieceBytes + SlotPool::kFillPieceBytes / 2;
  ASSERT_TRUE(p.allocate(3, size, &filler).ok());
  ASSERT_TRUE(p.fill_piece());
  EXPECT_EQ(p[0].filled, SlotPool::kFillPieceBytes);  // one piece, not the whole slot
  EXPECT_EQ(p[1].filled, 0u);
  int pieces = 1;
  while (p.fill_piece()) pieces++;
  EXPECT_EQ(pieces, 5);  // 4.5 pieces of bytes
  for (uint32_t s = 0; s < 3; s++) {
    EXPECT_EQ(p[s].filled, size);
    for (uint64_t i = 0; i < size; i += 4093) ASSERT_EQ(p[s].buf.data()[i], 0xab) << s << " " << i;
    EXPECT_EQ(p[s].buf.data()[size - 1], 0xab);
  }
  EXPECT_FALSE(p.fill_piece());
  // Without a filler there is nothing to fill.
  SlotPool r;
  ASSERT_TRUE(r.allocate(2, 4096, nullptr).ok());
  EXPECT_FALSE(r.fill_piece());
  EXPECT_FALSE(r.fill_for_write(0, 4096));
}

// A write fills what of its length no fill reached; a stop condition ends
// the fill between pieces, and the slot's next write goes on from there.
TEST(SlotPool, FillForWriteFillsOnFirstUseAndStopsBetweenPieces) {
  const JobOptions job = Writes({"--zero_buffers"});
  BufferFiller filler(job, "", 1);
  SlotPool p;
  const uint64_t size = 3 * SlotPool::kFillPieceBytes;
  ASSERT_TRUE(p.allocate(2, size, &filler).ok());
  int asked = 0;
  bool stop = false;
  p.set_fill_stop([&] {
    asked++;
    return stop;
  });
  EXPECT_TRUE(p.fill_for_write(1, 4096));
  EXPECT_EQ(p[1].filled, 4096u);
  EXPECT_EQ(p[0].filled, 0u);
  EXPECT_GE(ResidentPages(p[1].buf.data(), 4096), 1u);
  EXPECT_FALSE(p.fill_for_write(1, 4096));  // filled already: nothing to do
  // A stop after the first piece: the rest stays unfilled (and untouched).
  asked = 0;
  p.set_fill_stop([&] { return asked++ >= 1; });
  EXPECT_TRUE(p.fill_for_write(0, size));
  EXPECT_EQ(p[0].filled, SlotPool::kFillPieceBytes);
  EXPECT_EQ(ResidentPages(p[0].buf.data() + 2 * SlotPool::kFillPieceBytes,
                          SlotPool::kFillPieceBytes),
            0u);
  p.set_fill_stop([&] { return stop; });
  EXPECT_TRUE(p.fill_for_write(0, size));
  EXPECT_EQ(p[0].filled, size);
}

// The buffers are charged to the run's memory budget before anything is
// mapped; beyond it allocate() fails at once naming the need and the
// option, and a pool gives its charge back when destroyed.
TEST(SlotPool, BuffersBeyondTheMemoryBudgetAreRefusedBeforeMapping) {
  MemoryBudget budget(64 << 20, "--blkstack-max-memory");
  {
    SlotPool a;
    ASSERT_TRUE(a.allocate(8, 4 << 20, nullptr, &budget).ok());
    EXPECT_EQ(budget.used(), uint64_t(32) << 20);
    SlotPool b;
    auto r = b.allocate(49900, 65536, nullptr, &budget);  // a trace's lost completions
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, -ENOMEM);
    const std::string& m = r.error().message;
    EXPECT_NE(m.find("iodepth=49900"), std::string::npos) << m;
    EXPECT_NE(m.find("3119 MiB"), std::string::npos) << m;
    EXPECT_NE(m.find("limit of 64 MiB"), std::string::npos) << m;
    EXPECT_NE(m.find("--blkstack-max-memory"), std::string::npos) << m;
    EXPECT_EQ(b.size(), 0u);
    EXPECT_EQ(budget.used(), uint64_t(32) << 20);
  }
  EXPECT_EQ(budget.used(), 0u);
}

TEST(SlotPool, MemoryThatCannotBeHadIsEnomemNamingDepthAndSize) {
  SlotPool p;
  const uint64_t huge = uint64_t(1) << 62;
  auto r = p.allocate(3, huge, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -ENOMEM);
  EXPECT_NE(r.error().message.find("iodepth=3"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(std::to_string(huge)), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace blk::bench
