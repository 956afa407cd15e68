// IologWriter: what it writes reads back through ParseTrace, and a graph
// spec given as the file name stays one token that names the same graph
// (JSON specs hold blanks the format would cut).
#include "tools/block_bench/trace/iolog_writer.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include <blkstack/block/options.h>
#include "gtest/gtest.h"
#include "tools/block_bench/trace/trace.h"

namespace blk::bench::trace {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name + "." + std::to_string(getpid());
}

// Writes one read on a file named `name` and parses the log back.
Trace WriteAndRead(const std::string& name) {
  const std::string path = TempPath("w");
  auto w = IologWriter::Open(path);
  EXPECT_TRUE(w.ok());
  const uint16_t f = w->add_file(0, name);
  w->io(5, f, Op::kRead, 4096, 4096);
  EXPECT_TRUE(w->close(9).ok());
  auto t = LoadTrace(path, ParseOptions{});
  ::unlink(path.c_str());
  EXPECT_TRUE(t.ok()) << t.error().message;
  return t.ok() ? std::move(*t) : Trace{};
}

TEST(IologWriter, AJsonSpecIsWrittenAsOneTokenNamingTheSameGraph) {
  const std::string json = R"({"driver": "throttle", "file": {"driver": "null", "size": "64M"}})";
  const Trace t = WriteAndRead(json);
  ASSERT_EQ(t.files.size(), 1u);
  ASSERT_EQ(t.records.size(), 1u);
  auto got = Options::Parse(t.files[0]);
  auto want = Options::Parse(json);
  ASSERT_TRUE(got.ok()) << t.files[0];
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(got->ToString(), want->ToString());
}

TEST(IologWriter, NamesAndKeyValueSpecsAreKept) {
  EXPECT_EQ(WriteAndRead("driver=null,size=67108864").files,
            std::vector<std::string>{"driver=null,size=67108864"});
  EXPECT_EQ(WriteAndRead("/dev/vdb").files, std::vector<std::string>{"/dev/vdb"});
  EXPECT_EQ(WriteAndRead("a b").files, std::vector<std::string>{"a_b"});
}

}  // namespace
}  // namespace blk::bench::trace
