// IoGenerator: the offsets, sizes and directions fio would issue.
#include "tools/block_bench/run/generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "bench_test_util.h"

namespace blk::bench {
namespace {

using testing::ParseJob;

std::vector<IoUnit> Take(const JobOptions& job, uint64_t dev, size_t n, uint64_t seed = 1,
                         uint32_t thread_number = 1) {
  auto g = IoGenerator::Create(job, dev, seed, thread_number);
  EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error().message);
  std::vector<IoUnit> v;
  IoUnit u;
  while (v.size() < n && g->next(&u)) v.push_back(u);
  return v;
}

TEST(Generator, SequentialReadWrapsAtSize) {
  JobOptions j = ParseJob({"--name=a", "--rw=read", "--bs=4k", "--size=16k", "--time_based",
                           "--runtime=1"});
  auto v = Take(j, 1 << 20, 10);
  ASSERT_EQ(v.size(), 10u);
  const uint64_t want[] = {0, 4096, 8192, 12288, 0, 4096, 8192, 12288, 0, 4096};
  for (size_t i = 0; i < 10; i++) {
    EXPECT_EQ(v[i].offset, want[i]) << i;
    EXPECT_EQ(v[i].len, 4096u);
    EXPECT_EQ(v[i].dir, Dir::kRead);
    // Each wrap to the start is counted (where fio drops the file's cache).
    EXPECT_EQ(v[i].wrap, i / 4) << i;
    EXPECT_EQ(v[i].pass, 0u) << i;
  }
}

// Time based random: a wrap when the random map is full and reset (every
// 4 I/Os here); none with norandommap, whose draws never run out; none
// without time_based (a new pass instead).
TEST(Generator, RandomWrapsWhenTheMapIsFull) {
  JobOptions j = ParseJob({"--name=a", "--rw=randread", "--bs=4k", "--size=16k", "--time_based",
                           "--runtime=1"});
  auto v = Take(j, 1 << 20, 12);
  ASSERT_EQ(v.size(), 12u);
  for (size_t i = 0; i < v.size(); i++) EXPECT_EQ(v[i].wrap, i / 4) << i;
  j.norandommap = true;
  for (const IoUnit& u : Take(j, 1 << 20, 100)) ASSERT_EQ(u.wrap, 0u);
  JobOptions l = ParseJob({"--name=a", "--rw=randread", "--bs=4k", "--size=16k", "--loops=3"});
  auto w = Take(l, 1 << 20, 100);
  ASSERT_EQ(w.size(), 12u);
  for (size_t i = 0; i < w.size(); i++) {
    EXPECT_EQ(w[i].wrap, 0u) << i;
    EXPECT_EQ(w[i].pass, i / 4) << i;
  }
}

TEST(Generator, SizeEndsTheJobWithoutTimeBased) {
  JobOptions j = ParseJob({"--name=a", "--rw=write", "--bs=4k", "--size=64k"});
  auto v = Take(j, 1 << 20, 1000);
  EXPECT_EQ(v.size(), 16u);
  JobOptions k = ParseJob({"--name=a", "--rw=write", "--bs=4k", "--size=64k", "--io_size=128k"});
  EXPECT_EQ(Take(k, 1 << 20, 1000).size(), 32u);
  JobOptions n = ParseJob({"--name=a", "--rw=write", "--bs=4k", "--size=64k", "--number_ios=5"});
  EXPECT_EQ(Take(n, 1 << 20, 1000).size(), 5u);
}

// rw=trimwrite: each block trimmed, then written right after at the same
// offset and length; size= bytes of each (fio 3.33's write_iolog on the
// null engine: trim 0, write 0, trim 4096, write 4096, ...).  randtrimwrite:
// the same pairs at random offsets, every block once per pass.
TEST(Generator, TrimWriteWritesEachTrimmedBlock) {
  JobOptions j = ParseJob({"--name=a", "--rw=trimwrite", "--bs=4k", "--size=64k"});
  auto v = Take(j, 1 << 20, 1000);
  ASSERT_EQ(v.size(), 32u);
  for (size_t i = 0; i < v.size(); i += 2) {
    EXPECT_EQ(v[i].dir, Dir::kTrim) << i;
    EXPECT_EQ(v[i + 1].dir, Dir::kWrite) << i;
    EXPECT_EQ(v[i].offset, i / 2 * 4096) << i;
    EXPECT_EQ(v[i + 1].offset, v[i].offset) << i;
    EXPECT_EQ(v[i + 1].len, v[i].len) << i;
  }
  auto g = IoGenerator::Create(j, 1 << 20, 1);
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(g->has_dir(Dir::kTrim));
  EXPECT_TRUE(g->has_dir(Dir::kWrite));
  EXPECT_FALSE(g->has_dir(Dir::kRead));

  JobOptions r = ParseJob({"--name=a", "--rw=randtrimwrite", "--bs=4k", "--size=64k"});
  auto w = Take(r, 1 << 20, 1000);
  ASSERT_EQ(w.size(), 32u);
  std::set<uint64_t> trimmed;
  bool in_order = true;
  for (size_t i = 0; i < w.size(); i += 2) {
    EXPECT_EQ(w[i].dir, Dir::kTrim);
    EXPECT_EQ(w[i + 1].dir, Dir::kWrite);
    EXPECT_EQ(w[i + 1].offset, w[i].offset);
    trimmed.insert(w[i].offset);
    in_order = in_order && w[i].offset == i / 2 * 4096;
  }
  EXPECT_EQ(trimmed.size(), 16u);
  EXPECT_FALSE(in_order);
}

// loops=N: the job's I/O N times over, each sequential pass from the start.
TEST(Generator, LoopsRepeatThePasses) {
  JobOptions j = ParseJob({"--name=a", "--rw=read", "--bs=4k", "--size=16k", "--loops=3"});
  auto v = Take(j, 1 << 20, 100);
  ASSERT_EQ(v.size(), 12u);
  for (size_t i = 0; i < v.size(); i++) EXPECT_EQ(v[i].offset, (i % 4) * 4096) << i;
  JobOptions r = ParseJob({"--name=a", "--rw=randread", "--bs=4k", "--size=64k", "--loops=2"});
  auto w = Take(r, 1 << 20, 100);
  ASSERT_EQ(w.size(), 32u);
  std::map<uint64_t, int> seen;
  for (const IoUnit& u : w) seen[u.offset]++;
  EXPECT_EQ(seen.size(), 16u);
  for (auto& [off, n] : seen) EXPECT_EQ(n, 2) << off;  // every block once per loop
}

// random_generator=lfsr: every block once per pass, also with norandommap.
TEST(Generator, LfsrVisitsEveryBlockOnceWithoutAMap) {
  JobOptions j = ParseJob({"--name=a", "--rw=randread", "--bs=4k", "--size=256k", "--norandommap",
                           "--random_generator=lfsr"});
  auto v = Take(j, 1 << 20, 1000);
  ASSERT_EQ(v.size(), 64u);
  std::set<uint64_t> seen;
  for (const IoUnit& u : v) seen.insert(u.offset);
  EXPECT_EQ(seen.size(), 64u);
  // Without lfsr, norandommap draws independently: repeats are expected.
  JobOptions k = ParseJob({"--name=a", "--rw=randread", "--bs=4k", "--size=256k", "--norandommap"});
  std::set<uint64_t> seen_k;
  for (const IoUnit& u : Take(k, 1 << 20, 1000)) seen_k.insert(u.offset);
  EXPECT_LT(seen_k.size(), 64u);
}

// Offsets in KiB, for comparing with fio's write_iolog.
std::vector<uint64_t> Kib(const std::vector<IoUnit>& v) {
  std::vector<uint64_t> k;
  for (const IoUnit& u : v) k.push_back(u.offset / 1024);
  return k;
}

// A percentage offset= rounded up, as fio 3.33 does: fio --name=j
// --filename=a (a 1000000-byte file) --offset=N% --size=64k --write_iolog=x
// OPTIONS, the first offset of x.
TEST(Generator, PercentOffsetIsAlignedUp) {
  auto first = [](std::vector<std::string> args) {
    args.insert(args.begin(), {"--name=a", "--size=64k"});
    auto v = Take(ParseJob(args), 1000000, 1);
    return v.empty() ? UINT64_MAX : v[0].offset;
  };
  // 330000 up to the smallest block size (4k) ...
  EXPECT_EQ(first({"--rw=write", "--bs=4k", "--offset=33%"}), 331776u);
  EXPECT_EQ(first({"--rw=write", "--bs=8k", "--offset=33%"}), 335872u);
  // ... of any direction (the writes' 2k; trims keep 4k with bs=8k,16k).
  EXPECT_EQ(first({"--rw=read", "--bs=8k,2k", "--offset=30%"}), 301056u);
  EXPECT_EQ(first({"--rw=read", "--bs=8k,16k", "--offset=30%"}), 303104u);
  // ... or to offset_align.
  EXPECT_EQ(first({"--rw=write", "--bs=4k", "--offset=33%", "--offset_align=64k"}), 393216u);
  EXPECT_EQ(first({"--rw=write", "--bs=4k", "--offset=33%", "--offset_align=1000"}), 330000u);
  // A byte offset is not aligned.
  EXPECT_EQ(first({"--rw=write", "--bs=4k", "--offset=1000", "--offset_align=64k"}), 1000u);
}

// Holes (rw=write:4k), as fio 3.33 issues them: fio --name=x --ioengine=null
// --filename=f --write_iolog=x.log OPTIONS (the offsets of x.log, in KiB).
TEST(Generator, OffsetAndSkip) {
  // --rw=write:4k --bs=4k --size=32k: at the target's end the holes start
  // again, until size= bytes are done.
  JobOptions w = ParseJob({"--name=a", "--rw=write:4k", "--bs=4k", "--size=32k"});
  EXPECT_EQ(Kib(Take(w, 32 << 10, 100)), (std::vector<uint64_t>{0, 8, 16, 24, 0, 8, 16, 24}));
  // ... --offset=1m: the region's end comes short of the target's: one pass.
  JobOptions j = ParseJob({"--name=a", "--rw=write:4k", "--bs=4k", "--offset=1m", "--size=32k"});
  EXPECT_EQ(Kib(Take(j, (1 << 20) + (32 << 10), 100)), (std::vector<uint64_t>{1024, 1032, 1040, 1048}));
  // --rw=read:8k --bs=4k --size=64k: the 7th offset, 72k, is past the end.
  JobOptions r = ParseJob({"--name=a", "--rw=read:8k", "--bs=4k", "--size=64k"});
  EXPECT_EQ(Kib(Take(r, 64 << 10, 100)), (std::vector<uint64_t>{0, 12, 24, 36, 48, 60}));
  // rw_sequencer does not apply to sequential modes (fio: the same log with
  // --rw_sequencer=identical).
  JobOptions ri = ParseJob({"--name=a", "--rw=read:8k", "--bs=4k", "--size=64k", "--rw_sequencer=identical"});
  EXPECT_EQ(Kib(Take(ri, 64 << 10, 100)), (std::vector<uint64_t>{0, 12, 24, 36, 48, 60}));
}

// fio's negative skip, as fio 3.33 issues it (checked against its
// write_iolog): rw=read:-8k with bs=4k goes backwards, wrapping to the end
// minus the skip; with an offset the first I/O is at that wrap point.
TEST(Generator, NegativeSkipGoesBackwardsAsFio) {
  JobOptions j = ParseJob({"--name=a", "--rw=read:-8k", "--bs=4k", "--size=32k"});
  EXPECT_EQ(j.rw_offset_skip, -8192);
  auto v = Take(j, 1 << 20, 100);
  const uint64_t want[] = {0, 24, 20, 16, 12, 8, 4, 0};
  ASSERT_EQ(v.size(), 8u);
  for (size_t i = 0; i < v.size(); i++) EXPECT_EQ(v[i].offset, want[i] * 1024) << i;
  JobOptions o = ParseJob({"--name=a", "--rw=read:-12k", "--bs=4k", "--offset=64k", "--size=32k"});
  auto w = Take(o, 1 << 20, 100);
  const uint64_t want_o[] = {20, 12, 4, 20, 12, 4, 20, 12};
  ASSERT_EQ(w.size(), 8u);
  for (size_t i = 0; i < w.size(); i++) EXPECT_EQ(w[i].offset, 65536 + want_o[i] * 1024) << i;
}

TEST(Generator, RandomMapVisitsEveryBlockOncePerPass) {
  JobOptions j = ParseJob({"--name=a", "--rw=randread", "--bs=4k", "--size=4000k",
                           "--time_based", "--runtime=1"});
  const size_t blocks = 1000;
  auto v = Take(j, 8 << 20, 2 * blocks);
  for (int pass = 0; pass < 2; pass++) {
    std::set<uint64_t> seen;
    for (size_t i = pass * blocks; i < (pass + 1) * blocks; i++) {
      EXPECT_EQ(v[i].offset % 4096, 0u);
      EXPECT_LT(v[i].offset, 4000u * 1024);
      seen.insert(v[i].offset);
    }
    EXPECT_EQ(seen.size(), blocks) << "pass " << pass;
  }
  // Not sequential.
  size_t ascending = 0;
  for (size_t i = 1; i < blocks; i++) ascending += v[i].offset == v[i - 1].offset + 4096;
  EXPECT_LT(ascending, blocks / 10);
}

// How many times each 4 KiB block of [0, bytes) the I/Os cover.
std::vector<int> Coverage(const std::vector<IoUnit>& v, uint64_t bytes) {
  std::vector<int> c(bytes / 4096);
  for (const IoUnit& u : v) {
    EXPECT_EQ(u.offset % 4096, 0u);
    EXPECT_EQ(u.len % 4096, 0u);
    EXPECT_LE(u.offset + u.len, bytes);
    for (uint64_t b = u.offset / 4096; b < (u.offset + u.len) / 4096 && b < c.size(); b++) c[b]++;
  }
  return c;
}

// fio's random map with mixed block sizes: an I/O claims the unvisited run
// it starts and is cut to it, so bsrange and bssplit read every block of
// the region exactly once (fio 3.33, randread bsrange=4k-64k size=1m: 43
// I/Os, 1 MiB, no block twice); before, 76 of 256 blocks were read twice
// and 78 never.
TEST(Generator, RandomMapCoversMixedBlockSizesOnce) {
  for (const char* bs : {"--bsrange=4k-64k", "--bssplit=4k/50:64k/50"}) {
    JobOptions j = ParseJob({"--name=a", "--rw=randread", bs, "--size=1m"});
    auto v = Take(j, 1 << 20, 100000);
    uint64_t bytes = 0;
    for (const IoUnit& u : v) bytes += u.len;
    EXPECT_EQ(bytes, 1u << 20) << bs;
    const std::vector<int> c = Coverage(v, 1 << 20);
    EXPECT_EQ(std::count(c.begin(), c.end(), 1), 256) << bs;
  }
}

// One map for both directions of a mix, as fio's one map per file: a
// randrw job of size= covers each block once, reads and writes together
// (fio 3.33: 256 I/Os of 4k on 1 MiB, none twice).
TEST(Generator, RandomMapIsSharedByTheMix) {
  JobOptions j = ParseJob({"--name=a", "--rw=randrw", "--bs=4k", "--size=1m"});
  auto v = Take(j, 1 << 20, 100000);
  EXPECT_EQ(v.size(), 256u);
  const std::vector<int> c = Coverage(v, 1 << 20);
  EXPECT_EQ(std::count(c.begin(), c.end(), 1), 256);
  EXPECT_GT(std::count_if(v.begin(), v.end(), [](const IoUnit& u) { return u.dir == Dir::kRead; }), 64);
  EXPECT_GT(std::count_if(v.begin(), v.end(), [](const IoUnit& u) { return u.dir == Dir::kWrite; }), 64);
}

TEST(Generator, NoRandomMapRepeatsBlocks) {
  JobOptions j = ParseJob({"--name=a", "--rw=randread", "--bs=4k", "--size=4000k",
                           "--norandommap", "--time_based", "--runtime=1"});
  auto v = Take(j, 8 << 20, 1000);
  std::set<uint64_t> seen;
  for (auto& u : v) seen.insert(u.offset);
  EXPECT_LT(seen.size(), 800u);  // ~632 expected for 1000 draws from 1000
}

TEST(Generator, RandomSequentialRuns) {
  JobOptions j = ParseJob({"--name=a", "--rw=randread:4", "--bs=4k", "--size=64m",
                           "--time_based", "--runtime=1"});
  auto v = Take(j, 64 << 20, 40);
  for (size_t i = 0; i < v.size(); i++) {
    if (i % 4 != 0) {
      EXPECT_EQ(v[i].offset, v[i - 1].offset + 4096) << i;
    }
  }
  EXPECT_NE(v[4].offset, v[3].offset + 4096);
}

// The rule of rw=randread:N (one counter for the job): the 1st, (N+1)th, ...
// I/O draws a random offset; the others, with rw_sequencer=sequential, come
// right after the direction's last I/O (a random block instead when that
// is the target's end), with identical at the direction's last offset (the
// region's start before any).  Returns the index of the first I/O that
// breaks it, or -1.
int BreaksSequencer(const std::vector<IoUnit>& v, uint64_t n, bool identical, uint64_t end) {
  std::map<Dir, IoUnit> last;
  for (size_t i = 0; i < v.size(); i++) {
    const auto prev = last.find(v[i].dir);
    if (i % n != 0) {
      if (identical) {
        if (v[i].offset != (prev == last.end() ? 0 : prev->second.offset)) return int(i);
      } else {
        const uint64_t next = prev == last.end() ? 0 : prev->second.offset + prev->second.len;
        if (v[i].offset != next && next != end) return int(i);
      }
    }
    last[v[i].dir] = v[i];
  }
  return -1;
}

std::vector<IoUnit> FromKib(const std::vector<uint64_t>& kib, const std::string& dirs = "") {
  std::vector<IoUnit> v;
  for (size_t i = 0; i < kib.size(); i++) {
    IoUnit u;
    u.dir = i < dirs.size() && dirs[i] == 'w' ? Dir::kWrite : Dir::kRead;
    u.offset = kib[i] * 1024;
    u.len = 4096;
    v.push_back(u);
  }
  return v;
}

// fio 3.33's write_iolog (offsets in KiB) of
//   fio --name=x --ioengine=null --filename=f --write_iolog=x.log --size=256k
//       --bs=4k --rw=randread:8 [--rw_sequencer=identical]
// Its random offsets are not block-bench's (each draws from its own
// generator), so what is compared is the rule both follow.
TEST(Generator, RwSequencerAsFio) {
  const std::vector<uint64_t> fio_sequential = {
      12,  16,  20,  24,  28,  32,  36,  40,  188, 192, 196, 200, 204, 208, 212, 216,
      212, 216, 220, 224, 228, 232, 236, 240, 120, 124, 128, 132, 136, 140, 144, 148,
      100, 104, 108, 112, 116, 120, 124, 128, 216, 220, 224, 228, 232, 236, 240, 244,
      96,  100, 104, 108, 112, 116, 120, 124, 88,  92,  96,  100, 104, 108, 112, 116};
  const std::vector<uint64_t> fio_identical = {
      12,  12,  12,  12,  12,  12,  12,  12,  188, 188, 188, 188, 188, 188, 188, 188,
      212, 212, 212, 212, 212, 212, 212, 212, 120, 120, 120, 120, 120, 120, 120, 120,
      100, 100, 100, 100, 100, 100, 100, 100, 216, 216, 216, 216, 216, 216, 216, 216,
      96,  96,  96,  96,  96,  96,  96,  96,  88,  88,  88,  88,  88,  88,  88,  88};
  EXPECT_EQ(BreaksSequencer(FromKib(fio_sequential), 8, false, 256 << 10), -1);
  EXPECT_EQ(BreaksSequencer(FromKib(fio_identical), 8, true, 256 << 10), -1);
  EXPECT_NE(BreaksSequencer(FromKib(fio_sequential), 8, true, 256 << 10), -1);
  for (uint64_t seed : {1, 2, 3}) {
    JobOptions s = ParseJob({"--name=a", "--rw=randread:8", "--bs=4k", "--size=256k"});
    auto v = Take(s, 256 << 10, 1000, seed);
    ASSERT_EQ(v.size(), 64u);
    EXPECT_EQ(BreaksSequencer(v, 8, false, 256 << 10), -1) << seed;
    JobOptions i = ParseJob({"--name=a", "--rw=randread:8", "--bs=4k", "--size=256k", "--rw_sequencer=identical"});
    auto w = Take(i, 256 << 10, 1000, seed);
    ASSERT_EQ(w.size(), 64u);
    EXPECT_EQ(BreaksSequencer(w, 8, true, 256 << 10), -1) << seed;
    // The draws are the random job's: 8 distinct blocks.
    std::set<uint64_t> drawn;
    for (size_t k = 0; k < w.size(); k += 8) drawn.insert(w[k].offset);
    EXPECT_EQ(drawn.size(), 8u) << seed;
  }
  // One counter for both directions, the last offset per direction: fio's
  // --rw=randrw:4 --rw_sequencer=identical --size=64k --bs=4k.
  const std::vector<uint64_t> fio_rw = {0, 0, 0, 0, 44, 44, 0, 0, 52, 44, 52, 44, 28, 44, 44, 44};
  EXPECT_EQ(BreaksSequencer(FromKib(fio_rw, "rrrwrrwwwrwrwrrr"), 4, true, 64 << 10), -1);
  JobOptions m = ParseJob({"--name=a", "--rw=randrw:4", "--bs=4k", "--size=64k", "--rw_sequencer=identical"});
  auto v = Take(m, 64 << 10, 1000);
  ASSERT_EQ(v.size(), 16u);
  EXPECT_EQ(BreaksSequencer(v, 4, true, 64 << 10), -1);
}

// A random job's sequential run that reaches the region's end short of the
// target's ends the job, as fio's (its --size=64k --rw=randread:8 on a 128k
// file did 12 I/Os, the last ending at 64k); time based, it wraps.
TEST(Generator, RandomRunAtTheRegionEnd) {
  JobOptions j = ParseJob({"--name=a", "--rw=randread:8", "--bs=4k", "--size=64k"});
  for (uint64_t seed : {1, 2, 3, 4}) {
    auto v = Take(j, 128 << 10, 1000, seed);
    ASSERT_FALSE(v.empty());
    if (v.size() < 16) {
      EXPECT_EQ(v.back().offset + v.back().len, 64u << 10) << seed;
    }
    for (const IoUnit& u : v) EXPECT_LT(u.offset, 64u << 10);
  }
  JobOptions t = ParseJob({"--name=a", "--rw=randread:8", "--bs=4k", "--size=64k", "--time_based", "--runtime=1"});
  auto w = Take(t, 128 << 10, 1000);
  ASSERT_EQ(w.size(), 1000u);
  for (const IoUnit& u : w) EXPECT_LT(u.offset, 64u << 10);
}

// zonemode=strided, as fio 3.33 issues it: fio --name=x --ioengine=null
// --filename=f --write_iolog=x.log --zonemode=strided OPTIONS (offsets of
// x.log in KiB; the target is offset+size, fio's null file).
TEST(Generator, StridedZonesAsFio) {
  struct Case {
    std::vector<std::string> args;
    std::vector<uint64_t> want;
  };
  const Case cases[] = {
      // 256k of every 2m (fio's examples/disk-zone-profile.fio), then again.
      {{"--rw=read", "--size=8m", "--bs=64k", "--zonesize=256k", "--zonerange=1m", "--zoneskip=1m"},
       {0, 64, 128, 192, 2048, 2112, 2176, 2240, 4096, 4160, 4224, 4288, 6144, 6208, 6272, 6336,
        0,  64, 128, 192, 2048, 2112, 2176, 2240, 4096, 4160, 4224, 4288, 6144, 6208, 6272, 6336}},
      // zonerange defaults to zonesize: zones 1280k apart.
      {{"--rw=read", "--size=4m", "--bs=256k", "--zonesize=256k", "--zoneskip=1m"},
       {0, 1280, 2560, 3840, 0, 1280, 2560, 3840, 0, 1280, 2560, 3840, 0, 1280, 2560, 3840}},
      // zonesize > zonerange: each zone twice over.
      {{"--rw=read", "--size=4m", "--bs=256k", "--zonesize=2m", "--zonerange=1m", "--zoneskip=1m"},
       {0, 256, 512, 768, 0, 256, 512, 768, 2048, 2304, 2560, 2816, 2048, 2304, 2560, 2816}},
      // A zone past the target's end ends the job (10 I/Os, not 12).
      {{"--rw=read", "--size=3m", "--bs=256k", "--zonesize=1m", "--zonerange=1m", "--zoneskip=256k"},
       {0, 256, 512, 768, 1280, 1536, 1792, 2048, 2560, 2816}},
      // With an offset: zones from it, back to it.
      {{"--rw=read", "--size=3m", "--offset=1m", "--bs=256k", "--zonesize=512k", "--zonerange=1m"},
       {1024, 1280, 2048, 2304, 3072, 3328, 1024, 1280, 2048, 2304, 3072, 3328}},
      // Holes within a zone: no skip before a zone's first I/O.
      {{"--rw=read:64k", "--size=4m", "--bs=64k", "--zonesize=256k", "--zonerange=1m", "--zoneskip=1m"},
       {0, 128, 256, 384, 2048, 2176, 2304, 2432, 0, 128, 256, 384, 2048, 2176, 2304, 2432}},
      // I/Os larger than zonerange.
      {{"--rw=read", "--size=4m", "--bs=256k", "--zonesize=256k", "--zonerange=128k"},
       {0, 128, 256, 384, 512, 640, 768, 896, 1024, 1152, 1280, 1408, 1536, 1664, 1792, 1920}},
      // zonesize not a multiple of bs; the 17th write ends past the target.
      {{"--rw=write", "--size=4m", "--bs=128k", "--zonesize=384k", "--zonerange=512k", "--zoneskip=256k"},
       {0, 128, 256, 768, 896, 1024, 1536, 1664, 1792, 2304, 2432, 2560, 3072, 3200, 3328, 3840, 3968}},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"--name=a", "--zonemode=strided"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    JobOptions j = ParseJob(args);
    const uint64_t target = j.offset.value + j.size->value;
    auto v = Take(j, target, 1000);
    std::vector<uint64_t> got = Kib(v);
    if (got.size() > c.want.size()) got.resize(c.want.size());
    EXPECT_EQ(got, c.want) << args[2] << " " << args[3] << " " << args[4];
  }
  // The first case does size= bytes (128 I/Os), the write case 17 I/Os.
  JobOptions j = ParseJob({"--name=a", "--zonemode=strided", "--rw=read", "--size=8m", "--bs=64k",
                           "--zonesize=256k", "--zonerange=1m", "--zoneskip=1m"});
  EXPECT_EQ(Take(j, 8 << 20, 1000).size(), 128u);
  JobOptions w = ParseJob({"--name=a", "--zonemode=strided", "--rw=write", "--size=4m", "--bs=128k",
                           "--zonesize=384k", "--zonerange=512k", "--zoneskip=256k"});
  EXPECT_EQ(Take(w, 4 << 20, 1000).size(), 17u);
}

// Random I/O in zones: fio 3.33's --rw=randread --size=8m --bs=64k
// --zonemode=strided --zonesize=256k --zonerange=1m --zoneskip=1m issued 4
// distinct random blocks of [zone, zone + 1m) per zone, zones 0, 2m, 4m, 6m
// and again (its first zone: 0, 704k, 832k, 448k).  With zonesize=2m and
// zonerange=1m (bs=256k) each zone's 4 blocks twice, the random map reset
// after 1m: 0, 512, 768, 256, 256, 768, 512, 0, then the zone at 2m.
TEST(Generator, StridedZonesRandom) {
  JobOptions j = ParseJob({"--name=a", "--zonemode=strided", "--rw=randread", "--size=8m", "--bs=64k",
                           "--zonesize=256k", "--zonerange=1m", "--zoneskip=1m"});
  auto v = Take(j, 8 << 20, 1000);
  ASSERT_EQ(v.size(), 128u);
  for (size_t visit = 0; visit < 32; visit++) {
    const uint64_t zone = (visit % 4) * (2 << 20);
    std::set<uint64_t> blocks;
    for (size_t k = visit * 4; k < visit * 4 + 4; k++) {
      EXPECT_GE(v[k].offset, zone) << k;
      EXPECT_LT(v[k].offset, zone + (1 << 20)) << k;
      EXPECT_EQ(v[k].offset % 65536, 0u) << k;
      blocks.insert(v[k].offset);
    }
    EXPECT_EQ(blocks.size(), 4u) << visit;
  }
  JobOptions t = ParseJob({"--name=a", "--zonemode=strided", "--rw=randread", "--size=4m", "--bs=256k",
                           "--zonesize=2m", "--zonerange=1m", "--zoneskip=1m"});
  auto w = Take(t, 4 << 20, 1000);
  ASSERT_EQ(w.size(), 16u);
  for (size_t half = 0; half < 4; half++) {
    std::set<uint64_t> blocks;
    for (size_t k = half * 4; k < half * 4 + 4; k++) blocks.insert(w[k].offset >> 10);
    const uint64_t z = half < 2 ? 0 : 2048;
    EXPECT_EQ(blocks, (std::set<uint64_t>{z, z + 256, z + 512, z + 768})) << half;
  }
  // randread:4 in zones: a run that reaches the zone's end goes on at its
  // start (fio: 2880, 2944, 3008, 2048 in the zone [2m, 3m)).
  JobOptions r = ParseJob({"--name=a", "--zonemode=strided", "--rw=randread:4", "--size=4m", "--bs=64k",
                           "--zonesize=512k", "--zonerange=1m", "--zoneskip=1m"});
  auto x = Take(r, 4 << 20, 1000);
  ASSERT_EQ(x.size(), 64u);
  for (size_t k = 0; k < x.size(); k++) {
    const uint64_t zone = ((k / 8) % 2) * (2 << 20);
    EXPECT_GE(x[k].offset, zone) << k;
    EXPECT_LT(x[k].offset, zone + (1 << 20)) << k;
    if (k % 4 == 0) continue;
    const uint64_t next = x[k - 1].offset + 65536;
    EXPECT_EQ(x[k].offset, next == zone + (1 << 20) ? zone : next) << k;
  }
}

// percentage_random=P: P % of a random job's I/Os at random offsets, the
// others right after the direction's last I/O (fio: 50 -> about half the
// I/Os follow their predecessor; 0 -> a sequential walk that wraps).  The
// byte budget still ends the job.
TEST(Generator, PercentageRandomMixesSequentialRuns) {
  auto followers = [](const std::vector<IoUnit>& v) {
    size_t n = 0;
    for (size_t i = 1; i < v.size(); i++) n += v[i].offset == v[i - 1].offset + v[i - 1].len;
    return n;
  };
  for (uint32_t pct : {0u, 10u, 50u, 90u}) {
    JobOptions j = ParseJob({"--name=a", "--rw=randread", "--bs=4k", "--size=16m",
                             "--percentage_random=" + std::to_string(pct)});
    // The region is the target: a run at its end takes a random block.
    auto v = Take(j, 16 << 20, 100000);
    ASSERT_EQ(v.size(), 4096u) << pct;  // 16 MiB of 4k, then the budget ends it
    const double seq = double(followers(v)) / double(v.size() - 1);
    // A random pick also follows its predecessor now and then (1/4096).
    EXPECT_NEAR(seq, (100.0 - pct) / 100.0, 0.03) << pct;
  }
  JobOptions w = ParseJob({"--name=a", "--rw=randrw", "--bs=4k", "--size=16m",
                           "--percentage_random=100,0"});
  auto v = Take(w, 1 << 30, 100000);
  std::vector<IoUnit> writes;
  for (const IoUnit& u : v)
    if (u.dir == Dir::kWrite) writes.push_back(u);
  ASSERT_GT(writes.size(), 1000u);
  EXPECT_EQ(followers(writes), writes.size() - 1 - writes.size() / 4096)
      << "writes walk sequentially (wrapping once per 16 MiB)";
}

TEST(Generator, BlockAlign) {
  JobOptions j = ParseJob({"--name=a", "--rw=randread", "--bs=8k", "--blockalign=512",
                           "--size=1m", "--norandommap", "--time_based", "--runtime=1"});
  auto v = Take(j, 1 << 20, 2000);
  bool unaligned = false;
  for (auto& u : v) {
    EXPECT_EQ(u.offset % 512, 0u);
    EXPECT_LE(u.offset + u.len, 1u << 20);
    unaligned |= u.offset % 8192 != 0;
  }
  EXPECT_TRUE(unaligned);
}

TEST(Generator, BsSplitProportions) {
  // (norandommap: the random map cuts I/Os to the unvisited runs they
  // start, RandomMapCoversMixedBlockSizesOnce.)
  JobOptions j = ParseJob({"--name=a", "--rw=randread", "--bssplit=4k/50:16k/30:64k/20",
                           "--size=1g", "--time_based", "--runtime=1", "--norandommap"});
  auto v = Take(j, 1ull << 30, 100000);
  std::map<uint64_t, int> n;
  for (auto& u : v) n[u.len]++;
  EXPECT_EQ(n.size(), 3u);
  EXPECT_NEAR(n[4096] / 1000.0, 50, 1.0);
  EXPECT_NEAR(n[16384] / 1000.0, 30, 1.0);
  EXPECT_NEAR(n[65536] / 1000.0, 20, 1.0);
}

TEST(Generator, BsRangeWithinBounds) {
  JobOptions j = ParseJob({"--name=a", "--rw=randwrite", "--bsrange=4k-64k", "--size=1g",
                           "--time_based", "--runtime=1"});
  auto v = Take(j, 1ull << 30, 10000);
  std::set<uint64_t> sizes;
  for (auto& u : v) {
    EXPECT_GE(u.len, 4096u);
    EXPECT_LE(u.len, 65536u);
    EXPECT_EQ(u.len % 4096, 0u);
    sizes.insert(u.len);
  }
  EXPECT_GT(sizes.size(), 10u);
}

TEST(Generator, RwMixProportions) {
  JobOptions j = ParseJob({"--name=a", "--rw=randrw", "--rwmixread=70", "--bs=4k", "--size=1g",
                           "--time_based", "--runtime=1"});
  auto v = Take(j, 1ull << 30, 100000);
  int reads = 0, writes = 0;
  for (auto& u : v) (u.dir == Dir::kRead ? reads : writes)++;
  EXPECT_NEAR(reads / 1000.0, 70, 1.0);
  EXPECT_EQ(reads + writes, 100000);
}

TEST(Generator, SequentialMixKeepsAPositionPerDirection) {
  JobOptions j = ParseJob({"--name=a", "--rw=rw", "--bs=4k", "--size=1m", "--time_based",
                           "--runtime=1"});
  auto v = Take(j, 1 << 20, 200);
  uint64_t next[2] = {0, 0};
  for (auto& u : v) {
    EXPECT_EQ(u.offset, next[int(u.dir)]);
    next[int(u.dir)] = u.offset + 4096;
  }
}

// Share of hits on the hottest 10% of blocks.
double HotShare(const std::vector<IoUnit>& v, uint64_t blocks) {
  std::map<uint64_t, int> hits;
  for (auto& u : v) hits[u.offset / 4096]++;
  std::vector<int> c;
  for (auto& [b, n] : hits) c.push_back(n);
  std::sort(c.rbegin(), c.rend());
  size_t top = blocks / 10;
  long sum = 0;
  for (size_t i = 0; i < top && i < c.size(); i++) sum += c[i];
  return double(sum) / double(v.size());
}

TEST(Generator, ZipfAndParetoAreSkewed) {
  const uint64_t blocks = 10000;
  auto run = [&](const char* dist) {
    JobOptions j = ParseJob({"--name=a", "--rw=randread", "--bs=4k", "--size=40000k",
                             std::string("--random_distribution=") + dist, "--time_based",
                             "--runtime=1"});
    return HotShare(Take(j, 40000 * 1024, 200000), blocks);
  };
  double uni = run("random");
  double zipf = run("zipf:1.2");
  double pareto = run("pareto:0.2");
  EXPECT_LT(uni, 0.15);
  // Zipf(1.2) over 10k items: the top 1000 ranks hold ~80% of the mass.
  EXPECT_GT(zipf, 0.6);
  // Pareto h=0.2: the classic 80/20 rule -> the top 10% hold well over half.
  EXPECT_GT(pareto, 0.5);
}

TEST(Generator, NormalIsCentred) {
  JobOptions j = ParseJob({"--name=a", "--rw=randread", "--bs=4k", "--size=40000k",
                           "--random_distribution=normal:5", "--time_based", "--runtime=1"});
  auto v = Take(j, 40000 * 1024, 50000);
  EXPECT_GT(HotShare(v, 10000), 0.3);
}

TEST(Generator, ZonedSendsAccessesToZones) {
  JobOptions j = ParseJob({"--name=a", "--rw=randread", "--bs=4k", "--size=100m",
                           "--random_distribution=zoned:60/10:30/20:10/70", "--time_based",
                           "--runtime=1"});
  auto v = Take(j, 100 << 20, 100000);
  int z[3] = {};
  for (auto& u : v) {
    double f = double(u.offset) / double(100 << 20);
    z[f < 0.1 ? 0 : f < 0.3 ? 1 : 2]++;
  }
  EXPECT_NEAR(z[0] / 1000.0, 60, 1.5);
  EXPECT_NEAR(z[1] / 1000.0, 30, 1.5);
  EXPECT_NEAR(z[2] / 1000.0, 10, 1.5);
}

// bsrange= lengths: multiples of the minimum, or with bs_unaligned (alias
// blocksize_unaligned) any byte count in the range (fio 3.33 with
// --bsrange=1k-16k --bs_unaligned wrote 4135, 1684, 7223, ... bytes).
TEST(Generator, BsUnalignedDrawsAnyLength) {
  for (const char* flag : {"", "--bs_unaligned", "--blocksize_unaligned=1"}) {
    std::vector<std::string> args = {"--name=a", "--rw=randwrite", "--bsrange=1k-16k",
                                     "--size=64m"};
    if (*flag) args.push_back(flag);
    const auto v = Take(ParseJob(args), 64 << 20, 2000);
    ASSERT_EQ(v.size(), 2000u);
    size_t unaligned = 0;
    for (const IoUnit& u : v) {
      EXPECT_GE(u.len, 1024u);
      EXPECT_LE(u.len, 16384u);
      EXPECT_EQ(u.offset % 1024, 0u) << "offsets stay aligned to the minimum";
      unaligned += u.len % 1024 != 0;
    }
    if (*flag) EXPECT_GT(unaligned, 1500u) << flag;
    else EXPECT_EQ(unaligned, 0u);
  }
}

TEST(Generator, SameSeedSameSequence) {
  JobOptions j = ParseJob({"--name=a", "--rw=randrw", "--bssplit=4k/50:8k/50", "--size=1g",
                           "--time_based", "--runtime=1"});
  EXPECT_EQ(Take(j, 1ull << 30, 5000, JobSeed(j, 0, 0)), Take(j, 1ull << 30, 5000, JobSeed(j, 0, 0)));
  // randrepeat=1 (the default): fio's seeds, which differ by thread number
  // (clone), not by block-bench's own seed.
  EXPECT_EQ(Take(j, 1ull << 30, 5000, JobSeed(j, 0, 0)), Take(j, 1ull << 30, 5000, JobSeed(j, 0, 1)));
  EXPECT_NE(Take(j, 1ull << 30, 5000, JobSeed(j, 0, 0), 1), Take(j, 1ull << 30, 5000, JobSeed(j, 0, 0), 2));
  // randrepeat=0: the clone's own random seed.
  JobOptions nr = j;
  nr.randrepeat = false;
  EXPECT_NE(Take(nr, 1ull << 30, 5000, 1), Take(nr, 1ull << 30, 5000, 2));
  JobOptions s1 = ParseJob({"--name=a", "--randseed=42"});
  JobOptions s2 = ParseJob({"--name=a", "--randseed=43"});
  EXPECT_EQ(JobSeed(s1, 0, 0), JobSeed(s1, 0, 0));
  EXPECT_NE(JobSeed(s1, 0, 0), JobSeed(s2, 0, 0));
  JobOptions r0 = ParseJob({"--name=a", "--randrepeat=0"});
  EXPECT_NE(JobSeed(r0, 0, 0), JobSeed(r0, 0, 0));
  // allrandrepeat=1 fixes every generator's seed, also with randrepeat=0.
  JobOptions a0 = ParseJob({"--name=a", "--randrepeat=0", "--allrandrepeat=1"});
  EXPECT_EQ(JobSeed(a0, 0, 0), JobSeed(a0, 0, 0));
  EXPECT_EQ(JobSeed(a0, 0, 0), JobSeed(ParseJob({"--name=a"}), 0, 0));
}

TEST(Generator, RejectsRegionBeyondTarget) {
  JobOptions j = ParseJob({"--name=a", "--rw=read", "--offset=1m", "--size=1m"});
  auto g = IoGenerator::Create(j, 1 << 20, 1);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("offset"), std::string::npos);
}

// bs_is_seq_rand: the read block size for sequential I/O, the write one for
// random I/O, whatever the direction (fio's get_next_buflen).
TEST(Generator, BsIsSeqRandSizesByRandomnessNotDirection) {
  auto lens = [](std::vector<std::string> args) {
    // (norandommap: the random map would cut random I/Os to the unvisited
    // runs they start.)
    std::vector<std::string> a = {"--name=a", "--bs=4k,64k", "--size=1m", "--time_based",
                                  "--runtime=1", "--bs_is_seq_rand=1", "--norandommap"};
    a.insert(a.end(), args.begin(), args.end());
    std::map<Dir, std::set<uint64_t>> by_dir;
    for (const IoUnit& u : Take(ParseJob(a), 1 << 20, 200)) by_dir[u.dir].insert(u.len);
    return by_dir;
  };
  using L = std::set<uint64_t>;
  EXPECT_EQ(lens({"--rw=randread"})[Dir::kRead], L{65536});
  EXPECT_EQ(lens({"--rw=read"})[Dir::kRead], L{4096});
  EXPECT_EQ(lens({"--rw=write"})[Dir::kWrite], L{4096});
  EXPECT_EQ(lens({"--rw=randwrite"})[Dir::kWrite], L{65536});
  auto mix = lens({"--rw=randrw"});
  EXPECT_EQ(mix[Dir::kRead], L{65536});
  EXPECT_EQ(mix[Dir::kWrite], L{65536});
  // percentage_random=50: both sizes in each direction, 64k at the random
  // offsets only.
  auto half = lens({"--rw=randrw", "--percentage_random=50"});
  EXPECT_EQ(half[Dir::kRead], (L{4096, 65536}));
  EXPECT_EQ(half[Dir::kWrite], (L{4096, 65536}));
  // Without it, each direction its own.
  JobOptions plain = ParseJob({"--name=a", "--bs=4k,64k", "--size=1m", "--rw=randread"});
  for (const IoUnit& u : Take(plain, 1 << 20, 50)) EXPECT_EQ(u.len, 4096u);
}

TEST(Generator, BsIsSeqRandBuffersHoldTheLargerSize) {
  JobOptions j = ParseJob({"--name=a", "--bs=4k,64k", "--size=1m", "--rw=read",
                           "--bs_is_seq_rand=1"});
  auto g = IoGenerator::Create(j, 1 << 20, 1);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->max_bs(), 65536u);
  j.verify = VerifyMethod::kCrc32c;
  auto v = IoGenerator::Create(j, 1 << 20, 1);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find("bs_is_seq_rand"), std::string::npos) << v.error().message;
}

}  // namespace
}  // namespace blk::bench
