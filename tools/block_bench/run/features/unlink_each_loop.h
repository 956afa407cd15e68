// UnlinkEachLoop: fio's unlink_each_loop=1 for one clone of a job with
// loops=N > 1.
//
// The clone's source makes the N passes as one (the generator wraps, each
// pass `pass_bytes` of I/O).  When a pass's bytes were issued and more I/O
// follows, the clone waits for every request in flight, then `between`
// runs — fio's unlink_all_files() at the start of each loop after the
// first: the files unlinked and created again (CloneFiles::recreate) —
// before the next pass's first I/O.  Nothing after the last pass (fio
// leaves the last loop's files).  Not with time_based (no passes to count).
// A failure of `between` ends the clone with that error.
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <cstdint>
#include <functional>

#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/hook.h"
#include <blkstack/util/result.h>
#include <blkstack/util/task.h>

namespace blk::bench {

class UnlinkEachLoop : public SubmitHook {
 public:
  using Between = std::function<Task<Expected<void>>()>;
  // REQUIRES: pass_bytes > 0.
  UnlinkEachLoop(uint64_t pass_bytes, Between between, CloneErrors& errors)
      : pass_bytes_(pass_bytes), next_(pass_bytes), between_(std::move(between)), errors_(errors) {}
  unsigned points() const override { return kBeforeFetch | kOnIssue; }
  void on_issue(const IssuedIo& io) override { issued_ += io.u.len; }
  bool before_fetch(SubmitLoop& loop) override;
  Task<bool> turn(SubmitLoop& loop) override;
  // Passes begun after the first (for tests).
  uint32_t restarts() const { return restarts_; }

 private:
  uint64_t pass_bytes_;
  uint64_t next_;  // issued bytes at which the next pass begins
  uint64_t issued_ = 0;
  Between between_;
  CloneErrors& errors_;
  uint32_t restarts_ = 0;
};

}  // namespace blk::bench
