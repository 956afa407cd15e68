// The rados driver: one RADOS object as a block device, through librados'
// asynchronous API (fio's rados engine).
//
//   driver=rados,pool=POOL,object=NAME,size=BYTES[,namespace=NS][,user=ID]
//               [,cluster=NAME][,conf=PATH][,touch=on][,connection=NAME]
//               [,rados.KEY=VALUE...]
//
// The device is `size` bytes of the object from offset 0.  An object is as
// long as its furthest write: a read past its end, or of an object that
// does not exist, returns zeros.  Reads and writes are rados_aio_read and
// rados_aio_write; discard and write-zeroes are a write op's zero (the
// range reads as zeros); a flush has nothing to do (librados acknowledges a
// write once every replica has it).
//
// Options (RadosOptionsSchema() for types and defaults):
//   pool, namespace, object   where the object is
//   size        the device's length (objects have no fixed size)
//   user, cluster, conf, rados.KEY, connect-timeout, osd-op-timeout,
//   close-timeout             as the rbd driver's (block/rbd/rbd.h)
//   touch       create the object (an empty write) when opening, as fio's
//               touch_objects; also on a read-only node (no data changes)
//   connection  a name: devices opened with the same one (and the same
//               cluster options) share one cluster connection, closed by
//               the last of them (fio's engine: one for a job's objects);
//               default: a connection of its own
// The object stays when the device closes (as fio 3.33's engine leaves its
// objects).
//
// Threading: open and close run on the opening thread and block (close
// bounded by close-timeout); I/O runs on the attached loop.  librados
// completes on its own threads; every completion resumes its coroutine on
// the loop.
#pragma once

#include <blkstack/block/driver_info.h>

namespace blk {

const DriverInfo& RadosDriverInfo();

}  // namespace blk
