#include "tools/block_bench/run/cmdprio.h"

#include <algorithm>

namespace blk::bench {
namespace {

// cmdprio_class not written means real-time, as fio.
uint32_t CmdClass(const IoPrioOptions& o, int d) { return o.cmdprio_class[d] ? o.cmdprio_class[d] : 1; }

uint16_t EntryValue(const IoPrioOptions& o, int d, const IoPrioOptions::BsPrio& e) {
  if (!e.prioclass) return CmdPrio::Value(CmdClass(o, d), o.cmdprio[d]);
  return CmdPrio::Value(*e.prioclass, *e.level);
}

}  // namespace

CmdPrio::CmdPrio(const IoPrioOptions& o, uint64_t seed)
    : o_(o), rng_(seed ^ 0x9e3779b97f4a7c15ull), job_(o.job_ioprio()) {
  for (int d = 0; d < 2; d++) {
    std::vector<uint16_t>& v = prios_[d];
    v.push_back(job_);
    const auto add = [&v](uint16_t p) {
      if (std::find(v.begin(), v.end(), p) == v.end()) v.push_back(p);
    };
    if (o.cmdprio_percentage[d]) add(Value(CmdClass(o, d), o.cmdprio[d]));
    for (const IoPrioOptions::BsPrio& e : o.cmdprio_bssplit[d]) add(EntryValue(o, d, e));
  }
  active_ = o.per_request();
}

CmdPrio::Pick CmdPrio::pick(Dir dir, uint64_t len) {
  if (!active_ || dir == Dir::kTrim) return {job_, false};
  const int d = int(dir);
  if (o_.cmdprio_percentage[d]) {
    if (rng_.below(100) < o_.cmdprio_percentage[d])
      return {Value(CmdClass(o_, d), o_.cmdprio[d]), true};
    return {job_, false};
  }
  const std::vector<IoPrioOptions::BsPrio>& list = o_.cmdprio_bssplit[d];
  auto it = std::find_if(list.begin(), list.end(), [len](const auto& e) { return e.bs == len; });
  if (it == list.end()) return {job_, false};
  // The size's entries are adjacent (sorted by size); they share one draw.
  const uint64_t draw = rng_.below(100);
  uint32_t upto = 0;
  for (; it != list.end() && it->bs == len; ++it) {
    upto += it->percentage;
    if (draw < upto) return {EntryValue(o_, d, *it), true};
  }
  return {job_, false};
}

}  // namespace blk::bench
