/* blkstack C API: open a driver graph from a spec string and do asynchronous
 * I/O on it from a C program, driving blkstack's event loop from the
 * program's own loop.  C11 and C++ compatible.
 *
 * Model.  A blkstack_loop is one event loop (an AioContext); it belongs to
 * the thread that created it, and every call taking a loop or a device must
 * be made on that thread.  Devices (blkstack_dev) are opened on a loop.  I/O
 * calls submit and return at once; the completion callback runs later on the
 * loop thread, from blkstack_loop_dispatch() or blkstack_loop_run_once(),
 * never inside the submitting call.
 *
 * Embedding.  Watch blkstack_loop_fd() for readability in your own loop and
 * call blkstack_loop_dispatch() (never blocks) when it is readable; after each
 * dispatch, arm your own timer for blkstack_loop_next_timeout_ns() (-1: no
 * timer; 0: call dispatch again soon).  Or let blkstack run the loop:
 * blkstack_loop_run_once(loop, 1).
 *
 * Buffers.  The memory an iovec points at must stay valid and untouched until
 * the request's callback has run.  The iovec array itself is copied during
 * the call.  With drivers that use O_DIRECT (driver=file,cache.direct=on),
 * buffers need not be aligned: blkstack bounces misaligned ones.
 *
 * Errors.  Functions return 0 (or a non-negative value) on success and a
 * negative errno on failure; blkstack_last_error() returns a message for the
 * last failure on the calling thread (which option, file, or errno).
 * Completion callbacks receive 0 or a negative errno.
 *
 * Versions.  BLKSTACK_VERSION_* say which header a program was compiled
 * with, blkstack_version() which library it runs with.  Within one soname
 * (libblkstack.so.BLKSTACK_SOVERSION) functions are only added, never
 * changed or removed (docs/embedding.md, "Versions and ABI").
 *
 * docs/embedding.md lists every operation of the C++ BlockBackend beside
 * its C counterpart here.
 */
#ifndef BLKSTACK_H_
#define BLKSTACK_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* The version of this header (kept equal to the library's by
 * tests/install:consumers_test). */
#define BLKSTACK_VERSION_MAJOR 0
#define BLKSTACK_VERSION_MINOR 1
#define BLKSTACK_VERSION_PATCH 0
#define BLKSTACK_VERSION_STRING "0.1.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH, for #if comparisons. */
#define BLKSTACK_VERSION_NUMBER \
  (BLKSTACK_VERSION_MAJOR * 10000 + BLKSTACK_VERSION_MINOR * 100 + BLKSTACK_VERSION_PATCH)
/* The soname suffix: libblkstack.so.BLKSTACK_SOVERSION. */
#define BLKSTACK_SOVERSION 0

#ifdef __cplusplus
extern "C" {
#endif

typedef struct blkstack_loop blkstack_loop;
typedef struct blkstack_dev blkstack_dev;

/* Called on the loop thread when a request completes; ret is 0 or -errno. */
typedef void (*blkstack_cb)(void *opaque, int ret);

/* The running library's version, "MAJOR.MINOR.PATCH" (static string). */
const char *blkstack_version(void);
/* The running library's BLKSTACK_VERSION_NUMBER. */
int blkstack_version_number(void);

/* ---- loops ---- */
/* Creates a loop owned by the calling thread.  NULL on failure. */
blkstack_loop *blkstack_loop_new(void);
/* REQUIRES: every device of the loop closed. */
void blkstack_loop_free(blkstack_loop *loop);
/* Readable while the loop has work; for poll/epoll/libevent/... */
int blkstack_loop_fd(blkstack_loop *loop);
/* Runs whatever is ready without blocking.  Returns 1 if anything ran. */
int blkstack_loop_dispatch(blkstack_loop *loop);
/* One loop iteration; blocks for work when `blocking` is non-zero. */
int blkstack_loop_run_once(blkstack_loop *loop, int blocking);
/* Nanoseconds until the loop's next timer, 0 if work is pending, -1 if none. */
int64_t blkstack_loop_next_timeout_ns(blkstack_loop *loop);

/* ---- devices ---- */
#define BLKSTACK_OPEN_READ_ONLY 1u

/* Opens the graph described by `spec` ("driver=file,filename=/dev/sdb,..."
 * or JSON) on `loop`.  On success stores the device in *out and returns 0;
 * otherwise returns -errno (see blkstack_last_error()). */
int blkstack_open(blkstack_loop *loop, const char *spec, unsigned flags, blkstack_dev **out);
/* Waits for the device's requests in flight (running the loop), then closes
 * it.  REQUIRES: the loop thread, not from inside a completion callback, no
 * blkstack_drain() callback pending, not between drained_begin and end. */
void blkstack_close(blkstack_dev *dev);
/* Length in bytes. */
int64_t blkstack_length(blkstack_dev *dev);
int blkstack_is_read_only(blkstack_dev *dev);

/* ---- asynchronous I/O ----
 * Each returns 0 when the request was submitted (the callback will run) or
 * -errno when it was refused (the callback will not run). */
#define BLKSTACK_FUA 1u         /* write: durable on completion */
#define BLKSTACK_MAY_UNMAP 2u   /* write_zeroes: may deallocate */

int blkstack_readv(blkstack_dev *dev, uint64_t offset, const struct iovec *iov, int iovcnt,
                   blkstack_cb cb, void *opaque);
int blkstack_writev(blkstack_dev *dev, uint64_t offset, const struct iovec *iov, int iovcnt,
                    unsigned flags, blkstack_cb cb, void *opaque);
int blkstack_flush(blkstack_dev *dev, blkstack_cb cb, void *opaque);
int blkstack_discard(blkstack_dev *dev, uint64_t offset, uint64_t bytes, blkstack_cb cb,
                     void *opaque);
int blkstack_write_zeroes(blkstack_dev *dev, uint64_t offset, uint64_t bytes, unsigned flags,
                          blkstack_cb cb, void *opaque);

/* ---- batching ----
 * Requests submitted between plug and unplug may be held back by the
 * driver and sent together (one io_submit / io_uring_enter) at unplug.
 * Both take effect in order with the requests around them (through the
 * loop, as the requests themselves).  Nests: the last unplug submits. */
void blkstack_plug(blkstack_dev *dev);
void blkstack_unplug(blkstack_dev *dev);

/* ---- registered (fixed) buffers ----
 * Tells the device that [host, host + size) will carry many requests (guest
 * RAM, a bounce pool): the file driver with
 * aio=io_uring,aio-fixed-buffers=on pins it in the ring and sends requests
 * inside it as READ_FIXED/WRITE_FIXED; other drivers accept and ignore it.
 * 0, or -errno (-EEXIST: overlaps a range registered before; -ENOMEM /
 * -EPERM: the locked-memory limit).  Unregister before freeing the memory;
 * closing the device unregisters what is left. */
int blkstack_register_buf(blkstack_dev *dev, void *host, size_t size);
void blkstack_unregister_buf(blkstack_dev *dev, void *host, size_t size);

/* ---- quiescing ----
 * blkstack_drain: `cb` runs (on the loop thread, from a later dispatch)
 * once no request of the device is in flight.  0, or -EINVAL for a NULL cb.
 * blkstack_drained_begin/end: hold new requests back (they wait, and run
 * after the matching end) -- e.g. while the emulator snapshots or
 * reconfigures; nests.
 * blkstack_cancel_waits: requests waiting on a delay the graph adds itself
 * (null latency-ns, throttle) complete now with -ECANCELED; requests at the
 * kernel or a cluster complete normally. */
int blkstack_drain(blkstack_dev *dev, blkstack_cb cb, void *opaque);
void blkstack_drained_begin(blkstack_dev *dev);
void blkstack_drained_end(blkstack_dev *dev);
void blkstack_cancel_waits(blkstack_dev *dev);

/* ---- statistics ---- */
enum blkstack_op {
  BLKSTACK_OP_READ = 0,
  BLKSTACK_OP_WRITE = 1,
  BLKSTACK_OP_FLUSH = 2,
  BLKSTACK_OP_DISCARD = 3,
  BLKSTACK_OP_WRITE_ZEROES = 4
};

struct blkstack_op_stats {
  uint64_t ops;      /* completed requests */
  uint64_t bytes;    /* bytes of successful requests */
  uint64_t errors;   /* failed requests */
  uint64_t lat_min_ns, lat_max_ns, lat_p50_ns, lat_p99_ns, lat_p999_ns;
  double lat_mean_ns;
};

/* Fills *out for operation `op`.  0, or -EINVAL for an unknown op. */
int blkstack_get_stats(blkstack_dev *dev, int op, struct blkstack_op_stats *out);

/* The value of the driver counter `name` of the device's root node (e.g.
 * "io_uring_fixed_sqes"; block-bench prints them all) in *out.  0, or
 * -ENOENT when the driver has no such counter. */
int blkstack_get_counter(blkstack_dev *dev, const char *name, uint64_t *out);

/* Message describing the last failure of a blkstack call on this thread. */
const char *blkstack_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* BLKSTACK_H_ */
