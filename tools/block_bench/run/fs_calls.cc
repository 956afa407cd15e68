#include "tools/block_bench/run/fs_calls.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>

#include "tools/block_bench/run/submit_loop.h"
#include <blkstack/util/clock.h>

namespace blk::bench {

int FsCalls::Call(IoEngine engine, StatType stat, const std::string& path) {
  const char* p = path.c_str();
  int r = -1;
  switch (engine) {
    case IoEngine::kFilecreate: {
      const int fd = ::open(p, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
      if (fd < 0) return -errno;
      ::close(fd);
      return 0;
    }
    case IoEngine::kFiledelete:
      r = ::unlink(p);
      break;
    case IoEngine::kFilestat: {
      struct stat st;
      struct statx sx;
      if (stat == StatType::kStat) r = ::stat(p, &st);
      else if (stat == StatType::kLstat) r = ::lstat(p, &st);
      else r = ::statx(AT_FDCWD, p, 0, STATX_ALL, &sx);
      break;
    }
    default:
      return -EINVAL;
  }
  return r == 0 ? 0 : -errno;
}

std::string FsCalls::What(IoEngine engine, StatType stat, const std::string& path) {
  if (engine == IoEngine::kFilecreate) return "open(" + path + ")";
  if (engine == IoEngine::kFiledelete) return "delete(" + path + ")";
  // fio's stat_type numbers: stat 1, lstat 2, statx 3.
  return "stat(" + path + ") type=" + std::to_string(int(stat) + 1);
}

bool FsCalls::before_issue(SubmitLoop& loop) { return loop.pending_io().opens && !called_; }

Task<bool> FsCalls::turn(SubmitLoop& loop) {
  const uint32_t f = loop.pending_io().file;
  assert(f < paths_.size());  // one path per file of the job
  const std::string& path = paths_[f];
  const int64_t t0 = NowNs();
  const int r = Call(engine_, stat_, path);
  const int64_t t1 = NowNs();
  calls_++;
  called_ = true;
  if (r < 0) {
    errors_.fail(-r, What(engine_, stat_, path) + ": " + std::strerror(-r));
    co_return true;  // the loop sees the stop
  }
  stats_.call_done(dir_, uint64_t(t1 - t0), time_.measured(t0));
  co_return false;  // the I/O goes on
}

}  // namespace blk::bench
