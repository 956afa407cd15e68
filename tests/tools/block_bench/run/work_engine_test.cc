// WorkEngine (run/work_engine.h): cpuio's burn and pause, exec's argument
// line, its program started, redirected and stopped, on a real loop and
// real processes.
#include "tools/block_bench/run/work_engine.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <blkstack/util/aio_context.h>
#include <blkstack/util/clock.h>
#include <blkstack/util/task.h>

namespace blk::bench {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// What a FILE* received.
std::string Written(FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  return out;
}

// A scratch directory the test works in (exec writes JOB.stdout there).
class InTempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = std::getenv("TEST_TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/work_engine.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    ASSERT_NE(::getcwd(old_, sizeof old_), nullptr);
    ASSERT_EQ(::chdir(dir_.c_str()), 0);
  }
  void TearDown() override {
    ASSERT_EQ(::chdir(old_), 0);
    (void)std::system(("rm -rf '" + dir_ + "'").c_str());
  }
  std::string dir_;
  char old_[4096] = {};
};

TEST(CpuBurn, PauseKeepsTheThreadBusyCpuloadPercent) {
  EXPECT_EQ(CpuBurn::PauseAfter(10000, 50).count(), 10000);
  EXPECT_EQ(CpuBurn::PauseAfter(10000, 25).count(), 30000);
  EXPECT_EQ(CpuBurn::PauseAfter(10000, 100).count(), 0);
  EXPECT_EQ(CpuBurn::PauseAfter(50000, 1).count(), 4950000);
}

TEST(CpuBurn, NoopSpinsOneChunkAndAnnouncesItself) {
  CpuioOptions o;
  o.load = 150;  // fio: above 100 is 100
  o.chunk = std::chrono::microseconds(3000);
  FILE* info = std::tmpfile();
  ASSERT_NE(info, nullptr);
  CpuBurn b(o, "burn", info);
  EXPECT_EQ(Written(info), "burn (noop): ioengine=cpuio, cpuload=100, cpucycle=3000\n");
  std::fclose(info);
  EXPECT_EQ(b.pause().count(), 0);
  const int64_t t0 = NowNs();
  b.burn();
  EXPECT_GE(NowNs() - t0, 3'000'000);
}

TEST(CpuBurn, QsortSizesThePauseFromTheBurn) {
  CpuioOptions o;
  o.load = 20;
  o.mode = CpuioOptions::Mode::kQsort;
  CpuBurn b(o, "sort", nullptr);
  EXPECT_EQ(b.pause().count(), 50000 * 4);  // from cpuchunks until a burn is measured
  const int64_t t0 = NowNs();
  b.burn();
  const int64_t burn_us = (NowNs() - t0) / 1000;
  // Sorting 1 MiB four ways takes a while; the pause is 4x the burn.
  EXPECT_GT(b.pause().count(), 0);
  EXPECT_LE(b.pause().count(), burn_us * 4);
}

TEST(ExecProgram, ArgvSubstitutesRuntimeAndNameAndSplitsAtSpaces) {
  using V = std::vector<std::string>;
  EXPECT_EQ(ExecProgram::Argv("/bin/p", "", 15, "j"), V{"/bin/p"});
  EXPECT_EQ(ExecProgram::Argv("/bin/p", "-c  package %r  --name=%n%n", 15, "j"),
            (V{"/bin/p", "-c", "package", "15", "--name=jj"}));
  // A name holding %r is not substituted again.
  EXPECT_EQ(ExecProgram::Argv("p", "%n", 3, "a%rb"), (V{"p", "a%rb"}));
}

TEST_F(InTempDir, ExecStartsOnceRedirectsAndStopsTheProgram) {
  JobOptions job;
  job.name = "ex";
  job.ioengine = IoEngine::kExec;
  job.runtime = std::chrono::seconds(7);
  // A script that reports its arguments, then waits.
  {
    std::ofstream s("prog.sh");
    s << "#!/bin/sh\necho \"args: $*\"\necho oops >&2\nexec sleep 60\n";
  }
  ASSERT_EQ(::chmod("prog.sh", 0755), 0);
  job.exec.program = "./prog.sh";
  job.exec.arguments = "%n %r";
  FILE* info = std::tmpfile();
  ASSERT_NE(info, nullptr);
  AioContext ctx;
  SleepGroup sleeps;
  ExecProgram e(job, info, stderr);
  EXPECT_EQ(e.pid(), 0);
  EXPECT_EQ(RunSync(ctx, e.perform(ctx, sleeps)), 0);
  ASSERT_GT(e.pid(), 0);
  const pid_t pid = e.pid();
  // Later I/Os watch it every 50 ms and never start another.
  const int64_t t0 = NowNs();
  EXPECT_EQ(RunSync(ctx, e.perform(ctx, sleeps)), 0);
  EXPECT_GE(NowNs() - t0, 50'000'000);
  EXPECT_EQ(e.pid(), pid);
  EXPECT_EQ(e.pause().count(), 50000);
  // Until the script has written its line, ex.stdout may be empty.
  for (int i = 0; i < 500 && Slurp("ex.stdout").empty(); i++) ::usleep(10000);
  EXPECT_EQ(Slurp("ex.stdout"), "args: ex 7\n");
  for (int i = 0; i < 500 && Slurp("ex.stderr").empty(); i++) ::usleep(10000);
  EXPECT_EQ(Slurp("ex.stderr"), "oops\n");
  RunSync(ctx, e.finish(ctx, sleeps));
  ASSERT_TRUE(e.reaped());
  EXPECT_TRUE(WIFSIGNALED(e.wait_status()));
  EXPECT_EQ(WTERMSIG(e.wait_status()), SIGTERM);
  // Reaped by the engine: nothing left for anyone to wait for.
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
  EXPECT_EQ(Written(info),
            "ex : program=./prog.sh, arguments=%n %r\n"
            "ex : Saving output of ./prog.sh ex 7 : stdout=ex.stdout stderr=ex.stderr\n");
  std::fclose(info);
}

TEST_F(InTempDir, ExecKillsAProgramThatIgnoresSigtermAfterTheGraceTime) {
  {
    std::ofstream s("stubborn.sh");
    s << "#!/bin/sh\ntrap '' TERM\ntouch ready\nwhile :; do sleep 1; done\n";
  }
  ASSERT_EQ(::chmod("stubborn.sh", 0755), 0);
  JobOptions job;
  job.name = "st";
  job.exec.program = "./stubborn.sh";
  job.exec.grace_time = 1;
  AioContext ctx;
  SleepGroup sleeps;
  ExecProgram e(job, nullptr, stderr);
  EXPECT_EQ(RunSync(ctx, e.perform(ctx, sleeps)), 0);
  ASSERT_GT(e.pid(), 0);
  struct stat st;
  for (int i = 0; i < 500 && ::stat("ready", &st) != 0; i++) ::usleep(10000);
  ASSERT_EQ(::stat("ready", &st), 0) << "the script did not start";
  const int64_t t0 = NowNs();
  RunSync(ctx, e.finish(ctx, sleeps));
  EXPECT_GE(NowNs() - t0, 1'000'000'000);  // its grace time, then SIGKILL
  ASSERT_TRUE(e.reaped());
  EXPECT_TRUE(WIFSIGNALED(e.wait_status()));
  EXPECT_EQ(WTERMSIG(e.wait_status()), SIGKILL);
}

TEST_F(InTempDir, ExecOfAMissingProgramWarnsAndGoesOn) {
  JobOptions job;
  job.name = "gone";
  job.exec.program = "/nonexistent/prog";
  job.exec.std_redirect = false;
  FILE* msgs = std::tmpfile();
  ASSERT_NE(msgs, nullptr);
  AioContext ctx;
  SleepGroup sleeps;
  ExecProgram e(job, nullptr, msgs);
  EXPECT_EQ(RunSync(ctx, e.perform(ctx, sleeps)), 0);
  EXPECT_EQ(e.pid(), 0);
  EXPECT_EQ(Written(msgs),
            "gone: exec: cannot run '/nonexistent/prog': No such file or directory\n");
  std::fclose(msgs);
  RunSync(ctx, e.finish(ctx, sleeps));  // nothing to stop
}

}  // namespace
}  // namespace blk::bench
