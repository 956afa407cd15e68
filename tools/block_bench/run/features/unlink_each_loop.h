// UnlinkEachLoop: fio's unlink_each_loop=1 for one clone of a job with
// loops=N > 1.
//
// The clone's source marks each I/O with its pass (IoUnit::pass, as fio's
// loops: FioPasses).  When the I/O about to be issued belongs to a later
// pass than the last one issued, the clone holds it back and waits for
// every request in flight; then `between` runs -- fio's unlink_all_files()
// at the start of each loop after the first: the files unlinked and
// created again (CloneFiles::recreate) -- and the I/O goes.  Nothing after the
// last pass (fio leaves the last loop's files).  Not with time_based.  A
// failure of `between` ends the clone with that error.
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <algorithm>
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
  UnlinkEachLoop(Between between, CloneErrors& errors)
      : between_(std::move(between)), errors_(errors) {}
  unsigned points() const override { return kBeforeIssue | kOnIssue; }
  void on_issue(const IssuedIo& io) override { pass_ = std::max(pass_, io.u.pass); }
  bool before_issue(SubmitLoop& loop) override;
  Task<bool> turn(SubmitLoop& loop) override;
  // Passes begun after the first (for tests).
  uint32_t restarts() const { return restarts_; }

 private:
  uint32_t pass_ = 0;  // the latest pass issued from
  Between between_;
  CloneErrors& errors_;
  uint32_t restarts_ = 0;
};

}  // namespace blk::bench
