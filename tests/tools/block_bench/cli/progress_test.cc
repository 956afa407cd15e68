// The progress line: fio's ETA format, the line's fields, drawing over the
// previous line, erasing it, and --eta-newline's kept lines.
#include "tools/block_bench/cli/progress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "cli_test_util.h"

namespace blk::bench::cli {
namespace {

using testing::MemoryStream;

constexpr int64_t kSecond = 1'000'000'000;

ProgressSnapshot Reading(double bw, double iops) {
  ProgressSnapshot p;
  p.running = 2;
  p.total = 2;
  p.percent = 50;
  p.bw_bytes[0] = bw;
  p.iops[0] = iops;
  p.eta_s = 65;
  p.modes = "r(2)";
  return p;
}

TEST(FormatEta, MinutesAndSecondsBelowAnHour) {
  EXPECT_EQ(FormatEta(0), "00m:00s");
  EXPECT_EQ(FormatEta(65), "01m:05s");
  EXPECT_EQ(FormatEta(3599), "59m:59s");
}

TEST(FormatEta, HoursFromAnHourOn) {
  EXPECT_EQ(FormatEta(3600), "01h:00m:00s");
  EXPECT_EQ(FormatEta(3723), "01h:02m:03s");
  EXPECT_EQ(FormatEta(100 * 3600 + 61), "100h:01m:01s");
}

TEST(FormatEta, RoundsToTheNearestSecond) {
  EXPECT_EQ(FormatEta(4.49), "00m:04s");
  EXPECT_EQ(FormatEta(4.5), "00m:05s");
  EXPECT_EQ(FormatEta(3599.5), "01h:00m:00s");
}

TEST(FormatProgress, FioLayout) {
  EXPECT_EQ(FormatProgress(Reading(1048576, 256000)),
            "Jobs: 2 (f=2): [r(2)][50.0%][r=1024KiB/s][r=256k IOPS][eta 01m:05s]");
}

TEST(FormatProgress, OnlyDirectionsWithIo) {
  ProgressSnapshot p = Reading(0, 0);
  p.modes = "w(1)T(1)";
  p.percent = 12.34;
  p.bw_bytes[1] = 2048;
  p.iops[1] = 2;
  p.bw_bytes[2] = 4096;
  p.iops[2] = 1;
  EXPECT_EQ(FormatProgress(p),
            "Jobs: 2 (f=2): [w(1)T(1)][12.3%][w=2048B/s,t=4096B/s][w=2,t=1 IOPS][eta 01m:05s]");
}

TEST(FormatProgress, NoIoYet) {
  EXPECT_EQ(FormatProgress(Reading(0, 0)), "Jobs: 2 (f=2): [r(2)][50.0%][][ IOPS][eta 01m:05s]");
}

TEST(ProgressLine, DrawsOverTheLastLineAndCoversALongerOne) {
  MemoryStream s;
  ProgressLine line(s.file(), 0);
  const std::string longer = FormatProgress(Reading(1048576, 256000));
  const std::string shorter = FormatProgress(Reading(0, 0));
  ASSERT_LT(shorter.size(), longer.size());
  line.Show(Reading(1048576, 256000), 1 * kSecond);
  EXPECT_EQ(s.text(), "\r" + longer);  // flushed
  line.Show(Reading(0, 0), 2 * kSecond);
  EXPECT_EQ(s.text(), "\r" + longer + "\r" + shorter +
                          std::string(longer.size() - shorter.size(), ' '));
  // The padding covers what was on screen: a third, as long as the second,
  // needs none.
  line.Show(Reading(0, 0), 3 * kSecond);
  EXPECT_TRUE(s.text().ends_with("\r" + shorter)) << s.text();
}

TEST(ProgressLine, EraseBlanksTheLineOnce) {
  MemoryStream s;
  ProgressLine line(s.file(), 0);
  line.Finish();
  line.Erase();
  EXPECT_EQ(s.text(), "");  // nothing shown: nothing to erase
  line.Show(Reading(0, 0), kSecond);
  const size_t len = FormatProgress(Reading(0, 0)).size();
  const std::string shown = s.text();
  line.Erase();
  EXPECT_EQ(s.text(), shown + "\r" + std::string(len, ' ') + "\r");
  line.Finish();
  line.Erase();
  EXPECT_EQ(s.text(), shown + "\r" + std::string(len, ' ') + "\r");
}

TEST(ProgressLine, AfterEraseTheNextLineIsNotPadded) {
  MemoryStream s;
  ProgressLine line(s.file(), 0);
  line.Show(Reading(1048576, 256000), kSecond);
  line.Finish();
  const std::string before = s.text();
  line.Show(Reading(0, 0), 2 * kSecond);
  EXPECT_EQ(s.text(), before + "\r" + FormatProgress(Reading(0, 0)));
}

TEST(ProgressLine, EtaNewlineKeepsALineEveryInterval) {
  MemoryStream s;
  ProgressLine line(s.file(), 1000);
  // Not before the first line; then once a second has passed since the
  // last kept line.
  const int64_t times[] = {10 * kSecond, 10 * kSecond + kSecond / 2, 11 * kSecond,
                           11 * kSecond + 9 * kSecond / 10, 12 * kSecond};
  std::vector<size_t> newlines;
  for (int64_t t : times) {
    const size_t before = s.text().size();
    line.Show(Reading(0, 0), t);
    newlines.push_back(s.text().substr(before).starts_with("\n\r") ? 1 : 0);
  }
  EXPECT_EQ(newlines, (std::vector<size_t>{0, 0, 1, 0, 1}));
}

TEST(ProgressLine, WithoutEtaNewlineNoLineIsKept) {
  MemoryStream s;
  ProgressLine line(s.file(), 0);
  for (int i = 1; i <= 5; i++) line.Show(Reading(0, 0), i * 10 * kSecond);
  const std::string text = s.text();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 0);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\r'), 5);
}

}  // namespace
}  // namespace blk::bench::cli
