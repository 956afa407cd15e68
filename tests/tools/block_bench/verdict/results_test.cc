// Reading block-bench's and fio's JSON results for the verdicts.
#include "tools/block_bench/verdict/results.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace blk::bench::verdict {
namespace {

// A result document in fio's layout with one job doing reads.
std::string Doc(const std::string& version_key, const std::string& jobs) {
  return "{\"" + version_key + "\": \"x\", \"jobs\": [" + jobs + "]}";
}

std::string Job(const std::string& name, double iops, double p99, int error = 0,
                const std::string& extra = "") {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "{\"jobname\": \"%s\", \"error\": %d, %s \"read\": {\"total_ios\": 100, "
                "\"iops\": %g, \"bw_bytes\": %g, \"clat_ns\": {\"mean\": 1000, \"percentile\": "
                "{\"50.000000\": 900, \"99.000000\": %g, \"99.900000\": 5000}}}, "
                "\"write\": {\"total_ios\": 0, \"iops\": 0}}",
                name.c_str(), error, extra.c_str(), iops, iops * 4096, p99);
  return buf;
}

TEST(ResultsTest, ReadsBlockBenchAndFioLayouts) {
  for (const char* key : {"blkstack-bench version", "fio version"}) {
    auto d = ParseResultJson(Doc(key, Job("j", 5000, 2000)), "r.json");
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_EQ(d->tool, std::string(key) == "fio version" ? "fio" : "block-bench");
    ASSERT_EQ(d->samples.size(), 1u);  // the write side did no I/O
    const Sample& s = d->samples[0];
    EXPECT_EQ(s.job, "j");
    EXPECT_EQ(s.dir, 0);
    EXPECT_DOUBLE_EQ(s.value[int(Metric::kIops)], 5000);
    EXPECT_DOUBLE_EQ(s.value[int(Metric::kBw)], 5000 * 4096);
    EXPECT_DOUBLE_EQ(s.value[int(Metric::kClatMean)], 1000);
    EXPECT_DOUBLE_EQ(s.value[int(Metric::kP50)], 900);
    EXPECT_DOUBLE_EQ(s.value[int(Metric::kP99)], 2000);
    EXPECT_DOUBLE_EQ(s.value[int(Metric::kP999)], 5000);
    for (int m = 0; m < int(Metric::kSchedP50); m++) EXPECT_TRUE(s.has[m]) << m;
    // Not a paced job: no latency from the due time.
    EXPECT_FALSE(s.has[int(Metric::kSchedP50)]);
    EXPECT_FALSE(s.has[int(Metric::kSchedP99)]);
    EXPECT_FALSE(d->failed);
  }
}

// fio's unified_rw_reporting=mixed writes "mixed" instead of the directions.
TEST(ResultsTest, ReadsMixedDirection) {
  const std::string job =
      "{\"jobname\": \"j\", \"error\": 0, \"mixed\": {\"total_ios\": 10, \"iops\": 5, "
      "\"clat_ns\": {\"percentile\": {\"50.000000\": 900, \"99.000000\": 1000}}}}";
  auto d = ParseResultJson(Doc("fio version", job), "r.json");
  ASSERT_TRUE(d) << d.error().message;
  ASSERT_EQ(d->samples.size(), 1u);
  EXPECT_EQ(d->samples[0].dir, 3);
  EXPECT_STREQ(DirName(3), "mixed");
}

TEST(ResultsTest, ReadsLatencyFromTheDueTimeOfPacedJobs) {
  const std::string job =
      "{\"jobname\": \"j\", \"error\": 0, \"read\": {\"total_ios\": 10, \"iops\": 5, "
      "\"clat_ns\": {\"percentile\": {\"50.000000\": 900, \"99.000000\": 1000}}, "
      "\"sched_lat_ns\": {\"percentile\": {\"50.000000\": 1900, \"99.000000\": 7000}}}}";
  auto d = ParseResultJson(Doc("blkstack-bench version", job), "r.json");
  ASSERT_TRUE(d) << d.error().message;
  ASSERT_EQ(d->samples.size(), 1u);
  const Sample& s = d->samples[0];
  EXPECT_TRUE(s.has[int(Metric::kSchedP50)]);
  EXPECT_DOUBLE_EQ(s.value[int(Metric::kSchedP50)], 1900);
  EXPECT_DOUBLE_EQ(s.value[int(Metric::kSchedP99)], 7000);
  auto m = ParseMetrics("sched_p99,p99");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ((*m)[0], Metric::kSchedP99);
}

TEST(ResultsTest, SkipsNotesBeforeTheDocument) {
  auto d = ParseResultJson("note: both iodepth >= 1 and synchronous I/O engine are selected\n" +
                               Doc("fio version", Job("j", 1, 2)),
                           "fio.json");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->samples.size(), 1u);
}

TEST(ResultsTest, RepeatedJobNamesAreNumbered) {
  auto d = ParseResultJson(Doc("fio version", Job("j", 1, 2) + "," + Job("j", 3, 4)), "r.json");
  ASSERT_TRUE(d);
  ASSERT_EQ(d->samples.size(), 2u);
  EXPECT_EQ(d->samples[0].job, "j[1]");
  EXPECT_EQ(d->samples[1].job, "j[2]");
  EXPECT_DOUBLE_EQ(d->samples[1].value[int(Metric::kIops)], 3);
}

TEST(ResultsTest, AnErrorMarksTheRunFailed) {
  auto d = ParseResultJson(Doc("fio version", Job("j", 1, 2, 5)), "r.json");
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->failed);
  EXPECT_NE(d->failure.find("job 'j': error=5"), std::string::npos) << d->failure;
  auto e = ParseResultJson(
      Doc("blkstack-bench version", Job("j", 1, 2, 0, "\"total_err\": 3,")), "r.json");
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->failed);
}

TEST(ResultsTest, AnInterruptedJobMarksTheRunInterrupted) {
  auto d = ParseResultJson(Doc("blkstack-bench version",
                               Job("j", 1, 2, 0, "\"blkstack\": {\"interrupted\": false},") + "," +
                                   Job("k", 1, 2, 0, "\"blkstack\": {\"interrupted\": true},")),
                           "r.json");
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->failed);
  EXPECT_TRUE(d->interrupted);
  EXPECT_EQ(d->interruption, "job 'k' was interrupted (stopped early by a signal)");
  auto e = ParseResultJson(
      Doc("blkstack-bench version", Job("j", 1, 2, 0, "\"blkstack\": {\"interrupted\": false},")),
      "r.json");
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->interrupted);
}

TEST(ResultsTest, ADeviceIsRefusedAtOnce) {
  auto d = LoadResults({"/dev/zero"});
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().code, -EINVAL);
  EXPECT_EQ(d.error().message,
            "/dev/zero: a character device, not a result document (read from a regular file or "
            "a pipe)");
}

TEST(ResultsTest, PercentilesFromLatWhenClatHasNone) {
  auto d = ParseResultJson(
      "{\"fio version\": \"x\", \"jobs\": [{\"jobname\": \"j\", \"read\": {\"total_ios\": 9, "
      "\"iops\": 1, \"clat_ns\": {\"mean\": 3}, \"lat_ns\": {\"percentile\": {\"99.000000\": "
      "77}}}}]}",
      "r.json");
  ASSERT_TRUE(d) << d.error().message;
  ASSERT_EQ(d->samples.size(), 1u);
  EXPECT_TRUE(d->samples[0].has[int(Metric::kP99)]);
  EXPECT_DOUBLE_EQ(d->samples[0].value[int(Metric::kP99)], 77);
  EXPECT_FALSE(d->samples[0].has[int(Metric::kP999)]);
  EXPECT_FALSE(d->samples[0].has[int(Metric::kBw)]);
}

TEST(ResultsTest, ErrorsNameTheFileAndTheProblem) {
  struct Case {
    std::string text, want;
  } cases[] = {
      {"", "r.json: no JSON object in it"},
      {"{\"fio version\": 1, \"jobs\": [", "r.json: not valid JSON"},
      {"{\"jobs\": []}", "r.json: neither a block-bench nor a fio JSON result"},
      {"{\"fio version\": \"x\"}", "r.json: no \"jobs\" array"},
      {"{\"fio version\": \"x\", \"jobs\": []}", "r.json: \"jobs\" is empty"},
      {"{\"fio version\": \"x\", \"jobs\": [{}]}", "r.json: a job without a \"jobname\""},
      {"{\"fio version\": \"x\", \"jobs\": [{\"jobname\": \"j\", \"read\": 3}]}",
       "r.json: job 'j': \"read\" is not an object"},
      {"{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}",
       "r.json: JSON nested deeper than 64 levels"},
  };
  for (const Case& c : cases) {
    auto d = ParseResultJson(c.text, "r.json");
    ASSERT_FALSE(d) << c.text;
    EXPECT_EQ(d.error().message.substr(0, c.want.size()), c.want) << d.error().message;
  }
}

TEST(ResultsTest, LoadsFilesAndDirectoriesInNameOrder) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") /
                       "results_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "reps");
  for (int i : {2, 1, 3}) {
    std::ofstream(dir / "reps" / ("r" + std::to_string(i) + ".json"))
        << Doc("fio version", Job("j", i, 10));
  }
  std::ofstream(dir / "reps" / "notes.txt") << "ignored";
  std::ofstream(dir / "one.json") << Doc("fio version", Job("j", 9, 10));
  auto docs = LoadResults({(dir / "reps").string(), (dir / "one.json").string()});
  ASSERT_TRUE(docs) << docs.error().message;
  ASSERT_EQ(docs->size(), 4u);
  for (int i = 0; i < 3; i++)
    EXPECT_DOUBLE_EQ((*docs)[size_t(i)].samples[0].value[int(Metric::kIops)], i + 1);
  EXPECT_DOUBLE_EQ((*docs)[3].samples[0].value[int(Metric::kIops)], 9);

  auto missing = LoadResults({(dir / "nope.json").string()});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("nope.json: No such file"), std::string::npos)
      << missing.error().message;
  fs::create_directories(dir / "empty");
  auto empty = LoadResults({(dir / "empty").string()});
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("no *.json result files"), std::string::npos);
}

TEST(ResultsTest, ParseMetrics) {
  auto m = ParseMetrics("iops,p99.9");
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, (std::vector<Metric>{Metric::kIops, Metric::kP999}));
  auto bad = ParseMetrics("p98");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "unknown metric 'p98' (known: iops, bw, mean, p50, p99, p99.9, sched_p50, sched_p99)");
  EXPECT_FALSE(ParseMetrics("p99,p99"));
  EXPECT_FALSE(ParseMetrics(""));
  EXPECT_FALSE(ParseMetrics("p99,"));
}

}  // namespace
}  // namespace blk::bench::verdict
