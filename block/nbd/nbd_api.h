// The libnbd entry points the nbd driver calls, resolved at run time with
// dlopen() so that libblkstack (and every program that does not open
// driver=nbd) does not link libnbd.
//
// The library is loaded on the first use of driver=nbd: `libnbd.so.0` (the
// soname of Debian's libnbd0 package) through the normal search path, or
// the file named by the environment variable BLKSTACK_LIBNBD.  It stays
// loaded for the life of the process.
//
// Thread-safety: LoadNbdApi() may be called from any thread; the first call
// loads, later calls return the same result.  The table is immutable.
#pragma once

#include <libnbd.h>

#include <string>

#include <blkstack/util/result.h>

namespace blk {

// X(name) for every libnbd function the driver uses.
#define BLK_NBD_FUNCTIONS(X)  \
  X(nbd_create)               \
  X(nbd_close)                \
  X(nbd_get_error)            \
  X(nbd_get_errno)            \
  X(nbd_connect_uri)          \
  X(nbd_get_size)             \
  X(nbd_is_read_only)         \
  X(nbd_can_flush)            \
  X(nbd_can_fua)              \
  X(nbd_can_trim)             \
  X(nbd_can_zero)             \
  X(nbd_get_block_size)       \
  X(nbd_aio_get_fd)           \
  X(nbd_aio_get_direction)    \
  X(nbd_aio_notify_read)      \
  X(nbd_aio_notify_write)     \
  X(nbd_aio_pread)            \
  X(nbd_aio_pwrite)           \
  X(nbd_aio_flush)            \
  X(nbd_aio_trim)             \
  X(nbd_aio_zero)             \
  X(nbd_shutdown)

struct NbdApi {
#define BLK_NBD_MEMBER(fn) decltype(&::fn) fn = nullptr;
  BLK_NBD_FUNCTIONS(BLK_NBD_MEMBER)
#undef BLK_NBD_MEMBER
  std::string path;  // the file that was loaded
};

// The table, loaded on first call.  Errors (-ENOENT when the library is
// missing, -ENOSYS when it lacks a function) name the file tried and the
// package that provides it.
Expected<const NbdApi*> LoadNbdApi();

}  // namespace blk
