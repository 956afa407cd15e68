// Geometry of an open file or block device: length, O_DIRECT alignment and
// transfer limits, found once at open time.
//
// Alignment (only when opened with O_DIRECT; otherwise 1/1):
//   1. statx(STATX_DIOALIGN) (Linux 6.1+ for files, 6.11+ for devices);
//   2. block devices: BLKSSZGET (logical sector) for the request alignment;
//   3. probing reads as QEMU's raw_probe_alignment: O_DIRECT reads of
//      1, 512, 1024, 2048, 4096 bytes at offset 0, then reads at buffers of
//      those alignments.  Probing needs data to read: a file shorter than
//      4096 bytes answers every probe at EOF, so such files get 4096/4096
//      (always correct, perhaps more padding than needed).
//
// Thread-safety: plain functions; each call touches only the given fd.
#pragma once

#include <cstdint>
#include <string>

#include <blkstack/util/result.h>

namespace blk {

struct FileGeometry {
  bool block_device = false;
  // A character device (/dev/null, /dev/zero, /dev/full): its length is the
  // one the spec gave (it has none of its own), alignment 1/1.
  bool char_device = false;
  uint64_t length = 0;
  uint32_t request_alignment = 1;
  uint32_t memory_alignment = 1;
  // The most bytes one request may carry: the kernel's own cap on a single
  // read or write (MAX_RW_COUNT, INT_MAX rounded down to a page).  Not the
  // device's max_sectors_kb: for O_DIRECT the kernel splits bios at the
  // device's limits itself (a bio-based device such as zram takes them
  // whole), so splitting here would only turn one request into several, as
  // fio never does.  A larger pread/pwrite would come back short.
  static constexpr uint64_t kMaxRwCount = 0x7ffff000;
  uint64_t max_transfer = kMaxRwCount;
  std::string alignment_source;  // "statx", "ioctl", "probe", "default", "buffered"
};

// Fills a FileGeometry for `fd` (open on `path`, which names it in errors).
// `char_size`: the length to give a character device (0: none given).
// Fails if fd is a character device without `char_size`, is something else
// that is neither a regular file nor a block device, has a `char_size`
// without being a character device, or fstat / BLKGETSIZE64 fail.
Expected<FileGeometry> ProbeGeometry(int fd, const std::string& path, bool direct,
                                     uint64_t char_size = 0);

// Current length of `fd` (st_size, or BLKGETSIZE64 for a device); negative
// errno on failure.
int64_t FileLength(int fd, bool block_device);

}  // namespace blk
