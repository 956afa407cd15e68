// Writing the reports: the formats' order and streams, which makers are
// called, and the exit status when the output cannot be written.
#include "tools/block_bench/cli/reports.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_util.h"

namespace blk::bench::cli {
namespace {

using F = OutputFormat;
using testing::MemoryStream;

// Report makers that record their calls.
struct Makers {
  std::vector<std::string> calls;
  TextMaker text = [this] {
    calls.push_back("text");
    return std::string("TEXT REPORT\n");
  };
  JsonMaker json = [this](bool plus) {
    calls.push_back(plus ? "json+" : "json");
    nlohmann::ordered_json doc;
    doc["plus"] = plus;
    doc["jobs"] = nlohmann::ordered_json::array();
    return doc;
  };
};

std::string Dump(bool plus) {
  nlohmann::ordered_json doc;
  doc["plus"] = plus;
  doc["jobs"] = nlohmann::ordered_json::array();
  return doc.dump(2) + "\n";
}

// fio 3.33 writes terse, then JSON, then the text report, whatever the
// order of --output-format (its output buffers are indexed by format).
TEST(WriteReports, FiosOrderWhateverTheOrderAsked) {
  ToolFlags flags;
  flags.output_formats = {F::kNormal, F::kJsonPlus};
  Makers m;
  MemoryStream out;
  WriteReports(flags, out.file(), false, m.text, m.json);
  EXPECT_EQ(out.text(), Dump(true) + "\nTEXT REPORT\n");
  EXPECT_EQ(m.calls, (std::vector<std::string>{"json+", "text"}));
}

TEST(WriteReports, TerseBeforeJsonBeforeText) {
  ToolFlags flags;
  flags.output_formats = {F::kNormal, F::kJson, F::kTerse};
  Makers m;
  MemoryStream out;
  WriteReports(flags, out.file(), false, m.text, m.json);
  EXPECT_EQ(out.text(), Dump(false) + "\nTEXT REPORT\n");  // no jobs: no terse lines
  EXPECT_EQ(m.calls, (std::vector<std::string>{"json", "json", "text"}));
}

// json,json+ is one document, with the bins (fio's json+ implies json).
TEST(WriteReports, JsonAndJsonPlusAreOneDocument) {
  ToolFlags flags;
  flags.output_formats = {F::kJson, F::kJsonPlus};
  Makers m;
  MemoryStream out;
  WriteReports(flags, out.file(), false, m.text, m.json);
  EXPECT_EQ(out.text(), Dump(true));
  EXPECT_EQ(m.calls, (std::vector<std::string>{"json+"}));
}

TEST(WriteReports, TextGoesToStderrWhenJsonIsOnStdout) {
  ToolFlags flags;
  flags.output_formats = {F::kNormal, F::kJson};
  Makers m;
  MemoryStream out;
  ::testing::internal::CaptureStderr();
  WriteReports(flags, out.file(), true, m.text, m.json);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "TEXT REPORT\n");  // no empty line
  EXPECT_EQ(out.text(), Dump(false));
}

TEST(WriteReports, TerseIsMadeFromTheJsonDocument) {
  ToolFlags flags;
  flags.output_formats = {F::kTerse};
  Makers m;
  MemoryStream out;
  WriteReports(flags, out.file(), false, m.text, m.json);
  EXPECT_EQ(out.text(), "");  // no jobs: no lines
  EXPECT_EQ(m.calls, (std::vector<std::string>{"json"}));
}

TEST(PrintReports, KeepsTheStatusAndClosesTheFile) {
  const std::string path = ::testing::TempDir() + "/reports_test.txt";
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  ToolFlags flags;
  Makers m;
  EXPECT_EQ(PrintReports(flags, f, false, 130, m.text, m.json), 130);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "\nTEXT REPORT\n");
}

TEST(PrintReports, AnOutputThatCannotBeWrittenIsStatusOne) {
  FILE* full = std::fopen("/dev/full", "w");
  if (!full) GTEST_SKIP() << "no /dev/full";
  ToolFlags flags;
  Makers m;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(PrintReports(flags, full, false, 0, m.text, m.json), 1);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "block-bench: writing output: No space left on device\n");
}

}  // namespace
}  // namespace blk::bench::cli
