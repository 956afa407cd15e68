#include <blkstack/util/iovec.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

namespace blk {
namespace {

static_assert(std::is_nothrow_move_constructible_v<IoVec>);
static_assert(std::is_nothrow_move_assignable_v<IoVec>);

// A randomised scatter layout over an arena.  Logical byte i of the IoVec
// lives at arena[where[i]]; bytes of the arena not in any segment are guard
// bytes that must never change.  The map is built independently of IoVec so
// the tests do not check IoVec against itself.
struct Layout {
  std::vector<uint8_t> arena;
  std::vector<size_t> where;      // logical byte -> arena offset
  std::vector<bool> used;         // arena offset -> inside a segment
  std::vector<std::pair<size_t, size_t>> segs;  // (arena offset, len) as added
  IoVec iov;

  static constexpr uint8_t kGuard = 0xA5;

  // `nsegs` segments of 1..max_len bytes; each one either directly follows
  // the previous (so add() merges it) or starts after a gap.
  Layout(std::mt19937_64& rng, int nsegs, size_t max_len) {
    std::uniform_int_distribution<size_t> len_d(1, max_len);
    std::uniform_int_distribution<size_t> gap_d(1, 64);
    std::bernoulli_distribution adjacent(0.2);
    size_t pos = gap_d(rng);
    for (int s = 0; s < nsegs; ++s) {
      if (s > 0 && !adjacent(rng)) pos += gap_d(rng);
      const size_t len = len_d(rng);
      segs.emplace_back(pos, len);
      pos += len;
    }
    arena.assign(pos + 64, kGuard);
    used.assign(arena.size(), false);
    for (auto [off, len] : segs) {
      for (size_t i = 0; i < len; ++i) {
        where.push_back(off + i);
        used[off + i] = true;
      }
    }
    for (auto [off, len] : segs) iov.add(arena.data() + off, len);
  }

  // Bytes as seen through the map.
  std::vector<uint8_t> logical() const {
    std::vector<uint8_t> out(where.size());
    for (size_t i = 0; i < where.size(); ++i) out[i] = arena[where[i]];
    return out;
  }
  void set_logical(const std::vector<uint8_t>& v) {
    for (size_t i = 0; i < where.size(); ++i) arena[where[i]] = v[i];
  }
  bool guards_intact() const {
    for (size_t i = 0; i < arena.size(); ++i) {
      if (!used[i] && arena[i] != kGuard) return false;
    }
    return true;
  }
  // Number of segments once touching ones are merged.
  int merged_count() const {
    int n = 0;
    size_t end = SIZE_MAX;
    for (auto [off, len] : segs) {
      if (off != end) ++n;
      end = off + len;
    }
    return n;
  }
};

std::vector<uint8_t> RandomBytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

// Every byte of `v` through its segments, read with the raw iovec array.
std::vector<uint8_t> Gather(const IoVec& v) {
  std::vector<uint8_t> out;
  for (int i = 0; i < v.count(); ++i) {
    const auto* p = static_cast<const uint8_t*>(v[i].iov_base);
    out.insert(out.end(), p, p + v[i].iov_len);
  }
  return out;
}

TEST(IoVec, EmptyByDefault) {
  IoVec v;
  EXPECT_EQ(v.size(), 0u);
  EXPECT_EQ(v.count(), 0);
  EXPECT_TRUE(v.is_zero(0, 0));
  EXPECT_TRUE(v.is_aligned(4096, 4096));
  IoVec z(nullptr, 0);
  EXPECT_EQ(z.count(), 0);
  // A const default-constructed IoVec must compile (e.g. a shared empty
  // payload for flush requests).
  const IoVec empty;
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.count(), 0);
}

TEST(IoVec, AddDropsEmptyAndMergesAdjacent) {
  char buf[256];
  IoVec v(buf, 10);
  EXPECT_EQ(v.count(), 1);
  v.add(buf + 50, 0);  // dropped
  EXPECT_EQ(v.count(), 1);
  v.add(buf + 10, 20);  // touches: merged
  EXPECT_EQ(v.count(), 1);
  EXPECT_EQ(v[0].iov_base, buf);
  EXPECT_EQ(v[0].iov_len, 30u);
  v.add(buf + 40, 8);  // gap: new segment
  EXPECT_EQ(v.count(), 2);
  v.add(buf + 20, 4);  // overlaps earlier bytes but does not touch the end
  EXPECT_EQ(v.count(), 3);
  v.add(buf, 1);  // precedes: not merged (only appending merges)
  EXPECT_EQ(v.count(), 4);
  EXPECT_EQ(v.size(), 30u + 8 + 4 + 1);
  v.clear();
  EXPECT_EQ(v.size(), 0u);
  EXPECT_EQ(v.count(), 0);
  v.add(buf + 3, 3);
  EXPECT_EQ(v.count(), 1);
  EXPECT_EQ(v[0].iov_base, buf + 3);
}

TEST(IoVec, MoreThanInlineSegments) {
  std::vector<char> buf(4096);
  IoVec v;
  const int n = IoVec::kInline * 25 + 3;
  for (int i = 0; i < n; ++i) v.add(buf.data() + i * 16, 8);
  ASSERT_EQ(v.count(), n);
  EXPECT_EQ(v.size(), static_cast<size_t>(n) * 8);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(v[i].iov_base, buf.data() + i * 16) << i;
    ASSERT_EQ(v[i].iov_len, 8u) << i;
  }
  EXPECT_EQ(v.data(), &v[0]);
  // Still merges at the end after growing.
  v.add(buf.data() + (n - 1) * 16 + 8, 8);
  EXPECT_EQ(v.count(), n);
  EXPECT_EQ(v[n - 1].iov_len, 16u);
  // clear() then refill reuses storage and stays correct.
  v.clear();
  for (int i = 0; i < 10; ++i) v.add(buf.data() + i * 32, 4);
  EXPECT_EQ(v.count(), 10);
  EXPECT_EQ(v.size(), 40u);
  EXPECT_EQ(v[9].iov_base, buf.data() + 9 * 32);
}

TEST(IoVec, CopyFromCopyToMemsetIsZeroRandomised) {
  std::mt19937_64 rng(1234);
  for (int iter = 0; iter < 300; ++iter) {
    const int nsegs = 1 + static_cast<int>(rng() % (iter % 3 == 0 ? 40 : IoVec::kInline + 1));
    Layout l(rng, nsegs, iter % 2 ? 9 : 700);
    ASSERT_EQ(l.iov.size(), l.where.size());
    ASSERT_EQ(l.iov.count(), l.merged_count());
    const size_t size = l.iov.size();
    std::vector<uint8_t> ref = RandomBytes(rng, size);
    l.set_logical(ref);
    ASSERT_EQ(Gather(l.iov), ref);

    for (int op = 0; op < 30; ++op) {
      const size_t off = rng() % (size + 1);
      const size_t n = rng() % (size - off + 1);
      switch (rng() % 5) {
        case 0: {  // copy_from
          const std::vector<uint8_t> src = RandomBytes(rng, n);
          l.iov.copy_from(off, src.data(), n);
          std::copy(src.begin(), src.end(), ref.begin() + off);
          break;
        }
        case 1: {  // copy_to
          std::vector<uint8_t> dst(n + 2, 0xEE);
          l.iov.copy_to(off, dst.data() + 1, n);
          ASSERT_TRUE(std::equal(ref.begin() + off, ref.begin() + off + n, dst.begin() + 1));
          ASSERT_EQ(dst.front(), 0xEE);  // no write outside [dst, dst + n)
          ASSERT_EQ(dst.back(), 0xEE);
          break;
        }
        case 2: {  // memset to a non-zero byte
          const int c = 1 + static_cast<int>(rng() % 255);
          l.iov.memset(off, c, n);
          std::fill(ref.begin() + off, ref.begin() + off + n, static_cast<uint8_t>(c));
          break;
        }
        case 3: {  // memset zero, then is_zero on sub-ranges
          l.iov.memset(off, 0, n);
          std::fill(ref.begin() + off, ref.begin() + off + n, 0);
          break;
        }
        case 4: {  // is_zero on an arbitrary range
          const bool want = std::all_of(ref.begin() + off, ref.begin() + off + n,
                                        [](uint8_t b) { return b == 0; });
          ASSERT_EQ(l.iov.is_zero(off, n), want) << "off=" << off << " n=" << n;
          break;
        }
      }
      ASSERT_EQ(l.logical(), ref) << "iter " << iter << " op " << op;
      ASSERT_TRUE(l.guards_intact()) << "iter " << iter << " op " << op;
    }
  }
}

TEST(IoVec, IsZeroFindsASingleNonZeroByteAnywhere) {
  std::mt19937_64 rng(99);
  Layout l(rng, 12, 50);
  const size_t size = l.iov.size();
  l.iov.memset(0, 0, size);
  ASSERT_TRUE(l.iov.is_zero(0, size));
  for (size_t i = 0; i < size; ++i) {
    l.arena[l.where[i]] = 1;
    ASSERT_FALSE(l.iov.is_zero(0, size)) << i;
    ASSERT_FALSE(l.iov.is_zero(i, 1)) << i;
    if (i > 0) {
      ASSERT_TRUE(l.iov.is_zero(0, i)) << i;
    }
    ASSERT_TRUE(l.iov.is_zero(i + 1, size - i - 1)) << i;
    l.arena[l.where[i]] = 0;
  }
}

TEST(IoVec, SliceAcrossSegmentBoundaries) {
  std::mt19937_64 rng(77);
  for (int iter = 0; iter < 20; ++iter) {
    Layout l(rng, 2 + iter % 9, 13);
    std::vector<uint8_t> ref = RandomBytes(rng, l.iov.size());
    l.set_logical(ref);
    const size_t size = l.iov.size();
    // Every (off, len) pair.
    for (size_t off = 0; off <= size; ++off) {
      for (size_t len = 0; off + len <= size; ++len) {
        const IoVec s = l.iov.slice(off, len);
        ASSERT_EQ(s.size(), len);
        ASSERT_TRUE(std::equal(ref.begin() + off, ref.begin() + off + len, Gather(s).begin()))
            << "off=" << off << " len=" << len;
        ASSERT_LE(s.count(), l.iov.count());
        for (int i = 0; i < s.count(); ++i) ASSERT_GT(s[i].iov_len, 0u);
      }
    }
  }
}

TEST(IoVec, SliceOfSliceAndWritesThroughSlice) {
  std::mt19937_64 rng(5);
  Layout l(rng, 30, 100);
  std::vector<uint8_t> ref(l.iov.size(), 0);
  l.set_logical(ref);
  const size_t size = l.iov.size();
  const size_t off1 = size / 5, len1 = size / 2;
  const IoVec s1 = l.iov.slice(off1, len1);
  const IoVec s2 = s1.slice(len1 / 3, len1 / 3);
  const std::vector<uint8_t> src = RandomBytes(rng, s2.size());
  s2.copy_from(0, src.data(), src.size());
  std::copy(src.begin(), src.end(), ref.begin() + off1 + len1 / 3);
  EXPECT_EQ(l.logical(), ref);
  EXPECT_TRUE(l.guards_intact());
}

TEST(IoVec, AddSliceAppendsAndMayAliasItself) {
  char buf[64];
  for (int i = 0; i < 64; ++i) buf[i] = static_cast<char>(i);
  IoVec a;
  a.add(buf, 8);
  a.add(buf + 16, 8);
  IoVec b(buf + 40, 4);
  b.add_slice(a, 4, 8);  // bytes 4..7 and 16..19
  ASSERT_EQ(b.count(), 3);
  EXPECT_EQ(b.size(), 12u);
  EXPECT_EQ(b[1].iov_base, buf + 4);
  EXPECT_EQ(b[2].iov_base, buf + 16);
  EXPECT_EQ(b[2].iov_len, 4u);

  // Appending a slice of itself, across a growth past kInline and across a
  // reallocation of the heap array being read.
  for (int n : {IoVec::kInline, IoVec::kInline + 1}) {
    IoVec c;
    for (int i = 0; i < n; ++i) c.add(buf + i * 8, 4);
    c.add_slice(c, 0, c.size());
    ASSERT_EQ(c.count(), 2 * n);
    EXPECT_EQ(c.size(), 8u * n);
    // Segment k (and k + n) is buf[8k, 8k + 4).
    for (int k = 0; k < 2 * n; ++k) {
      EXPECT_EQ(c[k].iov_base, buf + (k % n) * 8) << k;
      EXPECT_EQ(c[k].iov_len, 4u) << k;
    }
  }
}

TEST(IoVec, IsAligned) {
  alignas(4096) static char buf[3 * 4096];
  IoVec v(buf, 4096);
  EXPECT_TRUE(v.is_aligned(4096, 4096));
  EXPECT_TRUE(v.is_aligned(512, 512));
  v.add(buf + 8192, 512);
  EXPECT_TRUE(v.is_aligned(512, 512));
  EXPECT_FALSE(v.is_aligned(512, 4096));  // a 512-byte segment
  EXPECT_TRUE(v.is_aligned(4096, 512));
  v.add(buf + 2 * 4096 + 1024, 512);  // address 1024-aligned only
  EXPECT_TRUE(v.is_aligned(1024, 512));
  EXPECT_FALSE(v.is_aligned(2048, 512));
  IoVec odd(buf + 1, 512);
  EXPECT_FALSE(odd.is_aligned(512, 1));
  EXPECT_TRUE(odd.is_aligned(1, 512));
  EXPECT_TRUE(odd.is_aligned(1, 1));
  IoVec short_len(buf, 511);
  EXPECT_FALSE(short_len.is_aligned(512, 512));
  // A misaligned segment after kInline aligned ones is still seen.
  IoVec many;
  for (int i = 0; i < 8; ++i) many.add(buf + i * 1024, 512);
  EXPECT_TRUE(many.is_aligned(512, 512));
  many.add(buf + 9000, 100);
  EXPECT_FALSE(many.is_aligned(512, 512));
}

// Distinct, non-mergeable segments of buf.
IoVec MakeSegments(char* buf, int n) {
  IoVec v;
  for (int i = 0; i < n; ++i) v.add(buf + i * 10, 5 + i % 3);
  return v;
}

void ExpectSameSegments(const IoVec& a, const IoVec& b) {
  ASSERT_EQ(a.count(), b.count());
  ASSERT_EQ(a.size(), b.size());
  for (int i = 0; i < a.count(); ++i) {
    EXPECT_EQ(a[i].iov_base, b[i].iov_base) << i;
    EXPECT_EQ(a[i].iov_len, b[i].iov_len) << i;
  }
}

TEST(IoVec, CopySemantics) {
  char buf[1024];
  for (int n : {0, 1, IoVec::kInline, IoVec::kInline + 1, 40}) {
    const IoVec orig = MakeSegments(buf, n);
    IoVec copy(orig);
    ExpectSameSegments(copy, orig);
    if (n > 0) {
      EXPECT_NE(copy.data(), orig.data());  // own storage
    }
    // Independent: growing the copy leaves the original alone.
    copy.add(buf + 900, 3);
    EXPECT_EQ(copy.count(), n + 1);
    EXPECT_EQ(orig.count(), n);

    for (int m : {0, 2, IoVec::kInline + 2, 60}) {
      IoVec dst = MakeSegments(buf + 1, m);
      dst = orig;
      ExpectSameSegments(dst, orig);
      dst.add(buf + 950, 2);
      EXPECT_EQ(dst.count(), n + 1);
      EXPECT_EQ(orig.count(), n);
    }
    IoVec self = MakeSegments(buf, n);
    IoVec& alias = self;
    self = alias;
    ExpectSameSegments(self, orig);
  }
}

TEST(IoVec, MoveSemantics) {
  char buf[1024];
  for (int n : {0, 1, IoVec::kInline, IoVec::kInline + 1, 40}) {
    const IoVec ref = MakeSegments(buf, n);
    IoVec src = MakeSegments(buf, n);
    const struct iovec* heap_before = src.data();
    IoVec moved(std::move(src));
    ExpectSameSegments(moved, ref);
    if (n > IoVec::kInline) {
      EXPECT_EQ(moved.data(), heap_before);  // stolen, not copied
    }
    EXPECT_EQ(src.count(), 0);                                      // NOLINT: use after move
    EXPECT_EQ(src.size(), 0u);
    // A moved-from IoVec is reusable, past kInline too.
    for (int i = 0; i < 2 * IoVec::kInline; ++i) src.add(buf + 500 + i * 4, 2);
    EXPECT_EQ(src.count(), 2 * IoVec::kInline);

    for (int m : {0, 2, IoVec::kInline + 2, 60}) {
      IoVec dst = MakeSegments(buf + 1, m);
      IoVec tmp = MakeSegments(buf, n);
      dst = std::move(tmp);
      ExpectSameSegments(dst, ref);
      EXPECT_EQ(tmp.count(), 0);  // NOLINT: use after move
      dst.add(buf + 990, 1);
      EXPECT_EQ(dst.count(), n + 1);
      tmp.add(buf + 970, 1);
      EXPECT_EQ(tmp.count(), 1);
      EXPECT_EQ(dst.count(), n + 1);
    }
    IoVec self = MakeSegments(buf, n);
    IoVec& alias = self;
    self = std::move(alias);
    ExpectSameSegments(self, ref);
  }
}

}  // namespace
}  // namespace blk
