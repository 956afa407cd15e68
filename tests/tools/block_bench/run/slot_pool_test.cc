// SlotPool (run/slot_pool.h): the order slots are handed out in, the IoVec
// over a prefix of a slot's buffer, the fill, and the error when the
// buffers cannot be had.
#include "tools/block_bench/run/slot_pool.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

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

TEST(SlotPool, TheFillerFillsEveryBuffer) {
  JobOptions job;
  job.zero_buffers = false;
  BufferFiller filler(job, "\xab", 1);  // a one-byte pattern
  JobOptions zjob;
  zjob.zero_buffers = true;
  BufferFiller zero(zjob, "", 1);
  SlotPool p, z;
  ASSERT_TRUE(p.allocate(2, 4096, &filler).ok());
  ASSERT_TRUE(z.allocate(2, 4096, &zero).ok());
  for (uint32_t s = 0; s < 2; s++) {
    for (size_t i = 0; i < 4096; i += 511) {
      EXPECT_EQ(p[s].buf.data()[i], 0xab) << "slot " << s << " byte " << i;
      EXPECT_EQ(z[s].buf.data()[i], 0) << "slot " << s << " byte " << i;
    }
  }
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
