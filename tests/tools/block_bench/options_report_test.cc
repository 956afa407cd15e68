// Options about checking and reporting: verify, do_verify, verify_fatal,
// continue_on_error, percentile_list, *_percentiles, write_*_log,
// log_avg_msec.
#include <gtest/gtest.h>

#include "tests/tools/block_bench/test_util.h"

namespace blk::bench {
namespace {

using testing::ParseOne;

TEST(VerifyOption, Methods) {
  EXPECT_EQ(ParseOne("").verify, VerifyMethod::kNone);
  EXPECT_EQ(ParseOne("verify=crc32c").verify, VerifyMethod::kCrc32c);
  EXPECT_EQ(ParseOne("verify=crc32c-intel").verify, VerifyMethod::kCrc32c);
  EXPECT_EQ(ParseOne("verify=crc32c\nverify=0").verify, VerifyMethod::kNone);
  EXPECT_EQ(ParseOne("verify=crc32c\nverify=none").verify, VerifyMethod::kNone);
  EXPECT_EQ(ParseOne("verify=md5").verify, VerifyMethod::kMd5);
  EXPECT_EQ(ParseOne("verify=crc32").verify, VerifyMethod::kCrc32);
  EXPECT_EQ(ParseOne("verify=sha1").verify, VerifyMethod::kSha1);
  EXPECT_EQ(ParseOne("verify=sha256").verify, VerifyMethod::kSha256);
  EXPECT_EQ(ParseOne("verify=sha512").verify, VerifyMethod::kSha512);
  EXPECT_EQ(ParseOne("verify=xxhash").verify, VerifyMethod::kXxhash);
  EXPECT_OPTION_ERROR("verify=crc64", 2, "verify", "unsupported verify method 'crc64'");
  EXPECT_OPTION_ERROR("verify=sha3-256", 2, "verify", "not crc64, crc16, crc7, sha3-*");
}

TEST(VerifyOption, CompanionBooleans) {
  EXPECT_TRUE(ParseOne("").do_verify);
  EXPECT_FALSE(ParseOne("do_verify=0").do_verify);
  EXPECT_FALSE(ParseOne("").verify_fatal);
  EXPECT_TRUE(ParseOne("verify_fatal=1").verify_fatal);
  EXPECT_OPTION_ERROR("do_verify=no", 2, "do_verify", "expected 0 or 1");
  EXPECT_OPTION_ERROR("verify_fatal", 2, "verify_fatal", "requires a value");
}

TEST(ContinueOnErrorOption, AllValues) {
  EXPECT_EQ(ParseOne("").continue_on_error, ContinueOnError::kNone);
  const std::pair<const char*, ContinueOnError> cases[] = {
      {"none", ContinueOnError::kNone}, {"0", ContinueOnError::kNone},
      {"read", ContinueOnError::kRead}, {"write", ContinueOnError::kWrite},
      {"io", ContinueOnError::kIo},     {"verify", ContinueOnError::kVerify},
      {"all", ContinueOnError::kAll},   {"1", ContinueOnError::kAll}};
  for (const auto& [text, value] : cases) {
    EXPECT_EQ(ParseOne(std::string("continue_on_error=") + text).continue_on_error, value) << text;
  }
  EXPECT_OPTION_ERROR("continue_on_error=2", 2, "continue_on_error", "got '2'");
}

TEST(PercentileListOption, ColonSeparated) {
  EXPECT_EQ(ParseOne("").percentile_list,
            (std::vector<double>{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}));
  EXPECT_EQ(ParseOne("percentile_list=99.5:99.9").percentile_list, (std::vector<double>{99.5, 99.9}));
  EXPECT_EQ(ParseOne("percentile_list=100").percentile_list, (std::vector<double>{100}));
  EXPECT_OPTION_ERROR("percentile_list=0:50", 2, "percentile_list", "expected a number in (0, 100], got '0'");
  EXPECT_OPTION_ERROR("percentile_list=50:100.5", 2, "percentile_list", "got '100.5'");
  EXPECT_OPTION_ERROR("percentile_list=50:", 2, "percentile_list", "got ''");
  EXPECT_OPTION_ERROR("percentile_list=1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20:21", 2,
                      "percentile_list", "at most 20 percentiles, got 21");
}

TEST(PercentileFlags, Defaults) {
  const JobOptions d = ParseOne("");
  EXPECT_TRUE(d.clat_percentiles);
  EXPECT_FALSE(d.lat_percentiles);
  EXPECT_FALSE(d.slat_percentiles);
  EXPECT_FALSE(ParseOne("clat_percentiles=0").clat_percentiles);
  EXPECT_TRUE(ParseOne("lat_percentiles=1").lat_percentiles);
  EXPECT_TRUE(ParseOne("slat_percentiles=1").slat_percentiles);
  EXPECT_OPTION_ERROR("clat_percentiles=on", 2, "clat_percentiles", "expected 0 or 1");
  EXPECT_OPTION_ERROR("lat_percentiles=on", 2, "lat_percentiles", "expected 0 or 1");
  EXPECT_OPTION_ERROR("slat_percentiles=on", 2, "slat_percentiles", "expected 0 or 1");
}

TEST(LogOptions, BareMeansDefaultName) {
  const JobOptions d = ParseOne("");
  EXPECT_FALSE(d.write_lat_log);
  EXPECT_FALSE(d.write_bw_log);
  EXPECT_FALSE(d.write_iops_log);
  EXPECT_EQ(ParseOne("write_bw_log").write_bw_log, std::optional<std::string>(""));
  EXPECT_EQ(ParseOne("write_bw_log=foo").write_bw_log, std::optional<std::string>("foo"));
  EXPECT_EQ(ParseOne("write_lat_log=lat").write_lat_log, std::optional<std::string>("lat"));
  EXPECT_EQ(ParseOne("write_iops_log").write_iops_log, std::optional<std::string>(""));
  EXPECT_EQ(ParseOne("").log_avg_msec, 0u);
  EXPECT_EQ(ParseOne("log_avg_msec=1000").log_avg_msec, 1000u);
  EXPECT_OPTION_ERROR("log_avg_msec=1s", 2, "log_avg_msec", "got '1s'");
}

}  // namespace
}  // namespace blk::bench
