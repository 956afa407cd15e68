// BlockDriver: the interface every block driver implements.
//
// One BlockDriver object is one open instance (a node's driver state): the
// null device, an open file, an open RBD image, a filter over a child node.
// Drivers are reached only through a BlockNode (block/node.h), the generic
// layer, which guarantees the contracts written next to each method below:
// a driver never sees a request that is out of bounds, misaligned or too
// large, and never a write on a read-only node.
//
// Threading: all methods are called on the loop thread of the AioContext the
// driver is attached to (attach_aio_context), except the constructor/open
// function and the destructor, which run on the thread that opens/closes the
// graph while no I/O is in flight.  A driver whose completions arrive on
// another thread (librbd) must resume the waiting coroutine on the attached
// loop (AioContext::post_resume), never on the foreign thread.
//
// Errors: I/O methods return Status, 0 or a negative errno.  They never throw.
//
// Buffers: every IoVec passed to an I/O method stays valid, and its bytes
// untouched by the caller, until the returned Task completes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <blkstack/util/aio_context.h>
#include <blkstack/util/iovec.h>
#include <blkstack/util/result.h>
#include <blkstack/util/task.h>

namespace blk {

// Request flags.
enum ReqFlag : uint32_t {
  kReqNone = 0,
  // Write: the data is on stable storage when the request completes.  Passed
  // to a driver only if Capabilities::fua; otherwise the generic layer issues
  // write + flush.
  kReqFua = 1u << 0,
  // Write-zeroes: the driver may deallocate (unmap) the range instead of
  // writing zeros, provided later reads return zeros.
  kReqMayUnmap = 1u << 1,
  // Read or write: fail with -EAGAIN instead of blocking the submitting
  // thread (the kernel's RWF_NOWAIT: a buffered read of data not in the page
  // cache, a lock held, blocks to allocate).  The file driver hands it to
  // the kernel with the request (preadv2/pwritev2, libaio's aio_rw_flags,
  // io_uring's rw_flags), whose answer stands: a file system without
  // non-blocking buffered writes (ext4) fails them with -EOPNOTSUPP.  Other
  // drivers ignore it (they never block the loop's thread).
  kReqNoWait = 1u << 2,
};

// I/O priority of a read or write, carried in the upper 16 bits of the
// request flags: the kernel's ioprio value (class << 13 | level, as
// ioprio_set(2) and IOPRIO_PRIO_VALUE), 0 for none (the submitter's own).
// Every layer passes the flags down unchanged; a driver that can give a
// request its own priority does (file: libaio's aio_reqprio with
// IOCB_FLAG_IOPRIO, io_uring's sqe->ioprio), the others ignore it.
inline constexpr uint32_t kReqPrioShift = 16;
inline constexpr uint32_t kReqPrioMask = 0xffffu << kReqPrioShift;
inline constexpr uint32_t ReqPrioFlags(uint16_t ioprio) {
  return uint32_t(ioprio) << kReqPrioShift;
}
inline constexpr uint16_t ReqPrio(uint32_t flags) { return uint16_t(flags >> kReqPrioShift); }

// What the driver needs requests to look like.  Data, not code: the generic
// layer pads, bounces and splits to meet these.
struct BlockLimits {
  // Offsets and lengths of reads/writes are multiples of this (power of 2).
  uint32_t request_alignment = 1;
  // Buffer addresses and segment lengths are multiples of this (power of 2),
  // e.g. 512 or 4096 for O_DIRECT.
  uint32_t memory_alignment = 1;
  // Largest read/write in bytes; 0 means no limit.  A multiple of
  // request_alignment.
  uint64_t max_transfer = 0;
  // Largest discard / write-zeroes in bytes; 0 means no limit.
  uint64_t max_discard = 0;
  uint64_t max_write_zeroes = 0;
  // Most segments one request may carry.
  int max_iov = 1024;
};

// What the driver can do natively.  The generic layer supplies the rest.
struct Capabilities {
  bool fua = false;           // honours kReqFua on writes
  bool write_zeroes = false;  // co_pwrite_zeroes is implemented
  bool discard = false;       // co_pdiscard is implemented
};

// Allocation status of a range (QEMU's bdrv_co_block_status), for clients
// that copy or map an image (NBD's base:allocation).  `flags` is a set of
// kBlockData / kBlockZero; a range without kBlockData is a hole (nothing
// stored).  kBlockZero: reads of the range return zeros (a hole in a file).
// Neither flag: a hole whose reads are unspecified.
enum BlockStatusFlag : uint32_t {
  kBlockData = 1u << 0,
  kBlockZero = 1u << 1,
};
struct BlockStatus {
  uint32_t flags = kBlockData;
  // Bytes from the queried offset that share `flags`: >= 1 and <= the
  // queried length.
  uint64_t length = 0;
};

// A named counter a driver exports (e.g. "io_submit_calls").  Tools print them.
struct DriverCounter {
  std::string name;
  uint64_t value;
};

class BlockDriver {
 public:
  virtual ~BlockDriver() = default;

  // The driver's registry name, e.g. "null", "file", "rbd".
  virtual std::string_view name() const = 0;

  // Reads `bytes` bytes at `offset` into `qiov` (qiov.size() == bytes).
  // Guaranteed by the generic layer: offset and bytes are multiples of
  // limits().request_alignment; bytes <= max_transfer; qiov segments meet
  // memory_alignment and max_iov; offset + bytes <= length() rounded up to
  // request_alignment (bytes past length() must read as zeros).
  virtual Task<Status> co_preadv(uint64_t offset, uint64_t bytes, const IoVec& qiov,
                                 uint32_t flags) = 0;

  // Writes `qiov` at `offset`; same guarantees as co_preadv, and the node is
  // writable.  `flags` holds kReqFua only if caps().fua.
  virtual Task<Status> co_pwritev(uint64_t offset, uint64_t bytes, const IoVec& qiov,
                                  uint32_t flags) = 0;

  // Makes completed writes durable.  Default: nothing to do.
  virtual Task<Status> co_flush() { co_return Status(); }

  // Discards (deallocates) a range; advisory: reads afterwards may return old
  // data or zeros.  Offset/bytes aligned to request_alignment, bytes <=
  // max_discard.  Called only if caps().discard.
  virtual Task<Status> co_pdiscard(uint64_t offset, uint64_t bytes) {
    (void)offset, (void)bytes;
    co_return Status(-ENOTSUP);
  }

  // Makes a range read as zeros.  Same guarantees as co_pdiscard with
  // max_write_zeroes.  Called only if caps().write_zeroes; -ENOTSUP makes the
  // generic layer fall back to writing zeroed buffers.
  virtual Task<Status> co_pwrite_zeroes(uint64_t offset, uint64_t bytes, uint32_t flags) {
    (void)offset, (void)bytes, (void)flags;
    co_return Status(-ENOTSUP);
  }

  // The status of the range starting at `offset`: the flags of its first
  // extent and that extent's length (1 <= length <= bytes); the caller asks
  // again for the rest.  Guaranteed by the generic layer: bytes >= 1 and
  // offset + bytes <= length().  A negative errno on failure.  Default, for
  // a driver that cannot tell: the whole range is data.  A filter forwards
  // to its child.
  virtual Task<Result<BlockStatus>> co_block_status(uint64_t offset, uint64_t bytes) {
    (void)offset;
    co_return BlockStatus{kBlockData, bytes};
  }

  // Current length in bytes.
  virtual uint64_t length() const = 0;
  virtual BlockLimits limits() const { return {}; }
  virtual Capabilities caps() const { return {}; }

  // Binds the driver to a loop (registers fds, poll handlers, per-loop
  // state).  Called once after open and again after each detach.  A filter
  // forwards to its children.
  virtual void attach_aio_context(AioContext& ctx) { (void)ctx; }
  // Unbinds from the loop.  REQUIRES: no request in flight.
  virtual void detach_aio_context() {}

  // Batching hint: between plug() and the matching unplug() the driver may
  // queue submissions and send them together at unplug().  Nested calls
  // count.  Default: ignored.
  virtual void plug() {}
  virtual void unplug() {}

  // Buffer registration (QEMU's bdrv_register_buf): the caller will pass
  // [host, host + size) in requests for a long time, and a driver that can
  // pin it once for all of them (io_uring fixed buffers) does so here.
  // Returns 0 -- also when the driver has nothing to do -- or a negative
  // errno (e.g. -ENOMEM: the locked-memory limit).  Registering is an
  // optimisation only: requests may use any buffer, registered or not.
  // unregister_buf() takes the same range back; it must come before the
  // memory is freed (closing the node also does it).  A filter forwards to
  // its children.
  virtual int register_buf(void* host, size_t size) {
    (void)host;
    (void)size;
    return 0;
  }
  virtual void unregister_buf(void* host, size_t size) {
    (void)host;
    (void)size;
  }

  // Ends the waits the driver adds by itself to requests in flight (an
  // emulated latency, a throttle's delay): those requests complete now with
  // -ECANCELED.  Work already handed to the kernel or a cluster cannot be
  // recalled and completes normally; requests that arrive later are not
  // affected.  Used when a job must end now (interrupted, past its runtime).
  // A filter forwards to its children.  Default: the driver adds no waits.
  virtual void cancel_waits() {}

  // Appends the driver's own counters (and its children's, prefixed).
  virtual void counters(std::vector<DriverCounter>* out) const { (void)out; }
};

}  // namespace blk
