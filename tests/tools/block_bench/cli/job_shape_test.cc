// JobShape: equal for jobs the MPI ranks can run together, different when a
// rank's jobs would change the order of the collectives or the report.
#include "tools/block_bench/cli/job_shape.h"

#include <gtest/gtest.h>

#include "cli_test_util.h"

namespace blk::bench::cli {
namespace {

using testing::Jobs;

std::vector<std::string> Two(const std::string& a_opt, const std::string& b_opt) {
  std::vector<std::string> args = {"--name=a", "--ioengine=null", "--size=1m"};
  if (!a_opt.empty()) args.push_back(a_opt);
  args.insert(args.end(), {"--name=b", "--ioengine=null", "--size=1m"});
  if (!b_opt.empty()) args.push_back(b_opt);
  return args;
}

TEST(JobShape, TargetsSizesAndBlockSizesMayDiffer) {
  const uint64_t base = JobShape(Jobs(Two("", "")));
  EXPECT_EQ(JobShape(Jobs(Two("--size=8m", "--bs=64k"))), base);
  EXPECT_EQ(JobShape(Jobs(Two("--rw=randwrite", "--iodepth=32"))), base);
  EXPECT_EQ(JobShape(Jobs(Two("", "--filename=/tmp/rank1"))), base);
}

TEST(JobShape, WhatOrdersTheCollectivesMayNot) {
  const uint64_t base = JobShape(Jobs(Two("", "")));
  EXPECT_NE(JobShape(Jobs(Two("--numjobs=2", ""))), base);
  EXPECT_NE(JobShape(Jobs(Two("", "--stonewall"))), base);
  EXPECT_NE(JobShape(Jobs(Two("", "--new_group"))), base);
  EXPECT_NE(JobShape(Jobs(Two("--group_reporting", ""))), base);
  EXPECT_NE(JobShape(Jobs(Two("--ramp_time=1", ""))), base);
}

TEST(JobShape, TheNumberOfJobs) {
  const auto two = Jobs(Two("", ""));
  ASSERT_EQ(two.size(), 2u);
  const std::vector<JobOptions> one(two.begin(), two.begin() + 1);
  EXPECT_NE(JobShape(one), JobShape(two));
  EXPECT_NE(JobShape({}), JobShape(one));
  // The same fields in another job: the order counts.
  EXPECT_NE(JobShape(Jobs(Two("--numjobs=2", ""))), JobShape(Jobs(Two("", "--numjobs=2"))));
}

}  // namespace
}  // namespace blk::bench::cli
