// Where the reports and the progress line go: the formats, the --output
// file, and when the progress line shows.
#include "tools/block_bench/cli/outputs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace blk::bench::cli {
namespace {

using F = OutputFormat;

TEST(Outputs, WhichFormatsAreAskedFor) {
  EXPECT_FALSE(WantsJson({F::kNormal, F::kTerse}));
  EXPECT_TRUE(WantsJson({F::kTerse, F::kJson}));
  EXPECT_TRUE(WantsJson({F::kJsonPlus}));
  EXPECT_TRUE(WantsNormal({F::kJson, F::kNormal}));
  EXPECT_FALSE(WantsNormal({F::kJson, F::kJsonPlus, F::kTerse}));
}

TEST(ShowProgress, AlwaysShowsEvenWithJsonOrAFile) {
  EXPECT_TRUE(ShowProgress(EtaMode::kAlways, false, false, false, false));
  EXPECT_TRUE(ShowProgress(EtaMode::kAlways, false, true, true, false));
}

TEST(ShowProgress, AutoOnlyOnATerminalWithTextOnStdout) {
  EXPECT_TRUE(ShowProgress(EtaMode::kAuto, true, true, false, false));
  EXPECT_FALSE(ShowProgress(EtaMode::kAuto, false, true, false, false));  // not a terminal
  EXPECT_FALSE(ShowProgress(EtaMode::kAuto, true, false, false, false));  // --output=FILE
  EXPECT_FALSE(ShowProgress(EtaMode::kAuto, true, true, true, false));    // JSON on stdout
}

TEST(ShowProgress, NeverAndMpiRanksNever) {
  EXPECT_FALSE(ShowProgress(EtaMode::kNever, true, true, false, false));
  EXPECT_FALSE(ShowProgress(EtaMode::kAlways, true, true, false, true));
  EXPECT_FALSE(ShowProgress(EtaMode::kAuto, true, true, false, true));
}

TEST(ChooseOutputs, JsonOnStdoutMovesTheProgressLineToStderr) {
  ToolFlags flags;
  flags.output_formats = {F::kJson};
  flags.eta = EtaMode::kAlways;
  const Outputs o = ChooseOutputs(flags, stdout, false);
  EXPECT_EQ(o.out, stdout);
  EXPECT_TRUE(o.json_on_stdout);
  EXPECT_EQ(o.progress_stream, stderr);
  EXPECT_TRUE(o.progress);
  EXPECT_FALSE(ChooseOutputs(flags, stdout, true).progress);
}

TEST(ChooseOutputs, JsonWithNormalIsAllOnStdoutAsFio) {
  ToolFlags flags;
  flags.output_formats = {F::kJson, F::kNormal};
  const Outputs o = ChooseOutputs(flags, stdout, false);
  EXPECT_EQ(o.out, stdout);
  EXPECT_FALSE(o.json_on_stdout);
  EXPECT_EQ(o.progress_stream, stdout);
}

TEST(ChooseOutputs, JsonToAFileLeavesStdoutToTheProgressLine) {
  ToolFlags flags;
  flags.output_formats = {F::kNormal, F::kJson};
  FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  const Outputs o = ChooseOutputs(flags, file, false);
  EXPECT_EQ(o.out, file);
  EXPECT_FALSE(o.json_on_stdout);
  EXPECT_EQ(o.progress_stream, stdout);
  EXPECT_FALSE(o.progress);  // --eta=auto with the reports in a file
  std::fclose(file);
}

TEST(OpenReportStream, StdoutUnlessTheLeadHasAnOutputFile) {
  const std::string path = ::testing::TempDir() + "/outputs_test_report.txt";
  std::filesystem::remove(path);
  ToolFlags flags;
  EXPECT_EQ(OpenReportStream(flags, true), stdout);
  flags.output = path;
  EXPECT_EQ(OpenReportStream(flags, false), stdout);  // another rank
  EXPECT_FALSE(std::filesystem::exists(path));
  FILE* f = OpenReportStream(flags, true);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f, stdout);
  EXPECT_TRUE(std::filesystem::exists(path));
  std::fclose(f);
}

TEST(OpenReportStream, SaysWhyTheFileCannotBeCreated) {
  ToolFlags flags;
  flags.output = "/nonexistent-dir/report.txt";
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(OpenReportStream(flags, true), nullptr);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "block-bench: --output=/nonexistent-dir/report.txt: No such file or directory\n");
}

}  // namespace
}  // namespace blk::bench::cli
