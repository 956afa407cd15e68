// Ranks: where a block-bench run stands in an MPI job (mpi/mpi_session.h):
// one rank of several, or a process on its own (no launcher, or a launcher
// with one rank, which runs and reports as a process on its own).
//
// Start() initialises MPI only when a launcher started the process, so call
// it before any thread is created; a plain `block-bench job.fio` makes no
// MPI call.  The collectives (AnyRank, AgreeToRun) must be called by every
// rank in the same order; on a process on its own they make no MPI call.
// Messages of a rank name it: "rank R (host): " (me()).
//
// Thread-safety: the creating (main) thread only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/jobfile/parse_env.h"
#include "tools/block_bench/mpi/mpi_session.h"
#include <blkstack/util/result.h>

namespace blk::bench::cli {

class Ranks {
 public:
  // Fails when MPI cannot be initialised (the library's reason).
  static Expected<Ranks> Start(int* argc, char*** argv);

  // One rank of several.
  bool multi() const { return session_ && session_->size() > 1; }
  // This process prints the headers and the report: rank 0, or on its own.
  bool lead() const { return !multi() || session_->rank() == 0; }
  int rank() const { return session_ ? session_->rank() : 0; }
  int size() const { return session_ ? session_->size() : 1; }
  // "rank R (host): " when multi(), else "".
  std::string me() const;
  // The parser's environment with ${RANK}, ${NRANKS} and ${HOSTNAME}
  // (jobfile/parse_env.h's WithRankVariables).
  ParseEnvironment Environment() const;
  // Whether `here` is true on any rank.  Collective when multi().
  bool AnyRank(bool here);
  // The MPI session; null without a launcher.
  mpi::MpiSession* session() const { return session_.get(); }

 private:
  std::unique_ptr<mpi::MpiSession> session_;
};

// The last step before an MPI run, after every local check: false when a
// rank cannot run (`cannot_run_here` on any rank; that rank said why) or
// the ranks' jobs differ in shape (job_shape.h; rank 0 says so).
// Collective when ranks.multi(); on a process on its own, !cannot_run_here.
bool AgreeToRun(Ranks& ranks, bool cannot_run_here, const std::vector<JobOptions>& jobs);

}  // namespace blk::bench::cli
