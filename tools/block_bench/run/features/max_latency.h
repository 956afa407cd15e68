// MaxLatency: fio's max_latency for one clone: a successful measured
// request that took longer than its direction's max_latency ends the job
// with ETIMEDOUT (counted as a failed request too, "max_latency exceeded").
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <string>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/hook.h"

namespace blk::bench {

class MaxLatency : public SubmitHook {
 public:
  static bool Wanted(const JobOptions& job);
  // `names`: the files' names for the message.
  MaxLatency(const JobOptions& job, CloneErrors& errors, std::vector<std::string> names)
      : job_(job), errors_(errors), names_(std::move(names)) {}
  unsigned points() const override { return kOnComplete; }
  void on_complete(const DoneIo& io) override;

 private:
  const JobOptions& job_;
  CloneErrors& errors_;
  std::vector<std::string> names_;
};

}  // namespace blk::bench
