// TraceSource: replay_* transformations, folding into the target, time
// scaling, and the sizes the worker allocates by.
#include "tools/block_bench/run/trace_source.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace blk::bench {
namespace {

using trace::Op;
using trace::Record;

std::shared_ptr<const trace::Trace> MakeTrace(std::vector<Record> recs) {
  auto t = std::make_shared<trace::Trace>();
  t->records = std::move(recs);
  return t;
}

std::vector<IoUnit> Drain(TraceSource& s) {
  std::vector<IoUnit> out;
  IoUnit u;
  while (s.next(&u)) out.push_back(u);
  return out;
}

TEST(TraceSource, IssuesRecordsInOrderWithTheirTimes) {
  JobOptions job;
  auto t = MakeTrace({{0, 4096, 4096, Op::kRead},
                      {1500, 0, 8192, Op::kWrite, true},
                      {2000, 0, 0, Op::kFlush},
                      {9000, 65536, 512, Op::kTrim}});
  TraceSource s(t, job, 1 << 20);
  auto u = Drain(s);
  ASSERT_EQ(u.size(), 4u);
  EXPECT_EQ(u[0].dir, Dir::kRead);
  EXPECT_EQ(u[0].offset, 4096u);
  EXPECT_EQ(u[0].len, 4096u);
  EXPECT_EQ(u[0].at_ns, 0);
  EXPECT_EQ(u[1].dir, Dir::kWrite);
  EXPECT_TRUE(u[1].fua);
  EXPECT_EQ(u[1].at_ns, 1500);
  EXPECT_TRUE(u[2].flush);
  EXPECT_EQ(u[2].dir, Dir::kWrite);
  EXPECT_EQ(u[3].dir, Dir::kTrim);
  EXPECT_EQ(u[3].at_ns, 9000);
  EXPECT_EQ(s.ios(), 4u);
  EXPECT_EQ(s.max_bs(), 8192u);
  EXPECT_EQ(s.io_limit(), 4096u + 8192u + 512u);
  EXPECT_EQ(s.span_ns(), 9000);
  EXPECT_TRUE(s.has_dir(Dir::kRead));
  EXPECT_TRUE(s.has_dir(Dir::kWrite));
  EXPECT_TRUE(s.has_dir(Dir::kTrim));
}

// fio's t0038: trims of 2 GiB beside 4 KiB writes size no buffer (a trim
// carries no data), so the buffers stay the writes' size.
TEST(TraceSource, TrimsSizeNoBuffer) {
  JobOptions job;
  auto t = MakeTrace({{0, 0, 2ull << 30, Op::kTrim}, {10, 0, 4096, Op::kWrite},
                      {20, 4096, 2ull << 30, Op::kTrim}, {30, 4096, 4096, Op::kWrite}});
  TraceSource s(t, job, 4ull << 30);
  EXPECT_EQ(s.max_bs(), 4096u);
  EXPECT_EQ(Drain(s).size(), 4u);
  TraceSource trims_only(MakeTrace({{0, 0, 1 << 20, Op::kTrim}}), job, 1 << 20);
  EXPECT_EQ(trims_only.max_bs(), 512u);  // the smallest buffer, never 0
}

TEST(TraceSource, TimeScaleIsAPercentageOfTheRate) {
  JobOptions job;
  job.replay_time_scale = 200;  // twice the rate: half the times
  auto t = MakeTrace({{0, 0, 4096, Op::kRead}, {1'000'000, 0, 4096, Op::kRead}});
  TraceSource s(t, job, 1 << 20);
  auto u = Drain(s);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[1].at_ns, 500'000);
  EXPECT_EQ(s.span_ns(), 500'000);
  job.replay_time_scale = 50;
  TraceSource slow(t, job, 1 << 20);
  EXPECT_EQ(Drain(slow)[1].at_ns, 2'000'000);
}

TEST(TraceSource, NoStallDropsTheSchedule) {
  JobOptions job;
  job.replay_no_stall = true;
  auto t = MakeTrace({{0, 0, 4096, Op::kRead}, {5000, 0, 4096, Op::kRead}});
  TraceSource s(t, job, 1 << 20);
  for (const IoUnit& u : Drain(s)) EXPECT_EQ(u.at_ns, -1);
}

TEST(TraceSource, SkipScaleAndAlign) {
  JobOptions job;
  job.replay_skip = 1u << int(Op::kWrite);
  job.replay_scale = 2;
  job.replay_align = 4096;
  auto t = MakeTrace({{0, 10000, 5000, Op::kRead},
                      {1, 0, 4096, Op::kWrite},
                      {2, 9000, 100, Op::kRead}});
  TraceSource s(t, job, 1 << 20);
  auto u = Drain(s);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].offset, 4096u);  // 10000 / 2 = 5000, aligned down
  EXPECT_EQ(u[0].len, 4096u);     // 5000 aligned down
  EXPECT_EQ(u[1].offset, 4096u);  // 4500 aligned down
  EXPECT_EQ(u[1].len, 4096u);     // below the alignment: one unit
  EXPECT_EQ(s.skipped(), 1u);
  EXPECT_FALSE(s.has_dir(Dir::kWrite));
}

TEST(TraceSource, FoldsRecordsPastTheTargetAndDropsOversizedOnes) {
  JobOptions job;
  const uint64_t size = 1 << 20;
  auto t = MakeTrace({{0, size - 4096, 4096, Op::kRead},       // fits exactly
                      {1, size + 12345 * 512, 4096, Op::kRead},  // past the end
                      {2, 0, 2 * size, Op::kRead}});             // longer than the target
  TraceSource s(t, job, size);
  auto u = Drain(s);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].offset, size - 4096);
  const uint64_t want = (size + 12345 * 512) % (size - 4096 + 1) / 512 * 512;
  EXPECT_EQ(u[1].offset, want);
  EXPECT_LE(u[1].offset + u[1].len, size);
  EXPECT_EQ(u[1].offset % 512, 0u);
  EXPECT_EQ(s.folded(), 1u);
  EXPECT_EQ(s.too_large(), 1u);
}

TEST(TraceSource, ExtentIsTheFarthestEndAfterScaling) {
  JobOptions job;
  trace::Trace t;
  t.records = {{0, 8192, 4096, Op::kRead}, {1, 1 << 20, 512, Op::kWrite}};
  EXPECT_EQ(TraceSource::Extent(t, job), (1u << 20) + 512);
  job.replay_scale = 4;
  EXPECT_EQ(TraceSource::Extent(t, job), (1u << 18) + 512);
}

TEST(TraceSource, PathPerCloneInTurn) {
  JobOptions job;
  job.read_iolog = {"a", "b"};
  EXPECT_EQ(TracePathFor(job, 0), "a");
  EXPECT_EQ(TracePathFor(job, 1), "b");
  EXPECT_EQ(TracePathFor(job, 2), "a");
}

// The file column of block-bench's and the emulator's iologs names the
// graph they ran on; fio's names a file.
TEST(TraceTarget, GraphSpecsAreToldFromPaths) {
  EXPECT_TRUE(IsGraphSpec("driver=null,size=67108864"));
  EXPECT_TRUE(IsGraphSpec("driver=throttle,file.driver=null,file.size=1G"));
  EXPECT_TRUE(IsGraphSpec(R"({"driver":"null","size":"64M"})"));
  EXPECT_FALSE(IsGraphSpec("f.0.0"));
  EXPECT_FALSE(IsGraphSpec("/dev/vdb"));
  EXPECT_FALSE(IsGraphSpec("size=1G"));  // parses, but names no driver
  EXPECT_FALSE(IsGraphSpec(""));
}

trace::Trace Naming(std::vector<std::string> files) {
  trace::Trace t;
  t.files = std::move(files);
  return t;
}

TEST(TraceTarget, ASpecBecomesTheJobsBlockdev) {
  JobOptions tj;
  ASSERT_TRUE(TakeTraceTarget(Naming({"driver=null,size=1G"}), "g.log", &tj).ok());
  EXPECT_EQ(tj.blockdev, "driver=null,size=1G");
  EXPECT_TRUE(tj.filenames.empty());
}

TEST(TraceTarget, AnExistingFileIsReplayedOnto) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string f = std::string(dir ? dir : "/tmp") + "/tt." + std::to_string(getpid());
  std::ofstream(f) << "x";
  JobOptions tj;
  ASSERT_TRUE(TakeTraceTarget(Naming({f}), "f.log", &tj).ok());
  EXPECT_EQ(tj.filenames, std::vector<std::string>{f});
  EXPECT_TRUE(tj.blockdev.empty());
  ::unlink(f.c_str());
}

TEST(TraceTarget, AMissingFileIsRefusedNotCreated) {
  const std::string f = "/nonexistent-dir/dev." + std::to_string(getpid());
  JobOptions tj;
  auto r = TakeTraceTarget(Naming({f}), "bad.log", &tj);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -EINVAL);
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("bad.log"), std::string::npos) << m;
  EXPECT_NE(m.find(f), std::string::npos) << m;
  EXPECT_NE(m.find("filename="), std::string::npos) << m;
  EXPECT_NE(m.find("blockdev="), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_TRUE(tj.filenames.empty());
  EXPECT_TRUE(tj.blockdev.empty());

  // Several files, or none: which one is not guessed.
  EXPECT_FALSE(TakeTraceTarget(Naming({"a", "b"}), "two.log", &tj).ok());
  EXPECT_FALSE(TakeTraceTarget(Naming({}), "none.log", &tj).ok());
}

}  // namespace
}  // namespace blk::bench
