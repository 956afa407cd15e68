// DedupeSeeds (run/dedupe.h): the seed of each write's contents under
// dedupe_percentage with dedupe_mode=repeat and working_set, and
// dedupe_global's working set spread over the run's clones; the jobfile's
// checks of working_set (fio's, and a working set of at least a block).
#include "tools/block_bench/run/dedupe.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench_test_util.h"
#include "tools/block_bench/jobfile/jobfile.h"

namespace blk::bench {
namespace {

using testing::ParseJob;

JobOptions Job(std::vector<std::string> extra) {
  std::vector<std::string> args = {"--name=a", "--ioengine=null", "--rw=write", "--bs=4k",
                                   "--size=1m"};
  args.insert(args.end(), extra.begin(), extra.end());
  return ParseJob(args);
}

TEST(DedupeSeeds, RepeatRepeatsTheLastUniqueSeed) {
  DedupeSeeds d(Job({"--dedupe_percentage=40"}), 7);
  EXPECT_EQ(d.working_set_size(), 0u);
  uint64_t k = 0, last = 0;
  int repeats = 0;
  for (int i = 0; i < 5000; i++) {
    const uint64_t s = d.next();
    if (k > 0 && s == last) {
      repeats++;
      continue;
    }
    ASSERT_EQ(s, DedupeSeeds::Unique(7, k)) << "write " << i;  // the unique seeds, in order
    last = s;
    k++;
  }
  EXPECT_NEAR(repeats, 2000, 150);
}

TEST(DedupeSeeds, WithoutAPercentageEveryWriteIsUnique) {
  DedupeSeeds d(Job({"--dedupe_mode=working_set"}), 7);
  for (uint64_t k = 0; k < 100; k++) EXPECT_EQ(d.next(), DedupeSeeds::Unique(7, k));
}

TEST(DedupeSeeds, WorkingSetDrawsFromTheFirstUniqueSeeds) {
  // 10% of 1 MiB in 4 KiB blocks: 25 entries (25.6, rounded down as fio).
  DedupeSeeds d(
      Job({"--dedupe_percentage=50", "--dedupe_mode=working_set", "--dedupe_working_set_percentage=10"}),
      9);
  ASSERT_EQ(d.working_set_size(), 25u);
  std::set<uint64_t> set;
  for (uint64_t i = 0; i < 25; i++) {
    EXPECT_EQ(d.working_set(i), DedupeSeeds::Unique(9, i));
    set.insert(d.working_set(i));
  }
  uint64_t k = 0;
  int dedupes = 0;
  std::map<uint64_t, int> drawn;
  for (int i = 0; i < 10000; i++) {
    const uint64_t s = d.next();
    if (s == DedupeSeeds::Unique(9, k)) {
      k++;
      continue;
    }
    ASSERT_TRUE(set.count(s)) << "write " << i << ": neither the next unique seed nor the set's";
    dedupes++;
    drawn[s]++;
  }
  EXPECT_NEAR(dedupes, 5000, 250);
  EXPECT_EQ(drawn.size(), 25u) << "every entry drawn";
  for (const auto& [s, n] : drawn) EXPECT_NEAR(n, 200, 70);
}

TEST(DedupeSeeds, DedupeGlobalSpreadsTheSetOverEveryClone) {
  const std::vector<uint64_t> seeds = {11, 22, 33, 44};
  const JobOptions j = Job({"--dedupe_percentage=50", "--dedupe_mode=working_set",
                            "--dedupe_working_set_percentage=10", "--dedupe_global=1"});
  DedupeSeeds d(j, 22, {seeds, 1});
  ASSERT_EQ(d.working_set_size(), 25u);
  // 25 / 4 clones: 6 entries per clone, from this clone (index 1) on.
  for (uint64_t i = 0; i < 25; i++)
    EXPECT_EQ(d.working_set(i), DedupeSeeds::Unique(seeds[(1 + i / 6) % 4], i % 6)) << i;
  // Another clone's set starts at its own seeds and holds this one's
  // first entries too: the clones write identical blocks.
  DedupeSeeds other(j, 33, {seeds, 2});
  EXPECT_EQ(other.working_set(0), DedupeSeeds::Unique(33, 0));
  EXPECT_EQ(other.working_set(18), DedupeSeeds::Unique(22, 0));
  // Without dedupe_global the world is not used.
  DedupeSeeds alone(Job({"--dedupe_percentage=50", "--dedupe_mode=working_set",
                         "--dedupe_working_set_percentage=10"}),
                    22, {seeds, 1});
  for (uint64_t i = 0; i < 25; i++) EXPECT_EQ(alone.working_set(i), DedupeSeeds::Unique(22, i));
}

TEST(DedupeSeeds, MoreClonesThanEntriesGiveOneEntryEach) {
  std::vector<uint64_t> seeds;
  for (uint64_t s = 1; s <= 40; s++) seeds.push_back(s * 100);
  DedupeSeeds d(Job({"--dedupe_percentage=50", "--dedupe_mode=working_set",
                     "--dedupe_working_set_percentage=10", "--dedupe_global=1"}),
                3900, {seeds, 38});
  for (uint64_t i = 0; i < 25; i++)
    EXPECT_EQ(d.working_set(i), DedupeSeeds::Unique(seeds[(38 + i) % 40], 0)) << i;
}

TEST(DedupeWorkingSet, TheJobfileRefusesWhatFioRefuses) {
  const auto err = [](const std::string& text) {
    auto r = ParseJobText(text, "t.fio", ParseEnvironment::FromSystem());
    return r.ok() ? std::string() : r.error().message;
  };
  const std::string base = "[a]\nioengine=null\nrw=write\nbs=4k\ndedupe_percentage=50\n"
                           "dedupe_mode=working_set\n";
  EXPECT_EQ(err(base + "size=1m\n"), "");
  EXPECT_NE(err(base).find("dedupe_mode=working_set needs size= in bytes"), std::string::npos)
      << err(base);
  EXPECT_NE(err(base + "size=1m\ndedupe_working_set_percentage=60\n")
                .find("cannot reach dedupe_percentage=50: dedupe_working_set_percentage=60"),
            std::string::npos);
  EXPECT_NE(err(base + "size=1m\nnrfiles=2\n").find("supports one file per job"),
            std::string::npos);
  EXPECT_NE(err(base + "size=64k\ndedupe_working_set_percentage=1\n")
                .find("has an empty working set: dedupe_working_set_percentage=1 of size=65536 is "
                      "less than one 4096-byte block"),
            std::string::npos)
      << err(base + "size=64k\ndedupe_working_set_percentage=1\n");
  // The location names the file.
  EXPECT_NE(err(base).find("t.fio"), std::string::npos) << err(base);
  // repeat mode and no percentage need none of it.
  EXPECT_EQ(err("[a]\nioengine=null\nrw=write\ndedupe_mode=working_set\n"), "");
}

}  // namespace
}  // namespace blk::bench
