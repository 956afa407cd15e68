// The rbd driver: a Ceph RBD image through librbd's asynchronous API, with
// QEMU-compatible options (see docs/rbd-driver.md for the full story and
// measured numbers).
//
//   driver=rbd,pool=rbd,image=test[,namespace=NS][,snapshot=SNAP][,user=ID]
//             [,conf=PATH][,rados.KEY=VALUE...]
//   driver=rbd,filename=rbd:pool[/namespace]/image[@snap][:key=value...]
//
// Options (see RbdOptionsSchema() in rbd_config.h for types and defaults):
//   pool, namespace, image, snapshot   where the image is; a snapshot needs
//                                      read-only=on
//   user        cephx client id (default: librados' default, "admin")
//   conf        ceph.conf path (default: librados' search, which honours
//               CEPH_CONF)
//   rados.KEY   any librados/librbd setting, applied last with
//               rados_conf_set (e.g. rados.ms_async_op_threads=4)
//   filename    the short form above, as QEMU's `rbd:` filename; inside it
//               `id`/`user` and `conf` are the options above, other keys are
//               librados settings; `\` escapes ':', '/', '@'
//   completion  eventfd (default) | bh | poll: how librbd completions reach
//               the loop (image notification eventfd drained with
//               rbd_poll_io_events / librbd callback posting to the loop /
//               busy polling of rbd_poll_io_events plus the eventfd)
//   write-cache on (default) | off: on = librbd's cache, switched to
//               write-back by one flush right after a read-write open (a
//               write is then durable only after a flush); off = rbd_cache
//               off, every completed write is durable
//   osd-op-timeout  seconds (0 = wait forever, librados' default): an OSD
//               request not answered in time fails with -ETIMEDOUT
//   connect-timeout seconds for connecting and for monitor requests
//   close-timeout   seconds close waits for librbd before abandoning
//               (leaking) the handles instead of hanging
//
// Block status (base:allocation): rbd_diff_iterate2 of the image's own
// objects (and its parent's, for a clone), on a worker thread of the driver;
// objects never written read as zeros and are reported as holes.
//
// Threading: open and close run on the opening thread and block (bounded by
// the timeouts above); I/O runs on the attached loop.  librbd completes on
// its own threads; every completion resumes its coroutine on the loop.
#pragma once

#include <blkstack/block/driver_info.h>

namespace blk {

const DriverInfo& RbdDriverInfo();

}  // namespace blk
