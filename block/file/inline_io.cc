#include <blkstack/block/file/inline_io.h>

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <blkstack/util/result.h>

namespace blk {
namespace {

int64_t NegErrno(long r) { return r < 0 ? -int64_t(errno) : r; }

uint64_t PageSize() {
  static const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
  return page;
}

// ext4's EXT4_IOC_MOVE_EXT (fs/ext4/ext4.h; not in the uapi headers).
struct Ext4MoveExtent {
  uint32_t reserved;     // zero
  uint32_t donor_fd;
  uint64_t orig_start;   // in file system blocks
  uint64_t donor_start;
  uint64_t len;          // blocks to move
  uint64_t moved_len;    // blocks moved (out)
};
constexpr unsigned long kExt4IocMoveExt = _IOWR('f', 15, Ext4MoveExtent);

constexpr size_t kSpliceChunk = 64 * 1024;  // fio's SPLICE_DEF_SIZE: a pipe's default capacity

}  // namespace

Expected<std::unique_ptr<InlineIo>> InlineIo::Create(int fd, const Options& o) {
  std::unique_ptr<InlineIo> io(new InlineIo(fd, o));
  if (o.kind != Kind::kE4defrag) return io;
  io->donor_fd_ = open(o.donor.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  if (io->donor_fd_ < 0) {
    const int e = -errno;
    return MakeError(e, "cannot open the donor file " + o.donor + ": " + ErrnoString(e));
  }
  if (!o.inplace &&
      fallocate(io->donor_fd_, 0, off_t(o.donor_offset), off_t(o.donor_length)) != 0) {
    const int e = -errno;
    return MakeError(e, "fallocate of the donor file " + o.donor + " (offset " +
                            std::to_string(o.donor_offset) + ", length " +
                            std::to_string(o.donor_length) + "): " + ErrnoString(e));
  }
  struct stat st;
  if (fstat(io->donor_fd_, &st) != 0) {
    const int e = -errno;
    return MakeError(e, "fstat of the donor file " + o.donor + ": " + ErrnoString(e));
  }
  io->donor_block_ = uint64_t(st.st_blksize > 0 ? st.st_blksize : 4096);
  return io;
}

InlineIo::~InlineIo() {
  if (base_) munmap(base_, o_.length);
  drop_pipe(0);
  if (donor_fd_ >= 0) close(donor_fd_);
}

const char* InlineIo::name() const {
  switch (o_.kind) {
    case Kind::kMmap: return "mmap";
    case Kind::kFalloc: return "falloc";
    case Kind::kFtruncate: return "ftruncate";
    case Kind::kSplice: return "splice";
    case Kind::kE4defrag: return "e4defrag";
  }
  return "?";
}

int InlineIo::map() {
  if (base_ || o_.length == 0) return 0;
  const int prot = PROT_READ | (o_.writable ? PROT_WRITE : 0);
  void* p = mmap(nullptr, o_.length, prot, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) return -errno;
  if (o_.advice) {
    if (const int e = posix_madvise(p, o_.length, o_.advice); e != 0) {
      munmap(p, o_.length);
      return -e;
    }
  }
  base_ = static_cast<char*>(p);
  maps_++;
  return 0;
}

int InlineIo::drop(uint64_t offset, uint64_t len) {
  const uint64_t page = PageSize();
  const uint64_t from = offset & ~(page - 1);
  const uint64_t to = (offset + len + page - 1) & ~(page - 1);
  if (msync(base_ + from, to - from, MS_SYNC) != 0) return -errno;
  if (const int e = posix_madvise(base_ + from, to - from, POSIX_MADV_DONTNEED); e != 0) return -e;
  return 0;
}

int64_t InlineIo::mmap_copy(uint64_t offset, const IoVec& qiov, bool to_iov) {
  const uint64_t len = qiov.size();
  if (offset > o_.length || len > o_.length - offset) return -EINVAL;
  if (const int e = map(); e < 0) return e;
  if (len == 0) return 0;
  if (to_iov) qiov.copy_from(0, base_ + offset, len);
  else qiov.copy_to(0, base_ + offset, len);
  if (o_.drop_cache) {
    if (const int e = drop(offset, len); e < 0) return e;
  }
  return int64_t(len);
}

int64_t InlineIo::falloc(int mode, uint64_t offset, uint64_t len) {
  const int64_t r = NegErrno(fallocate(fd_, mode, off_t(offset), off_t(len)));
  return r < 0 ? r : int64_t(len);
}

int InlineIo::open_pipe() {
  if (pipe_[0] >= 0) return 0;
  return pipe2(pipe_, O_CLOEXEC) == 0 ? 0 : -errno;
}

int InlineIo::drop_pipe(int err) {
  for (int& fd : pipe_) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
  return err;
}

int64_t InlineIo::splice_read(uint64_t offset, const IoVec& qiov) {
  if (const int e = open_pipe(); e < 0) return e;
  const size_t len = qiov.size();
  loff_t off = loff_t(offset);
  size_t done = 0;
  while (done < len) {
    const size_t want = std::min(len - done, kSpliceChunk);
    const unsigned flags = len - done > kSpliceChunk ? SPLICE_F_MORE : 0;
    const ssize_t got = splice(fd_, &off, pipe_[1], nullptr, want, flags);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got < 0) return -errno;
    if (got == 0) break;  // the end of the file
    size_t left = size_t(got);
    while (left > 0) {
      const IoVec to = qiov.slice(done, left);
      const ssize_t n = vmsplice(pipe_[0], to.data(), size_t(to.count()), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return drop_pipe(n < 0 ? -errno : -EIO);
      done += size_t(n);
      left -= size_t(n);
    }
  }
  if (done < len) qiov.memset(done, 0, len - done);
  return int64_t(len);
}

int64_t InlineIo::splice_write(uint64_t offset, const IoVec& qiov) {
  if (const int e = open_pipe(); e < 0) return e;
  const size_t len = qiov.size();
  loff_t off = loff_t(offset);
  size_t done = 0;
  while (done < len) {
    // The pipe is empty here: a non-blocking vmsplice takes what fits.
    const IoVec from = qiov.slice(done, std::min(len - done, kSpliceChunk));
    const ssize_t put = vmsplice(pipe_[1], from.data(), size_t(from.count()), SPLICE_F_NONBLOCK);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) return -errno;
    size_t left = size_t(put);
    while (left > 0) {
      const ssize_t n = splice(pipe_[0], nullptr, fd_, &off, left, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return drop_pipe(n < 0 ? -errno : -EIO);
      left -= size_t(n);
    }
    done += size_t(put);
  }
  return int64_t(len);
}

int64_t InlineIo::move_extents(uint64_t offset, uint64_t len) {
  if (o_.inplace) {
    if (fallocate(donor_fd_, 0, off_t(offset), off_t(len)) != 0) return -errno;
  }
  Ext4MoveExtent me{};
  me.donor_fd = uint32_t(donor_fd_);
  me.orig_start = offset / donor_block_;
  me.donor_start = me.orig_start;
  me.len = (offset + len + donor_block_ - 1) / donor_block_ - me.orig_start;
  int64_t r = ioctl(fd_, kExt4IocMoveExt, &me) != 0 ? -errno : 0;
  moved_ += me.moved_len;
  // As fio's: nothing moved (past the file's end) is EINVAL; part of it,
  // the rest unmoved (fio's residual).
  if (r == 0) r = me.moved_len == 0 ? -EINVAL : int64_t(std::min(len, me.moved_len * donor_block_));
  if (o_.inplace && ftruncate(donor_fd_, 0) != 0 && r >= 0) r = -errno;
  return r;
}

int64_t InlineIo::read(uint64_t offset, const IoVec& qiov) {
  calls_++;
  switch (o_.kind) {
    case Kind::kMmap:
      return mmap_copy(offset, qiov, /*to_iov=*/true);
    case Kind::kFalloc:
      return falloc(FALLOC_FL_KEEP_SIZE, offset, qiov.size());
    case Kind::kFtruncate:
      return -EINVAL;  // fio's ftruncate engine has only writes
    case Kind::kSplice:
      return splice_read(offset, qiov);
    case Kind::kE4defrag:
      return -EINVAL;  // fio's e4defrag engine has only writes
  }
  return -EINVAL;
}

int64_t InlineIo::write(uint64_t offset, const IoVec& qiov) {
  calls_++;
  switch (o_.kind) {
    case Kind::kMmap:
      if (!o_.writable) return -EBADF;
      return mmap_copy(offset, qiov, /*to_iov=*/false);
    case Kind::kFalloc:
      return falloc(0, offset, qiov.size());
    case Kind::kFtruncate: {
      int64_t r;
      do {
        r = NegErrno(ftruncate(fd_, off_t(offset)));
      } while (r == -EINTR);
      return r < 0 ? r : int64_t(qiov.size());
    }
    case Kind::kSplice:
      return splice_write(offset, qiov);
    case Kind::kE4defrag:
      return move_extents(offset, qiov.size());
  }
  return -EINVAL;
}

int InlineIo::flush() {
  calls_++;
  if (o_.kind == Kind::kMmap && base_) return msync(base_, o_.length, MS_SYNC) != 0 ? -errno : 0;
  return fdatasync(fd_) != 0 ? -errno : 0;
}

void InlineIo::counters(std::vector<DriverCounter>* out) const {
  const std::string n = name();
  out->push_back({n + "_requests", calls_});
  if (o_.kind == Kind::kMmap) out->push_back({"mmap_mappings", maps_});
  if (o_.kind == Kind::kE4defrag) out->push_back({"e4defrag_blocks_moved", moved_});
}

}  // namespace blk
