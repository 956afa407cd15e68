// The librbd and librados entry points the rbd and rados drivers call, resolved at run
// time with dlopen() so that libblkstack (and every program that only uses
// the null or file drivers) does not link Ceph.
//
// The library is loaded on the first use of driver=rbd or driver=rados: `librbd.so.1` (the
// soname of Debian's librbd1 package) through the normal search path, or the
// file named by the environment variable BLKSTACK_LIBRBD (a Ceph build of
// your own).  librados' functions are resolved through librbd, which needs
// it.  The library stays loaded for the life of the process (librbd starts
// threads and cannot be unloaded safely).
//
// Thread-safety: LoadCephApi() may be called from any thread; the first call
// loads, later calls return the same result (success or the same error).
// The table it returns is immutable.
#pragma once

#include <rados/librados.h>
#include <rbd/librbd.h>

#include <string>

#include <blkstack/util/result.h>

namespace blk {

// X(name) for every function of librbd/librados the driver uses.  Adding a
// call to the driver means adding its name here.
#define BLK_CEPH_FUNCTIONS(X)   \
  X(rados_create)               \
  X(rados_create2)              \
  X(rados_write)                \
  X(rados_remove)               \
  X(rados_aio_create_completion2) \
  X(rados_aio_release)          \
  X(rados_aio_get_return_value) \
  X(rados_aio_read)             \
  X(rados_aio_write)            \
  X(rados_create_write_op)      \
  X(rados_release_write_op)     \
  X(rados_write_op_zero)        \
  X(rados_aio_write_op_operate) \
  X(rados_conf_read_file)       \
  X(rados_conf_set)             \
  X(rados_connect)              \
  X(rados_ioctx_create)         \
  X(rados_ioctx_set_namespace)  \
  X(rados_ioctx_destroy)        \
  X(rados_shutdown)             \
  X(rbd_open)                   \
  X(rbd_open_read_only)         \
  X(rbd_close)                  \
  X(rbd_get_size)               \
  X(rbd_flush)                  \
  X(rbd_set_image_notification) \
  X(rbd_poll_io_events)         \
  X(rbd_aio_create_completion)  \
  X(rbd_aio_release)            \
  X(rbd_aio_get_arg)            \
  X(rbd_aio_get_return_value)   \
  X(rbd_aio_read)               \
  X(rbd_aio_readv)              \
  X(rbd_aio_write)              \
  X(rbd_aio_writev)             \
  X(rbd_aio_flush)              \
  X(rbd_aio_discard)            \
  X(rbd_aio_write_zeroes)       \
  X(rbd_diff_iterate2)

// One pointer per function, with the type librbd.h / librados.h declare.
struct CephApi {
#define BLK_CEPH_MEMBER(fn) decltype(&::fn) fn = nullptr;
  BLK_CEPH_FUNCTIONS(BLK_CEPH_MEMBER)
#undef BLK_CEPH_MEMBER
  std::string path;  // the file that was loaded
};

// The table, loaded on first call.  Errors (-ENOENT when the library is
// missing, -ENOSYS when it lacks a function) say which file was tried, why
// it failed and which package provides it.
Expected<const CephApi*> LoadCephApi();

}  // namespace blk
