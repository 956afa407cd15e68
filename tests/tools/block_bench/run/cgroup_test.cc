// The cgroup parts on a directory tree that stands in for a cgroup mount
// (the files a cgroup file system has are plain files here): which mount
// fio's rule picks, the group made and joined (the thread id in its
// tasks file, the weight in blkio.weight), leaving, and the removal at the
// end of the run.  cgroup_e2e_test runs the binary on the real blkio
// mount beside fio.
#include "tools/block_bench/run/cgroup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace blk::bench {
namespace {

std::string TempDir() {
  std::string t = std::string(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp") + "/cg.XXXXXX";
  EXPECT_NE(mkdtemp(t.data()), nullptr);
  return t;
}

std::string Read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string Mounts(const std::string& body) {
  const std::string p = TempDir() + "/mounts";
  std::ofstream(p) << body;
  return p;
}

TEST(Cgroup, FirstBlkioOrCgroup2MountAsFio) {
  const std::string v1 =
      "proc /proc proc rw 0 0\n"
      "cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n"
      "cgroup /sys/fs/cgroup/blkio cgroup rw,relatime,blkio 0 0\n"
      "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n";
  Expected<CgroupMount> m = FindCgroupMount(Mounts(v1));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m.value().path, "/sys/fs/cgroup/blkio");
  EXPECT_FALSE(m.value().v2);
  m = FindCgroupMount(Mounts("cgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0\n" + v1));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.value().path, "/sys/fs/cgroup");
  EXPECT_TRUE(m.value().v2);
  // "blkio" as a whole option, not a part of one.
  m = FindCgroupMount(Mounts("cgroup /x cgroup rw,blkiox 0 0\nproc /proc proc rw 0 0\n"));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, -ENOENT);
  EXPECT_NE(m.error().message.find("does not appear to be mounted"), std::string::npos);
  EXPECT_EQ(FindCgroupMount("/nonexistent/mounts").error().code, -ENOENT);
}

TEST(Cgroup, JoinMakesWeighsAndJoins) {
  const CgroupMount mount{TempDir(), false};
  std::string tid;
  {
    CgroupDirs dirs;
    std::thread t([&] {
      tid = std::to_string(gettid());
      const Expected<void> r = JoinCgroup(mount, "bench", 300, false, dirs);
      ASSERT_TRUE(r.ok()) << r.error().message;
      LeaveCgroup(mount);
    });
    t.join();
    EXPECT_EQ(Read(mount.path + "/bench/tasks"), tid);
    EXPECT_EQ(Read(mount.path + "/bench/blkio.weight"), "300");
    EXPECT_EQ(Read(mount.path + "/tasks"), tid);  // left: back in the root group
    // rmdir of a real cgroup needs no files removed; here they are plain
    // files, so the directory stays until they go.
    unlink((mount.path + "/bench/tasks").c_str());
    unlink((mount.path + "/bench/blkio.weight").c_str());
  }
  EXPECT_FALSE(Exists(mount.path + "/bench")) << "the run's group outlived the run";
}

TEST(Cgroup, ExistingAndKeptGroupsStay) {
  const CgroupMount mount{TempDir(), false};
  ASSERT_EQ(mkdir((mount.path + "/there").c_str(), 0755), 0);
  {
    CgroupDirs dirs;
    ASSERT_TRUE(JoinCgroup(mount, "there", 0, false, dirs).ok());
    ASSERT_TRUE(JoinCgroup(mount, "kept", 0, true, dirs).ok());
    EXPECT_FALSE(Exists(mount.path + "/there/blkio.weight"));  // weight 0: not written
    unlink((mount.path + "/there/tasks").c_str());
    unlink((mount.path + "/kept/tasks").c_str());
  }
  EXPECT_TRUE(Exists(mount.path + "/there"));
  EXPECT_TRUE(Exists(mount.path + "/kept"));
}

TEST(Cgroup, ErrorsNameThePathAndErrno) {
  const CgroupMount mount{TempDir(), false};
  CgroupDirs dirs;
  Expected<void> r = JoinCgroup(mount, "a/b", 0, false, dirs);  // no a: mkdir fails
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -ENOENT);
  EXPECT_NE(r.error().message.find("mkdir " + mount.path + "/a/b"), std::string::npos)
      << r.error().message;
  const CgroupMount v2{mount.path, true};
  r = JoinCgroup(v2, "w", 500, false, dirs);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cgroup2"), std::string::npos) << r.error().message;
  unlink((mount.path + "/w/cgroup.procs").c_str());
}

}  // namespace
}  // namespace blk::bench
