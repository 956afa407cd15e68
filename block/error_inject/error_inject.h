// The error-injection filter (like QEMU's blkdebug inject-error): a driver
// with one child, `file`, that passes every request through except those
// matching a rule, which fail with a chosen errno.
//
//   driver=error-inject,event=write,errno=5,offset=1M,length=64K,after=10,count=1,
//   file.driver=null,file.size=1G
//
// Options:
//   event   read | write | flush | discard | write-zeroes | any  (default any)
//   errno   positive errno to fail with (default 5, EIO)
//   offset, length  byte range a request must overlap to match (default: all)
//   after   let this many matching requests pass first (default 0)
//   count   fail at most this many requests; 0 = every match (default 0)
//   immediately  on: fail without calling the child; off: fail after the
//           child completed the request (default on)
// Counters: requests matched, errors injected.
#pragma once

#include <blkstack/block/driver_info.h>

namespace blk {

const DriverInfo& ErrorInjectDriverInfo();

}  // namespace blk
