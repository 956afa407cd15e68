#include "tools/block_bench/run/target.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace blk::bench {
namespace {

// Escapes ',' in a value of a key=value spec (QEMU doubles it).
std::string Esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    o += c;
    if (c == ',') o += ',';
  }
  return o;
}

}  // namespace

Expected<Target> JobTarget(const JobOptions& job, uint32_t clone) {
  Target t;
  if (!job.blockdev.empty()) {
    t.spec = job.blockdev;
    t.display = job.blockdev;
    return t;
  }
  const uint64_t kDefaultNullSize = uint64_t{1} << 30;
  uint64_t want = 0;  // bytes the job needs, when known without a target
  if (job.size && !job.size->percent) want = job.size->value;
  if (want && !job.offset.percent) want += job.offset.value;
  switch (job.ioengine) {
    case IoEngine::kNull: {
      uint64_t size = want ? want : kDefaultNullSize;
      t.spec = "driver=null,size=" + std::to_string(size);
      t.display = t.spec;
      return t;
    }
    case IoEngine::kRbd: {
      if (job.rbd.rbdname.empty())
        return MakeError(-EINVAL, "ioengine=rbd needs rbdname=IMAGE (or blockdev=)");
      t.spec = "driver=rbd,pool=" + Esc(job.rbd.pool.empty() ? "rbd" : job.rbd.pool) +
               ",image=" + Esc(job.rbd.rbdname);
      if (!job.rbd.clientname.empty()) t.spec += ",user=" + Esc(job.rbd.clientname);
      if (job.rbd.busy_poll) {
        t.spec += ",completion=poll";
        t.spin = true;  // fio's busy_poll does not sleep either
      }
      if (job.direct) t.spec += ",write-cache=off";
      t.display = "rbd:" + (job.rbd.pool.empty() ? std::string("rbd") : job.rbd.pool) + "/" +
                  job.rbd.rbdname;
      return t;
    }
    default:
      break;
  }
  std::string f;
  if (job.filenames.size() > 1) {
    // fio spreads a job over several files; block-bench runs one target per
    // job, and silently using only the first would make the numbers lie.
    return MakeError(-EINVAL, "filename= lists " + std::to_string(job.filenames.size()) +
                                  " files; block-bench runs one file per job (use one job "
                                  "per file, or numjobs)");
  }
  if (!job.filenames.empty()) {
    f = job.filenames[0];
  } else {
    f = job.name + "." + std::to_string(clone) + ".0";
  }
  if (!job.directories.empty() && !f.empty() && f[0] != '/') f = job.directories[0] + "/" + f;
  const char* aio = "threads";
  if (job.ioengine == IoEngine::kLibaio || job.ioengine == IoEngine::kIoUring) aio = "native";
  t.spec = "driver=file,filename=" + Esc(f) + ",aio=" + aio +
           ",cache.direct=" + (job.direct ? "on" : "off");
  if (job.ioengine == IoEngine::kLibaio && job.libaio.userspace_reap &&
      job.iodepth_batch_complete_min == 0) {
    t.spec += ",aio-poll=on";
    t.spin = true;
  }
  t.display = f;
  t.filename = f;
  t.create_size = want;
  return t;
}

Expected<void> PrepareTarget(const Target& t) {
  if (t.filename.empty()) return {};
  struct stat st;
  if (::stat(t.filename.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode) || t.create_size == 0 || uint64_t(st.st_size) >= t.create_size)
      return {};
  } else if (errno != ENOENT) {
    return MakeError(-errno, t.filename + ": " + ErrnoString(-errno));
  } else if (t.create_size == 0) {
    return MakeError(-ENOENT, t.filename + ": does not exist and no size= to create it with");
  } else if (t.filename.rfind("/dev/", 0) == 0) {
    // A missing device is a typo or an unplugged disk, never a request to
    // create a regular file in /dev (where fio would lay one out).
    return MakeError(-ENOENT, t.filename + ": no such device: " + ErrnoString(-ENOENT));
  }
  int fd = ::open(t.filename.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return MakeError(-errno, t.filename + ": cannot create: " + ErrnoString(-errno));
  if (::ftruncate(fd, off_t(t.create_size)) != 0) {
    int e = errno;
    ::close(fd);
    return MakeError(-e, t.filename + ": cannot extend: " + ErrnoString(-e));
  }
  ::close(fd);
  return {};
}

}  // namespace blk::bench
