// The file protocol driver, QEMU's `file` (file-posix): a regular file or a
// block device.
//
//   driver=file,filename=PATH[,aio=threads|native|io_uring|sync|mmap|falloc|ftruncate|splice]
//              [,cache.direct=on|off]
//              [,discard=ignore|unmap][,aio-max-batch=N][,aio-ring-size=N]
//              [,peek-after-submit=on|off][,aio-submit=immediate|bh]
//              [,aio-ring-peek=on|off][,aio-max-inflight=N][,aio-poll=auto|on|off]
//              [,aio-sqpoll=on|off][,aio-sqpoll-idle-ms=N][,aio-sqpoll-cpu=N]
//              [,aio-register-file=on|off][,aio-force-async=on|off]
//              [,aio-fixed-buffers=on|off][,fadvise=normal|random|sequential]
//              [,aio-threads-handover=on|off][,thread-pool-size=N]
//              [,open-sync=off|sync|dsync]
//
// aio=threads (the default, as in QEMU) runs preadv/pwritev on a worker pool,
// aio=native uses Linux native AIO, aio=io_uring io_uring, and aio=sync runs
// preadv/pwritev in the loop's own thread, blocking it (fio's synchronous
// engines, for benchmarks: block/file/sync_queue.h).  All four go through
// one policy, QueueEngine (block/file/queue_engine.h: plug batching,
// completion peeks after each submission and from the loop's polling, the
// poll governor), over a ThreadQueue, LibaioQueue, UringQueue or SyncQueue, and one
// engine per loop serves every file node there with the same settings
// (block/file/loop_engine.h).  aio=native requires cache.direct=on
// (O_DIRECT), as in QEMU; io_uring also serves buffered I/O.  The aio-sqpoll*,
// aio-register-file, aio-force-async and aio-fixed-buffers options are io_uring's
// (block/file/uring_queue.h).  If io_uring cannot be set up the open fails
// with the cause (e.g. kernel.io_uring_disabled); there is no fallback.
// Flush is a datasync through the engine (fdatasync on a worker,
// IOCB_CMD_FDSYNC, IORING_OP_FSYNC); where the kernel refuses the async one
// (probed on the first flush) fdatasync runs on the node's own pool, as do
// discard (punching holes in files, BLKDISCARD on devices) and
// write-zeroes (FALLOC_FL_ZERO_RANGE / BLKZEROOUT); -ENOTSUP
// lets the generic layer write zeros.  Length comes from fstat or
// BLKGETSIZE64; the O_DIRECT alignment from statx, BLKSSZGET or probing
// reads (block/file/geometry.h).
//
// open-sync=sync|dsync opens the file with O_SYNC|O_DSYNC (fio's sync=):
// every write returns only once it is on stable storage, whichever engine.
//
// aio=mmap|falloc|ftruncate|splice do reads, writes and flushes in the loop's
// thread without the engine (block/file/inline_io.h): mmap through a shared
// mapping of the file, falloc and ftruncate as fio's benchmark engines of
// those names (no data moves), splice through a pipe (O_DIRECT with
// cache.direct=on).
//
// Reads: a short read at end of file reads the rest as zeros; another short
// read is retried for the remainder.  A short write fails with -ENOSPC.
#pragma once

#include <blkstack/block/driver_info.h>

namespace blk {

const DriverInfo& FileDriverInfo();

}  // namespace blk
