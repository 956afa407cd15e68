// OverlapGuard: fio's serialize_overlap for one clone.
//
// An I/O whose byte range overlaps one still in flight on the same file
// (whatever the two directions) waits until the requests in flight no
// longer overlap it, then goes out: two overlapping requests are never in
// flight together, so a write is never reordered with a read or write of
// the same bytes.  Only meaningful at iodepth > 1 (the clone adds the hook
// then).  Flushes overlap nothing.
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/block_bench/run/hook.h"

namespace blk::bench {

class OverlapGuard : public SubmitHook {
 public:
  // `slots`: the clone's slot count (one entry per request in flight).
  explicit OverlapGuard(uint32_t slots) : busy_(slots) {}
  unsigned points() const override { return kBeforeIssue | kOnIssue | kOnRetire; }
  // True (the I/O waits: turn()) when the loop's next I/O overlaps one in
  // flight.
  bool before_issue(SubmitLoop& loop) override;
  void on_issue(const IssuedIo& io) override;
  void on_retire(uint32_t slot) override;
  // Waits for one wake-up of the loop's completions, then starts the round
  // over (the I/O is asked about again).
  Task<bool> turn(SubmitLoop& loop) override;

  // Whether `u` overlaps a request in flight.
  bool overlaps(const IoUnit& u) const;
  // How many times an I/O waited.
  uint64_t waits() const { return waits_; }

 private:
  struct Range {
    bool busy = false;
    uint32_t file = 0;
    uint64_t offset = 0, len = 0;
  };
  std::vector<Range> busy_;  // by slot
  uint64_t waits_ = 0;
};

}  // namespace blk::bench
