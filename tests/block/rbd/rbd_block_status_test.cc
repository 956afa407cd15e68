// Block status (base:allocation) of driver=rbd against the test cluster
// (CEPH_CONF): rbd_diff_iterate2 over the image's own objects.  What is
// checked is what a copying client relies on: every byte written lies in a
// data extent, every extent reported as a hole reads as zeros, objects never
// written are holes, a whole-object discard makes a hole again, a clone's
// range backed by its parent is data, writes still in librbd's write-back
// cache count.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "tests/block/rbd/rbd_test_util.h"

namespace blk::rbdtest {
namespace {

constexpr uint64_t kMiB = 1 << 20;

struct Extent {
  uint64_t offset, length;
  uint32_t flags;
};

std::unique_ptr<BlockBackend> MustOpen(AioContext& ctx, const std::string& spec) {
  auto b = OpenBackend(ctx, spec);
  EXPECT_TRUE(b.ok()) << spec << ": " << (b.ok() ? "" : b.error().message);
  if (!b.ok()) return nullptr;
  return std::move(b.value());
}

// The whole image as block status reports it, call by call.
std::vector<Extent> Map(BlockBackend& b) {
  std::vector<Extent> out;
  for (uint64_t pos = 0; pos < b.length();) {
    Result<BlockStatus> st = RunSync(b.ctx(), b.block_status(pos, b.length() - pos));
    EXPECT_TRUE(st.ok()) << "at " << pos << ": " << (st.ok() ? 0 : st.error());
    if (!st.ok() || st->length == 0) break;
    out.push_back({pos, st->length, st->flags});
    pos += st->length;
  }
  return out;
}

uint64_t ObjectSize(const std::string& image) {
  rbd_image_t img;
  if (rbd_open(SharedAdmin().io(), image.c_str(), &img, nullptr) < 0) return 0;
  rbd_image_info_t info;
  const int r = rbd_stat(img, &info, sizeof info);
  rbd_close(img);
  return r < 0 ? 0 : info.obj_size;
}

// Every range in `written` lies inside data extents of `map`; every extent
// without kBlockData reads as zeros and is marked kBlockZero.
void ExpectConsistent(BlockBackend& b, const std::vector<Extent>& map,
                      const std::vector<std::pair<uint64_t, uint64_t>>& written) {
  uint64_t end = 0;
  for (const Extent& e : map) {
    EXPECT_EQ(e.offset, end) << "extents are contiguous";
    end = e.offset + e.length;
    if (e.flags & kBlockData) continue;
    EXPECT_EQ(e.flags, uint32_t(kBlockZero)) << "hole at " << e.offset;
    std::vector<uint8_t> back;
    ASSERT_EQ(Read(b, e.offset, &back, e.length), 0);
    EXPECT_TRUE(std::all_of(back.begin(), back.end(), [](uint8_t c) { return !c; }))
        << "the hole at " << e.offset << " (+" << e.length << ") does not read as zeros";
  }
  EXPECT_EQ(end, b.length());
  for (const auto& [off, len] : written) {
    bool covered = false;
    for (const Extent& e : map) {
      covered |= (e.flags & kBlockData) && e.offset <= off && off + len <= e.offset + e.length;
    }
    EXPECT_TRUE(covered) << "written range at " << off << " (+" << len << ") not reported as data";
  }
}

class RbdBlockStatusTest : public ::testing::Test {
 protected:
  AioContext ctx_;
};

TEST_F(RbdBlockStatusTest, HolesDataAndDiscard) {
  RBD_REQUIRE_CLUSTER();
  ScratchImage img("bs", 64 * kMiB);
  ASSERT_EQ(img.rc(), 0);
  const uint64_t obj = ObjectSize(img.name());
  ASSERT_GT(obj, 0u);
  ASSERT_EQ(64 * kMiB % obj, 0u);
  auto b = MustOpen(ctx_, img.Spec());  // write-cache=on: writes stay cached
  ASSERT_TRUE(b);

  // Nothing written: one hole reading zeros.
  std::vector<Extent> m = Map(*b);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].flags, uint32_t(kBlockZero));
  EXPECT_EQ(m[0].length, 64 * kMiB);

  // Three writes, not flushed: in objects 2, 3 (spanning into 4) and the last.
  std::vector<std::pair<uint64_t, uint64_t>> written = {
      {2 * obj + 1000, 4096}, {4 * obj - 8192, 16384}, {64 * kMiB - 4096, 4096}};
  for (const auto& [off, len] : written) {
    auto d = Pattern(len, uint32_t(off));
    ASSERT_EQ(Write(*b, off, d), 0);
  }
  m = Map(*b);
  ExpectConsistent(*b, m, written);
  // Objects 0 and 1 were never written: the first extent is their hole (up
  // to object 2's start, or its first written byte if the OSD reports
  // extents finer than objects).
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0].flags, uint32_t(kBlockZero));
  EXPECT_GE(m[0].length, 2 * obj);
  EXPECT_LE(m[0].length, 2 * obj + 1000);
  // Object 5 onwards (up to the last object) is a hole too.
  bool hole5 = false;
  for (const Extent& e : m) {
    hole5 |= !(e.flags & kBlockData) && e.offset <= 5 * obj && 6 * obj <= e.offset + e.length;
  }
  EXPECT_TRUE(hole5);
  // A range starting inside the written object asks only from there.
  Result<BlockStatus> st = RunSync(ctx_, b->block_status(2 * obj + 1000, 4096));
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->flags, uint32_t(kBlockData));
  EXPECT_EQ(st->length, 4096u);
  EXPECT_GT(Counter(*b, "rbd_diff_iterate_calls"), 0u);

  // Discarding object 2 whole removes it: a hole again.
  ASSERT_EQ(Sync(ctx_, b->discard(2 * obj, obj)), 0);
  st = RunSync(ctx_, b->block_status(0, 64 * kMiB));
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->flags, uint32_t(kBlockZero));
  EXPECT_GE(st->length, 3 * obj) << "objects 0-2 are holes after the discard";
  EXPECT_LE(st->length, 4 * obj - 8192);
  written.erase(written.begin());
  ExpectConsistent(*b, Map(*b), written);

  // Through a read-only open (another librbd handle), after a flush: the same.
  ASSERT_EQ(Sync(ctx_, b->flush()), 0);
  auto ro = MustOpen(ctx_, img.Spec(",read-only=on"));
  ASSERT_TRUE(ro);
  ExpectConsistent(*ro, Map(*ro), written);
}

// A clone reads its parent where it has no object of its own: that range is
// data (include_parent), not a zero hole a copying client would skip.
TEST_F(RbdBlockStatusTest, CloneRangesBackedByTheParentAreData) {
  RBD_REQUIRE_CLUSTER();
  ScratchImage parent("bsp", 32 * kMiB);
  ASSERT_EQ(parent.rc(), 0);
  const uint64_t obj = ObjectSize(parent.name());
  ASSERT_GT(obj, 0u);
  {
    auto b = MustOpen(ctx_, parent.Spec(",write-cache=off"));
    ASSERT_TRUE(b);
    auto d = Pattern(65536, 7);
    ASSERT_EQ(Write(*b, obj, d), 0);
  }
  ASSERT_EQ(SharedAdmin().Snapshot(parent.name(), "base"), 0);
  rbd_image_t p;
  ASSERT_EQ(rbd_open(SharedAdmin().io(), parent.name().c_str(), &p, nullptr), 0);
  ASSERT_EQ(rbd_snap_protect(p, "base"), 0);
  const std::string clone = UniqueName("bsc");
  int order = 0;
  ASSERT_EQ(rbd_clone(SharedAdmin().io(), parent.name().c_str(), "base", SharedAdmin().io(),
                      clone.c_str(), RBD_FEATURE_LAYERING, &order),
            0);
  {
    auto c = MustOpen(ctx_, "driver=rbd,pool=rbd,image=" + clone);
    ASSERT_TRUE(c);
    auto d = Pattern(4096, 8);
    ASSERT_EQ(Write(*c, 3 * obj, d), 0);
    std::vector<Extent> m = Map(*c);
    ExpectConsistent(*c, m, {{obj, 65536}, {3 * obj, 4096}});
    // Object 0 is a hole in both.
    ASSERT_FALSE(m.empty());
    EXPECT_EQ(m[0].flags, uint32_t(kBlockZero));
    EXPECT_EQ(m[0].length, obj);
  }
  EXPECT_EQ(rbd_remove(SharedAdmin().io(), clone.c_str()), 0);
  EXPECT_EQ(rbd_snap_unprotect(p, "base"), 0);
  rbd_close(p);
}

}  // namespace
}  // namespace blk::rbdtest
