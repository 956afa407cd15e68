#include "tools/block_bench/report/units.h"

#include <map>

namespace blk::bench {

std::vector<ReportUnit> ReportUnits(const RunResult& run) {
  std::vector<ReportUnit> units;
  std::map<int, size_t> group_unit;
  for (const CloneResult& c : run.clones) {
    if (c.not_run) continue;
    if (c.job->group_reporting) {
      auto it = group_unit.find(c.groupid);
      if (it != group_unit.end()) {
        units[it->second].r.merge(c);
        units[it->second].jobs++;
        continue;
      }
      group_unit[c.groupid] = units.size();
    }
    units.push_back(ReportUnit{c, 1});
  }
  return units;
}

}  // namespace blk::bench
