#include <blkstack/util/aligned_buffer.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "tests/util/sanitizer.h"

// Under ASan an impossible allocation aborts the process by default; this
// test wants to see posix_memalign fail the way it does in production.
#if defined(BLK_TEST_ASAN)
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }
#endif

namespace blk {
namespace {

static_assert(!std::is_copy_constructible_v<AlignedBuffer>);
static_assert(!std::is_copy_assignable_v<AlignedBuffer>);
static_assert(std::is_nothrow_move_constructible_v<AlignedBuffer>);
static_assert(std::is_nothrow_move_assignable_v<AlignedBuffer>);

bool IsAligned(const void* p, size_t align) {
  return reinterpret_cast<uintptr_t>(p) % align == 0;
}

TEST(AlignedBuffer, DefaultIsEmpty) {
  AlignedBuffer b;
  EXPECT_FALSE(b.ok());
  EXPECT_FALSE(static_cast<bool>(b));
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.align(), 0u);
  EXPECT_EQ(b.iov().count(), 0);
  EXPECT_EQ(b.iov().size(), 0u);
}

TEST(AlignedBuffer, AllocatesAlignedAndWritable) {
  for (size_t align : {size_t{8}, size_t{64}, size_t{512}, size_t{4096}, size_t{1} << 16}) {
    for (size_t size : {size_t{1}, size_t{511}, size_t{4096}, size_t{1} << 20}) {
      AlignedBuffer b(size, align);
      ASSERT_TRUE(b.ok()) << size << " " << align;
      EXPECT_NE(b.data(), nullptr);
      EXPECT_TRUE(IsAligned(b.data(), align)) << size << " " << align;
      EXPECT_EQ(b.size(), size);
      EXPECT_EQ(b.align(), align);
      // Touch the first and last byte (ASan checks the extent).
      b.data()[0] = 1;
      b.data()[size - 1] = 2;
      EXPECT_EQ(b.data()[size - 1], 2);
    }
  }
}

TEST(AlignedBuffer, DefaultAlignmentIs4096) {
  AlignedBuffer b(100);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b.align(), 4096u);
  EXPECT_EQ(AlignedBuffer::kDefaultAlign, 4096u);
  EXPECT_TRUE(IsAligned(b.data(), 4096));
}

TEST(AlignedBuffer, SmallAlignmentsAreHonoured) {
  for (size_t align : {size_t{1}, size_t{2}, size_t{4}}) {
    AlignedBuffer b(10, align);
    ASSERT_TRUE(b.ok()) << align;
    EXPECT_EQ(b.align(), align);
    EXPECT_TRUE(IsAligned(b.data(), align));
  }
}

TEST(AlignedBuffer, ZeroSizeIsOkAndEmptyIov) {
  AlignedBuffer b(0);
  EXPECT_TRUE(b.ok());
  EXPECT_NE(b.data(), nullptr);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.iov().count(), 0);
  AlignedBuffer z = AlignedBuffer::zeroed(0);
  EXPECT_TRUE(z.ok());
}

TEST(AlignedBuffer, BadAlignmentFailsWithoutThrowing) {
  for (size_t align : {size_t{0}, size_t{3}, size_t{4095}, size_t{4097}, size_t{12288}}) {
    AlignedBuffer b(4096, align);
    EXPECT_FALSE(b.ok()) << align;
    EXPECT_EQ(b.data(), nullptr);
    EXPECT_EQ(b.size(), 0u);
    EXPECT_FALSE(AlignedBuffer::zeroed(4096, align).ok()) << align;
  }
}

TEST(AlignedBuffer, OutOfMemoryFailsWithoutThrowing) {
  const size_t huge = std::numeric_limits<size_t>::max() - 8192;
  AlignedBuffer b(huge);
  EXPECT_FALSE(b.ok());
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_EQ(b.size(), 0u);
  AlignedBuffer z = AlignedBuffer::zeroed(huge);
  EXPECT_FALSE(z.ok());
}

TEST(AlignedBuffer, ZeroedIsAllZero) {
  // Dirty the allocator first so that fresh pages are not the only source.
  for (int i = 0; i < 4; ++i) {
    AlignedBuffer dirty(1 << 16, 4096);
    ASSERT_TRUE(dirty.ok());
    for (size_t j = 0; j < dirty.size(); ++j) dirty.data()[j] = 0xCD;
  }
  AlignedBuffer z = AlignedBuffer::zeroed(1 << 16, 512);
  ASSERT_TRUE(z.ok());
  EXPECT_TRUE(IsAligned(z.data(), 512));
  EXPECT_EQ(z.align(), 512u);
  for (size_t j = 0; j < z.size(); ++j) ASSERT_EQ(z.data()[j], 0) << j;
  EXPECT_TRUE(z.iov().is_zero(0, z.size()));
}

TEST(AlignedBuffer, IovCoversWholeBuffer) {
  AlignedBuffer b(3 * 4096);
  ASSERT_TRUE(b.ok());
  const IoVec v = b.iov();
  ASSERT_EQ(v.count(), 1);
  EXPECT_EQ(v[0].iov_base, b.data());
  EXPECT_EQ(v[0].iov_len, b.size());
  EXPECT_EQ(v.size(), b.size());
  EXPECT_TRUE(v.is_aligned(4096, 4096));
  v.memset(0, 0x5A, v.size());
  EXPECT_EQ(b.data()[0], 0x5A);
  EXPECT_EQ(b.data()[b.size() - 1], 0x5A);
}

TEST(AlignedBuffer, MoveTransfersOwnership) {
  AlignedBuffer a(8192, 512);
  ASSERT_TRUE(a.ok());
  uint8_t* p = a.data();
  p[0] = 42;
  AlignedBuffer b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.size(), 8192u);
  EXPECT_EQ(b.align(), 512u);
  EXPECT_EQ(b.data()[0], 42);
  EXPECT_FALSE(a.ok());  // NOLINT: use after move
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(a.size(), 0u);

  // Move-assign over a live buffer frees the old one (ASan would report a
  // leak otherwise) and empties the source.
  AlignedBuffer c(100);
  ASSERT_TRUE(c.ok());
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.size(), 8192u);
  EXPECT_EQ(c.align(), 512u);
  EXPECT_FALSE(b.ok());  // NOLINT: use after move
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.align(), 0u);

  AlignedBuffer& alias = c;
  c = std::move(alias);
  EXPECT_EQ(c.data(), p);
  EXPECT_TRUE(c.ok());
}

TEST(AlignedBuffer, ResetFrees) {
  AlignedBuffer b(4096);
  ASSERT_TRUE(b.ok());
  b.reset();
  EXPECT_FALSE(b.ok());
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_EQ(b.size(), 0u);
  b.reset();  // idempotent
  EXPECT_FALSE(b.ok());
}

}  // namespace
}  // namespace blk
