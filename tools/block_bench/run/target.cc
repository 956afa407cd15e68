#include "tools/block_bench/run/target.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "tools/block_bench/run/rng.h"
#include <blkstack/util/clock.h>
#include <blkstack/util/quote.h>

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

std::optional<EngineSubstitution> SubstitutedEngine(const JobOptions& job) {
  if (!job.blockdev.empty()) return std::nullopt;
  // Native AIO needs O_DIRECT (buffered io_submit runs synchronously in the
  // kernel and would block the loop; QEMU refuses it too).  io_uring serves
  // buffered I/O itself (its workers take what would block).
  if (job.ioengine == IoEngine::kLibaio && !job.direct)
    return EngineSubstitution{"threads", "buffered io_submit would block the loop"};
  return std::nullopt;
}

bool SyncEngine(const JobOptions& job) {
  if (!job.blockdev.empty()) return false;
  switch (job.ioengine) {
    case IoEngine::kPsync:
    case IoEngine::kSync:
    case IoEngine::kPvsync:
    case IoEngine::kPvsync2:
    case IoEngine::kMmap:
    case IoEngine::kFalloc:
    case IoEngine::kFtruncate:
    case IoEngine::kSplice:
    case IoEngine::kE4defrag:
      return true;
    default:
      return false;
  }
}

Expected<std::string> E4defragDonor(const JobOptions& job) {
  if (job.e4defrag.donorname.empty())
    return MakeError(-EINVAL, "ioengine=e4defrag needs donorname= (fio: 'donorname' options "
                              "required)");
  std::string donor = job.e4defrag.donorname;
  if (!job.directories.empty() && donor[0] != '/') donor = job.directories[0] + "/" + donor;
  if (job.e4defrag.inplace) return ",e4defrag-donor=" + Esc(donor) + ",e4defrag-inplace=on";
  // fio's e4defrag_init: the donor allocated over [offset, filesize's high
  // end) once (a length of 0 or less fails, as fio's fallocate does).
  const uint64_t start = job.offset.percent ? 0 : job.offset.value;
  const uint64_t high = std::max(job.filesize, job.filesize_max);
  return ",e4defrag-donor=" + Esc(donor) + ",e4defrag-donor-offset=" + std::to_string(start) +
         ",e4defrag-donor-length=" + std::to_string(high > start ? high - start : 0);
}

bool OneIoAtATime(const JobOptions& job) {
  return SyncEngine(job) || MovesNoData(job.ioengine) || TimesFileCalls(job.ioengine) ||
         IsNet(job.ioengine);
}

namespace {

Expected<Target> RbdTarget(const JobOptions& job) {
  Target t;
  if (job.rbd.rbdname.empty())
    return MakeError(-EINVAL, "ioengine=rbd needs rbdname=IMAGE (or blockdev=)");
  t.spec = "driver=rbd,pool=" + Esc(job.rbd.pool.empty() ? "rbd" : job.rbd.pool) +
           ",image=" + Esc(job.rbd.rbdname);
  if (!job.rbd.clientname.empty()) t.spec += ",user=" + Esc(job.rbd.clientname);
  if (!job.rbd.clustername.empty()) t.spec += ",cluster=" + Esc(job.rbd.clustername);
  if (job.rbd.busy_poll) {
    t.spec += ",completion=poll";
    t.spin = true;  // fio's busy_poll does not sleep either
  }
  if (job.direct) t.spec += ",write-cache=off";
  t.display = "rbd:" + (job.rbd.pool.empty() ? std::string("rbd") : job.rbd.pool) + "/" +
              job.rbd.rbdname;
  return t;
}

// fio's rados engine: each file of the clone is an object named as fio
// names its files (filename=, else JOB.CLONE.FILE), of size= / nrfiles
// bytes; the objects are created first (touch_objects=1, fio's default)
// and stay after the job, as fio 3.33's.  The files of a clone share one
// cluster connection, as fio's one per job.
Expected<Target> RadosTarget(const JobOptions& job, uint32_t clone, uint64_t want) {
  if (job.rbd.pool.empty())
    return MakeError(-EINVAL, "ioengine=rados needs pool=POOL (fio: rados pool name must be provided)");
  if (!want)
    return MakeError(-EINVAL, "ioengine=rados needs size= (a RADOS object has no fixed size)");
  const std::string& pool = job.rbd.pool;
  const std::string object = !job.filenames.empty() ? job.filenames[0] : FileNameOf(job, clone, 0);
  Target t;
  t.spec = "driver=rados,pool=" + Esc(pool) + ",object=" + Esc(object) +
           ",size=" + std::to_string(want) +
           ",connection=" + Esc(job.name + "." + std::to_string(clone));
  if (job.rbd.touch_objects) t.spec += ",touch=on";
  if (!job.rbd.clientname.empty()) t.spec += ",user=" + Esc(job.rbd.clientname);
  if (!job.rbd.clustername.empty()) t.spec += ",cluster=" + Esc(job.rbd.clustername);
  if (!job.rbd.conf.empty()) t.spec += ",conf=" + Esc(job.rbd.conf);
  t.spin = job.rbd.busy_poll;
  t.display = "rados:" + pool + "/" + object;
  return t;
}

// fio's nbd engine: one connection per clone to the export the URI names;
// its size is the export's.
Expected<Target> NbdTarget(const JobOptions& job) {
  if (job.nbd_uri.empty())
    return MakeError(-EINVAL, "ioengine=nbd needs uri=URI (e.g. nbd+unix:///?socket=PATH; or blockdev=)");
  Target t;
  t.spec = "driver=nbd,uri=" + Esc(job.nbd_uri);
  t.display = job.nbd_uri;
  return t;
}

// The file driver's options beyond filename, aio and cache.direct.
void AddFileOptions(const JobOptions& job, uint32_t clone_files, Target* t) {
  // Trims must really discard (a hole punched in a regular file, BLKDISCARD
  // on a block device, as fio's trims): the driver's default (QEMU's)
  // drops discards, which would time a no-op.  So for trim jobs, and for
  // the trims of trim_backlog, whose blocks the verify phase reads back as
  // zeros.
  const bool trims = job.rw == RwMode::kTrim || job.rw == RwMode::kRandTrim ||
                     job.rw == RwMode::kTrimWrite || job.rw == RwMode::kRandTrimWrite;
  if (trims || (job.verify != VerifyMethod::kNone && job.trim_percentage && job.trim_backlog))
    t->spec += ",discard=unmap";
  // fio's asynchronous engines that block-bench runs on the worker pool
  // (posixaio; libaio without O_DIRECT) return from their submission call
  // once the request is queued: slat ends there, as theirs.
  if (job.ioengine == IoEngine::kPosixaio || (job.ioengine == IoEngine::kLibaio && SubstitutedEngine(job)))
    t->spec += ",aio-threads-handover=on";
  if (job.ioengine == IoEngine::kPosixaio) {
    // glibc runs the requests of one file descriptor one after the other
    // on one of its threads (aio_misc.c), with at most 20 threads
    // (aio_init's default aio_threads): one worker per file.  More
    // workers would make the queue deeper than fio's posixaio's.
    constexpr uint32_t kGlibcAioThreads = 20;
    t->spec += ",thread-pool-size=" +
               std::to_string(std::clamp<uint32_t>(clone_files, 1, kGlibcAioThreads));
  }
  if (job.ioengine == IoEngine::kIoUring) {
    const IoUringOptions& u = job.io_uring;
    if (u.sqthread_poll) t->spec += ",aio-sqpoll=on";
    if (u.sqthread_poll && u.sqthread_poll_cpu >= 0) {
      t->spec += ",aio-sqpoll-cpu=" + std::to_string(u.sqthread_poll_cpu);
    }
    if (u.registerfiles) t->spec += ",aio-register-file=on";
    if (u.force_async) t->spec += ",aio-force-async=on";
    if (u.fixedbufs) t->spec += ",aio-fixed-buffers=on";
  }
  // fio's sync=: the open flag of every file.
  if (job.sync_io == JobOptions::SyncIo::kSync) t->spec += ",open-sync=sync";
  if (job.sync_io == JobOptions::SyncIo::kDsync) t->spec += ",open-sync=dsync";
  // fio's fadvise_hint (default 1: from the pattern), on every file.
  using F = JobOptions::Fadvise;
  const F fa = job.fadvise == F::kPattern ? (IsRandom(job.rw) ? F::kRandom : F::kSequential)
                                          : job.fadvise;
  if (fa == F::kRandom) t->spec += ",fadvise=random";
  if (fa == F::kSequential) t->spec += ",fadvise=sequential";
  if (job.ioengine == IoEngine::kLibaio && job.direct && job.libaio.userspace_reap &&
      job.iodepth_batch_complete_min == 0) {
    t->spec += ",aio-poll=on";
    t->spin = true;
  }
  // Only the kernel queues have a submission call to batch.
  const bool kernel_queue = t->spec.find(",aio=native,") != std::string::npos ||
                            t->spec.find(",aio=io_uring,") != std::string::npos;
  if (!kernel_queue) return;
  const SubmitBatching b = SubmitBatchingOf(job);
  t->spec += ",aio-max-batch=" + std::to_string(b.max_batch) +
             ",aio-batch-adapt=" + (b.adaptive ? "on" : "off");
  if (job.fio_defaults && !t->spin) t->spec += ",aio-poll=off";
}

// How the file is set up (PrepareTarget) for a job that needs `want` bytes.
void SetUpFile(const JobOptions& job, uint64_t want, Target* t) {
  t->create_size = want;
  const bool reads = job.rw == RwMode::kRead || job.rw == RwMode::kRandRead ||
                     job.rw == RwMode::kReadWrite || job.rw == RwMode::kRandReadWrite;
  if (job.create_on_open || job.fill_device) t->layout = Target::Layout::kSparse;
  else if (reads || job.overwrite) t->layout = Target::Layout::kWrite;
  else t->layout = Target::Layout::kAllocate;
  t->fallocate = job.fallocate;
  t->allow_create = job.allow_file_create;
  t->zero_fill = job.zero_buffers;
  t->fill_unit = std::max({job.bs[0].max, job.bs[1].max, job.bs[2].max});
  t->create_fsync = job.create_fsync;
  t->invalidate = job.invalidate && !job.direct && !job.pre_read;  // fio: pre_read clears it
  t->pre_read = job.pre_read && !job.direct;
  t->fill = job.fill_device;
  t->region_offset = job.offset.percent ? 0 : job.offset.value;
  t->region_size = job.size && !job.size->percent ? job.size->value : 0;
}

Expected<Target> FileTarget(const JobOptions& job, uint32_t clone, uint32_t clone_files,
                            uint64_t want) {
  if (job.filenames.size() > 1) {
    // fio spreads a job over several files; block-bench runs one target per
    // job, and silently using only the first would make the numbers lie.
    return MakeError(-EINVAL, "filename= lists " + std::to_string(job.filenames.size()) +
                                  " files; block-bench runs one file per job (use one job "
                                  "per file, or numjobs)");
  }
  std::string f = !job.filenames.empty() ? job.filenames[0] : FileNameOf(job, clone, 0);
  if (!job.directories.empty() && !f.empty() && f[0] != '/') f = job.directories[0] + "/" + f;
  const char* aio = SyncEngine(job) ? "sync" : "threads";
  if (job.ioengine == IoEngine::kLibaio && !SubstitutedEngine(job)) aio = "native";
  if (job.ioengine == IoEngine::kIoUring) aio = "io_uring";
  if (job.ioengine == IoEngine::kMmap) aio = "mmap";
  if (job.ioengine == IoEngine::kFalloc) aio = "falloc";
  if (job.ioengine == IoEngine::kFtruncate) aio = "ftruncate";
  if (job.ioengine == IoEngine::kSplice) aio = "splice";
  if (job.ioengine == IoEngine::kE4defrag) aio = "e4defrag";
  Target t;
  t.spec = "driver=file,filename=" + Esc(f) + ",aio=" + aio +
           ",cache.direct=" + (job.direct ? "on" : "off");
  if (job.ioengine == IoEngine::kE4defrag) {
    auto donor = E4defragDonor(job);
    if (!donor.ok()) return donor.error();
    t.spec += *donor;
  }
  // A character device (/dev/null, /dev/zero, /dev/full) has no length:
  // the job's size is its length, as fio's FIO_TYPE_CHAR.
  struct stat st;
  if (::stat(f.c_str(), &st) == 0 && S_ISCHR(st.st_mode)) {
    if (!want) {
      return MakeError(-EINVAL, "filename=" + f +
                                    " is a character device, which has no length: the job "
                                    "needs size= (in bytes)");
    }
    t.spec += ",size=" + std::to_string(want);
  }
  AddFileOptions(job, clone_files, &t);
  t.display = f;
  t.filename = f;
  SetUpFile(job, want, &t);
  return t;
}

// filecreate, filestat, filedelete: the file's name and set-up as any
// file's (fio's FIO_DISKLESSIO filecreate: none), its I/O on a null device.
Expected<Target> FileCallTarget(const JobOptions& job, uint32_t clone, uint32_t clone_files,
                                uint64_t want) {
  auto t = FileTarget(job, clone, clone_files, want);
  if (!t.ok()) return t;
  struct stat st;
  const bool exists = ::stat(t->filename.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode))
    return MakeError(-EINVAL, "ioengine=" + std::string(Name(job.ioengine)) + ": " +
                                  ShortenName(t->filename) +
                                  " is not a regular file (fio: only files are supported)");
  uint64_t size = want;
  if (job.ioengine == IoEngine::kFilecreate) {
    t->diskless = true;
    // fio's filecreate sizes every file at the smallest block size.
    if (!size) size = FioRwMinBs(job);
  } else if (!size && exists) {
    size = uint64_t(st.st_size);
  }
  // No page cache to drop: the engines open no file (fio's invalidate is a
  // no-op for them).
  t->invalidate = false;
  t->pre_read = false;
  t->spec = "driver=null,size=" + std::to_string(std::max<uint64_t>(size, 1));
  return t;
}

}  // namespace

std::string FileNameOf(const JobOptions& job, uint32_t clone, uint32_t file) {
  // fio's keywords, longest first where one is a prefix of another.
  const std::pair<std::string_view, std::string> kKeys[] = {
      {"$jobname", job.name},
      {"$jobnum", std::to_string(clone)},
      {"$filenum", std::to_string(file)},
      {"$clientuid", ""},
  };
  const std::string_view fmt = job.filename_format;
  std::string out;
  for (size_t i = 0; i < fmt.size();) {
    bool replaced = false;
    for (const auto& [key, value] : kKeys) {
      if (fmt.compare(i, key.size(), key) != 0) continue;
      out += value;
      i += key.size();
      replaced = true;
      break;
    }
    if (!replaced) out += fmt[i++];
  }
  return out;
}

std::string FioFileName(const JobOptions& job, uint32_t clone, uint32_t file, const Target& t) {
  if (!t.filename.empty()) return t.filename;
  if (job.ioengine != IoEngine::kNull || !job.blockdev.empty()) return t.display;
  if (!job.filenames.empty()) return job.filenames[file % job.filenames.size()];
  return FileNameOf(job, clone, file);
}

SubmitBatching SubmitBatchingOf(const JobOptions& job) {
  // The file driver's bounds for aio-max-batch.
  constexpr uint32_t kMaxBatch = 1024;
  const uint32_t depth = std::clamp<uint32_t>(job.iodepth, 1, kMaxBatch);
  SubmitBatching b;
  if (job.iodepth_batch_submit_given || job.fio_defaults) {
    const uint32_t n = job.iodepth_batch_submit ? job.iodepth_batch_submit : depth;
    b.max_batch = std::clamp<uint32_t>(n, 1, kMaxBatch);
    b.adaptive = false;
    return b;
  }
  b.max_batch = depth;
  b.adaptive = true;
  return b;
}

std::string FioDifference(const JobOptions& job) {
  if (!job.blockdev.empty() || SubstitutedEngine(job)) return "";
  if (job.ioengine != IoEngine::kLibaio && job.ioengine != IoEngine::kIoUring) return "";
  if (!SubmitBatchingOf(job).adaptive) return "";
  return "submissions batched adaptively, up to iodepth=" + std::to_string(job.iodepth) +
         " per system call (fio: iodepth_batch_submit=1, one per call; "
         "iodepth_batch_submit= or fio_defaults=1 gives fio's)";
}

std::optional<uint64_t> AppendOffset(const std::string& path) {
  if (path.empty()) return std::nullopt;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return errno == ENOENT ? std::optional<uint64_t>(0) : std::nullopt;
  if (!S_ISREG(st.st_mode)) return std::nullopt;
  return uint64_t(st.st_size);
}

Expected<Target> JobTarget(const JobOptions& job, uint32_t clone, uint32_t clone_files) {
  if (!job.blockdev.empty()) {
    Target t;
    t.spec = job.blockdev;
    t.display = job.blockdev;
    return t;
  }
  const uint64_t kDefaultNullSize = uint64_t{1} << 30;
  uint64_t want = 0;  // bytes the job needs, when known without a target
  if (job.size && !job.size->percent) want = job.size->value;
  if (want && !job.offset.percent) want += job.offset.value;
  want = std::max(want, job.filesize);
  // cpuio and exec move no data: their I/O goes nowhere.
  if (job.ioengine == IoEngine::kNull || MovesNoData(job.ioengine)) {
    Target t;
    t.spec = "driver=null,size=" + std::to_string(want ? want : kDefaultNullSize);
    t.display = t.spec;
    return t;
  }
  if (TimesFileCalls(job.ioengine)) return FileCallTarget(job, clone, clone_files, want);
  if (IsNet(job.ioengine)) {
    // The I/O is a socket's (run/net_engine.h); the null device only sizes
    // the job's region.
    Target t;
    t.spec = "driver=null,size=" + std::to_string(std::max<uint64_t>(want, 1));
    t.display = NetDisplay(job, clone);
    t.diskless = true;
    return t;
  }
  if (job.ioengine == IoEngine::kRbd) return RbdTarget(job);
  if (job.ioengine == IoEngine::kRados) return RadosTarget(job, clone, want);
  if (job.ioengine == IoEngine::kNbd) return NbdTarget(job);
  return FileTarget(job, clone, clone_files, want);
}

namespace {

// Whether `path` (missing) would be created in the devtmpfs /dev itself: a
// device name, never a file.  /dev/shm and other file systems mounted below
// /dev are ordinary places for files.
bool InDevFs(const std::string& path) {
  if (path.rfind("/dev/", 0) != 0) return false;
  std::string dir = path.substr(0, path.find_last_of('/'));
  struct stat d, p;
  if (::stat("/dev", &d) != 0) return true;
  // The nearest existing ancestor decides.
  while (!dir.empty() && ::stat(dir.c_str(), &p) != 0) dir = dir.substr(0, dir.find_last_of('/'));
  if (dir.empty()) return true;
  return p.st_dev == d.st_dev;
}

Error FileError(const std::string& file, const char* what, int err) {
  return MakeError(-err, ShortenName(file) + ": " + what + ": " + ErrnoString(-err));
}

// Writes [from, to) of fd with 1 MiB buffers: made by `fill` in blocks of
// `unit` bytes (refilled for every buffer when the fill asks for new
// contents per write), else random bytes (or zeros).
Expected<void> WriteOut(int fd, const std::string& file, uint64_t from, uint64_t to, bool zero,
                        BufferFiller* fill, uint64_t unit) {
  constexpr size_t kChunk = 1 << 20;
  std::vector<char> buf(kChunk);
  unit = std::clamp<uint64_t>(unit, 512, kChunk);
  auto make = [&] {
    for (size_t o = 0; o < kChunk; o += unit)
      fill->fill(reinterpret_cast<uint8_t*>(buf.data()) + o, std::min<size_t>(unit, kChunk - o));
  };
  if (fill) {
    make();
  } else if (!zero) {
    Rng r(0x1a7e001u ^ from);
    for (size_t o = 0; o + 8 <= kChunk; o += 8) {
      uint64_t v = r.next();
      std::memcpy(buf.data() + o, &v, 8);
    }
  }
  for (uint64_t off = from; off < to;) {
    if (fill && fill->refill() && off != from) make();
    const size_t n = size_t(std::min<uint64_t>(kChunk, to - off));
    const ssize_t w = ::pwrite(fd, buf.data(), n, off_t(off));
    if (w < 0) {
      if (errno == EINTR) continue;
      return FileError(file, "laying out", errno);
    }
    if (w == 0) return FileError(file, "laying out", ENOSPC);
    off += uint64_t(w);
  }
  return {};
}

// fill_device on a file: as large as the file system's free space, sparse
// and a little larger, so that the job's writes end at ENOSPC, as fio's.
Expected<uint64_t> FillDeviceSize(const std::string& file, uint64_t have) {
  std::string dir = file.find('/') == std::string::npos ? std::string(".")
                                                        : file.substr(0, file.find_last_of('/'));
  if (dir.empty()) dir = "/";
  struct statvfs vfs;
  if (::statvfs(dir.c_str(), &vfs) != 0) return FileError(dir, "cannot statvfs", errno);
  return std::max(have, have + uint64_t(vfs.f_bavail) * vfs.f_frsize / (1 << 20) * (1 << 20) +
                            (64u << 20));
}

// Preallocates [have, want) as fallocate= says.  As fio: a failed
// preallocation (no room, no support) is only a warning; the file gets its
// size and the job's writes meet the error, if any, where it is counted.
void Preallocate(const Target& t, int fd, uint64_t have, uint64_t want, Prepared* out) {
  out->action = "allocate";
  if (t.fallocate != Fallocate::kNative && t.fallocate != Fallocate::kPosix &&
      t.fallocate != Fallocate::kKeep) {
    out->action = "sparse";
    return;
  }
  const int mode = t.fallocate == Fallocate::kKeep ? FALLOC_FL_KEEP_SIZE : 0;
  if (::fallocate(fd, mode, off_t(have), off_t(want - have)) == 0) return;
  const int e = errno;
  if (e != EOPNOTSUPP)
    out->warning = t.filename + ": cannot preallocate " + std::to_string(want - have) +
                   " bytes: " + ErrnoString(-e) + " (continuing without)";
  out->action = "sparse";
}

// Creates or extends the regular file from `have` to `want` bytes.
Expected<void> LayOut(const Target& t, uint64_t have, uint64_t want, BufferFiller* fill,
                      Prepared* out) {
  int fd = ::open(t.filename.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return FileError(t.filename, "cannot create", errno);
  Expected<void> r;
  switch (t.layout) {
    case Target::Layout::kWrite:
      out->action = "write";
      r = WriteOut(fd, t.filename, have, want, t.zero_fill, fill, t.fill_unit);
      if (r.ok() && t.create_fsync && ::fsync(fd) != 0) r = FileError(t.filename, "fsync", errno);
      break;
    case Target::Layout::kAllocate:
      Preallocate(t, fd, have, want, out);
      break;
    case Target::Layout::kSparse:
      out->action = "sparse";
      break;
  }
  if (r.ok() && ::ftruncate(fd, off_t(want)) != 0) r = FileError(t.filename, "cannot extend", errno);
  ::close(fd);
  if (!r.ok()) return r;
  out->bytes = want - have;
  return {};
}

// invalidate= and pre_read=.
Expected<void> SetUpCache(const Target& t, Prepared* out) {
  int fd = ::open(t.filename.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return FileError(t.filename, "cannot open", errno);
  // fio drops cached pages so that a buffered job reads the device.
  if (t.invalidate) out->invalidated = DropCache(fd, t.region_offset, t.region_size);
  if (t.pre_read) {
    std::vector<char> buf(1 << 20);
    uint64_t off = t.region_offset;
    const uint64_t end = t.region_size ? t.region_offset + t.region_size : UINT64_MAX;
    while (off < end) {
      const ssize_t n =
          ::pread(fd, buf.data(), size_t(std::min<uint64_t>(buf.size(), end - off)), off_t(off));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      off += uint64_t(n);
      out->pre_read += uint64_t(n);
    }
  }
  ::close(fd);
  return {};
}

}  // namespace

bool DropCache(int fd, uint64_t offset, uint64_t len) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return false;
  if (S_ISREG(st.st_mode))
    return ::posix_fadvise(fd, off_t(offset), off_t(len), POSIX_FADV_DONTNEED) == 0;
  if (S_ISBLK(st.st_mode)) return ::ioctl(fd, BLKFLSBUF, 0) == 0;
  return false;
}

Expected<Prepared> PrepareTarget(const Target& t, BufferFiller* fill) {
  Prepared out;
  if (t.filename.empty() || t.diskless) return out;
  const int64_t t0 = NowNs();
  uint64_t want = t.create_size;
  struct stat st;
  const bool exists = ::stat(t.filename.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) return FileError(t.filename, "cannot stat", errno);
  if (t.fill && (!exists || S_ISREG(st.st_mode))) {
    auto size = FillDeviceSize(t.filename, exists ? uint64_t(st.st_size) : 0);
    if (!size.ok()) return size.error();
    want = *size;
  }
  if (!exists) {
    if (!t.allow_create)
      return MakeError(-ENOENT, t.filename + ": does not exist (allow_file_create=0)");
    if (want == 0)
      return MakeError(-ENOENT, t.filename + ": does not exist and no size= to create it with");
    if (InDevFs(t.filename))
      return MakeError(-ENOENT, t.filename + ": no such device: " + ErrnoString(-ENOENT));
  }
  const bool regular = !exists || S_ISREG(st.st_mode);
  const uint64_t have = exists && regular ? uint64_t(st.st_size) : 0;
  if (regular && want > have) {
    auto laid = LayOut(t, have, want, fill, &out);
    if (!laid.ok()) return laid.error();
  }
  // Only regular files and block devices have a page cache to drop or fill
  // (opening a FIFO here would block; the driver refuses it with a reason).
  const bool cached = !exists || S_ISREG(st.st_mode) || S_ISBLK(st.st_mode);
  if (cached && (t.invalidate || t.pre_read)) {
    auto c = SetUpCache(t, &out);
    if (!c.ok()) return c.error();
  }
  out.seconds = double(NowNs() - t0) / 1e9;
  return out;
}

}  // namespace blk::bench
