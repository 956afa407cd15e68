// MaxLatency (run/features/max_latency.h): a successful, measured request
// slower than its direction's max_latency ends the job with ETIMEDOUT and
// is counted as a failed request; anything else passes.
#include "tools/block_bench/run/features/max_latency.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

namespace blk::bench {
namespace {

using std::chrono::microseconds;

struct Guard {
  explicit Guard(const JobOptions& j) : job(j), errors(&res, job.continue_on_error) {}
  void done(Dir d, uint64_t lat_ns, bool measured = true, Status st = Status(), uint32_t file = 0,
            uint64_t offset = 8192) {
    IoUnit u;
    u.dir = d;
    u.offset = offset;
    u.len = 4096;
    u.file = file;
    ml.on_complete(DoneIo{0, u, 1, lat_ns, lat_ns, nullptr, measured, st});
  }
  JobOptions job;
  CloneResult res;
  CloneErrors errors;
  MaxLatency ml{job, errors, {"dev0", "dev1"}};
};

JobOptions ReadMax(int64_t us) {
  JobOptions j;
  j.max_latency[int(Dir::kRead)] = microseconds(us);
  return j;
}

TEST(MaxLatency, Wanted) {
  EXPECT_FALSE(MaxLatency::Wanted(JobOptions{}));
  EXPECT_TRUE(MaxLatency::Wanted(ReadMax(1)));
  JobOptions t;
  t.max_latency[int(Dir::kTrim)] = microseconds(5);
  EXPECT_TRUE(MaxLatency::Wanted(t));
}

TEST(MaxLatency, ASlowerRequestEndsTheJobWithEtimedout) {
  Guard g(ReadMax(100));
  EXPECT_EQ(g.ml.points(), unsigned(SubmitHook::kOnComplete));
  g.done(Dir::kRead, 100'000);  // at the limit: fine
  EXPECT_FALSE(g.errors.stopped());
  g.done(Dir::kRead, 100'001, true, Status(), /*file=*/1, /*offset=*/4096);
  EXPECT_TRUE(g.errors.stopped());
  EXPECT_EQ(g.res.error, ETIMEDOUT);
  EXPECT_EQ(g.res.error_message,
            "read on 'dev1' at offset 4096 took 100001 ns, more than max_latency=100000 ns");
  EXPECT_EQ(g.res.total_errors, 1u);
  EXPECT_EQ(g.res.first_error, ETIMEDOUT);
  EXPECT_EQ(g.res.first_error_message, "max_latency exceeded");
}

TEST(MaxLatency, OnlyMeasuredSuccessfulRequestsCount) {
  Guard g(ReadMax(100));
  g.done(Dir::kRead, 5'000'000, /*measured=*/false);
  g.done(Dir::kRead, 5'000'000, true, Status(-EIO));
  EXPECT_FALSE(g.errors.stopped());
  EXPECT_EQ(g.res.error, 0);
  EXPECT_EQ(g.res.total_errors, 0u);
}

TEST(MaxLatency, EachDirectionHasItsOwnLimit) {
  JobOptions j = ReadMax(100);
  j.max_latency[int(Dir::kWrite)] = microseconds(1000);
  Guard g(j);
  g.done(Dir::kWrite, 500'000);  // over the read limit, within the write one
  g.done(Dir::kTrim, 50'000'000);  // no trim limit
  EXPECT_FALSE(g.errors.stopped());
  g.done(Dir::kWrite, 1'000'001);
  EXPECT_TRUE(g.errors.stopped());
  EXPECT_NE(g.res.error_message.find("write on 'dev0'"), std::string::npos) << g.res.error_message;
  EXPECT_NE(g.res.error_message.find("max_latency=1000000 ns"), std::string::npos);
}

// continue_on_error does not cover it: ETIMEDOUT is not in fio's
// non-fatal list.
TEST(MaxLatency, ContinueOnErrorDoesNotCoverIt) {
  JobOptions j = ReadMax(10);
  j.continue_on_error = ContinueOnError::kAll;
  Guard g(j);
  g.done(Dir::kRead, 20'000);
  EXPECT_TRUE(g.errors.stopped());
  EXPECT_EQ(g.res.error, ETIMEDOUT);
}

TEST(MaxLatency, TheJobKeepsTheFirstErrorButCountsEverySlowRequest) {
  Guard g(ReadMax(10));
  g.done(Dir::kRead, 20'000, true, Status(), 0, 0);
  g.done(Dir::kRead, 30'000, true, Status(), 0, 4096);
  EXPECT_EQ(g.res.total_errors, 2u);
  EXPECT_NE(g.res.error_message.find("at offset 0 took 20000 ns"), std::string::npos)
      << g.res.error_message;
}

}  // namespace
}  // namespace blk::bench
