// MpiSession: block-bench as one rank of an MPI job (mpirun, srun).
//
//   mpirun -np N --hostfile hosts block-bench job.fio
//
// Every rank parses the same job file and runs it on its own host; the
// ranks start each stonewall segment together (RunSync: an all-reduce once
// every clone here has prepared its target) and rank 0 gathers every rank's
// results and prints one report (docs/multi-host.md).
//
// MPI is initialised only when an MPI launcher started the process (its
// environment has OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK): a plain
// `block-bench job.fio` makes no MPI call at all.  The thread level is
// MPI_THREAD_FUNNELED: every MPI call is made on the thread that created
// the session (the tool's main thread, which only waits while the I/O
// threads run); the I/O threads never call MPI.  MPI errors are fatal (the
// default handler, MPI_ERRORS_ARE_FATAL): a rank that dies ends the job.
//
// Thread-safety: one session per process, used on its creating thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tools/block_bench/run/sync.h"
#include <blkstack/util/result.h>

namespace blk::bench::mpi {

class MpiSession : public RunSync {
 public:
  // Whether an MPI launcher started this process (see above).
  static bool Launched();
  // Initialises MPI (MPI_Init_thread, FUNNELED) and learns every rank's
  // host name.  Call before any thread is created.  Fails when the library
  // cannot give FUNNELED or initialisation fails.
  static Expected<std::unique_ptr<MpiSession>> Create(int* argc, char*** argv);
  ~MpiSession() override;  // MPI_Finalize
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::string& hostname() const { return hosts_[size_t(rank_)]; }
  const std::string& hostname_of(int rank) const { return hosts_[size_t(rank)]; }
  // "rank R (host)": how messages name a rank.
  std::string who(int rank) const;

  // RunSync: an all-reduce of "ready?"; when a rank failed, the lowest such
  // rank's message is broadcast and returned as the error ("rank R (host):
  // ..."), on every rank.
  Expected<void> segment_ready(size_t segment, const std::string& failure) override;
  // RunSync: MPI_Ibarrier, then MPI_Test.
  void ramp_begin() override;
  bool ramp_done() override;

  // Gathers every rank's `bytes` on rank 0, in rank order (point to point:
  // any total size); other ranks get an empty vector.  A rank's bytes
  // beyond 2 GiB arrive empty (DecodeRun then names the rank).  Collective.
  std::vector<std::string> gather(const std::string& bytes);
  // The largest `value` over the ranks, on every rank.  Collective.
  int max(int value);
  // Whether every rank passed the same `value`, on every rank.  Collective.
  bool same(uint64_t value);

 private:
  MpiSession() = default;
  int rank_ = 0;
  int size_ = 1;
  std::vector<std::string> hosts_;
  void* ramp_request_ = nullptr;  // MPI_Request (kept out of this header)
};

}  // namespace blk::bench::mpi
