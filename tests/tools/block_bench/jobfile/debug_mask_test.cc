// fio's --debug categories: names in fio's order, "all", unknown names kept.
#include "tools/block_bench/jobfile/debug_mask.h"

#include <gtest/gtest.h>

namespace blk::bench {
namespace {

TEST(DebugMask, FiosListInFiosOrder) {
  EXPECT_EQ(DebugCategoryList(),
            "process,file,io,mem,blktrace,verify,random,parse,diskutil,job,mutex,profile,time,"
            "net,rate,compress,steadystate,helperthread,zbd,all");
  EXPECT_EQ(Name(DebugCategory::kSteadystate), "steadystate");
}

TEST(DebugMask, NamesAllAndUnknown) {
  const DebugMask m = ParseDebugMask("io,random,,foo,parse,bar");
  EXPECT_EQ(m.mask, Bit(DebugCategory::kIo) | Bit(DebugCategory::kRandom) |
                        Bit(DebugCategory::kParse));
  EXPECT_EQ(m.unknown, (std::vector<std::string>{"foo", "bar"}));
  const DebugMask all = ParseDebugMask("all");
  for (uint32_t c = 0; c < uint32_t(DebugCategory::kCount); c++)
    EXPECT_TRUE(all.mask & (1u << c)) << Name(DebugCategory(c));
  EXPECT_TRUE(all.unknown.empty());
  EXPECT_EQ(ParseDebugMask("").mask, 0u);
}

}  // namespace
}  // namespace blk::bench
