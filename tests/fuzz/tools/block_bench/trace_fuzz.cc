// Fuzzes the trace parsers (tools/block_bench/trace): ParseTrace with
// sniffing and with each format forced, with and without skip_bad and a
// device filter, and on traces they accept, --trace-info's statistics and
// both renderings; the blktrace merge (blktrace_merge.h) of the input's
// two halves with scalars and passes from its first bytes.  Every error
// must start with the trace's name.
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "tools/block_bench/trace/blktrace_merge.h"
#include "tools/block_bench/trace/info.h"
#include "tools/block_bench/trace/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace blk::bench::trace;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)SniffFormat(text);
  static const Format kFormats[] = {Format::kAuto,     Format::kIologV2, Format::kIologV3,
                                    Format::kBlktrace, Format::kPerf,    Format::kAlibaba,
                                    Format::kTencent,  Format::kMsr};
  for (Format f : kFormats) {
    for (int variant = 0; variant < 2; variant++) {
      ParseOptions o;
      o.format = f;
      o.skip_bad = variant == 1;
      // The first bytes as a device filter: exercises every filter parser.
      if (variant == 1 && size > 2 && data[0] == '@') o.device = std::string(text.substr(1, 6));
      o.every_device = variant == 0;
      auto t = ParseTrace(text, "fuzz.trace", o);
      if (!t.ok()) {
        if (t.error().message.rfind("fuzz.trace", 0) != 0 &&
            t.error().message.rfind("trace_device=", 0) != 0)
          std::abort();
        continue;
      }
      if (t->records.empty() || t->records[0].t_ns != 0) std::abort();
      for (size_t i = 1; i < t->records.size(); i++)
        if (t->records[i].t_ns < t->records[i - 1].t_ns) std::abort();
      const TraceInfo info = ComputeInfo(*t, "fuzz.trace");
      if (RenderText(info).empty() || RenderJson(info).empty()) std::abort();
    }
  }
  // The merge: halves "a" and "b", scalar 1..256 %, 1..3 passes each.
  if (size >= 4) {
    const size_t half = (size - 4) / 2;
    std::vector<MergeInput> in(2);
    in[0] = {"a", text.substr(4, half), uint32_t(data[0]) + 1, uint32_t(data[1] % 3) + 1};
    in[1] = {"b", text.substr(4 + half), uint32_t(data[2]) + 1, uint32_t(data[3] % 3) + 1};
    auto m = MergeBlktraceData(in);
    if (!m.ok()) {
      if (m.error().message.rfind("a", 0) != 0 && m.error().message.rfind("b", 0) != 0)
        std::abort();
    } else {
      if (m->data.size() != m->records * 48) std::abort();
      ParseOptions o;
      o.format = Format::kBlktrace;
      o.every_device = true;
      auto t = ParseTrace(m->data, "fuzz.trace", o);
      if (!t.ok() && t.error().message.rfind("fuzz.trace", 0) != 0) std::abort();
    }
  }
  return 0;
}
