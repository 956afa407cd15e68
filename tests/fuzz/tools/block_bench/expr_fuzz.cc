// Fuzzes fio's arithmetic (EvaluateArithmetic), directly and through the
// value parsers that call it for sizes and times.
#include <cstdint>
#include <optional>
#include <string_view>

#include "tools/block_bench/jobfile/expr.h"
#include "tools/block_bench/jobfile/units.h"
#include "tools/block_bench/jobfile/values.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace blk::bench;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)EvaluateArithmetic(text, [](std::string_view s) -> std::optional<double> {
    auto m = SizeSuffixMultiplier(s, 1024);
    if (!m) return std::nullopt;
    return static_cast<double>(*m);
  });
  (void)FioParseSize(text, 1000, 1);
  (void)ParseTime(text, 1);
  return 0;
}
