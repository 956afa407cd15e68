// FileLockHook: fio's lockfile=exclusive|readwrite for one clone.
//
// Before an I/O is issued the clone takes its file's lock (FileLocks,
// run/file_locks.h: exclusive for every I/O under exclusive, and for writes
// and trims under readwrite; shared for reads under readwrite), and holds
// it until the request is retired, so that two clones' requests to one
// file are never in flight together (one clone's own requests may be, up
// to its iodepth).  fio holds its lock around the submission only
// (td_io_prep .. td_io_queue): the whole I/O on its synchronous engines,
// as here, but only the io_submit on libaio and io_uring; block-bench
// serialises the I/O itself on every engine, as fio's documentation says.
// When another clone holds the lock the clone waits without blocking its
// loop: for one of its own completions when it has requests in flight,
// else kPollNs, then tries again.  A flush (a trace's) takes no lock.
// Register it after every other before_issue hook: the I/O it let through
// is issued at once.
//
// Thread-safety: the clone's loop thread (the locks are shared).
#pragma once

#include <cstdint>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/file_locks.h"
#include "tools/block_bench/run/hook.h"

namespace blk::bench {

class FileLockHook : public SubmitHook {
 public:
  static constexpr int64_t kPollNs = 20'000;
  // `locks`: each file's lock (by file number); `slots`: the clone's
  // depth.  REQUIRES: mode != kNone.
  // `poll_ns`: the wait before trying again with nothing in flight.
  FileLockHook(JobOptions::FileLock mode, std::vector<FileLock*> locks, uint32_t slots,
               int64_t poll_ns = kPollNs)
      : mode_(mode), locks_(std::move(locks)), held_(slots, kNone), poll_ns_(poll_ns) {}
  unsigned points() const override { return kBeforeIssue | kOnIssue | kOnRetire; }
  bool before_issue(SubmitLoop& loop) override;
  void on_issue(const IssuedIo& io) override;
  void on_retire(uint32_t slot) override;
  Task<bool> turn(SubmitLoop& loop) override;
  // Times the clone found the lock taken by another (for tests).
  uint64_t waits() const { return waits_; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  uintptr_t owner() const { return reinterpret_cast<uintptr_t>(this); }
  JobOptions::FileLock mode_;
  std::vector<FileLock*> locks_;
  std::vector<uint32_t> held_;  // per slot: the file whose lock it holds
  uint32_t granted_ = kNone;    // acquired in before_issue, for on_issue
  uint64_t waits_ = 0;
  int64_t poll_ns_;
};

}  // namespace blk::bench
