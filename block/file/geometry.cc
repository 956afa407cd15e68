#include <blkstack/block/file/geometry.h>

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <blkstack/util/aligned_buffer.h>
#include <blkstack/util/quote.h>

namespace blk {
namespace {

constexpr uint32_t kMaxAlign = 4096;
constexpr uint32_t kProbeAligns[] = {1, 512, 1024, 2048, 4096};

bool IsPow2(uint64_t v) { return v && !(v & (v - 1)); }

// statx(STATX_DIOALIGN); false when the kernel or filesystem does not say.
bool StatxDioAlign(int fd, uint32_t* req, uint32_t* mem) {
  struct statx sx = {};
  if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) < 0) return false;
  if (!(sx.stx_mask & STATX_DIOALIGN)) return false;
  if (!IsPow2(sx.stx_dio_offset_align) || !IsPow2(sx.stx_dio_mem_align)) return false;
  *req = sx.stx_dio_offset_align;
  *mem = sx.stx_dio_mem_align;
  return true;
}

// QEMU's raw_probe_alignment: the smallest read size, then the smallest
// buffer alignment, that O_DIRECT accepts.  0 when nothing worked.
void ProbeByReading(int fd, uint32_t* req, uint32_t* mem) {
  AlignedBuffer buf(2 * kMaxAlign, kMaxAlign);
  if (!buf.ok()) return;
  if (!*req) {
    for (uint32_t a : kProbeAligns) {
      if (pread(fd, buf.data(), a, 0) >= 0) {
        *req = a;
        break;
      }
    }
  }
  if (!*mem) {
    for (uint32_t a : kProbeAligns) {
      if (pread(fd, buf.data() + a, kMaxAlign, 0) >= 0) {
        *mem = a;
        break;
      }
    }
  }
}

}  // namespace

int64_t FileLength(int fd, bool block_device) {
  if (block_device) {
    uint64_t bytes = 0;
    if (ioctl(fd, BLKGETSIZE64, &bytes) < 0) return -errno;
    return int64_t(bytes);
  }
  struct stat st;
  if (fstat(fd, &st) < 0) return -errno;
  return st.st_size;
}

Expected<FileGeometry> ProbeGeometry(int fd, const std::string& path, bool direct,
                                     uint64_t char_size) {
  struct stat st;
  if (fstat(fd, &st) < 0) {
    return MakeError(-errno, "fstat " + QuoteName(path) + ": " + ErrnoString(-errno));
  }
  FileGeometry g;
  if (S_ISCHR(st.st_mode)) {
    // fio's FIO_TYPE_CHAR: the job's size is the device's.
    if (!char_size) {
      return MakeError(-EINVAL, QuoteName(path) +
                                    " is a character device, which has no length: give it "
                                    "with size=");
    }
    g.char_device = true;
    g.length = char_size;
    g.alignment_source = "character device";
    return g;
  }
  if (char_size) {
    return MakeError(-EINVAL, "size= is only for a character device; " + QuoteName(path) +
                                  " has a length of its own");
  }
  if (S_ISBLK(st.st_mode)) {
    g.block_device = true;
  } else if (S_ISDIR(st.st_mode)) {
    return MakeError(-EISDIR, QuoteName(path) + " is a directory, not a file or block device");
  } else if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode)  ? "a FIFO"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a special file";
    return MakeError(-EINVAL, QuoteName(path) + " is " + kind +
                                  ": neither a regular file, a block device nor a character "
                                  "device");
  }
  int64_t len = FileLength(fd, g.block_device);
  if (len < 0) {
    return MakeError(int(len),
                     "cannot get the size of " + QuoteName(path) + ": " + ErrnoString(int(len)));
  }
  g.length = uint64_t(len);
  if (!direct) {
    g.alignment_source = "buffered";
    return g;
  }

  uint32_t req = 0, mem = 0;
  if (StatxDioAlign(fd, &req, &mem)) {
    g.alignment_source = "statx";
  } else {
    if (g.block_device) {
      int sector = 0;
      if (ioctl(fd, BLKSSZGET, &sector) == 0 && IsPow2(uint32_t(sector))) req = uint32_t(sector);
    }
    if (!g.block_device && g.length < kMaxAlign) {
      req = req ? req : kMaxAlign;
      mem = kMaxAlign;
      g.alignment_source = "default";
    } else {
      ProbeByReading(fd, &req, &mem);
      g.alignment_source = g.block_device ? "ioctl+probe" : "probe";
    }
    if (!req) req = kMaxAlign;
    if (!mem) mem = kMaxAlign;
  }
  g.request_alignment = req;
  g.memory_alignment = mem;
  return g;
}

}  // namespace blk
