#include "tools/block_bench/report/clients.h"

#include <ctime>
#include <map>
#include <utility>

#include "tools/block_bench/report/common.h"

namespace blk::bench {

std::vector<ReportUnit> AllClientsUnits(const std::vector<ClientRun>& clients) {
  // A unit is one clone, or one group with group_reporting: the same on
  // every rank, which ran the same jobs.
  std::vector<ReportUnit> all;
  std::map<std::pair<int64_t, int64_t>, size_t> index;
  for (const ClientRun& c : clients) {
    for (const ReportUnit& u : ReportUnits(c.run)) {
      const auto key = u.r.job->group_reporting
                           ? std::pair<int64_t, int64_t>{-1, u.r.groupid}
                           : std::pair<int64_t, int64_t>{u.r.job_index, u.r.clone};
      auto it = index.find(key);
      if (it == index.end()) {
        index[key] = all.size();
        all.push_back(u);
        continue;
      }
      all[it->second].r.merge(u.r);
      all[it->second].jobs += u.jobs;
    }
  }
  return all;
}

std::string ClientsTextReport(const std::vector<ClientRun>& clients, bool counters) {
  using namespace report_internal;
  const std::string when = LocalDate(time(nullptr));
  std::string o;
  for (const ClientRun& c : clients) {
    std::vector<ReportUnit> units = ReportUnits(c.run);
    GroupBws gbw;
    FillGroupBws(units, gbw);
    o += Fmt("Client rank %d (%s):\n", c.rank, c.hostname.c_str());
    for (const ReportUnit& u : units) o += UnitText(u, u.r.job->name, gbw, counters, when, c.run.pid);
  }
  const std::vector<ReportUnit> all = AllClientsUnits(clients);
  GroupBws gbw;
  FillGroupBws(all, gbw);
  for (const ReportUnit& u : all) {
    const std::string name = all.size() == 1 ? "All clients" : "All clients [" + u.r.job->name + "]";
    o += UnitText(u, name, gbw, counters, when, clients.empty() ? 0 : clients.front().run.pid);
  }
  o += StatusText(all);
  std::string disks;
  for (const ClientRun& c : clients)
    disks += DiskText(c.run.disk_util, c.hostname + "[" + std::to_string(c.rank) + "]:");
  if (!disks.empty()) o += "\nDisk stats (read/write):\n" + disks;
  return o;
}

nlohmann::ordered_json ClientsJsonReport(const std::vector<ClientRun>& clients, bool plus) {
  using namespace report_internal;
  ojson top = TopJson(clients.empty() ? 0 : clients.front().run.start_unix_ms);
  ojson stats = ojson::array();
  ojson disks = ojson::array();
  for (const ClientRun& c : clients) {
    std::vector<ReportUnit> units = ReportUnits(c.run);
    GroupBws gbw;
    FillGroupBws(units, gbw);
    for (const ReportUnit& u : units) {
      ojson j = UnitJson(u, u.r.job->name, gbw, plus);
      j["hostname"] = c.hostname;
      j["port"] = 0;
      j["rank"] = c.rank;
      stats.push_back(std::move(j));
    }
    for (const DiskUtil& d : c.run.disk_util) {
      ojson o = DiskJson(d);
      o["hostname"] = c.hostname;
      o["rank"] = c.rank;
      disks.push_back(std::move(o));
    }
  }
  const std::vector<ReportUnit> all = AllClientsUnits(clients);
  GroupBws gbw;
  FillGroupBws(all, gbw);
  ojson jobs = ojson::array();
  for (const ReportUnit& u : all) {
    ojson j = UnitJson(u, "All clients", gbw, plus);
    j["blkstack"]["ranks"] = clients.size();
    stats.push_back(j);
    j["jobname"] = u.r.job->name;
    j["blkstack"].erase("job");
    jobs.push_back(std::move(j));
  }
  // The merged units also where single-host consumers look (fio's own
  // client output has no "jobs"; fio_jsonplus_clat2csv reads only "jobs").
  top["jobs"] = std::move(jobs);
  top["client_stats"] = std::move(stats);
  if (!disks.empty()) top["disk_util"] = std::move(disks);
  return top;
}

}  // namespace blk::bench
