// I/O priority options as fio 3.33 reads them: prio, prioclass, and the
// libaio / io_uring options cmdprio_percentage, cmdprio_class, cmdprio,
// cmdprio_bssplit.
#include <gtest/gtest.h>

#include "tests/tools/block_bench/jobfile/test_util.h"

namespace blk::bench {
namespace {

using testing::OneError;
using testing::ParseOne;

TEST(PrioOptions, JobPriorityAndItsIoprioValue) {
  EXPECT_EQ(ParseOne("").ioprio.job_ioprio(), 0) << "no priority unless written";
  const JobOptions j = ParseOne("prio=3\nprioclass=1");
  EXPECT_EQ(*j.ioprio.prio, 3u);
  EXPECT_EQ(*j.ioprio.prioclass, 1u);
  EXPECT_EQ(j.ioprio.job_ioprio(), (1 << 13) | 3);
  // Class 0 (or none) is best-effort, as fio's ioprio_value.
  EXPECT_EQ(ParseOne("prio=5").ioprio.job_ioprio(), (2 << 13) | 5);
  EXPECT_EQ(ParseOne("prioclass=0\nprio=2").ioprio.job_ioprio(), (2 << 13) | 2);
  EXPECT_EQ(ParseOne("prioclass=3").ioprio.job_ioprio(), 3 << 13);
  EXPECT_OPTION_ERROR("prio=8", 2, "prio", "8");
  EXPECT_OPTION_ERROR("prioclass=4", 2, "prioclass", "4");
}

TEST(PrioOptions, CmdprioPerDirection) {
  const JobOptions j = ParseOne("ioengine=libaio\ncmdprio_percentage=30,40\ncmdprio=3\ncmdprio_class=2,3");
  EXPECT_EQ(j.ioprio.cmdprio_percentage[0], 30u);
  EXPECT_EQ(j.ioprio.cmdprio_percentage[1], 40u);
  EXPECT_EQ(j.ioprio.cmdprio[0], 3u);
  EXPECT_EQ(j.ioprio.cmdprio[1], 3u);
  EXPECT_EQ(j.ioprio.cmdprio_class[0], 2u);
  EXPECT_EQ(j.ioprio.cmdprio_class[1], 3u);
  EXPECT_TRUE(j.ioprio.per_request());
  EXPECT_FALSE(ParseOne("ioengine=io_uring\ncmdprio=3").ioprio.per_request())
      << "cmdprio alone picks no request";
  EXPECT_OPTION_ERROR("ioengine=libaio\ncmdprio_percentage=101", 3, "cmdprio_percentage", "101");
  EXPECT_OPTION_ERROR("ioengine=libaio\ncmdprio_class=0", 3, "cmdprio_class", "0");
  EXPECT_OPTION_ERROR("ioengine=libaio\ncmdprio=8", 3, "cmdprio", "8");
}

TEST(PrioOptions, CmdprioOnlyWithLibaioOrIoUring) {
  EXPECT_EQ(OneError("cmdprio_percentage=30"),
            "job.fio:2: option 'cmdprio_percentage' is only valid with ioengine=libaio or io_uring "
            "(ioengine is psync)");
  EXPECT_EQ(OneError("ioengine=null\ncmdprio_bssplit=4k/10"),
            "job.fio:3: option 'cmdprio_bssplit' is only valid with ioengine=libaio or io_uring "
            "(ioengine is null)");
  EXPECT_EQ(ParseOne("ioengine=io_uring\ncmdprio_percentage=10").ioprio.cmdprio_percentage[1], 10u);
}

TEST(PrioOptions, BssplitBothFormatsSortedBySize) {
  const JobOptions j = ParseOne("ioengine=libaio\ncmdprio_bssplit=64k/50:4k/10/1/2:4k/20,8k/100/3/7");
  const auto& r = j.ioprio.cmdprio_bssplit[0];
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].bs, 4096u);
  EXPECT_EQ(r[0].percentage, 10u);
  EXPECT_EQ(*r[0].prioclass, 1u);
  EXPECT_EQ(*r[0].level, 2u);
  EXPECT_EQ(r[1].bs, 4096u);
  EXPECT_FALSE(r[1].prioclass) << "no class/level: cmdprio_class/cmdprio apply";
  EXPECT_EQ(r[2].bs, 65536u);
  ASSERT_EQ(j.ioprio.cmdprio_bssplit[1].size(), 1u);
  EXPECT_EQ(*j.ioprio.cmdprio_bssplit[1][0].prioclass, 3u);
  EXPECT_OPTION_ERROR("ioengine=libaio\ncmdprio_bssplit=4k/10/1", 3, "cmdprio_bssplit",
                      "expected blocksize/percentage or blocksize/percentage/class/level");
  EXPECT_OPTION_ERROR("ioengine=libaio\ncmdprio_bssplit=4k/60:4k/50", 3, "cmdprio_bssplit",
                      "total percentage for bs 4096 exceeds 100");
  EXPECT_OPTION_ERROR("ioengine=libaio\ncmdprio_bssplit=4k/10/4/0", 3, "cmdprio_bssplit", "class");
}

TEST(PrioOptions, PercentageAndBssplitExclusive) {
  const std::string e = OneError("ioengine=libaio\ncmdprio_percentage=10\ncmdprio_bssplit=4k/10");
  EXPECT_NE(e.find("job.fio"), std::string::npos) << e;
  EXPECT_NE(e.find("cmdprio_percentage and cmdprio_bssplit are mutually exclusive"), std::string::npos) << e;
}

}  // namespace
}  // namespace blk::bench
