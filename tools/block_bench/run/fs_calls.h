// FsCalls: fio's file-system engines, filecreate, filestat and filedelete.
//
// Before the first I/O after the job opens one of its files (IoUnit::opens:
// when a pick first lands on it, and again after it closed at the end of a
// pass), the engine's call on the file's name:
//   filecreate  open(O_CREAT | O_RDWR, 0600), closed again at once
//   filestat    stat, lstat or statx (stat_type=)
//   filedelete  unlink
// Its time is a completion latency of the job's direction (read when the
// job reads, else write), as fio's add_clat_sample; the I/O that follows
// goes to the null device, counted with its bytes but untimed (fio's
// FIO_FAKEIO | FIO_NOSTATS: CloneStats::set_latency_samples(false)).  A call
// that fails is the job's error with fio's words ("open(NAME)", "stat(NAME)
// type=N", "delete(NAME)") and its errno, and the job stops.
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <string>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/clone_stats.h"
#include "tools/block_bench/run/hook.h"

namespace blk::bench {

class FsCalls : public SubmitHook {
 public:
  // `paths`: the job's files, by file index.  REQUIRES: TimesFileCalls(engine).
  FsCalls(IoEngine engine, StatType stat, Dir dir, std::vector<std::string> paths,
          CloneStats& stats, CloneErrors& errors, const Timeline& time)
      : engine_(engine), stat_(stat), dir_(dir), paths_(std::move(paths)), stats_(stats),
        errors_(errors), time_(time) {}
  unsigned points() const override { return kBeforeIssue | kOnIssue; }
  bool before_issue(SubmitLoop& loop) override;
  void on_issue(const IssuedIo&) override { called_ = false; }
  Task<bool> turn(SubmitLoop& loop) override;

  // The engine's call on `path`: 0 or -errno.
  static int Call(IoEngine engine, StatType stat, const std::string& path);
  // fio's name for it in an error: "open(PATH)", "stat(PATH) type=1",
  // "delete(PATH)".
  static std::string What(IoEngine engine, StatType stat, const std::string& path);
  uint64_t calls() const { return calls_; }

 private:
  IoEngine engine_;
  StatType stat_;
  Dir dir_;
  std::vector<std::string> paths_;
  CloneStats& stats_;
  CloneErrors& errors_;
  const Timeline& time_;
  uint64_t calls_ = 0;
  bool called_ = false;  // for the pending I/O (a later hook may restart the round)
};

}  // namespace blk::bench
