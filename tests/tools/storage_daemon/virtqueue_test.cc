// The split virtqueue over a ring in plain memory: one "guest" region of
// 1 MiB at guest-physical 0x100000, seen by the front end at a different
// virtual address, a 16-entry ring laid out as a driver would.
#include "tools/storage_daemon/virtqueue.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace blk::vhost {
namespace {

constexpr uint64_t kGpa = 0x100000;
constexpr uint64_t kUva = 0x7f1200000000;
constexpr uint32_t kNum = 16;
constexpr uint64_t kDesc = 0x0;     // offsets in the region
constexpr uint64_t kAvail = 0x1000;
constexpr uint64_t kUsed = 0x2000;
constexpr uint64_t kData = 0x10000;

class Ring : public ::testing::Test {
 protected:
  void SetUp() override {
    mem_.assign(1 << 20, 0);
    gm_.add({kGpa, mem_.size(), kUva, mem_.data()});
    ASSERT_TRUE(q_.attach(&gm_, kNum, kUva + kDesc, kUva + kAvail, kUva + kUsed));
  }
  void desc(uint64_t table_off, uint16_t i, uint64_t gpa, uint32_t len, uint16_t flags,
            uint16_t next) {
    uint8_t* d = mem_.data() + table_off + 16 * i;
    std::memcpy(d, &gpa, 8);
    std::memcpy(d + 8, &len, 4);
    std::memcpy(d + 12, &flags, 2);
    std::memcpy(d + 14, &next, 2);
  }
  // Makes `head` available (the driver's side of the avail ring).
  void offer(uint16_t head) {
    uint16_t idx;
    std::memcpy(&idx, mem_.data() + kAvail + 2, 2);
    std::memcpy(mem_.data() + kAvail + 4 + 2 * (idx % kNum), &head, 2);
    idx++;
    std::memcpy(mem_.data() + kAvail + 2, &idx, 2);
  }
  uint16_t used_idx() {
    uint16_t v;
    std::memcpy(&v, mem_.data() + kUsed + 2, 2);
    return v;
  }
  uint8_t* at(uint64_t off) { return mem_.data() + off; }

  std::vector<uint8_t> mem_;
  GuestMemory gm_;
  SplitQueue q_;
};

TEST_F(Ring, EmptyUntilOffered) {
  Chain c;
  EXPECT_EQ(q_.pop(&c), SplitQueue::Pop::kEmpty);
}

TEST_F(Ring, ChainBecomesHostSegmentsInOrder) {
  desc(kDesc, 3, kGpa + kData, 16, kDescFNext, 7);
  desc(kDesc, 7, kGpa + kData + 4096, 4096, kDescFNext | kDescFWrite, 1);
  desc(kDesc, 1, kGpa + kData + 8192, 1, kDescFWrite, 0);
  offer(3);
  Chain c;
  ASSERT_EQ(q_.pop(&c), SplitQueue::Pop::kChain);
  EXPECT_EQ(c.head, 3);
  ASSERT_EQ(c.segs.size(), 3u);
  EXPECT_EQ(c.segs[0].p, at(kData));
  EXPECT_EQ(c.segs[0].len, 16u);
  EXPECT_FALSE(c.segs[0].writable);
  EXPECT_EQ(c.segs[1].p, at(kData + 4096));
  EXPECT_TRUE(c.segs[1].writable);
  EXPECT_EQ(c.segs[2].len, 1u);
  EXPECT_EQ(q_.pop(&c), SplitQueue::Pop::kEmpty);
  EXPECT_EQ(q_.last_avail(), 1);

  q_.push(3, 4097);
  EXPECT_EQ(used_idx(), 1);
  uint32_t id, len;
  std::memcpy(&id, at(kUsed + 4), 4);
  std::memcpy(&len, at(kUsed + 8), 4);
  EXPECT_EQ(id, 3u);
  EXPECT_EQ(len, 4097u);
}

TEST_F(Ring, IndirectTable) {
  const uint64_t table = 0x8000;
  desc(table, 0, kGpa + kData, 16, kDescFNext, 2);
  desc(table, 2, kGpa + kData + 512, 512, kDescFNext | kDescFWrite, 1);
  desc(table, 1, kGpa + kData + 1024, 1, kDescFWrite, 0);
  desc(kDesc, 5, kGpa + table, 3 * 16, kDescFIndirect, 0);
  offer(5);
  Chain c;
  ASSERT_EQ(q_.pop(&c), SplitQueue::Pop::kChain);
  EXPECT_EQ(c.head, 5);
  ASSERT_EQ(c.segs.size(), 3u);
  EXPECT_EQ(c.segs[1].p, at(kData + 512));
  EXPECT_EQ(c.segs[2].p, at(kData + 1024));
}

TEST_F(Ring, WrapsAroundTheAvailRing) {
  desc(kDesc, 0, kGpa + kData, 8, 0, 0);
  Chain c;
  for (int i = 0; i < 40; i++) {
    offer(0);
    ASSERT_EQ(q_.pop(&c), SplitQueue::Pop::kChain) << i;
    q_.push(0, 0);
  }
  EXPECT_EQ(used_idx(), 40);
}

TEST_F(Ring, LoopIsBroken) {
  desc(kDesc, 0, kGpa + kData, 8, kDescFNext, 1);
  desc(kDesc, 1, kGpa + kData, 8, kDescFNext, 0);
  offer(0);
  Chain c;
  EXPECT_EQ(q_.pop(&c), SplitQueue::Pop::kBroken);
  EXPECT_NE(std::string(q_.why()).find("loop"), std::string::npos);
}

TEST_F(Ring, BufferOutsideGuestMemoryIsBroken) {
  desc(kDesc, 0, kGpa + mem_.size() - 8, 16, 0, 0);  // runs 8 bytes past the end
  offer(0);
  Chain c;
  EXPECT_EQ(q_.pop(&c), SplitQueue::Pop::kBroken);
  desc(kDesc, 1, 0x1000, 16, 0, 0);  // below the region
  offer(1);
  EXPECT_EQ(q_.pop(&c), SplitQueue::Pop::kBroken);
  desc(kDesc, 2, ~0ull - 4, 16, 0, 0);  // wraps
  offer(2);
  EXPECT_EQ(q_.pop(&c), SplitQueue::Pop::kBroken);
}

TEST_F(Ring, IndicesPastTheTableAreBroken) {
  offer(kNum);  // head past the table
  Chain c;
  EXPECT_EQ(q_.pop(&c), SplitQueue::Pop::kBroken);
  desc(kDesc, 0, kGpa + kData, 8, kDescFNext, kNum + 3);
  offer(0);
  EXPECT_EQ(q_.pop(&c), SplitQueue::Pop::kBroken);
}

TEST_F(Ring, AvailIndexTooFarAheadIsBroken) {
  const uint16_t idx = kNum + 1;
  std::memcpy(at(kAvail + 2), &idx, 2);
  Chain c;
  EXPECT_EQ(q_.pop(&c), SplitQueue::Pop::kBroken);
}

TEST_F(Ring, BadIndirectTablesAreBroken) {
  Chain c;
  const uint64_t table = 0x8000;
  // Nested indirect.
  desc(table, 0, kGpa + table, 16, kDescFIndirect, 0);
  desc(kDesc, 0, kGpa + table, 16, kDescFIndirect, 0);
  offer(0);
  EXPECT_EQ(q_.pop(&c), SplitQueue::Pop::kBroken);
  // A loop inside the table.
  desc(table, 0, kGpa + kData, 8, kDescFNext, 1);
  desc(table, 1, kGpa + kData, 8, kDescFNext, 0);
  desc(kDesc, 1, kGpa + table, 32, kDescFIndirect, 0);
  offer(1);
  EXPECT_EQ(q_.pop(&c), SplitQueue::Pop::kBroken);
  // Length not a multiple of 16, and too long.
  desc(kDesc, 2, kGpa + table, 20, kDescFIndirect, 0);
  offer(2);
  EXPECT_EQ(q_.pop(&c), SplitQueue::Pop::kBroken);
  desc(kDesc, 3, kGpa + table, 16 * (kMaxIndirect + 1), kDescFIndirect, 0);
  offer(3);
  EXPECT_EQ(q_.pop(&c), SplitQueue::Pop::kBroken);
  // An indirect descriptor chained to another one.
  desc(kDesc, 4, kGpa + table, 16, kDescFIndirect | kDescFNext, 5);
  offer(4);
  EXPECT_EQ(q_.pop(&c), SplitQueue::Pop::kBroken);
}

TEST_F(Ring, AttachChecksSizeAndPlacement) {
  SplitQueue q;
  EXPECT_FALSE(q.attach(&gm_, 12, kUva + kDesc, kUva + kAvail, kUva + kUsed));  // not 2^n
  EXPECT_FALSE(q.attach(&gm_, 0, kUva + kDesc, kUva + kAvail, kUva + kUsed));
  EXPECT_FALSE(q.attach(&gm_, 65536, kUva + kDesc, kUva + kAvail, kUva + kUsed));
  EXPECT_FALSE(q.attach(&gm_, kNum, kUva + mem_.size() - 64, kUva + kAvail, kUva + kUsed));
  EXPECT_FALSE(q.attach(&gm_, kNum, kGpa + kDesc, kUva + kAvail, kUva + kUsed));  // a gpa
  EXPECT_TRUE(q.attach(&gm_, kNum, kUva + kDesc, kUva + kAvail, kUva + kUsed));
}

TEST_F(Ring, UsedIndexContinuesFromTheRing) {
  // As after a restart: the used ring already moved to 7, base set to 7.
  const uint16_t seven = 7;
  std::memcpy(at(kUsed + 2), &seven, 2);
  std::memcpy(at(kAvail + 2), &seven, 2);
  SplitQueue q;
  ASSERT_TRUE(q.attach(&gm_, kNum, kUva + kDesc, kUva + kAvail, kUva + kUsed));
  q.set_last_avail(7);
  Chain c;
  EXPECT_EQ(q.pop(&c), SplitQueue::Pop::kEmpty);
  desc(kDesc, 2, kGpa + kData, 8, 0, 0);
  offer(2);
  ASSERT_EQ(q.pop(&c), SplitQueue::Pop::kChain);
  q.push(2, 0);
  EXPECT_EQ(used_idx(), 8);
  uint32_t id;
  std::memcpy(&id, at(kUsed + 4 + 8 * 7), 4);
  EXPECT_EQ(id, 2u);
}

TEST(GuestMemory, TranslatesOnlyWholeRanges) {
  std::vector<uint8_t> a(4096), b(4096);
  GuestMemory m;
  m.add({0, 4096, 0x10000, a.data()});
  m.add({0x100000, 4096, 0x20000, b.data()});
  EXPECT_EQ(m.guest_to_host(0, 4096), a.data());
  EXPECT_EQ(m.guest_to_host(4095, 1), a.data() + 4095);
  EXPECT_EQ(m.guest_to_host(4095, 2), nullptr);
  EXPECT_EQ(m.guest_to_host(4096, 1), nullptr);
  EXPECT_EQ(m.guest_to_host(0x100010, 16), b.data() + 16);
  EXPECT_EQ(m.guest_to_host(~0ull, 2), nullptr);
  EXPECT_EQ(m.user_to_host(0x20000, 4096), b.data());
  EXPECT_EQ(m.user_to_host(0x20001, 4096), nullptr);
}

}  // namespace
}  // namespace blk::vhost
