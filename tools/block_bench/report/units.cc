#include "tools/block_bench/report/units.h"

#include <map>
#include <set>

namespace blk::bench {

std::vector<ReportUnit> ReportUnits(const RunResult& run) {
  std::vector<ReportUnit> units;
  std::map<int, size_t> group_unit;
  for (const CloneResult& c : run.clones) {
    if (c.not_run || !c.job->stats) continue;
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

std::vector<int> StatusGroups(const RunResult& run) {
  std::set<int> groups;
  for (const CloneResult& c : run.clones)
    if (!c.not_run) groups.insert(c.groupid);
  return {groups.begin(), groups.end()};
}

std::vector<NotStarted> NotStartedClones(const RunResult& run) {
  std::vector<NotStarted> out;
  for (const CloneResult& c : run.clones) {
    if (out.empty() || out.back().job != c.job) out.push_back(NotStarted{c.job, 0, 0});
    out.back().of++;
    if (c.not_run) out.back().clones++;
  }
  std::erase_if(out, [](const NotStarted& n) { return n.clones == 0; });
  return out;
}

}  // namespace blk::bench
