// What a finished run says went wrong (CloneErrors) and its exit status.
#include "tools/block_bench/cli/run_status.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <string>
#include <vector>

namespace blk::bench::cli {
namespace {

using Lines = std::vector<std::string>;

struct OneClone {
  JobOptions job;
  RunResult run;
  OneClone() {
    job.name = "j";
    run.clones.resize(1);
    run.clones[0].job = &job;
    run.clones[0].clone = 1;
  }
  CloneResult& clone() { return run.clones[0]; }
};

TEST(CloneErrors, NoneForACleanClone) {
  OneClone r;
  EXPECT_EQ(CloneErrors(r.run, ""), Lines{});
}

TEST(CloneErrors, TheErrorThatEndedTheClone) {
  OneClone r;
  r.clone().error = EIO;
  r.clone().error_message = "read at 0: I/O error";
  r.clone().total_errors = 1;  // that same error: not repeated
  r.clone().first_error_message = "read at 0: I/O error";
  EXPECT_EQ(CloneErrors(r.run, ""), Lines{"job 'j' (clone 1): read at 0: I/O error"});
}

TEST(CloneErrors, FailedRequestsBesidesTheError) {
  OneClone r;
  r.clone().error = EIO;
  r.clone().error_message = "the last";
  r.clone().total_errors = 3;
  r.clone().first_error_message = "the first";
  EXPECT_EQ(CloneErrors(r.run, ""),
            (Lines{"job 'j' (clone 1): the last",
                   "job 'j' (clone 1): 3 failed requests in all; the first: the first"}));
}

TEST(CloneErrors, RequestsContinueOnErrorWentPast) {
  OneClone r;
  r.clone().total_errors = 1;
  r.clone().first_error_message = "write at 4096: EIO";
  EXPECT_EQ(CloneErrors(r.run, "rank 1 (h): "),
            Lines{"rank 1 (h): job 'j' (clone 1): 1 failed request (continue_on_error went past "
                  "them); the first: write at 4096: EIO"});
}

TEST(CloneErrors, BlocksNeverVerified) {
  OneClone r;
  r.clone().verify_not_verified = 1;
  EXPECT_EQ(CloneErrors(r.run, ""),
            Lines{"job 'j' (clone 1): 1 written block was never verified (failed writes, writes "
                  "that overlapped in flight, or an earlier error)"});
  r.clone().verify_not_verified = 5;
  r.clone().interrupted = true;
  EXPECT_EQ(CloneErrors(r.run, ""),
            Lines{"job 'j' (clone 1): 5 written blocks were never verified (interrupted)"});
}

TEST(CloneErrors, EveryCloneInOrder) {
  JobOptions a, b;
  a.name = "a";
  b.name = "b";
  RunResult run;
  run.clones.resize(3);
  run.clones[0].job = &a;
  run.clones[1].job = &b;
  run.clones[2].job = &b;
  run.clones[2].clone = 1;
  run.clones[0].error_message = "x";
  run.clones[0].error = 1;
  run.clones[2].error_message = "y";
  run.clones[2].error = 1;
  EXPECT_EQ(CloneErrors(run, ""), (Lines{"job 'a' (clone 0): x", "job 'b' (clone 1): y"}));
}

TEST(ExitStatus, CleanFailedInterrupted) {
  OneClone r;
  EXPECT_EQ(ExitStatus(r.run), 0);
  r.clone().total_errors = 1;  // continue_on_error went past it: still a failure (fio)
  EXPECT_EQ(ExitStatus(r.run), 1);
  r.clone().total_errors = 0;
  r.run.setup_error = MakeError(-EMFILE, "too many files");
  EXPECT_EQ(ExitStatus(r.run), 1);
  r.run.setup_error.reset();
  r.run.sync_error = MakeError(-ECANCELED, "rank 1 failed");
  EXPECT_EQ(ExitStatus(r.run), 1);
  // An interrupted run is 128+N, failed or not.
  r.run.interrupted_by = SIGTERM;
  EXPECT_EQ(ExitStatus(r.run), 143);
  r.run.sync_error.reset();
  r.run.interrupted_by = SIGINT;
  EXPECT_EQ(ExitStatus(r.run), 130);
}

TEST(InterruptedStatus, ARequestWithoutASignalCountsAsSigint) {
  EXPECT_EQ(InterruptedStatus(SIGINT), 130);
  EXPECT_EQ(InterruptedStatus(SIGTERM), 143);
  EXPECT_EQ(InterruptedStatus(-1), 130);
}

TEST(PrintInterrupted, NamesTheSignal) {
  ::testing::internal::CaptureStderr();
  PrintInterrupted(SIGTERM);
  PrintInterrupted(-1);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "block-bench: interrupted by SIGTERM: the jobs stopped early; the report covers what "
            "ran\n"
            "block-bench: interrupted by SIGINT: the jobs stopped early; the report covers what "
            "ran\n");
}

}  // namespace
}  // namespace blk::bench::cli
