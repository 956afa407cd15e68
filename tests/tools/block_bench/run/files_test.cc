// Several files per job: FileJob's per-file options and MultiFileSource's
// choice of file (fio's file_service_type).
#include "tools/block_bench/run/files.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench_test_util.h"
#include "tools/block_bench/run/target.h"

namespace blk::bench {
namespace {

using testing::ParseJob;

TEST(FileJob, NamesSizesAndShares) {
  JobOptions j = ParseJob({"--name=m", "--nrfiles=3", "--size=3m", "--io_size=10m",
                           "--number_ios=10", "--directory=/d"});
  ASSERT_EQ(j.nrfiles, 3u);
  JobOptions f0 = FileJob(j, 2, 0), f2 = FileJob(j, 2, 2);
  EXPECT_EQ(f0.nrfiles, 1u);
  EXPECT_EQ(f0.filenames, std::vector<std::string>{"m.2.0"});  // fio's JOB.CLONE.FILE
  EXPECT_EQ(f2.filenames, std::vector<std::string>{"m.2.2"});
  EXPECT_EQ(f0.directories, j.directories);
  EXPECT_EQ(f0.size->value, 1u << 20);  // size / nrfiles
  // io_size and number_ios shared out, the remainder to the first files.
  EXPECT_EQ(f0.io_size->value + FileJob(j, 2, 1).io_size->value + f2.io_size->value, 10u << 20);
  EXPECT_EQ(f0.number_ios, 4u);
  EXPECT_EQ(f2.number_ios, 3u);
  // filesize wins over size / nrfiles; named files keep their names.
  JobOptions n = ParseJob({"--name=m", "--filename=a:b", "--filesize=64k", "--size=1m"});
  EXPECT_EQ(n.nrfiles, 2u);
  EXPECT_EQ(FileJob(n, 0, 1).filenames, std::vector<std::string>{"b"});
  EXPECT_EQ(FileJob(n, 0, 1).size->value, 65536u);
  // One file: the job itself.
  JobOptions one = ParseJob({"--name=m", "--size=1m"});
  EXPECT_EQ(FileJob(one, 0, 0).filenames, one.filenames);
  EXPECT_EQ(FileSeed(77, 0), 77u);
  EXPECT_NE(FileSeed(77, 1), FileSeed(77, 2));
}

// filesize= alone sizes a one-file job (fio's; the null engine too), and
// size=N% is N % of each file, laid out at that size, as fio's.
TEST(FileJob, FileSizeSizesTheJob) {
  JobOptions j = ParseJob({"--name=m", "--filesize=4m"});
  JobOptions f = FileJob(j, 0, 0);
  ASSERT_TRUE(f.size.has_value());
  EXPECT_EQ(f.size->value, 4u << 20);
  EXPECT_FALSE(f.size->percent);
  EXPECT_EQ(f.filenames, std::vector<std::string>{"m.0.0"});
  JobOptions half = FileJob(ParseJob({"--name=m", "--filesize=4m", "--size=50%"}), 0, 0);
  EXPECT_EQ(half.size->value, 2u << 20);
  EXPECT_EQ(half.filesize, 2u << 20);
  // size= in bytes caps the I/O over the files; each file keeps filesize.
  JobOptions cap = ParseJob({"--name=m", "--nrfiles=4", "--filesize=512k", "--size=1m"});
  EXPECT_EQ(FileJob(cap, 0, 3).size->value, 512u << 10);
  EXPECT_EQ(FileJob(cap, 0, 3).io_size->value, 256u << 10);
}

// With filesize=, a file's I/O region runs from the start offset to the
// file's end (fio's setup_files: io_size = file size - file_offset), and
// size= caps the job's bytes to what the regions hold.
TEST(FileJob, FileSizeRegionStartsAtTheOffset) {
  JobOptions j = FileJob(ParseJob({"--name=m", "--filesize=64k", "--offset=32k", "--size=64k"}), 0, 0);
  EXPECT_EQ(j.filesize, 64u << 10);
  EXPECT_EQ(j.size->value, 32u << 10);
  EXPECT_EQ(j.io_size->value, 32u << 10);
  // offset=N% is of the file, aligned up to the smallest block.
  JobOptions pct = FileJob(ParseJob({"--name=m", "--filesize=64k", "--offset=30%", "--bs=4k"}), 0, 0);
  EXPECT_EQ(pct.size->value, (64u << 10) - (20u << 10));
  // Nothing left past the offset: no region (the generator refuses it).
  EXPECT_FALSE(FileJob(ParseJob({"--name=m", "--filesize=64k", "--offset=80k"}), 0, 0).size);
  // size=N% is of the file, within the region from the offset.
  EXPECT_EQ(FileJob(ParseJob({"--name=m", "--filesize=64k", "--offset=32k", "--size=75%"}), 0, 0)
                .size->value,
            32u << 10);
  // Without an offset the region is the whole file.
  EXPECT_EQ(FileJob(ParseJob({"--name=m", "--filesize=64k", "--size=16k"}), 0, 0).size->value,
            64u << 10);
}

// filesize=LOW-HIGH: each file's size drawn in the range, rounded down to
// the block size, the same on every call (the target and the generator ask
// separately), and not the same for every file.  (fio_sequence_e2e_test:
// the sizes are fio's.)
TEST(FileJob, FileSizeRangeDrawsEachFile) {
  JobOptions j = ParseJob({"--name=m", "--nrfiles=16", "--filesize=1m-4m", "--bs=4k"});
  EXPECT_EQ(j.filesize, 1u << 20);
  EXPECT_EQ(j.filesize_max, 4u << 20);
  std::set<uint64_t> seen;
  for (uint32_t c = 0; c < 2; c++) {
    for (uint32_t i = 0; i < 16; i++) {
      const uint64_t s = FileJob(j, c, i).size->value;
      EXPECT_GE(s, 1u << 20);
      EXPECT_LE(s, 4u << 20);
      EXPECT_EQ(s % 4096, 0u) << s;
      EXPECT_EQ(FileJob(j, c, i).filesize, s);
      EXPECT_EQ(FileJob(j, c, i).size->value, s);
      seen.insert(s);
    }
  }
  EXPECT_GT(seen.size(), 16u);
  // A reversed range is fio's range the right way round.
  JobOptions r = ParseJob({"--name=m", "--filesize=4m:1m"});
  EXPECT_EQ(r.filesize, 1u << 20);
  EXPECT_EQ(r.filesize_max, 4u << 20);
  // randseed= changes the draw.
  JobOptions other = ParseJob({"--name=m", "--nrfiles=16", "--filesize=1m-4m", "--randseed=9"});
  int same = 0;
  for (uint32_t i = 0; i < 16; i++)
    same += FileJob(other, 0, i).size->value == FileJob(j, 0, i).size->value;
  EXPECT_LT(same, 16);
}

// filename_format: fio's keywords replaced, anything else kept.
TEST(FileJob, FilenameFormatNamesTheFiles) {
  JobOptions j = ParseJob({"--name=db", "--nrfiles=2", "--size=1m",
                           "--filename_format=f$jobnum/$jobname.$filenum$clientuid.x$"});
  EXPECT_EQ(FileJob(j, 3, 1).filenames, std::vector<std::string>{"f3/db.1.x$"});
  // One file, no filesize: the job itself; the target names it.
  JobOptions one = ParseJob({"--name=db", "--size=1m", "--filename_format=file$jobnum"});
  EXPECT_EQ(FileNameOf(one, 7, 0), "file7");
  auto t = JobTarget(one, 7);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->filename, "file7");
  // filename= wins.
  JobOptions named = ParseJob({"--name=db", "--filename=a", "--filename_format=file$jobnum",
                               "--filesize=1m"});
  EXPECT_EQ(FileJob(named, 7, 0).filenames, std::vector<std::string>{"a"});
}

TEST(CloneJob, OffsetIncrementMovesEachClone) {
  JobOptions j = ParseJob({"--name=m", "--offset=4k", "--offset_increment=1m", "--numjobs=3"});
  EXPECT_EQ(CloneJob(j, 0).offset.value, 4096u);
  EXPECT_EQ(CloneJob(j, 2).offset.value, 4096u + (2u << 20));
  JobOptions plain = ParseJob({"--name=m", "--offset=4k"});
  EXPECT_EQ(CloneJob(plain, 5).offset.value, 4096u);
}

// The files of `n` I/Os from a source over `files` files of 64k each.
std::vector<uint32_t> Files(const std::vector<std::string>& extra, size_t n, uint32_t files = 3) {
  std::vector<std::string> args = {"--name=m", "--nrfiles=" + std::to_string(files),
                                   "--size=" + std::to_string(files * 64) + "k", "--bs=4k"};
  args.insert(args.end(), extra.begin(), extra.end());
  JobOptions j = ParseJob(args);
  std::vector<IoGenerator> gens;
  for (uint32_t i = 0; i < files; i++) {
    auto g = IoGenerator::Create(FileJob(j, 0, i), 1 << 20, FileSeed(1, i));
    EXPECT_TRUE(g.ok());
    g->set_unlimited(j.time_based);
    gens.push_back(std::move(*g));
  }
  MultiFileSource src(std::move(gens), j.file_service, j.file_service_ios, 1, false,
                      PassLimits::Of(j, uint64_t(files) * 64 * 1024, 0));
  std::vector<uint32_t> out;
  IoUnit u;
  while (out.size() < n && src.next(&u)) {
    EXPECT_LT(u.offset + u.len, 64u * 1024 + 1);  // within its file
    out.push_back(u.file);
  }
  return out;
}

// IoUnit::opens: the first I/O after a file opened (fio's get_next_file:
// when a pick first lands on it; it closes when done and at a pass's end).
TEST(MultiFileSource, OpensMarksEachFilesFirstIoPerOpen) {
  JobOptions j = ParseJob({"--name=m", "--nrfiles=3", "--size=24k", "--bs=4k", "--rw=read",
                           "--loops=2", "--openfiles=1"});
  std::vector<IoGenerator> gens;
  for (uint32_t i = 0; i < 3; i++) {
    auto g = IoGenerator::Create(FileJob(j, 0, i), 8192, FileSeed(1, i));
    ASSERT_TRUE(g.ok());
    gens.push_back(std::move(*g));
  }
  MultiFileSource src(std::move(gens), j.file_service, j.file_service_ios, 1, false,
                      PassLimits::Of(j, 24 * 1024, 0), j.openfiles);
  std::vector<std::pair<uint32_t, bool>> got;
  IoUnit u;
  while (src.next(&u)) got.push_back({u.file, u.opens});
  // openfiles=1: each file's two blocks, then the next file; twice.
  const std::vector<std::pair<uint32_t, bool>> want = {
      {0, true}, {0, false}, {1, true}, {1, false}, {2, true}, {2, false},
      {0, true}, {0, false}, {1, true}, {1, false}, {2, true}, {2, false}};
  EXPECT_EQ(got, want);
}

// One file: its first I/O of each pass opens it.
TEST(IoGeneratorOpens, FirstIoOfEachPass) {
  JobOptions j = ParseJob({"--name=m", "--size=8k", "--bs=4k", "--rw=read", "--loops=3"});
  auto g = IoGenerator::Create(j, 8192, 1);
  ASSERT_TRUE(g.ok());
  std::vector<bool> opens;
  IoUnit u;
  while (g->next(&u)) opens.push_back(u.opens);
  EXPECT_EQ(opens, (std::vector<bool>{true, false, true, false, true, false}));
}

TEST(MultiFileSource, RoundRobinEveryNIos) {
  EXPECT_EQ(Files({"--rw=read"}, 7), (std::vector<uint32_t>{0, 1, 2, 0, 1, 2, 0}));
  EXPECT_EQ(Files({"--rw=read", "--file_service_type=roundrobin:2"}, 7),
            (std::vector<uint32_t>{0, 0, 1, 1, 2, 2, 0}));
  // Size-bounded: every file its 16 blocks, 48 in all.
  std::vector<uint32_t> all = Files({"--rw=randread"}, 1000);
  ASSERT_EQ(all.size(), 48u);
}

TEST(MultiFileSource, SequentialCoversAFileThenTheNext) {
  std::vector<uint32_t> v = Files({"--rw=read", "--file_service_type=sequential"}, 1000);
  ASSERT_EQ(v.size(), 48u);
  for (size_t i = 0; i < v.size(); i++) EXPECT_EQ(v[i], i / 16) << i;
  // Time based: the files' regions in turn, and again.
  std::vector<uint32_t> t = Files({"--rw=randread", "--file_service_type=sequential",
                                   "--time_based", "--runtime=1"}, 64);
  for (size_t i = 0; i < t.size(); i++) EXPECT_EQ(t[i], (i / 16) % 3) << i;
}

TEST(MultiFileSource, RandomDrawsEveryFileAndKeepsShares) {
  std::vector<uint32_t> v = Files({"--rw=randread", "--file_service_type=random"}, 1000);
  ASSERT_EQ(v.size(), 48u);
  std::map<uint32_t, int> per;
  for (uint32_t f : v) per[f]++;
  EXPECT_EQ(per, (std::map<uint32_t, int>{{0, 16}, {1, 16}, {2, 16}}));
  // Not round robin: some file follows itself.
  bool repeat = false;
  for (size_t i = 1; i < v.size(); i++) repeat |= v[i] == v[i - 1];
  EXPECT_TRUE(repeat);
  // :N keeps a drawn file for N I/Os.
  std::vector<uint32_t> r4 = Files({"--rw=randread", "--file_service_type=random:4",
                                    "--time_based", "--runtime=1"}, 40);
  for (size_t i = 0; i < r4.size(); i += 4)
    for (size_t k = 1; k < 4; k++) EXPECT_EQ(r4[i + k], r4[i]) << i;
}

}  // namespace
}  // namespace blk::bench
