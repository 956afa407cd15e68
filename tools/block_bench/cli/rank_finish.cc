#include "tools/block_bench/cli/rank_finish.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "tools/block_bench/cli/reports.h"
#include "tools/block_bench/cli/run_status.h"
#include "tools/block_bench/report/report.h"
#include "tools/block_bench/run/result_codec.h"

namespace blk::bench::cli {
namespace {

// Every rank's results, in rank order; nullopt (the rank named on stderr)
// when one cannot be decoded.
std::optional<std::vector<ClientRun>> DecodeRanks(const mpi::MpiSession& session,
                                                  const std::vector<JobOptions>& jobs,
                                                  const std::vector<std::string>& all) {
  std::vector<ClientRun> clients;
  for (int r = 0; r < int(all.size()); r++) {
    auto run = DecodeRun(all[size_t(r)], jobs);
    if (!run.ok()) {
      std::fprintf(stderr, "block-bench: %s: %s\n", session.who(r).c_str(),
                   run.error().message.c_str());
      return std::nullopt;
    }
    clients.push_back(ClientRun{r, session.hostname_of(r), std::move(*run)});
  }
  return clients;
}

// Prints what went wrong on every rank, each line once: every rank knows of
// a failure before the I/O (the ranks' sync_error repeat the failing rank's
// own error).  Then whether the run was interrupted.
void PrintRankProblems(const mpi::MpiSession& session, const std::vector<ClientRun>& clients) {
  std::set<std::string> said;
  auto say = [&](const std::string& line) {
    if (said.insert(line).second) std::fprintf(stderr, "block-bench: %s\n", line.c_str());
  };
  int interrupted_by = 0;
  for (const ClientRun& c : clients) {
    const std::string who = session.who(c.rank) + ": ";
    if (c.run.setup_error) say(who + c.run.setup_error->message);
    for (const std::string& line : CloneErrors(c.run, who)) say(line);
    if (!interrupted_by) interrupted_by = c.run.interrupted_by;
  }
  for (const ClientRun& c : clients)
    if (c.run.sync_error) say(c.run.sync_error->message);
  if (interrupted_by) PrintInterrupted(interrupted_by);
}

bool AnyCloneRan(const std::vector<ClientRun>& clients) {
  for (const ClientRun& c : clients)
    for (const CloneResult& k : c.run.clones)
      if (!k.not_run) return true;
  return false;
}

// The clones of all ranks in one result: their bandwidth samples add up.
RunResult AllRanksClones(const std::vector<ClientRun>& clients) {
  RunResult every;
  for (const ClientRun& c : clients)
    every.clones.insert(every.clones.end(), c.run.clones.begin(), c.run.clones.end());
  return every;
}

}  // namespace

int FinishAcrossRanks(mpi::MpiSession& session, const std::vector<JobOptions>& jobs,
                      const RunResult& rr, const ToolFlags& flags, FILE* out, bool json_on_stdout) {
  const std::string me = session.who(session.rank()) + ": ";
  int status = ExitStatus(rr);
  if (!WriteJobLogs(rr, ".rank" + std::to_string(session.rank()), me)) status = 1;
  const std::vector<std::string> all = session.gather(EncodeRun(rr));
  // The last collective comes after rank 0 printed: mpirun ends the whole
  // job as soon as one rank exits non-zero.
  if (session.rank() != 0) return session.max(status);
  status = std::max(status, ReportAcrossRanks(session, jobs, all, flags, out, json_on_stdout));
  return session.max(status);
}

int ReportAcrossRanks(mpi::MpiSession& session, const std::vector<JobOptions>& jobs,
                      const std::vector<std::string>& all, const ToolFlags& flags, FILE* out,
                      bool json_on_stdout) {
  const auto clients = DecodeRanks(session, jobs, all);
  if (!clients) return 1;
  PrintRankProblems(session, *clients);
  if (!AnyCloneRan(*clients)) return 0;
  int status = 0;
  if (flags.bandwidth_log && !WriteBandwidthLog(AllRanksClones(*clients))) status = 1;
  return PrintReports(
      flags, out, json_on_stdout, status,
      [&] { return ClientsTextReport(*clients, flags.blkstack_counters); },
      [&](bool plus) { return ClientsJsonReport(*clients, plus); });
}

}  // namespace blk::bench::cli
