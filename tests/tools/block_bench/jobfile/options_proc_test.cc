// Process and scheduling options as fio 3.33 reads them: exec_prerun,
// exec_postrun, wait_for, nice, clocksource, gtod_cpu.
#include <gtest/gtest.h>

#include "tests/tools/block_bench/jobfile/test_util.h"
#include "tools/block_bench/jobfile/option_table.h"

namespace blk::bench {
namespace {

using testing::FileError;
using testing::OneError;
using testing::ParseOne;

TEST(ProcOptions, ExecCommandsKeptAsWritten) {
  const JobOptions j = ParseOne("exec_prerun=echo a && echo b >&2\nexec_postrun=date +%s");
  EXPECT_EQ(j.proc.exec_prerun, "echo a && echo b >&2");
  EXPECT_EQ(j.proc.exec_postrun, "date +%s");
  EXPECT_TRUE(ParseOne("").proc.exec_prerun.empty());
  // In a job file ';' starts a comment, as in fio's (its exec_prerun=a; b
  // runs a alone); the command line keeps it.
  EXPECT_EQ(ParseOne("exec_prerun=echo a; echo b").proc.exec_prerun, "echo a");
  auto cl = testing::Cmd({"--name=x", "--exec_prerun=echo a; echo b"});
  ASSERT_TRUE(cl.ok()) << cl.error().message;
  EXPECT_EQ(cl.value().jobs[0].proc.exec_prerun, "echo a; echo b");
}

TEST(ProcOptions, NiceInFiosRange) {
  EXPECT_EQ(ParseOne("nice=19").proc.nice, 19);
  EXPECT_EQ(ParseOne("nice=-20").proc.nice, -20);
  EXPECT_EQ(ParseOne("").proc.nice, 0);
  EXPECT_OPTION_ERROR("nice=20", 2, "nice", "20");
  EXPECT_OPTION_ERROR("nice=-21", 2, "nice", "-21");
  EXPECT_OPTION_ERROR("nice=x", 2, "nice", "x");
}

TEST(ProcOptions, ClocksourceTakesFiosValuesOnly) {
  for (const char* c : {"gettimeofday", "clock_gettime", "cpu"})
    EXPECT_EQ(ParseOne(std::string("clocksource=") + c).proc.clocksource, c);
  EXPECT_OPTION_ERROR("clocksource=tsc", 2, "clocksource", "tsc");
}

TEST(ProcOptions, GtodCpu) {
  EXPECT_EQ(*ParseOne("gtod_cpu=1").proc.gtod_cpu, 1u);
  EXPECT_FALSE(ParseOne("").proc.gtod_cpu);
  EXPECT_OPTION_ERROR("gtod_cpu=-1", 2, "gtod_cpu", "-1");
}

TEST(ProcOptions, LockmemIsASize) {
  EXPECT_EQ(ParseOne("lockmem=16m").proc.lockmem, uint64_t(16) << 20);
  EXPECT_EQ(ParseOne("kb_base=1000\nlockmem=1m").proc.lockmem, 1000000u);
  EXPECT_EQ(ParseOne("").proc.lockmem, 0u);
  EXPECT_OPTION_ERROR("lockmem=lots", 2, "lockmem", "lots");
}

TEST(ProcOptions, WaitForItselfIsAnError) {
  EXPECT_EQ(ParseOne("wait_for=other").proc.wait_for, "other");
  const std::string e = OneError("wait_for=job");
  EXPECT_NE(e.find("job.fio:1: wait_for=job: a job cannot wait for itself"), std::string::npos) << e;
}

TEST(ProcOptions, NoLongerRefused) {
  for (const char* n : {"exec_prerun", "exec_postrun", "wait_for", "nice", "clocksource", "gtod_cpu",
                        "lockmem", "ioscheduler"}) {
    EXPECT_TRUE(FindOption(n)) << n;
    EXPECT_FALSE(UnsupportedFioOptionReason(n)) << n;
  }
}

}  // namespace
}  // namespace blk::bench
