// IoRecorder: write_iolog=, every I/O a clone issues in fio's iolog v3.
//
// One file per clone (fio's would interleave clones' lines): the path, then
// ".N" for clone N > 0, then RunOptions::file_tag (MPI ranks: ".rankR").
// Times are the actual issue times since the clone's start, also for a
// replay: recording a replay shows its fidelity.
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tools/block_bench/run/clone_files.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/source.h"
#include "tools/block_bench/trace/iolog_writer.h"
#include <blkstack/util/result.h>

namespace blk::bench {

class IoRecorder {
 public:
  explicit IoRecorder(const Timeline& time) : time_(time) {}
  // Opens the clone's log and names `files` in it.  Error names the path.
  Expected<void> open(const std::string& write_iolog, uint32_t clone, const std::string& file_tag,
                      CloneFiles& files);
  bool active() const { return writer_.has_value(); }
  // `u` issued at `now`.
  void record(int64_t now, const IoUnit& u) {
    static constexpr trace::Op kOps[] = {trace::Op::kRead, trace::Op::kWrite, trace::Op::kTrim};
    writer_->io((now - time_.start_ns) / 1000, uint16_t(u.file),
                u.flush ? trace::Op::kFlush : kOps[int(u.dir)], u.offset, u.len);
  }
  // Ends the log at `now`.  Error when it cannot be written out.
  Expected<void> close(int64_t now);

 private:
  const Timeline& time_;
  std::optional<trace::IologWriter> writer_;
};

}  // namespace blk::bench
