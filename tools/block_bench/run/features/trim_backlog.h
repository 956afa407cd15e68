// TrimBacklog: fio's trim_percentage / trim_backlog / trim_backlog_batch /
// trim_verify_zero for one verify clone (fio's trim with verify).
//
// Each write picked (trim_percentage of them, from the clone's seed) joins
// the trim list when issued.  Before fetching each I/O the loop asks fio
// 3.33's question (check_get_trim): with blocks listed, is a batch under
// way, or is the history (VerifyTracker::history()) a multiple of
// trim_backlog with the last I/O issued not a read (a batch of
// trim_backlog_batch, 0: trim_backlog, starts)?  A trim counts as not a
// read, and with trim_verify_zero a trim leaves the history as it was, so
// a batch that ended at a multiple starts the next at once (fio 3.33 does
// the same; it asks of the last completed I/O, which differs only at
// iodepth > 1).  If so, the I/O in flight completes and a trim of
// the oldest listed block still written is queued (issued next).  With
// trim_verify_zero the block stays in the verify list, marked trimmed: it
// must read back as zeros; without, it leaves the list and the history
// (not read back).  A block that is rewritten, or checked by
// verify_backlog, leaves the trim list.
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <cstdint>
#include <deque>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/clone_files.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/features/verify_tracker.h"
#include "tools/block_bench/run/hook.h"

namespace blk::bench {

class TrimBacklog : public SubmitHook {
 public:
  // Whether the job trims with verify: verify, do_verify, a writing job
  // (`writes`), not verify_only, and both trim options set.
  static bool Wanted(const JobOptions& job, bool writes);
  TrimBacklog(const JobOptions& job, uint64_t seed, VerifyTracker& tracker, const FileKeys& keys,
              const Timeline& time)
      : job_(job), seed_(seed), tracker_(tracker), keys_(keys), time_(time) {}
  // After the tracker: a write's generation is known.
  unsigned points() const override { return kBeforeFetch | kOnIssue; }
  void on_issue(const IssuedIo& io) override;
  bool before_fetch(SubmitLoop& loop) override;
  Task<bool> turn(SubmitLoop& loop) override;

  // fio's check_get_trim, the last I/O issued being in direction `last`.
  bool due(Dir last);
  // The trim of the oldest listed block still there; false: none.
  bool take(IoUnit* u);
  size_t listed() const { return list_.size(); }

 private:
  struct Entry {
    uint64_t key, gen;  // the tracker's key and the write's generation
  };
  const JobOptions& job_;
  uint64_t seed_;
  VerifyTracker& tracker_;
  const FileKeys& keys_;
  const Timeline& time_;
  std::deque<Entry> list_;
  uint32_t batch_ = 0;
  uint64_t rolls_ = 0;
};

}  // namespace blk::bench
