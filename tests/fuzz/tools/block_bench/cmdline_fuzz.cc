// Fuzzes the command-line parser (ParseCommandLine): the input is split into
// arguments at NUL and newline bytes; job files come from memory
// (tests/fuzz/fuzz_env.h).
#include <cstdint>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_env.h"
#include "tools/block_bench/jobfile/cmdline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace blk::bench;
  static const ParseEnvironment env = fuzz::FuzzEnvironment();
  std::vector<std::string> args(1);
  for (size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0' || c == '\n') {
      args.emplace_back();
    } else {
      args.back() += c;
    }
  }
  if (size == 0) args.clear();
  (void)ParseCommandLine(args, env);
  return 0;
}
