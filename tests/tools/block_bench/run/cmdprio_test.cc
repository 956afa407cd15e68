// CmdPrio: each request's priority as fio 3.33's cmdprio draws it.
#include "tools/block_bench/run/cmdprio.h"

#include <gtest/gtest.h>

#include <map>

namespace blk::bench {
namespace {

constexpr uint16_t V(uint32_t c, uint32_t l) { return uint16_t(c << 13 | l); }

// How often each (ioprio, sent) comes out of n picks.
std::map<std::pair<uint16_t, bool>, int> Picks(CmdPrio& p, Dir d, uint64_t len, int n) {
  std::map<std::pair<uint16_t, bool>, int> m;
  for (int i = 0; i < n; i++) {
    const CmdPrio::Pick k = p.pick(d, len);
    m[{k.ioprio, k.per_request}]++;
  }
  return m;
}

TEST(CmdPrio, PercentagePerDirectionRealTimeByDefault) {
  IoPrioOptions o;
  o.cmdprio_percentage = {25, 0, 0};
  o.cmdprio = {4, 4, 4};
  CmdPrio p(o, 1);
  ASSERT_TRUE(p.active());
  auto m = Picks(p, Dir::kRead, 4096, 20000);
  ASSERT_EQ(m.size(), 2u);
  const int hi = m[{V(1, 4), true}], own = m[{0, false}];
  EXPECT_EQ(hi + own, 20000);
  EXPECT_GT(hi, 4000);  // 25 % of 20000 = 5000
  EXPECT_LT(hi, 6000);
  // Writes: 0 % -- every one the job's own.
  m = Picks(p, Dir::kWrite, 4096, 1000);
  EXPECT_EQ((m[{0, false}]), 1000);
  EXPECT_EQ(p.priorities(Dir::kRead), (std::vector<uint16_t>{0, V(1, 4)}));
  EXPECT_EQ(p.priorities(Dir::kWrite), (std::vector<uint16_t>{0}));
}

TEST(CmdPrio, JobPriorityForTheOthers) {
  IoPrioOptions o;
  o.prio = 3;  // no class: best-effort
  o.cmdprio_percentage = {50, 50, 50};
  o.cmdprio_class = {3, 3, 3};
  CmdPrio p(o, 7);
  auto m = Picks(p, Dir::kWrite, 512, 2000);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_GT((m[{V(2, 3), false}]), 800);
  EXPECT_GT((m[{V(3, 0), true}]), 800);
  EXPECT_EQ(p.pick(Dir::kTrim, 4096).ioprio, V(2, 3));
  EXPECT_FALSE(p.pick(Dir::kTrim, 4096).per_request);
}

TEST(CmdPrio, BssplitEntriesShareOneDrawPerSize) {
  IoPrioOptions o;
  o.cmdprio_class = {3, 3, 3};
  o.cmdprio = {5, 5, 5};
  using E = IoPrioOptions::BsPrio;
  o.cmdprio_bssplit[0] = {E{4096, 10, 1, 2}, E{4096, 20, std::nullopt, std::nullopt}, E{65536, 100, 2, 0}};
  CmdPrio p(o, 3);
  auto m = Picks(p, Dir::kRead, 4096, 20000);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_NEAR((m[{V(1, 2), true}]), 2000, 400);
  EXPECT_NEAR((m[{V(3, 5), true}]), 4000, 500);  // no class/level: cmdprio_class/cmdprio
  EXPECT_NEAR((m[{0, false}]), 14000, 600);
  m = Picks(p, Dir::kRead, 65536, 100);
  EXPECT_EQ((m[{V(2, 0), true}]), 100);
  m = Picks(p, Dir::kRead, 8192, 100);  // a size not listed
  EXPECT_EQ((m[{0, false}]), 100);
  EXPECT_EQ(p.priorities(Dir::kRead), (std::vector<uint16_t>{0, V(1, 2), V(3, 5), V(2, 0)}));
}

TEST(CmdPrio, NothingWithoutPercentageOrSplit) {
  IoPrioOptions o;
  o.cmdprio = {2, 2, 2};
  CmdPrio p(o, 1);
  EXPECT_FALSE(p.active());
  EXPECT_EQ(p.pick(Dir::kRead, 4096).ioprio, 0);
}

}  // namespace
}  // namespace blk::bench
