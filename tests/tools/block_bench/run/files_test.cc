// Several files per job: FileJob's per-file options and MultiFileSource's
// choice of file (fio's file_service_type).
#include "tools/block_bench/run/files.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "bench_test_util.h"

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
  MultiFileSource src(std::move(gens), j.file_service, j.file_service_ios, 1);
  std::vector<uint32_t> out;
  IoUnit u;
  while (out.size() < n && src.next(&u)) {
    EXPECT_LT(u.offset + u.len, 64u * 1024 + 1);  // within its file
    out.push_back(u.file);
  }
  return out;
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
