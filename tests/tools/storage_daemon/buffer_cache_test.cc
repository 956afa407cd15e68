#include "tools/storage_daemon/buffer_cache.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace blk::nbd {
namespace {

TEST(BufferCache, SizesRoundUpToTheirClassAndAreAligned) {
  BufferCache c(1 << 20);
  const std::pair<size_t, size_t> cases[] = {
      {1, 4096}, {4096, 4096}, {4097, 8192}, {65536, 65536}, {65537, 131072}, {1 << 20, 1 << 20}};
  for (auto [ask, want] : cases) {
    AlignedBuffer b = c.take(ask);
    ASSERT_TRUE(b.ok()) << ask;
    EXPECT_EQ(b.size(), want) << ask;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 4096, 0u) << ask;
  }
  EXPECT_FALSE(c.take(0).ok());
  // Past the largest class: exactly the size asked.
  EXPECT_EQ(c.take((1 << 20) + 1).size(), size_t(1 << 20) + 1);
}

TEST(BufferCache, AGivenBufferIsTakenAgain) {
  BufferCache c(1 << 20);
  AlignedBuffer a = c.take(4096);
  uint8_t* p = a.data();
  c.give(std::move(a));
  EXPECT_EQ(c.kept_bytes(), 4096u);
  AlignedBuffer b = c.take(3000);  // the same class
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(c.kept_bytes(), 0u);
  EXPECT_EQ(c.reused(), 1u);
  EXPECT_EQ(c.allocated(), 1u);
  // Another class does not get it.
  c.give(std::move(b));
  AlignedBuffer d = c.take(8192);
  EXPECT_NE(d.data(), p);
  EXPECT_EQ(c.allocated(), 2u);
}

TEST(BufferCache, KeepsNoMoreThanItsLimit) {
  BufferCache c(3 * 4096);
  std::vector<AlignedBuffer> bs;
  for (int i = 0; i < 5; i++) bs.push_back(c.take(4096));
  for (auto& b : bs) c.give(std::move(b));
  EXPECT_EQ(c.kept_bytes(), 3u * 4096);
  // Sizes that are no class (too large, or not a power of two) are freed.
  c.give(AlignedBuffer((1 << 20) * 2));
  c.give(AlignedBuffer(5000));
  EXPECT_EQ(c.kept_bytes(), 3u * 4096);
  c.give(AlignedBuffer());
  EXPECT_EQ(c.kept_bytes(), 3u * 4096);
}

TEST(BufferCache, AServingPatternAllocatesOnlyItsDepth) {
  // 32 requests in flight, each given back before the next batch: after the
  // first batch every take() is answered from the cache.
  BufferCache c(4 << 20);
  for (int round = 0; round < 100; round++) {
    std::vector<AlignedBuffer> inflight;
    for (int i = 0; i < 32; i++) inflight.push_back(c.take(4096));
    for (auto& b : inflight) c.give(std::move(b));
  }
  EXPECT_EQ(c.allocated(), 32u);
  EXPECT_EQ(c.reused(), 99u * 32);
}

}  // namespace
}  // namespace blk::nbd
