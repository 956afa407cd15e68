// Fuzzes the fio-format log reader of `block-bench plot` (ParseLog) and,
// on logs it accepts, the time-series SVG.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tools/block_bench/plot/plot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace blk::bench::plot;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto log = ParseLog(text, "fuzz_clat.1.log");
  if (!log) {
    if (log.error().message.rfind("fuzz_clat.1.log:", 0) != 0) std::abort();
    return 0;
  }
  const std::string svg = RenderSvg("fuzz", TimePanels({*log}));
  if (svg.find("</svg>") == std::string::npos) std::abort();
  return 0;
}
