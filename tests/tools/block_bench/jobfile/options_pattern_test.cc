// Options shaping the I/O pattern: rw, rwmix*, bs, bsrange, bssplit,
// blockalign, offset, size, io_size, number_ios, random_distribution,
// randrepeat, randseed, norandommap, rw_sequencer, zonemode, zonesize,
// zonerange, zoneskip.
#include <gtest/gtest.h>

#include "tests/tools/block_bench/jobfile/test_util.h"

namespace blk::bench {
namespace {

using testing::ParseOne;

constexpr uint64_t kK = 1024;
constexpr uint64_t kM = 1024 * 1024;

TEST(RwOption, Modes) {
  const JobOptions d = ParseOne("");
  EXPECT_EQ(d.rw, RwMode::kRead);
  EXPECT_EQ(d.rw_sequential_ios, 1u);
  EXPECT_EQ(d.rw_offset_skip, 0);
  const std::pair<const char*, RwMode> cases[] = {
      {"read", RwMode::kRead},           {"write", RwMode::kWrite},
      {"trim", RwMode::kTrim},           {"randread", RwMode::kRandRead},
      {"randwrite", RwMode::kRandWrite}, {"randtrim", RwMode::kRandTrim},
      {"rw", RwMode::kReadWrite},        {"readwrite", RwMode::kReadWrite},
      {"randrw", RwMode::kRandReadWrite}, {"trimwrite", RwMode::kTrimWrite},
      {"randtrimwrite", RwMode::kRandTrimWrite}};
  for (const auto& [text, mode] : cases) {
    EXPECT_EQ(ParseOne(std::string("rw=") + text).rw, mode) << text;
    EXPECT_EQ(ParseOne(std::string("readwrite=") + text).rw, mode) << text;
  }
  EXPECT_OPTION_ERROR("rw=randomread", 2, "rw", "unsupported rw mode 'randomread'");
  EXPECT_OPTION_ERROR("readwrite=trimread", 2, "readwrite", "unsupported rw mode 'trimread'");
}

TEST(RwOption, OffsetModifierSuffix) {
  // Random modes: a new random offset every N I/Os.
  JobOptions j = ParseOne("rw=randread:8");
  EXPECT_EQ(j.rw, RwMode::kRandRead);
  EXPECT_EQ(j.rw_sequential_ios, 8u);
  EXPECT_EQ(j.rw_offset_skip, 0);
  // Sequential modes: the value (a size) is added to each offset.
  j = ParseOne("rw=write:4k");
  EXPECT_EQ(j.rw, RwMode::kWrite);
  EXPECT_EQ(j.rw_offset_skip, int64_t(4 * kK));
  EXPECT_EQ(j.rw_sequential_ios, 1u);
  // A later rw= resets the modifier, as in fio.
  j = ParseOne("rw=randread:8\nrw=randread");
  EXPECT_EQ(j.rw_sequential_ios, 1u);
  EXPECT_OPTION_ERROR("rw=randread:0", 2, "rw", "after 'randread:' expected an integer >= 1, got '0'");
  EXPECT_OPTION_ERROR("rw=read:x", 2, "rw", "after 'read:' expected a size");
  j = ParseOne("rw=read:-8k");
  EXPECT_EQ(j.rw_offset_skip, -8192);
}

TEST(RwSequencerOption, SequentialOrIdentical) {
  EXPECT_EQ(ParseOne("").rw_sequencer, JobOptions::RwSequencer::kSequential);
  EXPECT_EQ(ParseOne("rw=randread:8\nrw_sequencer=identical").rw_sequencer,
            JobOptions::RwSequencer::kIdentical);
  EXPECT_EQ(ParseOne("rw_sequencer=identical\nrw_sequencer=sequential").rw_sequencer,
            JobOptions::RwSequencer::kSequential);
  // fio accepts it with any rw= (sequential modes ignore it).
  EXPECT_EQ(ParseOne("rw=read:8k\nrw_sequencer=identical").rw_offset_skip, 8192);
  EXPECT_OPTION_ERROR("rw_sequencer=same", 2, "rw_sequencer", "expected sequential or identical, got 'same'");
  EXPECT_OPTION_ERROR("rw_sequencer=", 2, "rw_sequencer", "expected sequential or identical");
}

// zonemode=strided with zonesize, zonerange and zoneskip (fio's disk zone
// profile); fio's own checks: zonesize needs zonemode=strided ("zonemode=none
// and zonesize are not compatible"), zonemode=strided needs zonesize.
TEST(ZoneOptions, Strided) {
  const JobOptions d = ParseOne("");
  EXPECT_FALSE(d.zonemode_strided);
  EXPECT_EQ(d.zonesize, 0u);
  EXPECT_EQ(d.zonerange, 0u);
  EXPECT_EQ(d.zoneskip, 0u);
  const JobOptions j = ParseOne("zonemode=strided\nzonesize=256k\nzonerange=1m\nzoneskip=1m");
  EXPECT_TRUE(j.zonemode_strided);
  EXPECT_EQ(j.zonesize, 256 * kK);
  EXPECT_EQ(j.zonerange, kM);
  EXPECT_EQ(j.zoneskip, kM);
  EXPECT_EQ(ParseOne("kb_base=1000\nzonemode=strided\nzonesize=1k").zonesize, 1000u);
  // zonerange and zoneskip alone are ignored by fio's zonemode=none.
  EXPECT_EQ(ParseOne("zoneskip=1m").zoneskip, kM);
  EXPECT_FALSE(ParseOne("zonemode=strided\nzonesize=1m\nzonemode=none\nzonesize=0").zonemode_strided);
  EXPECT_OPTION_ERROR("zonemode=zbd", 2, "zonemode", "zonemode=zbd is not supported: block-bench has no zoned block device");
  EXPECT_OPTION_ERROR("zonemode=stride", 2, "zonemode", "expected none, strided or zbd, got 'stride'");
  EXPECT_OPTION_ERROR("zonesize=1q", 2, "zonesize", "got '1q'");
  EXPECT_OPTION_ERROR("zonerange=-1", 2, "zonerange", "got '-1'");
  EXPECT_OPTION_ERROR("zoneskip=x", 2, "zoneskip", "got 'x'");
  const auto job_error = [](const std::string& body) { return testing::OneError(body); };
  EXPECT_NE(job_error("zonesize=256k").find("job.fio:1: job 'job': zonesize needs zonemode=strided"),
            std::string::npos)
      << job_error("zonesize=256k");
  EXPECT_NE(job_error("zonemode=strided").find("zonemode=strided needs zonesize"), std::string::npos);
  EXPECT_NE(job_error("zonemode=strided\nzonesize=1m\nrw=read:-8k").find("backwards rw="),
            std::string::npos);
  EXPECT_NE(job_error("zonemode=strided\nzonesize=1m\nrandom_distribution=zipf")
                .find("zonemode=strided with random_distribution=zipf is not implemented"),
            std::string::npos);
  EXPECT_NE(job_error("zonemode=strided\nzonesize=1m\nnrfiles=2")
                .find("zonemode=strided with several files per job is not implemented"),
            std::string::npos);
  // The zoned-device options stay refused, naming the option.
  for (const char* opt : {"zonecapacity=1m", "read_beyond_wp=1", "max_open_zones=4"}) {
    const std::string err = job_error(opt);
    EXPECT_NE(err.find("is not supported by block-bench (an option of zonemode=zbd"), std::string::npos) << err;
  }
}

TEST(RwMixOptions, ReadAndWriteShareOneField) {
  EXPECT_EQ(ParseOne("").rwmixread, 50u);
  EXPECT_EQ(ParseOne("rwmixread=70").rwmixread, 70u);
  EXPECT_EQ(ParseOne("rwmixwrite=30").rwmixread, 70u);
  // The later of the two wins.
  EXPECT_EQ(ParseOne("rwmixread=70\nrwmixwrite=10").rwmixread, 90u);
  EXPECT_OPTION_ERROR("rwmixread=101", 2, "rwmixread", "expected an integer between 0 and 100, got '101'");
  EXPECT_OPTION_ERROR("rwmixwrite=-1", 2, "rwmixwrite", "between 0 and 100");
}

TEST(BsOption, PerDirection) {
  const BlockSizeRange k4{4096, 4096};
  EXPECT_EQ(ParseOne("").bs, (PerDir<BlockSizeRange>{k4, k4, k4}));
  EXPECT_EQ(ParseOne("bs=64k").bs[2], (BlockSizeRange{64 * kK, 64 * kK}));
  const auto bs = ParseOne("blocksize=8k,32k").bs;
  EXPECT_EQ(bs[0].min, 8 * kK);
  EXPECT_EQ(bs[1].min, 32 * kK);
  EXPECT_EQ(bs[2].min, 32 * kK);
  EXPECT_EQ(ParseOne("bs=8k,32k,").bs[2], k4);
  EXPECT_EQ(ParseOne("bs=,8k").bs[0], k4);
  EXPECT_EQ(ParseOne("bs=,8k").bs[2].max, 8 * kK);
  EXPECT_OPTION_ERROR("bs=0", 2, "bs", "expected a size >= 1");
  EXPECT_OPTION_ERROR("bs=4q", 2, "bs", "got '4q'");
  EXPECT_OPTION_ERROR("blocksize=1k,2k,3k,4k", 2, "blocksize", "at most 3");
}

TEST(BsRangeOption, RangesPerDirection) {
  JobOptions j = ParseOne("bsrange=4k-64k");
  for (const auto& r : j.bs) EXPECT_EQ(r, (BlockSizeRange{4 * kK, 64 * kK}));
  j = ParseOne("blocksize_range=1k:4k,2k-8k");
  EXPECT_EQ(j.bs[0], (BlockSizeRange{1 * kK, 4 * kK}));
  EXPECT_EQ(j.bs[1], (BlockSizeRange{2 * kK, 8 * kK}));
  EXPECT_EQ(j.bs[2], (BlockSizeRange{2 * kK, 8 * kK}));
  // Reversed ranges are swapped, as in fio.
  EXPECT_EQ(ParseOne("bsrange=64k-4k").bs[0], (BlockSizeRange{4 * kK, 64 * kK}));
  EXPECT_OPTION_ERROR("bsrange=4k", 2, "bsrange", "expected a range such as 4k-64k, got '4k'");
  EXPECT_OPTION_ERROR("bsrange=0-4k", 2, "bsrange", "expected a size >= 1");
}

TEST(BsSplitOption, WeightsAndFilling) {
  EXPECT_TRUE(ParseOne("").bssplit[0].empty());
  JobOptions j = ParseOne("bssplit=4k/60:64k/40");
  const std::vector<BsSplitEntry> want = {{4 * kK, 60}, {64 * kK, 40}};
  EXPECT_EQ(j.bssplit[0], want);
  EXPECT_EQ(j.bssplit[1], want);
  EXPECT_EQ(j.bssplit[2], want);
  // Blank percentages share the rest evenly.
  j = ParseOne("bssplit=4k/50:1k/:32k/");
  EXPECT_EQ(j.bssplit[0], (std::vector<BsSplitEntry>{{4 * kK, 50}, {1 * kK, 25}, {32 * kK, 25}}));
  EXPECT_EQ(ParseOne("bssplit=8k").bssplit[0], (std::vector<BsSplitEntry>{{8 * kK, 100}}));
  // Per direction, as in the fio manual.
  j = ParseOne("bssplit=2k/50:4k/50,4k/90:8k/10");
  EXPECT_EQ(j.bssplit[0], (std::vector<BsSplitEntry>{{2 * kK, 50}, {4 * kK, 50}}));
  EXPECT_EQ(j.bssplit[1], (std::vector<BsSplitEntry>{{4 * kK, 90}, {8 * kK, 10}}));
  EXPECT_EQ(j.bssplit[2], j.bssplit[1]);
  EXPECT_OPTION_ERROR("bssplit=4k/60:8k/50", 2, "bssplit", "add up to 110, more than 100");
  EXPECT_OPTION_ERROR("bssplit=4k/101", 2, "bssplit", "between 0 and 100");
  EXPECT_OPTION_ERROR("bssplit=4x/100", 2, "bssplit", "got '4x'");
  EXPECT_OPTION_ERROR("bssplit=4k/50::8k/50", 2, "bssplit", "empty entry");
}

TEST(BlockAlignOption, PerDirectionOptional) {
  EXPECT_FALSE(ParseOne("").blockalign[0]);
  JobOptions j = ParseOne("blockalign=512");
  EXPECT_EQ(j.blockalign[2], std::optional<uint64_t>(512));
  j = ParseOne("ba=,4k,");
  EXPECT_FALSE(j.blockalign[0]);
  EXPECT_EQ(j.blockalign[1], std::optional<uint64_t>(4 * kK));
  EXPECT_FALSE(j.blockalign[2]);
  EXPECT_OPTION_ERROR("ba=0", 2, "ba", "expected a size >= 1");
}

TEST(OffsetOption, BytesOrPercent) {
  EXPECT_EQ(ParseOne("").offset, (SizeSpec{0, false}));
  EXPECT_EQ(ParseOne("offset=1g").offset, (SizeSpec{1024 * kM, false}));
  EXPECT_EQ(ParseOne("offset=10%").offset, (SizeSpec{10, true}));
  EXPECT_EQ(ParseOne("fileoffset=4k").offset, (SizeSpec{4 * kK, false}));
  EXPECT_OPTION_ERROR("offset=101%", 2, "offset", "(0% to 100%)");
}

TEST(SizeOption, AbsentMeansWholeDevice) {
  EXPECT_FALSE(ParseOne("").size);
  EXPECT_EQ(ParseOne("size=64m").size, (SizeSpec{64 * kM, false}));
  EXPECT_EQ(ParseOne("size=50%").size, (SizeSpec{50, true}));
  EXPECT_FALSE(ParseOne("size=0").size);
  EXPECT_OPTION_ERROR("size=0%", 2, "size", "(1% to 100%)");
  EXPECT_OPTION_ERROR("size=big", 2, "size", "got 'big'");
}

TEST(IoSizeOption, AliasesAndPercent) {
  EXPECT_FALSE(ParseOne("").io_size);
  EXPECT_EQ(ParseOne("io_size=5g").io_size, (SizeSpec{5 * 1024 * kM, false}));
  EXPECT_EQ(ParseOne("io_limit=5g").io_size, (SizeSpec{5 * 1024 * kM, false}));
  EXPECT_EQ(ParseOne("io_size=200%").io_size, (SizeSpec{200, true}));
  EXPECT_OPTION_ERROR("io_limit=1z", 2, "io_limit", "got '1z'");
}

TEST(NumberIosOption, Count) {
  EXPECT_EQ(ParseOne("").number_ios, 0u);
  EXPECT_EQ(ParseOne("number_ios=1000").number_ios, 1000u);
  EXPECT_OPTION_ERROR("number_ios=many", 2, "number_ios", "expected a non-negative integer, got 'many'");
}

TEST(RandomDistributionOption, Kinds) {
  EXPECT_EQ(ParseOne("").random_distribution, RandomDistribution{});
  RandomDistribution d = ParseOne("random_distribution=zipf:1.2").random_distribution;
  EXPECT_EQ(d.kind, Distribution::kZipf);
  EXPECT_EQ(d.parameter, 1.2);
  EXPECT_FALSE(d.center);
  d = ParseOne("random_distribution=zipf:1.2:0.25").random_distribution;
  EXPECT_EQ(d.center, std::optional<double>(0.25));
  EXPECT_EQ(ParseOne("random_distribution=zipf").random_distribution.parameter, 1.1);
  d = ParseOne("random_distribution=pareto:0.3").random_distribution;
  EXPECT_EQ(d.kind, Distribution::kPareto);
  EXPECT_EQ(d.parameter, 0.3);
  EXPECT_EQ(ParseOne("random_distribution=pareto").random_distribution.parameter, 0.2);
  d = ParseOne("random_distribution=normal:5:0.5").random_distribution;
  EXPECT_EQ(d.kind, Distribution::kNormal);
  EXPECT_EQ(d.parameter, 5);
  EXPECT_EQ(d.center, std::optional<double>(0.5));
  EXPECT_EQ(ParseOne("random_distribution=zipf:1.2\nrandom_distribution=random").random_distribution,
            RandomDistribution{});
}

TEST(RandomDistributionOption, Zoned) {
  RandomDistribution d = ParseOne("random_distribution=zoned:60/10:30/20:8/30:2/40").random_distribution;
  EXPECT_EQ(d.kind, Distribution::kZoned);
  const std::vector<ZoneSplit> want = {{60, 10}, {30, 20}, {8, 30}, {2, 40}};
  EXPECT_EQ(d.zones[0], want);
  EXPECT_EQ(d.zones[2], want);
  d = ParseOne("random_distribution=zoned:50/50:50/50,90/10:10/90").random_distribution;
  EXPECT_EQ(d.zones[0], (std::vector<ZoneSplit>{{50, 50}, {50, 50}}));
  EXPECT_EQ(d.zones[1], (std::vector<ZoneSplit>{{90, 10}, {10, 90}}));
  EXPECT_EQ(d.zones[2], d.zones[1]);
  // A blank percentage gets an equal share of what the others leave, as fio.
  d = ParseOne("random_distribution=zoned:50/5:30/15:20/").random_distribution;
  EXPECT_EQ(d.zones[0], (std::vector<ZoneSplit>{{50, 5}, {30, 15}, {20, 80}}));
  d = ParseOne("random_distribution=zoned:50/10:/20:/").random_distribution;
  EXPECT_EQ(d.zones[0], (std::vector<ZoneSplit>{{50, 10}, {25, 20}, {25, 70}}));
  d = ParseOne("random_distribution=zoned_abs:60/20G:30/100G:10/500g").random_distribution;
  EXPECT_EQ(d.kind, Distribution::kZonedAbs);
  EXPECT_EQ(d.zones[0], (std::vector<ZoneSplit>{{60, 20 * 1024 * kM}, {30, 100 * 1024 * kM}, {10, 500 * 1024 * kM}}));
}

TEST(RandomDistributionOption, Errors) {
  EXPECT_OPTION_ERROR("random_distribution=gaussian", 2, "random_distribution", "unknown distribution 'gaussian'");
  EXPECT_OPTION_ERROR("random_distribution=zipf:1", 2, "random_distribution", "theta must not be 1.0");
  EXPECT_OPTION_ERROR("random_distribution=zipf:x", 2, "random_distribution", "got 'x'");
  EXPECT_OPTION_ERROR("random_distribution=pareto:1.5", 2, "random_distribution", "got '1.5'");
  EXPECT_OPTION_ERROR("random_distribution=pareto:1", 2, "random_distribution", "pareto power in (0, 1)");
  EXPECT_OPTION_ERROR("random_distribution=normal:100", 2, "random_distribution", "normal deviation");
  EXPECT_OPTION_ERROR("random_distribution=normal:5:2", 2, "random_distribution", "center:");
  EXPECT_OPTION_ERROR("random_distribution=zipf:1.2:0.5:1", 2, "random_distribution", "value[:center]");
  EXPECT_OPTION_ERROR("random_distribution=random:3", 2, "random_distribution", "takes no parameters");
  EXPECT_OPTION_ERROR("random_distribution=zoned", 2, "random_distribution", "needs zones");
  EXPECT_OPTION_ERROR("random_distribution=zoned:60/10:30/20", 2, "random_distribution",
                      "must add up to 100, got 90");
  EXPECT_OPTION_ERROR("random_distribution=zoned:50/60:50/60", 2, "random_distribution",
                      "zone sizes add up to 120%");
  EXPECT_OPTION_ERROR("random_distribution=zoned:100", 2, "random_distribution", "access%/size%");
  EXPECT_OPTION_ERROR("random_distribution=zoned_abs:100/x", 2, "random_distribution", "size of zone");
  EXPECT_OPTION_ERROR("random_distribution=zoned_abs:50/1g:50/", 2, "random_distribution", "size of zone");
}

TEST(RandRepeatAndSeed, Defaults) {
  EXPECT_TRUE(ParseOne("").randrepeat);
  EXPECT_FALSE(ParseOne("randrepeat=0").randrepeat);
  EXPECT_FALSE(ParseOne("").randseed);
  EXPECT_EQ(ParseOne("randseed=1234").randseed, std::optional<uint64_t>(1234));
  EXPECT_EQ(ParseOne("randseed=0x89").randseed, std::optional<uint64_t>(0x89));
  EXPECT_OPTION_ERROR("randrepeat=true", 2, "randrepeat", "expected 0 or 1");
  EXPECT_OPTION_ERROR("randseed=seed", 2, "randseed", "got 'seed'");
}

TEST(ZeroBuffersOption, BareFlag) {
  EXPECT_FALSE(ParseOne("").zero_buffers);
  EXPECT_TRUE(ParseOne("zero_buffers").zero_buffers);
  EXPECT_FALSE(ParseOne("zero_buffers=0").zero_buffers);
  EXPECT_OPTION_ERROR("zero_buffers=yes", 2, "zero_buffers", "expected no value, 0 or 1");
}

TEST(NoRandomMapOption, BareFlag) {
  EXPECT_FALSE(ParseOne("").norandommap);
  EXPECT_TRUE(ParseOne("norandommap").norandommap);
  EXPECT_TRUE(ParseOne("norandommap=1").norandommap);
  EXPECT_FALSE(ParseOne("norandommap=0").norandommap);
  EXPECT_OPTION_ERROR("norandommap=yes", 2, "norandommap", "expected no value, 0 or 1");
}

}  // namespace
}  // namespace blk::bench
