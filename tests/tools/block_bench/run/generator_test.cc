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

std::vector<IoUnit> Take(const JobOptions& job, uint64_t dev, size_t n, uint64_t seed = 1) {
  auto g = IoGenerator::Create(job, dev, seed);
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

TEST(Generator, OffsetAndSkip) {
  JobOptions j = ParseJob({"--name=a", "--rw=write:4k", "--bs=4k", "--offset=1m", "--size=32k"});
  auto v = Take(j, 4 << 20, 100);
  // size= bytes of I/O, as fio: the holes take one pass to half the bytes,
  // then the same offsets come again (fio's write_iolog agrees).
  ASSERT_EQ(v.size(), 8u);
  for (size_t i = 0; i < v.size(); i++)
    EXPECT_EQ(v[i].offset, (1u << 20) + (i % 4) * 8192) << i;
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
    auto v = Take(j, 1 << 30, 100000);
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
  JobOptions j = ParseJob({"--name=a", "--rw=randread", "--bssplit=4k/50:16k/30:64k/20",
                           "--size=1g", "--time_based", "--runtime=1"});
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

TEST(Generator, SameSeedSameSequence) {
  JobOptions j = ParseJob({"--name=a", "--rw=randrw", "--bssplit=4k/50:8k/50", "--size=1g",
                           "--time_based", "--runtime=1"});
  EXPECT_EQ(Take(j, 1ull << 30, 5000, JobSeed(j, 0, 0)), Take(j, 1ull << 30, 5000, JobSeed(j, 0, 0)));
  EXPECT_NE(Take(j, 1ull << 30, 5000, JobSeed(j, 0, 0)), Take(j, 1ull << 30, 5000, JobSeed(j, 0, 1)));
  JobOptions s1 = ParseJob({"--name=a", "--randseed=42"});
  JobOptions s2 = ParseJob({"--name=a", "--randseed=43"});
  EXPECT_EQ(JobSeed(s1, 0, 0), JobSeed(s1, 0, 0));
  EXPECT_NE(JobSeed(s1, 0, 0), JobSeed(s2, 0, 0));
  JobOptions r0 = ParseJob({"--name=a", "--randrepeat=0"});
  EXPECT_NE(JobSeed(r0, 0, 0), JobSeed(r0, 0, 0));
}

TEST(Generator, RejectsRegionBeyondTarget) {
  JobOptions j = ParseJob({"--name=a", "--rw=read", "--offset=1m", "--size=1m"});
  auto g = IoGenerator::Create(j, 1 << 20, 1);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("offset"), std::string::npos);
}

TEST(Permutation, IsABijection) {
  for (uint64_t n : {1ull, 2ull, 3ull, 7ull, 100ull, 1000ull, 4096ull, 5000ull}) {
    Permutation p(n, 12345 + n);
    std::vector<bool> hit(n);
    for (uint64_t i = 0; i < n; i++) {
      uint64_t y = p(i);
      ASSERT_LT(y, n);
      EXPECT_FALSE(hit[y]) << n << " " << i;
      hit[y] = true;
    }
  }
}

}  // namespace
}  // namespace blk::bench
