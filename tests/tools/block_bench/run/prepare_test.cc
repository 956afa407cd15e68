// PrepareTarget on real files: fio's layout (written out for reading jobs,
// preallocated for writing ones, sparse with create_on_open), the refusals
// (allow_file_create=0, a missing name in /dev) and /dev/shm as a place for
// files, page-cache invalidation and pre_read.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "bench_test_util.h"
#include "tools/block_bench/run/target.h"

namespace blk::bench {
namespace {

using testing::ParseJob;

std::string Tmp(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name + "." + std::to_string(getpid());
}

Expected<Prepared> Prepare(std::vector<std::string> args, Target* out = nullptr) {
  args.insert(args.begin(), "--name=j");
  auto t = JobTarget(ParseJob(args), 0);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  if (!t.ok()) return t.error();
  if (out) *out = *t;
  return PrepareTarget(*t);
}

struct stat Stat(const std::string& f) {
  struct stat st {};
  EXPECT_EQ(::stat(f.c_str(), &st), 0) << f;
  return st;
}

// A reading job's new file is written out: every block allocated, not zeros.
TEST(Prepare, ReadingJobLaysTheFileOut) {
  const std::string f = Tmp("layout_read");
  auto p = Prepare({"--filename=" + f, "--size=3m", "--rw=randread"});
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->action, "write");
  EXPECT_EQ(p->bytes, 3u << 20);
  struct stat st = Stat(f);
  EXPECT_EQ(st.st_size, 3 << 20);
  EXPECT_GE(uint64_t(st.st_blocks) * 512, 3u << 20) << "holes left in a laid-out file";
  int fd = ::open(f.c_str(), O_RDONLY);
  char buf[4096];
  ASSERT_EQ(::pread(fd, buf, sizeof buf, 2 << 20), ssize_t(sizeof buf));
  ::close(fd);
  int nonzero = 0;
  for (char c : buf) nonzero += c != 0;
  EXPECT_GT(nonzero, 3000) << "random buffer contents expected";
  // Already there in full: nothing to do.
  auto again = Prepare({"--filename=" + f, "--size=3m", "--rw=randread"});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->action, "");
  ::unlink(f.c_str());
}

TEST(Prepare, ShortFileIsExtendedKeepingItsData) {
  const std::string f = Tmp("layout_short");
  int fd = ::open(f.c_str(), O_CREAT | O_WRONLY, 0644);
  const char kMark[] = "keep me";
  ASSERT_EQ(::pwrite(fd, kMark, sizeof kMark, 0), ssize_t(sizeof kMark));
  ::close(fd);
  auto p = Prepare({"--filename=" + f, "--size=1m", "--rw=read", "--zero_buffers=1"});
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->bytes, (1u << 20) - sizeof kMark);
  fd = ::open(f.c_str(), O_RDONLY);
  char buf[sizeof kMark];
  ASSERT_EQ(::pread(fd, buf, sizeof buf, 0), ssize_t(sizeof buf));
  ::close(fd);
  EXPECT_STREQ(buf, kMark);
  ::unlink(f.c_str());
}

// A writing job's new file is preallocated, not written (fio's fallocate).
TEST(Prepare, WritingJobPreallocates) {
  const std::string f = Tmp("layout_write");
  auto p = Prepare({"--filename=" + f, "--size=2m", "--rw=randwrite"});
  ASSERT_TRUE(p.ok()) << p.error().message;
  struct stat st = Stat(f);
  EXPECT_EQ(st.st_size, 2 << 20);
  if (p->action == "allocate") {
    EXPECT_GE(uint64_t(st.st_blocks) * 512, 2u << 20);
  } else {
    ADD_FAILURE() << "action " << p->action;
  }
  ::unlink(f.c_str());
  // overwrite=1 writes it out instead; fallocate=none leaves it sparse.
  auto w = Prepare({"--filename=" + f, "--size=1m", "--rw=write", "--overwrite=1"});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->action, "write");
  ::unlink(f.c_str());
  auto n = Prepare({"--filename=" + f, "--size=1m", "--rw=write", "--fallocate=none"});
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->action, "sparse");
  EXPECT_LT(uint64_t(Stat(f).st_blocks) * 512, 1u << 20);
  ::unlink(f.c_str());
}

TEST(Prepare, CreateOnOpenLeavesItSparse) {
  const std::string f = Tmp("layout_coo");
  auto p = Prepare({"--filename=" + f, "--size=4m", "--rw=read", "--create_on_open=1"});
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->action, "sparse");
  struct stat st = Stat(f);
  EXPECT_EQ(st.st_size, 4 << 20);
  EXPECT_LT(uint64_t(st.st_blocks) * 512, 4u << 20);
  ::unlink(f.c_str());
}

TEST(Prepare, Refusals) {
  const std::string f = Tmp("layout_nocreate");
  auto p = Prepare({"--filename=" + f, "--size=1m", "--allow_file_create=0"});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("allow_file_create=0"), std::string::npos) << p.error().message;
  EXPECT_NE(::access(f.c_str(), F_OK), 0);
  auto dev = Prepare({"--filename=/dev/blkstack-no-such-disk", "--size=1m"});
  ASSERT_FALSE(dev.ok());
  EXPECT_NE(dev.error().message.find("no such device"), std::string::npos) << dev.error().message;
}

// /dev/shm is a tmpfs mounted below /dev: files there are files.
TEST(Prepare, DevShmIsAPlaceForFiles) {
  struct stat shm, dev;
  if (::stat("/dev/shm", &shm) != 0 || ::stat("/dev", &dev) != 0 || shm.st_dev == dev.st_dev) {
    GTEST_SKIP() << "SKIPPED: /dev/shm is not a separate mount here";
  }
  const std::string f = "/dev/shm/blkstack-prepare-test." + std::to_string(getpid());
  auto p = Prepare({"--filename=" + f, "--size=1m", "--rw=read"});
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->action, "write");
  ::unlink(f.c_str());
}

TEST(Prepare, BufferedJobsDropTheCacheOrPreRead) {
  const std::string f = Tmp("layout_cache");
  auto p = Prepare({"--filename=" + f, "--size=1m", "--rw=read"});
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_TRUE(p->invalidated);
  auto d = Prepare({"--filename=" + f, "--size=1m", "--rw=read", "--direct=1"});
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->invalidated);  // O_DIRECT bypasses the cache anyway
  auto r = Prepare({"--filename=" + f, "--size=1m", "--rw=read", "--pre_read=1"});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->invalidated);
  EXPECT_EQ(r->pre_read, 1u << 20);
  ::unlink(f.c_str());
}

}  // namespace
}  // namespace blk::bench
