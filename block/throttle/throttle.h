// The throttle filter: a driver with one child, `file`, that paces requests
// to IOPS and bandwidth limits (like QEMU's throttle driver with an inline
// throttle group).
//
//   driver=throttle,iops-total=5000,bps-write=50M,file.driver=null
//
// Options (0 = no limit): iops-total, iops-read, iops-write, bps-total,
// bps-read, bps-write.  A request waits (on a loop timer, never blocking the
// loop) until every limit that applies to it has room; limits are enforced
// as a steady rate; a request that comes late may use up to 10 ms of unused
// time (so timer lateness does not lower the average), no other burst.  Flush passes through unthrottled; discard
// and write-zeroes count as writes for IOPS only.
// Counters: throttled requests and total ns spent waiting.
#pragma once

#include <blkstack/block/driver_info.h>

namespace blk {

const DriverInfo& ThrottleDriverInfo();

}  // namespace blk
