// PassInvalidate: fio's invalidate=1 where fio repeats it, for one clone of
// a buffered job.
//
// fio drops a file's cached pages each time it opens the file, and it opens
// every file again for each loop of loops=N; a time based job drops a
// file's pages each time the file's offsets wrap to its start (a sequential
// position past the end, a full random map reset: fio's
// loop_cache_invalidate; never with norandommap).  A buffered job whose
// file fits in memory therefore reads the device in every pass under fio,
// not the page cache its first pass filled.  block-bench drops the cache
// once before the job (PrepareTarget); this hook does it again where fio
// does -- and before each verify read-back (drop_all(), which the clone
// calls when the read-back phase starts, once the writes completed), where
// fio opens the files again.
//
// The source marks each I/O with its pass (IoUnit::pass) and its file's
// wraps (IoUnit::wrap).  When the I/O about to be issued belongs to a
// later pass than the last one issued, the clone holds it back, waits for
// every request in flight (fio's loop ends once all are reaped), drops the
// cache of each of its files and lets the I/O go; when it is of a later
// wrap of its file, that file's cache is dropped without waiting (fio's
// wrap does not wait).  Drops are DropCache (run/target.h) of the job's
// region of the file, on a descriptor opened for it; one that fails (a file that went away, BLKFLSBUF without
// CAP_SYS_ADMIN) is passed over, as the first one's.  In the clone's
// thread, inside the measured time, as in fio.
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/block_bench/run/hook.h"
#include <blkstack/util/task.h>

namespace blk::bench {

class PassInvalidate : public SubmitHook {
 public:
  // One of the clone's files, by IoUnit::file: its path (empty: not one to
  // drop) and the job's region in it (len 0: to the end).
  struct File {
    std::string path;
    uint64_t offset = 0;
    uint64_t len = 0;
  };
  explicit PassInvalidate(std::vector<File> files)
      : files_(std::move(files)), wrap_(files_.size(), 0) {}
  unsigned points() const override { return kBeforeIssue | kOnIssue; }
  void on_issue(const IssuedIo& io) override;
  bool before_issue(SubmitLoop& loop) override;
  Task<bool> turn(SubmitLoop& loop) override;
  // Drops the cache of every file now (the verify read-back's start).
  void drop_all();
  // Passes begun after the first, wraps seen, and the drops that succeeded
  // (for tests).
  uint32_t passes() const { return passes_; }  // (drop_all() not counted)
  uint32_t wraps() const { return wraps_; }
  uint64_t drops() const { return drops_; }

 private:
  void drop(uint32_t file);

  std::vector<File> files_;
  uint32_t pass_ = 0;           // the latest pass issued from
  std::vector<uint32_t> wrap_;  // per file: the latest wrap issued from
  uint32_t passes_ = 0;
  uint32_t wraps_ = 0;
  uint64_t drops_ = 0;
};

}  // namespace blk::bench
