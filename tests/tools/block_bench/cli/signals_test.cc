// SIGINT/SIGTERM: the first asks the run to stop and says so; a second
// exits at once with 128+N.
#include "tools/block_bench/cli/signals.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace blk::bench::cli {
namespace {

TEST(StopOnSignals, TheFirstSignalRequestsAStop) {
  static StopSource stop;  // outlives the handler, as StopOnSignals requires
  StopOnSignals(&stop);
  ::testing::internal::CaptureStderr();
  raise(SIGTERM);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "\nblock-bench: SIGTERM: stopping the jobs (again to exit at once)\n");
  EXPECT_TRUE(stop.requested());
  EXPECT_EQ(stop.signal(), SIGTERM);
}

TEST(StopOnSignalsDeathTest, TheSecondExitsAtOnceWith128PlusN) {
  EXPECT_EXIT(
      {
        static StopSource stop;
        StopOnSignals(&stop);
        raise(SIGINT);
        raise(SIGINT);
        std::exit(0);  // not reached
      },
      ::testing::ExitedWithCode(128 + SIGINT),
      "SIGINT: stopping the jobs \\(again to exit at once\\)\n\nblock-bench: interrupted again: "
      "exiting now");
  // The status is the second signal's.
  EXPECT_EXIT(
      {
        static StopSource stop;
        StopOnSignals(&stop);
        raise(SIGINT);
        raise(SIGTERM);
        std::exit(0);
      },
      ::testing::ExitedWithCode(128 + SIGTERM), "interrupted again");
}

}  // namespace
}  // namespace blk::bench::cli
