// The nbd driver: an export of an NBD server (qemu-nbd, nbdkit,
// blkstack-storage-daemon, nbd-server) through libnbd's asynchronous API,
// as QEMU's nbd block driver and fio's nbd engine.
//
//   driver=nbd,uri=nbd+unix:///EXPORT?socket=PATH    (libnbd's NBD URIs:
//   driver=nbd,uri=nbd://HOST[:PORT]/EXPORT           nbd, nbds, nbd+unix)
//   driver=nbd,server.type=unix,server.path=PATH[,export=NAME]
//   driver=nbd,server.type=inet,server.host=HOST[,server.port=PORT][,export=NAME]
//
// The server.* and export options are QEMU's; they are turned into the URI
// (the export name and path percent-encoded).  The connection is made, and
// the export negotiated (NBD_OPT_GO), when the node opens; its size, block
// sizes (the request alignment is the server's minimum block size, the
// largest transfer its maximum, at most 32 MiB) and flags (read-only, flush,
// FUA, trim, write-zeroes) come from the server.  A read-only export opened
// read-write is refused (-EROFS: give read-only=on).
//
// Requests: every read, write, flush, trim and write-zeroes is one NBD
// command sent at once on the one connection; many are in flight together
// (the server answers in any order).  The socket is an fd handler of the
// attached loop: libnbd reads replies when it is readable and finishes a
// partly sent request when it is writable.  A command the server fails
// completes with the server's errno (EIO, ENOSPC, EPERM ...); a dead
// connection fails everything in flight and after with -ENOTCONN (or
// libnbd's errno).  Write-zeroes without kReqMayUnmap carries NO_HOLE.
//
// Thread-safety: as every driver (block/driver.h): the loop thread.
#pragma once

#include <string>

#include <blkstack/block/driver_info.h>
#include <blkstack/util/result.h>

namespace blk {

const DriverInfo& NbdDriverInfo();

// The NBD URI of QEMU-style options: type "unix" (path) or "inet" (host,
// port; empty port: 10809), export name (empty: the default export).
// -EINVAL naming the missing option.
Expected<std::string> NbdUri(const std::string& type, const std::string& path,
                             const std::string& host, const std::string& port,
                             const std::string& export_name);

}  // namespace blk
