// The option table's look-ups: names, aliases and "did you mean" suggestions.
#include "tools/block_bench/option_table.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "tests/tools/block_bench/test_util.h"

namespace blk::bench {
namespace {

TEST(SuggestOption, NearMissesOnly) {
  EXPECT_EQ(SuggestOption("iodepht"), "iodepth");
  EXPECT_EQ(SuggestOption("runetime"), "runtime");
  EXPECT_EQ(SuggestOption("frobnicate"), std::nullopt);
  EXPECT_EQ(SuggestOption(""), std::nullopt);
}

TEST(SuggestOption, LongNamesAreNotCompared) {
  // Edit distance against every option name took ~22 s per MB of name.
  const std::string huge(1 << 20, 'x');
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(SuggestOption(huge), std::nullopt);
  EXPECT_EQ(SuggestOption("iodepth" + std::string(kMaxSuggestedNameLength, 'h')), std::nullopt);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(SuggestOption, HugeUnknownNameInAJobFileIsQuick) {
  const auto start = std::chrono::steady_clock::now();
  const std::string err = testing::FileError("[a]\n" + std::string(1 << 20, 'x') + "=1\n");
  EXPECT_EQ(err.rfind("job.fio:2: unknown option '", 0), 0u) << err.substr(0, 200);
  EXPECT_EQ(err.find("did you mean"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

}  // namespace
}  // namespace blk::bench
