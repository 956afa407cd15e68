// Helpers for block-bench runner/report tests: jobs from fio-style arguments
// through the real parser.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tools/block_bench/jobfile/cmdline.h"
#include "tools/block_bench/jobfile/parse_env.h"

namespace blk::bench::testing {

inline std::vector<JobOptions> ParseJobs(const std::vector<std::string>& args) {
  auto cl = ParseCommandLine(args, ParseEnvironment::FromSystem());
  EXPECT_TRUE(cl.ok()) << (cl.ok() ? "" : cl.error().message);
  if (!cl.ok()) return {};
  return cl->jobs;
}

inline JobOptions ParseJob(const std::vector<std::string>& args) {
  auto jobs = ParseJobs(args);
  EXPECT_EQ(jobs.size(), 1u);
  return jobs.empty() ? JobOptions{} : jobs[0];
}

}  // namespace blk::bench::testing
