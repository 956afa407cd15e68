// InlineIo: the file driver's aio=mmap, falloc, ftruncate and splice.  A
// read, write or flush is done in the loop's own thread inside the driver's
// call, without a system call queue, as fio's engines of those names do
// theirs (all are FIO_SYNCIO: one request at a time):
//
//   mmap       reads and writes copy between the request's buffers and a
//              shared mapping of the file (mmap(2), MAP_SHARED); flush is
//              msync(MS_SYNC) of the mapping.  The mapping is made at the
//              first request, of the whole file, with the driver's read-ahead
//              advice (posix_madvise RANDOM / SEQUENTIAL).  drop_cache: after
//              each read or write its pages are written back (msync MS_SYNC)
//              and posix_madvise(POSIX_MADV_DONTNEED) is called on them, fio's
//              mmap with direct=1 ("not really direct, but should drop the
//              pages from the cache"); glibc makes that advice a no-op, for
//              fio as here, so in effect each request is written back.
//              One mapping for the node's life, as fio 3.33 keeps one per
//              open of the file.
//   falloc     moves no data: a read is fallocate(2) of its range with
//              FALLOC_FL_KEEP_SIZE, a write fallocate mode 0 (may extend the
//              file), the read buffers are left as they were; flush is
//              fdatasync.  For timing block allocation, not for data.
//   ftruncate  moves no data: a write is ftruncate(2) of the file to the
//              write's offset (fio's ftruncate engine: bs is ignored); a read
//              fails with -EINVAL; flush is fdatasync.
//   splice     moves the data through a pipe of the object's own, as fio's
//              splice engine: a read splices the file's range into the
//              pipe and vmsplices it out into the request's buffers, a write
//              vmsplices the buffers into the pipe and splices the pipe into
//              the file, in pieces of up to 64 KiB (the pipe's capacity);
//              a read past the end of the file fills the rest with zeros;
//              flush is fdatasync.  The pipe is made at the first request.
//   e4defrag   moves no data: a write moves the donor file's blocks under
//              its range into the file (ioctl EXT4_IOC_MOVE_EXT, in the
//              file system's blocks: the range rounded out), as fio's
//              e4defrag engine simulates defragmentation; the donor is
//              allocated once at Create (fallocate of donor_offset,
//              donor_length), or with `inplace` before each write and
//              emptied (ftruncate 0) after it; a move of nothing fails with
//              -EINVAL; a read fails with -EINVAL; flush is fdatasync.
//              Both files must be on one ext4 that allows the move.
//
// Trims are not InlineIo's: the driver's discard punches holes (fio's trim
// on mmap and falloc, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE); under
// aio=ftruncate a discard fails with -EINVAL, as fio's ftruncate engine
// fails anything but a write.
//
// Hazard (mmap): where the kernel cannot serve a page the copy faults
// (SIGBUS) and the process dies, as fio's job process does: a device read
// error, a write into a hole of a full file system, a file shortened under
// the mapping by another program.  The driver only maps the length it had
// at open and never copies past it.
//
// Threading: one object per open file, used on the driver's loop thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <blkstack/block/driver.h>
#include <blkstack/util/iovec.h>
#include <blkstack/util/result.h>

namespace blk {

class InlineIo {
 public:
  enum class Kind { kMmap, kFalloc, kFtruncate, kSplice, kE4defrag };
  struct Options {
    Kind kind = Kind::kMmap;
    uint64_t length = 0;     // the file's length at open (mmap maps this much)
    bool writable = true;    // mmap: PROT_WRITE as well as PROT_READ
    int advice = 0;          // mmap: POSIX_MADV_* for the mapping (0: normal)
    bool drop_cache = false; // mmap: write back and drop each request's pages
    std::string donor;           // e4defrag: the donor file (created if missing)
    bool inplace = false;        // e4defrag: allocate per write, not at Create
    uint64_t donor_offset = 0;   // e4defrag without inplace: the allocation at Create
    uint64_t donor_length = 0;
  };

  // `fd` stays the caller's (never closed here) and must outlive the object.
  // Fails only for e4defrag: the donor cannot be opened, allocated or
  // stat'ed (the message names it and the call).
  static Expected<std::unique_ptr<InlineIo>> Create(int fd, const Options& o);
  ~InlineIo();
  InlineIo(const InlineIo&) = delete;
  InlineIo& operator=(const InlineIo&) = delete;

  // "mmap", "falloc", "ftruncate", "splice" or "e4defrag".
  const char* name() const;

  // Bytes [offset, offset + qiov.size()): the byte count or a negative errno.
  // REQUIRES (mmap): offset + qiov.size() <= the length given at Create.
  int64_t read(uint64_t offset, const IoVec& qiov);
  int64_t write(uint64_t offset, const IoVec& qiov);
  // 0 or a negative errno.
  int flush();

  void counters(std::vector<DriverCounter>* out) const;

 private:
  InlineIo(int fd, const Options& o) : fd_(fd), o_(o) {}
  // Maps the file if not yet: 0 or a negative errno (mmap, madvise).
  int map();
  // mmap: bytes [offset, offset + qiov.size()) of the mapping copied into
  // qiov (to_iov) or out of it; the byte count or a negative errno.
  int64_t mmap_copy(uint64_t offset, const IoVec& qiov, bool to_iov);
  // falloc: fallocate(mode) of [offset, offset + len); len or a negative
  // errno.
  int64_t falloc(int mode, uint64_t offset, uint64_t len);
  // splice: bytes [offset, offset + qiov.size()) through the pipe, from the
  // file into qiov (read) or the other way; the byte count or a negative
  // errno.
  int64_t splice_read(uint64_t offset, const IoVec& qiov);
  int64_t splice_write(uint64_t offset, const IoVec& qiov);
  // e4defrag: the move of the donor's blocks under [offset, offset + len);
  // len or a negative errno.
  int64_t move_extents(uint64_t offset, uint64_t len);
  // Makes the pipe if not yet: 0 or a negative errno.
  int open_pipe();
  // Closes the pipe, which a failed transfer may have left holding bytes
  // the next request must not see (made again at the next one); returns
  // `err`.
  int drop_pipe(int err);
  // drop_cache: msync + POSIX_MADV_DONTNEED of the pages under
  // [offset, offset + len); 0 or a negative errno.
  int drop(uint64_t offset, uint64_t len);

  int fd_;
  Options o_;
  char* base_ = nullptr;  // mmap: the mapping of [0, o_.length), once made
  uint64_t calls_ = 0;    // requests done
  uint64_t maps_ = 0;     // mmap: mappings made
  int pipe_[2] = {-1, -1};  // splice: [0] read end, [1] write end, once made
  int donor_fd_ = -1;       // e4defrag: the donor, owned
  uint64_t donor_block_ = 0;  // e4defrag: the donor's st_blksize
  uint64_t moved_ = 0;      // e4defrag: blocks moved
};

}  // namespace blk
