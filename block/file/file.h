// The file protocol driver, QEMU's `file` (file-posix): a regular file or a
// block device.
//
//   driver=file,filename=PATH[,aio=native|threads][,cache.direct=on|off]
//              [,discard=ignore|unmap][,aio-max-batch=N][,aio-ring-size=N]
//              [,peek-after-submit=on|off][,aio-submit=immediate|bh]
//              [,aio-ring-peek=on|off][,aio-max-inflight=N][,thread-pool-size=N]
//
// aio=native sends reads and writes with Linux native AIO (block/file/
// linux_aio.h) and requires cache.direct=on (O_DIRECT), as in QEMU.
// aio=threads (the default, as in QEMU) runs preadv/pwritev on a worker pool.
// Flush uses IOCB_CMD_FDSYNC in native mode when the kernel accepts it
// (probed on the first flush), else fdatasync on the pool.  Discard punches
// holes (files) or BLKDISCARD (devices); write-zeroes uses
// FALLOC_FL_ZERO_RANGE / BLKZEROOUT; both run on the pool; -ENOTSUP lets the
// generic layer write zeros.  Length comes from fstat or BLKGETSIZE64; the
// O_DIRECT alignment from statx, BLKSSZGET or probing reads
// (block/file/geometry.h).
//
// Reads: a short read at end of file reads the rest as zeros; another short
// read is retried for the remainder.  A short write fails with -ENOSPC.
#pragma once

#include "block/driver_info.h"

namespace blk {

const DriverInfo& FileDriverInfo();

}  // namespace blk
