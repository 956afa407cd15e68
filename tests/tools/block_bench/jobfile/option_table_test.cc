// The option table's look-ups: names, aliases and "did you mean" suggestions.
#include "tools/block_bench/jobfile/option_table.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/tools/block_bench/jobfile/test_util.h"

namespace blk::bench {
namespace {

TEST(SuggestOption, NearMissesOnly) {
  EXPECT_EQ(SuggestOption("iodepht"), "iodepth");
  EXPECT_EQ(SuggestOption("runetime"), "runtime");
  EXPECT_EQ(SuggestOption("frobnicate"), std::nullopt);
  EXPECT_EQ(SuggestOption(""), std::nullopt);
}

TEST(SuggestOption, LongNamesAreNotCompared) {
  // Edit distance against every option name took ~22 s per MB of name; names
  // longer than kMaxSuggestedNameLength are not compared at all, even a near
  // miss.
  EXPECT_EQ(SuggestOption(std::string(1 << 20, 'x')), std::nullopt);
  EXPECT_EQ(SuggestOption("iodepth" + std::string(kMaxSuggestedNameLength, 'h')), std::nullopt);
  EXPECT_EQ(SuggestOption("iodeptth"), "iodepth");
}

TEST(SuggestOption, HugeUnknownNameInAJobFileIsReportedWithoutSuggestion) {
  const std::string err = testing::FileError("[a]\n" + std::string(1 << 20, 'x') + "=1\n");
  EXPECT_EQ(err.rfind("job.fio:2: unknown option '", 0), 0u) << err.substr(0, 200);
  EXPECT_EQ(err.find("did you mean"), std::string::npos);
  EXPECT_LT(err.size(), 300u);
}

}  // namespace
}  // namespace blk::bench
