// Fuzzes the result reader of `block-bench compare` (ParseResultJson: fio's
// and block-bench's JSON) and, on documents it accepts, the comparison and
// both reports, with the document on both sides.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tools/block_bench/verdict/results.h"
#include "tools/block_bench/verdict/verdict.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace blk::bench::verdict;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = ParseResultJson(text, "fuzz.json");
  if (!doc) {
    if (doc.error().message.rfind("fuzz.json: ", 0) != 0) std::abort();  // names the file
    return 0;
  }
  CompareOptions o;
  o.resamples = 100;
  o.min_runs = 2;
  const std::vector<ResultDoc> side = {*doc, *doc};
  const Comparison c = Compare(side, side, o);
  // The same runs on both sides are never worse or better.
  if (c.overall == Verdict::kWorse || c.overall == Verdict::kBetter) std::abort();
  (void)TextReport(c, o);
  (void)JsonReport(c, o).dump();
  return 0;
}
