// Options about checking and reporting: verify, verify_pattern,
// verify_interval, verify_offset, verify_only, verify_state_save/_load,
// do_verify, verify_fatal, continue_on_error, percentile_list, *_percentiles,
// disk_util, write_*_log, log_avg_msec and the other log_* options,
// bwavgtime, iopsavgtime.
#include <gtest/gtest.h>

#include "tests/tools/block_bench/jobfile/test_util.h"

namespace blk::bench {
namespace {

using testing::OneError;
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
  // fio 3.33's others.
  EXPECT_EQ(ParseOne("verify=crc64").verify, VerifyMethod::kCrc64);
  EXPECT_EQ(ParseOne("verify=crc16").verify, VerifyMethod::kCrc16);
  EXPECT_EQ(ParseOne("verify=crc7").verify, VerifyMethod::kCrc7);
  EXPECT_EQ(ParseOne("verify=sha3-224").verify, VerifyMethod::kSha3_224);
  EXPECT_EQ(ParseOne("verify=sha3-256").verify, VerifyMethod::kSha3_256);
  EXPECT_EQ(ParseOne("verify=sha3-384").verify, VerifyMethod::kSha3_384);
  EXPECT_EQ(ParseOne("verify=sha3-512").verify, VerifyMethod::kSha3_512);
  EXPECT_EQ(ParseOne("verify=null").verify, VerifyMethod::kNull);
  EXPECT_EQ(ParseOne("verify=meta").verify, VerifyMethod::kMeta);
  // Not in fio 3.33 (fio: "failed parsing verify=crc32c-arm64"), nor its
  // internal pattern_hdr.
  EXPECT_OPTION_ERROR("verify=crc32c-arm64", 2, "verify",
                      "unsupported verify method 'crc32c-arm64' (fio 3.33's: 0, md5, crc64");
  EXPECT_OPTION_ERROR("verify=pattern_hdr", 2, "verify", "unsupported verify method");
  EXPECT_EQ(ParseOne("verify=pattern\nverify_pattern=0x1").verify, VerifyMethod::kPattern);
}

TEST(VerifyPatternOption, FioSyntax) {
  const JobOptions j = ParseOne("verify=pattern\nverify_pattern=0xff%o\"abcd\"-12");
  ASSERT_EQ(j.verify_pattern.size(), 4u);
  EXPECT_EQ(j.verify_pattern[0].data, "\xff");
  EXPECT_TRUE(j.verify_pattern[1].block_offset);
  EXPECT_EQ(j.verify_pattern[1].data, std::string(8, '\0'));
  EXPECT_EQ(j.verify_pattern[2].data, "abcd");
  EXPECT_EQ(j.verify_pattern[3].data, std::string("\xf4\xff\xff\xff", 4));  // fio: 32-bit
  EXPECT_EQ(j.verify_pattern_text, "0xff%o\"abcd\"-12");
  // Decimal: the 32-bit value in as few bytes as hold it, as fio's.
  EXPECT_EQ(ParseOne("verify_pattern=65536").verify_pattern[0].data, std::string("\0\0\1", 3));
  EXPECT_EQ(ParseOne("verify_pattern=0").verify_pattern[0].data, std::string("\0", 1));
  // "0x" ends a decimal or hex run (fio's -100xab and 0xff0x14).
  const JobOptions k = ParseOne("verify_pattern=-100xab");
  ASSERT_EQ(k.verify_pattern.size(), 2u);
  EXPECT_EQ(k.verify_pattern[0].data, std::string("\xf6\xff\xff\xff", 4));
  EXPECT_EQ(k.verify_pattern[1].data, "\xab");
  const JobOptions h = ParseOne("verify_pattern=0xff0x14");
  ASSERT_EQ(h.verify_pattern.size(), 2u);
  EXPECT_EQ(h.verify_pattern[1].data, "\x14");
  EXPECT_EQ(ParseOne("verify_pattern='f'").verify_pattern[0].file, true);
}

TEST(VerifyPatternOption, SetsFiosPatternHeaderOnlyWithoutAMethod) {
  // fio: a pattern with no method is VERIFY_PATTERN, a header and the
  // pattern.
  EXPECT_EQ(ParseOne("verify_pattern=0x1").verify, VerifyMethod::kPatternHdr);
  EXPECT_EQ(ParseOne("verify=md5\nverify_pattern=0x1").verify, VerifyMethod::kMd5);
  EXPECT_EQ(ParseOne("verify_pattern=0x1\nverify=sha1").verify, VerifyMethod::kSha1);
  EXPECT_EQ(ParseOne("verify_pattern=0x1\nverify=0").verify, VerifyMethod::kNone);
}

TEST(VerifyPatternOption, BadValuesNameTheOption) {
  EXPECT_OPTION_ERROR("verify_pattern=0x", 2, "verify_pattern", "0x without hex digits");
  EXPECT_OPTION_ERROR("verify_pattern=\"ab", 2, "verify_pattern", "no closing \"");
  EXPECT_OPTION_ERROR("verify_pattern=%x", 2, "verify_pattern", "unknown format");
  EXPECT_OPTION_ERROR("verify_pattern=4294967296", 2, "verify_pattern",
                      "outside [-2147483648, 2147483647]");
  EXPECT_OPTION_ERROR("verify_pattern=0xaa,0xbb", 2, "verify_pattern", "unexpected ','");
  EXPECT_OPTION_ERROR("verify_pattern", 2, "verify_pattern", "requires a value");
  // %o is verify_pattern's only.
  EXPECT_OPTION_ERROR("buffer_pattern=%o", 2, "buffer_pattern", "only for verify_pattern");
}

TEST(VerifyPatternOption, PatternMethodNeedsAPattern) {
  EXPECT_EQ(OneError("verify=pattern"),
            "job.fio:1: job 'job': verify=pattern needs verify_pattern= (the bytes to write and "
            "check)");
}

TEST(VerifyIntervalOffsetOptions, Values) {
  EXPECT_EQ(ParseOne("").verify_interval, 0u);
  EXPECT_EQ(ParseOne("verify_interval=1k").verify_interval, 1024u);
  EXPECT_EQ(ParseOne("verify_interval=80").verify_interval, 80u);
  EXPECT_OPTION_ERROR("verify_interval=16", 2, "verify_interval", "16");  // fio's minimum is 80
  EXPECT_OPTION_ERROR("verify_interval=x", 2, "verify_interval", "got 'x'");
  EXPECT_EQ(ParseOne("").verify_offset, 0u);
  EXPECT_EQ(ParseOne("verify_offset=512").verify_offset, 512u);
  EXPECT_OPTION_ERROR("verify_offset=-1", 2, "verify_offset", "-1");
}

TEST(VerifyOnlyOption, FlagAndJobChecks) {
  EXPECT_FALSE(ParseOne("verify=crc32c").verify_only);
  EXPECT_TRUE(ParseOne("verify=crc32c\nverify_only").verify_only);
  EXPECT_TRUE(ParseOne("verify=crc32c\nverify_only=1").verify_only);
  EXPECT_FALSE(ParseOne("verify=crc32c\nverify_only=0").verify_only);
  EXPECT_OPTION_ERROR("verify_only=x\nverify=md5", 2, "verify_only", "x");
  EXPECT_EQ(OneError("verify_only"),
            "job.fio:1: job 'job': verify_only needs verify= or verify_pattern= (how the blocks "
            "were written)");
  EXPECT_EQ(OneError("verify=md5\nverify_only\ntime_based\nruntime=1"),
            "job.fio:1: job 'job': verify_only does not support time_based (as fio)");
}

TEST(VerifyStateOptions, SaveAndLoad) {
  EXPECT_TRUE(ParseOne("").verify_state_save);
  EXPECT_FALSE(ParseOne("verify_state_save=0").verify_state_save);
  EXPECT_TRUE(ParseOne("verify_state_save=1").verify_state_save);
  EXPECT_OPTION_ERROR("verify_state_save=yes", 2, "verify_state_save", "expected 0 or 1");
  EXPECT_FALSE(ParseOne("").verify_state_load);
  EXPECT_TRUE(ParseOne("verify_state_load=1").verify_state_load);
  EXPECT_FALSE(ParseOne("verify_state_load=0").verify_state_load);
  EXPECT_OPTION_ERROR("verify_state_load=2", 2, "verify_state_load", "expected 0 or 1");
}

TEST(VerifyOption, CompanionBooleans) {
  EXPECT_TRUE(ParseOne("").do_verify);
  EXPECT_FALSE(ParseOne("do_verify=0").do_verify);
  EXPECT_FALSE(ParseOne("").verify_fatal);
  EXPECT_TRUE(ParseOne("verify_fatal=1").verify_fatal);
  EXPECT_OPTION_ERROR("do_verify=no", 2, "do_verify", "expected 0 or 1");
  EXPECT_OPTION_ERROR("verify_fatal", 2, "verify_fatal", "requires a value");
}

TEST(TrimVerifyOptions, ValuesAndErrors) {
  const JobOptions d = ParseOne("");
  EXPECT_EQ(d.trim_percentage, 0u);
  EXPECT_TRUE(d.trim_verify_zero);
  EXPECT_EQ(d.trim_backlog, 0u);
  EXPECT_EQ(d.trim_backlog_batch, 0u);
  const JobOptions j = ParseOne(
      "verify=crc32c\ntrim_percentage=50\ntrim_verify_zero=0\ntrim_backlog=1k\n"
      "trim_backlog_batch=8");
  EXPECT_EQ(j.trim_percentage, 50u);
  EXPECT_FALSE(j.trim_verify_zero);
  EXPECT_EQ(j.trim_backlog, 1024u);
  EXPECT_EQ(j.trim_backlog_batch, 8u);
  EXPECT_OPTION_ERROR("trim_percentage=101", 2, "trim_percentage", "101");
  EXPECT_OPTION_ERROR("trim_percentage=x", 2, "trim_percentage", "got 'x'");
  EXPECT_OPTION_ERROR("trim_verify_zero=2", 2, "trim_verify_zero", "2");
  EXPECT_OPTION_ERROR("trim_backlog=-1", 2, "trim_backlog", "-1");
  EXPECT_OPTION_ERROR("trim_backlog_batch=y", 2, "trim_backlog_batch", "got 'y'");
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

TEST(IgnoreErrorOption, ListsPerType) {
  EXPECT_EQ(ParseOne("").ignore_error, (std::array<std::vector<int>, 3>{}));
  EXPECT_EQ(ParseOne("ignore_error=EAGAIN,ENOSPC:122").ignore_error,
            (std::array<std::vector<int>, 3>{{{11}, {28, 122}, {}}}));
  EXPECT_EQ(ParseOne("ignore_error=,,84").ignore_error,  // EILSEQ: not among fio's names
            (std::array<std::vector<int>, 3>{{{}, {}, {84}}}));
  EXPECT_EQ(ParseOne("ignore_error=,-5:EPERM:ERANGE").ignore_error,
            (std::array<std::vector<int>, 3>{{{}, {5, 1, 34}, {}}}));
  // fio 3.33 knows EPERM ... ERANGE by name, and decimal numbers only.
  EXPECT_OPTION_ERROR("ignore_error=EDQUOT", 2, "ignore_error", "unknown error 'EDQUOT'");
  EXPECT_OPTION_ERROR("ignore_error=0x5", 2, "ignore_error", "unknown error '0x5'");
  EXPECT_OPTION_ERROR("ignore_error=EIO,EIO,EIO,EIO", 2, "ignore_error", "at most 3 lists");
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

TEST(LogOptions, MaxValueAndEpoch) {
  const JobOptions d = ParseOne("");
  EXPECT_FALSE(d.log_max_value);
  EXPECT_FALSE(d.log_epoch());
  EXPECT_EQ(d.log_alternate_epoch_clock_id, 0u);
  EXPECT_TRUE(ParseOne("log_max_value=1").log_max_value);
  EXPECT_TRUE(ParseOne("log_unix_epoch=1").log_epoch());
  EXPECT_TRUE(ParseOne("log_alternate_epoch=1").log_epoch());
  EXPECT_EQ(ParseOne("log_alternate_epoch_clock_id=1").log_alternate_epoch_clock_id, 1u);
  EXPECT_OPTION_ERROR("log_max_value=2", 2, "log_max_value", "expected 0 or 1");
  EXPECT_OPTION_ERROR("log_unix_epoch=yes", 2, "log_unix_epoch", "expected 0 or 1");
  EXPECT_OPTION_ERROR("log_alternate_epoch=x", 2, "log_alternate_epoch", "expected 0 or 1");
  EXPECT_OPTION_ERROR("log_alternate_epoch_clock_id=-1", 2, "log_alternate_epoch_clock_id", "");
  // fio would read garbage from clock_gettime; block-bench refuses the id.
  EXPECT_OPTION_ERROR("log_alternate_epoch_clock_id=99", 2, "log_alternate_epoch_clock_id",
                      "clock id 99 is not a clock of this system");
}

TEST(ReportOptions, SignificantFigures) {
  EXPECT_EQ(ParseOne("").sig_figs, 4u);
  EXPECT_EQ(ParseOne("significant_figures=10").sig_figs, 10u);
  EXPECT_OPTION_ERROR("significant_figures=0", 2, "significant_figures", "");  // fio: 1..10
  EXPECT_OPTION_ERROR("significant_figures=11", 2, "significant_figures", "");
}

TEST(ReportOptions, UnitBase) {
  EXPECT_FALSE(UnitBits(ParseOne("")));
  EXPECT_FALSE(UnitBits(ParseOne("unit_base=0")));
  EXPECT_FALSE(UnitBits(ParseOne("unit_base=8")));
  EXPECT_TRUE(UnitBits(ParseOne("unit_base=1")));
  // fio's net engine is FIO_BIT_BASED: auto means bits there.
  EXPECT_TRUE(UnitBits(ParseOne("ioengine=net\nlisten\nport=8888\nsize=1m")));
  EXPECT_FALSE(UnitBits(ParseOne("ioengine=net\nlisten\nport=8888\nsize=1m\nunit_base=8")));
  EXPECT_OPTION_ERROR("unit_base=2", 2, "unit_base", "expected 0 (auto), 8 (bytes) or 1 (bits)");
}

TEST(LogOptions, FileNamesAndBuffers) {
  const JobOptions d = ParseOne("");
  EXPECT_TRUE(d.per_job_logs);
  EXPECT_EQ(d.log_entries, 1024u);
  EXPECT_EQ(d.log_compression, 0u);
  EXPECT_FALSE(ParseOne("per_job_logs=0").per_job_logs);
  EXPECT_OPTION_ERROR("per_job_logs=2", 2, "per_job_logs", "expected 0 or 1");
  EXPECT_EQ(ParseOne("log_entries=4096").log_entries, 4096u);
  EXPECT_OPTION_ERROR("log_entries=10", 2, "log_entries", "");  // fio: 1024..1048576
  EXPECT_OPTION_ERROR("log_entries=2000000", 2, "log_entries", "");
  EXPECT_EQ(ParseOne("log_compression=64k").log_compression, 65536u);
  EXPECT_OPTION_ERROR("log_compression=100", 2, "log_compression", "");
  EXPECT_OPTION_ERROR("log_compression=0", 2, "log_compression", "");
  EXPECT_TRUE(ParseOne("log_store_compressed=0").log_store_compressed_zero);
  EXPECT_FALSE(ParseOne("log_store_compressed=0").log_store_compressed);
  EXPECT_TRUE(ParseOne("log_store_compressed=1").log_store_compressed);
  EXPECT_OPTION_ERROR("log_store_compressed=z", 2, "log_store_compressed", "expected 0 or 1");
}

TEST(SampleWindows, BwavgtimeIopsavgtime) {
  const JobOptions d = ParseOne("");
  EXPECT_EQ(d.bw_window_ms(), 500u);
  EXPECT_EQ(d.iops_window_ms(), 500u);
  EXPECT_EQ(ParseOne("bwavgtime=100").bw_window_ms(), 100u);
  EXPECT_EQ(ParseOne("iopsavgtime=250").iops_window_ms(), 250u);
  // fio: without bwavgtime a bw log's log_avg_msec is the window; the iops
  // samples keep 500 ms without an iops log.
  const JobOptions logged = ParseOne("write_bw_log\nlog_avg_msec=200");
  EXPECT_EQ(logged.bw_window_ms(), 200u);
  EXPECT_EQ(logged.iops_window_ms(), 500u);
  EXPECT_EQ(ParseOne("write_iops_log\nlog_avg_msec=200\niopsavgtime=50").iops_window_ms(), 50u);
  EXPECT_EQ(ParseOne("log_avg_msec=200").bw_window_ms(), 500u);
  EXPECT_OPTION_ERROR("bwavgtime=0", 2, "bwavgtime", "");
  EXPECT_OPTION_ERROR("iopsavgtime=1s", 2, "iopsavgtime", "got '1s'");
}

TEST(DiskUtilOption, Boolean) {
  EXPECT_TRUE(ParseOne("").disk_util);
  EXPECT_FALSE(ParseOne("disk_util=0").disk_util);
  EXPECT_TRUE(ParseOne("disk_util=1").disk_util);
  EXPECT_OPTION_ERROR("disk_util=on", 2, "disk_util", "expected 0 or 1");
}

TEST(ErrorDumpOption, OffByDefaultAsFio333) {
  EXPECT_FALSE(ParseOne("").error_dump);  // fio 3.33's --cmdhelp: default 0
  EXPECT_TRUE(ParseOne("error_dump=1").error_dump);
  EXPECT_FALSE(ParseOne("error_dump=1\nerror_dump=0").error_dump);
  EXPECT_OPTION_ERROR("error_dump=2", 2, "error_dump", "expected 0 or 1");
}

TEST(StatsOption, ZeroOrOne) {
  EXPECT_TRUE(ParseOne("").stats);
  EXPECT_FALSE(ParseOne("stats=0").stats);
  EXPECT_TRUE(ParseOne("stats=0\nstats=1").stats);
  EXPECT_OPTION_ERROR("stats=maybe", 2, "stats", "expected 0 or 1");
}

}  // namespace
}  // namespace blk::bench
