// fio's flow control (flow=, flow_id=, flow_sleep=): FlowGroup, shared by
// the clones of a run with the same flow_id, and FlowMember, one clone's
// part in it.
//
// A member that issued `mine` of the group's I/Os with weight w of the
// members' total is ahead while mine / issued > w / total.  Before issuing,
// an ahead member lets the others catch up: with flow_sleep it lets its
// I/O complete and sleeps flow_sleep us, else it retries after the loop's
// other work (fio's spin).  The group's counters count the members running
// now: leave() takes a member's share out, so a clone that ended holds no
// one back.  Not in the verify phase.
//
// Thread-safety: FlowGroup from any thread (members on other threads read
// the shares without a lock, a momentary inexactness as in fio);
// FlowMember on its clone's loop thread.
#pragma once

#include <atomic>
#include <cstdint>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/hook.h"

namespace blk::bench {

// The members' total weight is fio's unsigned int: a negative flow= (2^32
// + N) wraps it, and a total of 0 holds no member back.
class FlowGroup {
 public:
  void join(uint32_t weight) { weight_.fetch_add(weight, std::memory_order_relaxed); }
  void leave(uint32_t weight, uint64_t issued) {
    weight_.fetch_sub(weight, std::memory_order_relaxed);
    issued_.fetch_sub(issued, std::memory_order_relaxed);
  }
  bool ahead(uint64_t mine, uint32_t weight) const {
    const double total = double(weight_.load(std::memory_order_relaxed));
    return total > 0 && double(mine) / double(issued_.load(std::memory_order_relaxed)) >
                            double(weight) / total;
  }
  void issued() { issued_.fetch_add(1, std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> issued_{1};  // 1: no member is ahead before any I/O
  std::atomic<uint32_t> weight_{0};
};

class FlowMember : public SubmitHook {
 public:
  FlowMember(const JobOptions& job, FlowGroup& group, const Timeline& time)
      : weight_(job.flow), sleep_us_(job.flow_sleep), group_(group), time_(time) {}
  ~FlowMember() override { leave(); }
  // In the group from now on (idempotent).
  void join();
  // Out of the group, its share taken out (idempotent).
  void leave();
  bool joined() const { return joined_; }

  unsigned points() const override { return kBeforeIssue; }
  // Ahead: the member waits (turn); else its I/O counts in the group.
  bool before_issue(SubmitLoop&) override;
  Task<bool> turn(SubmitLoop& loop) override;

 private:
  uint32_t weight_;
  uint32_t sleep_us_;
  FlowGroup& group_;
  const Timeline& time_;
  bool joined_ = false;
  uint64_t issued_ = 0;  // the I/Os it counted in the group
};

}  // namespace blk::bench
