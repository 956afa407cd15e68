// FsCalls (run/fs_calls.h): each engine's call on a real file, and fio's
// words for a failed one.
#include "tools/block_bench/run/fs_calls.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace blk::bench {
namespace {

std::string TempDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/fs_calls.XXXXXX";
  EXPECT_NE(::mkdtemp(tmpl.data()), nullptr);
  return tmpl;
}

TEST(FsCalls, CreateStatDeleteOnARealFile) {
  const std::string dir = TempDir();
  const std::string f = dir + "/f";
  struct stat st;
  ASSERT_EQ(FsCalls::Call(IoEngine::kFilestat, StatType::kStat, f), -ENOENT);
  // filecreate: an empty file, mode 0600 (before the umask), as fio's.
  ASSERT_EQ(FsCalls::Call(IoEngine::kFilecreate, StatType::kStat, f), 0);
  ASSERT_EQ(::stat(f.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);
  EXPECT_EQ(st.st_mode & 0077, 0u);
  // Creating it again opens it again.
  EXPECT_EQ(FsCalls::Call(IoEngine::kFilecreate, StatType::kStat, f), 0);
  for (StatType t : {StatType::kStat, StatType::kLstat, StatType::kStatx})
    EXPECT_EQ(FsCalls::Call(IoEngine::kFilestat, t, f), 0) << int(t);
  // lstat sees a dangling link; stat and statx follow it.
  const std::string link = dir + "/l";
  ASSERT_EQ(::symlink((dir + "/missing").c_str(), link.c_str()), 0);
  EXPECT_EQ(FsCalls::Call(IoEngine::kFilestat, StatType::kLstat, link), 0);
  EXPECT_EQ(FsCalls::Call(IoEngine::kFilestat, StatType::kStat, link), -ENOENT);
  EXPECT_EQ(FsCalls::Call(IoEngine::kFilestat, StatType::kStatx, link), -ENOENT);
  EXPECT_EQ(FsCalls::Call(IoEngine::kFiledelete, StatType::kStat, f), 0);
  EXPECT_NE(::stat(f.c_str(), &st), 0);
  EXPECT_EQ(FsCalls::Call(IoEngine::kFiledelete, StatType::kStat, f), -ENOENT);
  // A create where no directory is.
  EXPECT_EQ(FsCalls::Call(IoEngine::kFilecreate, StatType::kStat, dir + "/no/f"), -ENOENT);
  EXPECT_EQ(FsCalls::Call(IoEngine::kNull, StatType::kStat, f), -EINVAL);
  ::unlink(link.c_str());
  ::rmdir(dir.c_str());
}

TEST(FsCalls, WhatNamesTheCallAsFio) {
  EXPECT_EQ(FsCalls::What(IoEngine::kFilecreate, StatType::kStat, "a"), "open(a)");
  EXPECT_EQ(FsCalls::What(IoEngine::kFiledelete, StatType::kStat, "a"), "delete(a)");
  EXPECT_EQ(FsCalls::What(IoEngine::kFilestat, StatType::kStat, "a"), "stat(a) type=1");
  EXPECT_EQ(FsCalls::What(IoEngine::kFilestat, StatType::kLstat, "a"), "stat(a) type=2");
  EXPECT_EQ(FsCalls::What(IoEngine::kFilestat, StatType::kStatx, "a"), "stat(a) type=3");
}

}  // namespace
}  // namespace blk::bench
