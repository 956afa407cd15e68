// FsyncCadence: fio's fsync=N / fdatasync=N for one clone.
//
// After every N writes the clone flushes the file it wrote last, taking a
// depth slot (it waits for room when the depth is full); none after the
// job's last write, as fio (end_fsync is for that): before flushing, the
// loop fetches its next I/O, and with none left, or past the runtime, the
// flush is dropped.  The flush is counted with the syncs (CloneStats).
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <cstdint>

#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/hook.h"

namespace blk::bench {

class FsyncCadence : public SubmitHook {
 public:
  // `every`: fsync= (else fdatasync=).  REQUIRES: every > 0.
  FsyncCadence(uint32_t every, const Timeline& time) : every_(every), time_(time) {}
  unsigned points() const override { return kBeforeFetch | kOnIssue; }
  void on_issue(const IssuedIo& io) override {
    if (io.u.dir != Dir::kWrite) return;
    last_file_ = io.u.file;
    if (++writes_ >= every_) {
      writes_ = 0;
      due_ = true;
    }
  }
  bool before_fetch(SubmitLoop& loop) override;
  Task<bool> turn(SubmitLoop& loop) override;
  bool due() const { return due_; }

 private:
  uint32_t every_;
  const Timeline& time_;
  uint32_t writes_ = 0;  // since the last flush
  uint32_t last_file_ = 0;
  bool due_ = false;
};

}  // namespace blk::bench
