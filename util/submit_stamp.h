// SubmitStamp: when a request was handed over to what serves it.
//
// fio splits a request's latency in two: slat, from the start of the
// request until it was handed over (io_submit, io_uring_enter or
// rbd_aio_* returned), and clat, from there until it completed.  A caller
// that wants the split gives its request a SubmitStamp (Task's
// set_submit_stamp, util/task.h); the driver that hands the request to the
// kernel or a cluster marks it right after the hand-over call returned,
// with one clock read for every request that call sent.  A request that is
// split or padded into several driver requests keeps the first mark: the
// moment its first piece was handed over.  A driver that has no such call
// (null, the thread pool and aio=sync, whose system calls block until the I/O is done)
// leaves it unmarked: then there is no split, as for fio's synchronous
// engines.
//
// Threading: marked and read on the request's loop thread.
#pragma once

#include <cstdint>

namespace blk {

struct SubmitStamp {
  int64_t ns = 0;  // CLOCK_MONOTONIC ns of the first hand-over; 0: none
  void mark(int64_t now) {
    if (ns == 0) ns = now;
  }
};

}  // namespace blk
