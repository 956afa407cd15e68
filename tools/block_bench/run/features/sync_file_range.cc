#include "tools/block_bench/run/features/sync_file_range.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>

#include "tools/block_bench/run/submit_loop.h"
#include <blkstack/util/clock.h>

namespace blk::bench {

void SyncRangeTracker::written(uint32_t file, uint64_t offset, uint64_t len) {
  if (file >= ranges_.size()) return;
  Span& s = ranges_[file];
  s.first = std::min(s.first, offset);
  s.last = std::max(s.last, offset + len);
}

SyncRangeTracker::Range SyncRangeTracker::take(uint32_t file) {
  if (file >= ranges_.size()) return {};
  Span& s = ranges_[file];
  Range r;
  if (s.first < s.last) r = Range{s.first, s.last - s.first};
  s = Span{};
  return r;
}

int SyncFileRange::SystemCall(int fd, uint64_t offset, uint64_t len, unsigned flags) {
  return ::sync_file_range(fd, off64_t(offset), off64_t(len), flags) == 0 ? 0 : -errno;
}

SyncFileRange::SyncFileRange(uint32_t every, unsigned flags, uint32_t files, FdOf fd_of,
                             const Timeline& time, Call call)
    : every_(every),
      flags_(flags),
      fd_of_(std::move(fd_of)),
      time_(time),
      call_(std::move(call)),
      ranges_(files) {}

void SyncFileRange::on_issue(const IssuedIo& io) {
  if (io.u.dir != Dir::kWrite) return;
  last_file_ = io.u.file;
  if (++writes_ >= every_) {
    writes_ = 0;
    due_ = true;
  }
}

void SyncFileRange::on_complete(const DoneIo& io) {
  if (io.u.dir == Dir::kWrite && io.st.ok()) ranges_.written(io.u.file, io.u.offset, io.u.len);
}

bool SyncFileRange::before_fetch(SubmitLoop& loop) {
  // As FsyncCadence: none after the job's last write.
  if (due_ && !loop.has_pending() && !time_.verify_phase) {
    const bool more = loop.prefetch();
    if (!more || NowNs() >= time_.end_ns) due_ = false;
  }
  return due_;
}

Task<bool> SyncFileRange::turn(SubmitLoop& loop) {
  due_ = false;
  // The writes before it completed first, as fio's synchronous engines'.
  loop.end_batch();
  co_await loop.wait_all();
  const int64_t t0 = NowNs();
  const SyncRangeTracker::Range r = ranges_.take(last_file_);
  int st = 0;
  const int fd = fd_of_(last_file_);
  if (fd >= 0 && r.len > 0) st = call_(fd, r.offset, r.len, flags_);
  loop.sync_done_now(last_file_, t0, st, "sync_file_range");
  co_return true;
}

}  // namespace blk::bench
