#include "tools/block_bench/cli/ranks.h"

#include <unistd.h>

#include <cstdio>

#include "tools/block_bench/cli/job_shape.h"

namespace blk::bench::cli {
namespace {

std::string LocalHostname() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return "localhost";
  return host;
}

}  // namespace

Expected<Ranks> Ranks::Start(int* argc, char*** argv) {
  Ranks ranks;
  if (!mpi::MpiSession::Launched()) return ranks;
  auto s = mpi::MpiSession::Create(argc, argv);
  if (!s.ok()) return s.error();
  ranks.session_ = std::move(*s);
  return ranks;
}

std::string Ranks::me() const { return multi() ? session_->who(session_->rank()) + ": " : ""; }

ParseEnvironment Ranks::Environment() const {
  return WithRankVariables(ParseEnvironment::FromSystem(), rank(), size(),
                           session_ ? session_->hostname() : LocalHostname(), session_ != nullptr);
}

bool Ranks::AnyRank(bool here) {
  if (!multi()) return here;
  return session_->max(here ? 1 : 0) != 0;
}

bool AgreeToRun(Ranks& ranks, bool cannot_run_here, const std::vector<JobOptions>& jobs) {
  if (!ranks.multi()) return !cannot_run_here;
  if (ranks.AnyRank(cannot_run_here)) return false;  // the rank said why
  // The ranks must run the same segments, clones and ramps (their
  // collectives follow them): ${RANK} or a host's environment may not
  // change those.
  if (!ranks.session()->same(JobShape(jobs))) {
    if (ranks.lead())
      std::fprintf(stderr, "block-bench: the ranks' jobs differ in number, numjobs, stonewall, "
                   "ramp_time or group_reporting (from ${RANK}, ${HOSTNAME} or the environment): "
                   "every rank must run the same jobs\n");
    return false;
  }
  return true;
}

}  // namespace blk::bench::cli
