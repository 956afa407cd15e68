// Helpers for the tests of block-bench's run command pieces (tools/
// block_bench/cli): jobs through the real parser, and a FILE* whose
// contents a test can read.
//
// Thread-safety: test-only.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tools/block_bench/jobfile/cmdline.h"
#include "tools/block_bench/jobfile/parse_env.h"

namespace blk::bench::testing {

// The jobs of a fio-style command line; a parse error fails the test.
inline std::vector<JobOptions> Jobs(const std::vector<std::string>& args) {
  auto cl = ParseCommandLine(args, ParseEnvironment::FromSystem());
  EXPECT_TRUE(cl.ok()) << (cl.ok() ? "" : cl.error().message);
  if (!cl.ok()) return {};
  return cl->jobs;
}

// A stream into memory (open_memstream).
class MemoryStream {
 public:
  MemoryStream() : file_(open_memstream(&buf_, &size_)) {}
  ~MemoryStream() {
    std::fclose(file_);
    std::free(buf_);
  }
  MemoryStream(const MemoryStream&) = delete;
  MemoryStream& operator=(const MemoryStream&) = delete;

  FILE* file() { return file_; }
  // Everything written so far (flushes first).
  std::string text() {
    std::fflush(file_);
    return std::string(buf_, size_);
  }

 private:
  char* buf_ = nullptr;
  size_t size_ = 0;
  FILE* file_;
};

}  // namespace blk::bench::testing
