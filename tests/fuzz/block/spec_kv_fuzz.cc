// Fuzzes graph specs in key=value form (Options::Parse) and their check
// against the driver table (ValidateNode).
#include <cstdint>
#include <string_view>

#include "tests/fuzz/block/spec_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view spec(reinterpret_cast<const char*>(data), size);
  blk::Expected<blk::Options> opts = blk::Options::Parse(spec);
  if (opts.ok()) blk::fuzz::CheckParsedSpec(opts.value());
  return 0;
}
