// The null driver, like QEMU's null-co: a device of a given size that
// discards writes and returns whatever is in the buffer (or zeros with
// read-zeroes=on) on reads.  Every request completes through the loop (the
// ready queue, or a timer with latency-ns), never inside the call that
// submitted it.  It is the yardstick for the block layer's own overhead.
//
// Options: size (default 1G), read-zeroes (default off, as QEMU's long-time
// default: a benchmark then measures the layer, not memset), latency-ns
// (default 0: complete in the next loop iteration), latency-spin-ns (default
// 50000: with latency-ns, the loop thread wakes this long before a request is
// due and spins until it is, so a request completes within a few µs of its
// latency instead of late by the host's timer slack and wake-up delay; the
// loop's other work waits at most this long; 0: sleep until due).
#pragma once

#include <blkstack/block/driver_info.h>

namespace blk {

const DriverInfo& NullDriverInfo();

}  // namespace blk
