#include "tools/block_bench/jobfile/debug_mask.h"

namespace blk::bench {
namespace {

constexpr std::string_view kNames[] = {
    "process", "file",    "io",   "mem",  "blktrace", "verify",   "random",
    "parse",   "diskutil", "job", "mutex", "profile", "time",     "net",
    "rate",    "compress", "steadystate", "helperthread", "zbd"};
static_assert(std::size(kNames) == size_t(DebugCategory::kCount));

}  // namespace

std::string_view Name(DebugCategory c) { return kNames[uint32_t(c)]; }

std::string DebugCategoryList() {
  std::string s;
  for (std::string_view n : kNames) (s += n) += ",";
  return s + "all";
}

DebugMask ParseDebugMask(std::string_view list) {
  DebugMask m;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    if (name.empty()) continue;
    if (name == "all") {
      m.mask |= Bit(DebugCategory::kCount) - 1;
      continue;
    }
    bool found = false;
    for (uint32_t c = 0; c < uint32_t(DebugCategory::kCount); c++) {
      if (kNames[c] != name) continue;
      m.mask |= 1u << c;
      found = true;
    }
    if (!found) m.unknown.emplace_back(name);
  }
  return m;
}

}  // namespace blk::bench
