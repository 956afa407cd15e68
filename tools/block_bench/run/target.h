// Mapping a job's target options to a blkstack driver-graph spec.
//
//   blockdev=SPEC          SPEC, verbatim (overrides everything below)
//   ioengine=null          driver=null,size=<offset+size, default 1G>
//   ioengine=cpuio|exec    the same (never touched: run/work_engine.h)
//   ioengine=filecreate|filestat|filedelete
//                          driver=null,size=<the file's size>; filename= is
//                          the file the engine's call names (filestat and
//                          filedelete lay it out as any file; filecreate
//                          sets nothing up, Target::diskless, its size the
//                          smallest block size unless size=/filesize= say)
//   ioengine=libaio        driver=file,filename=F,aio=native,cache.direct=on
//                          (direct=0: aio=threads,cache.direct=off, as buffered
//                          io_submit would block)
//                          [,aio-poll=on with userspace_reap=1 and
//                          iodepth_batch_complete_min=0: see Target::spin]
//   ioengine=io_uring      driver=file,filename=F,aio=io_uring,cache.direct=on|off
//                          [,aio-sqpoll=on with sqthread_poll=1 (and
//                          aio-sqpoll-cpu=N with sqthread_poll_cpu=N)]
//                          [,aio-register-file=on with registerfiles=1]
//                          [,aio-force-async=on with force_async=1]
//   ioengine=psync|sync|pvsync|pvsync2
//                          driver=file,filename=F,aio=sync,cache.direct=on|off
//   (F a character device such as /dev/null: ,size=<offset+size> too,
//   which the job must give: the device has no length of its own)
//   ioengine=posixaio      driver=file,filename=F,aio=threads,cache.direct=on|off,
//                          thread-pool-size=<the clone's files, at most 20>
//                          (glibc's aio_read/aio_write: user threads, one
//                          at a time per file descriptor, at most 20)
//   ioengine=rbd           driver=rbd,pool=P,image=I[,user=U][,completion=poll
//                          and Target::spin with busy_poll=1]
//                          [,write-cache=off when direct=1]
// F is filename (the first of filename=a:b), else FileNameOf(job, clone, 0)
// (fio's filename_format, default "<jobname>.<clone>.0"), prefixed by
// directory= unless absolute.  The file a job needs is offset+size bytes,
// at least filesize= (its I/O region may be smaller: size=N%).
// A file spec with aio=native or aio=io_uring ends with the submission
// batching SubmitBatchingOf (below) decides: ,aio-max-batch=N,
// aio-batch-adapt=on|off, and with fio_defaults=1 ,aio-poll=off (unless the
// spin above asked for polling).
//
// File set-up (PrepareTarget), as fio's: a regular file that does not exist
// or is shorter than offset+size is
//  * laid out (its missing part written with the job's buffer contents:
//    PrepareTarget's `fill` in blocks of Target::fill_unit bytes, else
//    random bytes or zeros with zero_buffers; then fsync'd unless
//    create_fsync=0) when
//    the job reads, or writes with overwrite=1 — reading holes or writing
//    into unallocated blocks would measure the file system, not the device;
//  * else (a writing job) created and preallocated per fallocate= (native
//    and posix: fallocate(2) mode 0; keep: FALLOC_FL_KEEP_SIZE; truncate and
//    none: size only);
//  * with create_on_open=1 only created with its size (sparse);
//  * with allow_file_create=0 an error if it does not exist.
// A missing path directly under /dev (the devtmpfs, not a file system
// mounted below it such as /dev/shm) is an error, never a file.  Then, for
// a buffered job, invalidate=1 drops the target's cached pages
// (posix_fadvise DONTNEED; BLKFLSBUF for a block device) and pre_read=1
// reads the region into the page cache.  fill_device=1 makes a file (sparse)
// 64 MiB larger than the file system's free space, so that the job's writes
// end at ENOSPC.
//
// Thread-safety: pure except PrepareTarget (touches the file system).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/buffer_fill.h"
#include <blkstack/util/result.h>

namespace blk::bench {

struct Target {
  std::string spec;      // what OpenBackend gets
  std::string display;   // for messages: filename, image or spec
  std::string filename;  // file-backed targets only
  uint64_t create_size = 0;  // >0: create/extend the file to this size
  enum class Layout { kSparse, kAllocate, kWrite };
  Layout layout = Layout::kWrite;  // how a missing or short file is set up
  Fallocate fallocate = Fallocate::kNative;  // kAllocate: which call
  bool allow_create = true;
  bool zero_fill = false;      // layout writes zeros (zero_buffers)
  uint64_t fill_unit = 4096;   // layout: the block the fill is made in (bs)
  bool create_fsync = true;
  bool invalidate = false;     // drop cached pages (buffered jobs only)
  bool pre_read = false;
  bool fill = false;           // fill_device: size a file to the free space
  uint64_t region_offset = 0;  // pre_read: the job's region
  uint64_t region_size = 0;
  // Busy-poll without sleeping while requests are in flight (fio's libaio
  // userspace_reap with iodepth_batch_complete_min=0, fio's rbd busy_poll):
  // the runner raises its loop's poll window to kSpinPollMaxNs for the job.
  bool spin = false;
  // fio's FIO_DISKLESSIO (filecreate): the file is not set up at all (its
  // engine creates it when the job opens it).
  bool diskless = false;
};

inline constexpr int64_t kSpinPollMaxNs = 1'000'000'000;

// The name fio gives file `file` of clone `clone` when filename= does not
// name it: job.filename_format with $jobname, $jobnum (the clone), $filenum
// and $clientuid (empty, as fio outside client/server mode) replaced.
std::string FileNameOf(const JobOptions& job, uint32_t clone, uint32_t file);

// The name fio 3.33 gives file `file` of clone `clone` opened as `t`, whose
// hash seeds zipf/pareto/normal (fio_skew.h): a file's path; on the null
// engine filename= or FileNameOf ("JOB.CLONE.FILE"); else (an RBD image, a
// --blockdev spec) block-bench's display name.  (block-bench's write_iolog
// names the graph instead, so that a replay without a target reopens it.)
std::string FioFileName(const JobOptions& job, uint32_t clone, uint32_t file, const Target& t);

// `clone_files`: how many files the clone opens (posixaio's pool size).
Expected<Target> JobTarget(const JobOptions& job, uint32_t clone, uint32_t clone_files = 1);

// When a job's graph runs on another engine than its ioengine= asks (libaio
// without O_DIRECT: the thread pool), that engine and why; empty otherwise.
struct EngineSubstitution {
  std::string used;  // "threads"
  std::string why;
};
std::optional<EngineSubstitution> SubstitutedEngine(const JobOptions& job);

// True when the job runs on the file driver in the clone's own thread: fio's
// synchronous engines (psync, sync, pvsync, pvsync2: aio=sync; mmap, falloc,
// ftruncate, splice, e4defrag: aio= of their name) without blockdev=.  Each I/O then
// runs in the clone's own thread, one at a time, as in fio, whatever
// iodepth= says ("increasing iodepth beyond 1 will not affect synchronous
// ioengines").
bool SyncEngine(const JobOptions& job);

// ioengine=e4defrag: the file driver's donor options (",e4defrag-donor=...",
// with the donor's first allocation unless inplace=1); an error without
// donorname=.
Expected<std::string> E4defragDonor(const JobOptions& job);

// One I/O at a time, as fio's FIO_SYNCIO engines: SyncEngine's, and cpuio,
// exec and the file-system engines (whose I/O is work or nothing).
bool OneIoAtATime(const JobOptions& job);

// How a file job's submissions are batched (the file driver's aio-max-batch
// and aio-batch-adapt):
//  * iodepth_batch_submit=N written (0: iodepth), or fio_defaults=1 (then
//    N is iodepth_batch_submit, 1 unless written): at most N requests per
//    io_submit / io_uring_enter, fixed, as fio (one request per system
//    call at fio's default of 1);
//  * else block-bench's default: adaptive, up to iodepth requests per call
//    (the batch sizer, block/file/batch_sizer.h), a difference from fio
//    that FioDifference names.
struct SubmitBatching {
  uint32_t max_batch = 1;
  bool adaptive = false;
};
SubmitBatching SubmitBatchingOf(const JobOptions& job);

// One line saying where this job runs with a default other than fio's
// ("" when none): submission batching on a file target with libaio or
// io_uring, when neither iodepth_batch_submit= nor fio_defaults=1 was
// written.  The report's header and JSON carry it.
std::string FioDifference(const JobOptions& job);

// file_append=1: where the I/O of the file at `path` starts — the size of
// a regular file, 0 for one that does not exist yet (fio's
// get_start_offset: real_file_size, offset= and offset_increment= then
// ignored); nullopt for anything else (a block device: the option is
// ignored, as fio's on non-regular files).
std::optional<uint64_t> AppendOffset(const std::string& path);

// What PrepareTarget did, for the report.
struct Prepared {
  std::string action;      // "write", "allocate", "sparse", or "" (file was there)
  uint64_t bytes = 0;      // written or allocated
  double seconds = 0;      // laying out, allocating and pre-reading
  bool invalidated = false;
  uint64_t pre_read = 0;   // bytes read into the page cache
  std::string warning;     // a preallocation that failed (not an error)
};

// Sets a file target up as described above.  No-op for other targets.
// `fill` (may be null): makes the laid-out contents, one fill_unit block at
// a time (the job's buffer options, run/buffer_fill.h).  Errors name the
// file.
Expected<Prepared> PrepareTarget(const Target& t, BufferFiller* fill = nullptr);

// Drops the page cache of the file open on `fd`: posix_fadvise
// (POSIX_FADV_DONTNEED) of [offset, offset + len) of a regular file (len
// 0: to its end), BLKFLSBUF on a block device (all of it), as fio's
// __file_invalidate_cache over the job's region; nothing for anything
// else.  True when the call was made and succeeded.
bool DropCache(int fd, uint64_t offset = 0, uint64_t len = 0);

}  // namespace blk::bench
