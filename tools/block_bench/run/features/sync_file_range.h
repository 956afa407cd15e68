// SyncFileRange: fio's sync_file_range=FLAGS:N for one clone.
//
// After every N writes the clone calls sync_file_range(2) with the job's
// flags (SYNC_FILE_RANGE_WAIT_BEFORE / WRITE / WAIT_AFTER) on the file it
// wrote last, over the range of that file's writes completed since its
// previous call (fio's first_write..last_write, reset by each call).  It
// first waits for the requests in flight: fio's psync write has completed
// when its sync comes (on libaio at iodepth > 1 fio does not drain its
// queue; block-bench does, a difference).  With no write in the range
// there is no call, but the sync is timed all the same, as fio's.  None after the job's last write, as fsync=
// (FsyncCadence).  The call is synchronous on the clone's thread, as
// fio's do_io_u_sync on its psync and libaio engines (fio's io_uring
// engine queues IORING_OP_SYNC_FILE_RANGE instead; block-bench calls the
// system call on every engine), on the file's own descriptor
// (CloneFiles::File::side, run/file_calls.h: sync_file_range acts on the
// file's page cache, whichever descriptor); a file without one (null or
// rbd targets) gets no call.  Counted with the syncs (CloneStats); a
// failure is a write error of the clone (CloneErrors).
//
// SyncRangeTracker is the bookkeeping alone (no loop), for unit tests.
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/hook.h"

namespace blk::bench {

// Per file, the range its completed writes covered since the last take().
class SyncRangeTracker {
 public:
  struct Range {
    uint64_t offset = 0;
    uint64_t len = 0;  // 0: no write completed since the last take()
  };
  explicit SyncRangeTracker(uint32_t files) : ranges_(files) {}
  void written(uint32_t file, uint64_t offset, uint64_t len);
  // The range of `file`, which starts empty again.
  Range take(uint32_t file);

 private:
  struct Span {
    uint64_t first = UINT64_MAX, last = 0;
  };
  std::vector<Span> ranges_;
};

class SyncFileRange : public SubmitHook {
 public:
  // The system call, replaceable for tests: 0 or -errno.
  using Call = std::function<int(int fd, uint64_t offset, uint64_t len, unsigned flags)>;
  static int SystemCall(int fd, uint64_t offset, uint64_t len, unsigned flags);

  // Each file's descriptor now (-1: none, no call); asked at each call, as
  // unlink_each_loop opens the files again.
  using FdOf = std::function<int(uint32_t file)>;
  // `every`: N (> 0); `flags`: SYNC_FILE_RANGE_* mask; `files`: how many.
  SyncFileRange(uint32_t every, unsigned flags, uint32_t files, FdOf fd_of, const Timeline& time,
                Call call = SystemCall);
  unsigned points() const override { return kBeforeFetch | kOnIssue | kOnComplete; }
  void on_issue(const IssuedIo& io) override;
  void on_complete(const DoneIo& io) override;
  bool before_fetch(SubmitLoop& loop) override;
  Task<bool> turn(SubmitLoop& loop) override;
  bool due() const { return due_; }

 private:
  uint32_t every_;
  unsigned flags_;
  FdOf fd_of_;
  const Timeline& time_;
  Call call_;
  SyncRangeTracker ranges_;
  uint32_t writes_ = 0;  // since the last call
  uint32_t last_file_ = 0;
  bool due_ = false;
};

}  // namespace blk::bench
