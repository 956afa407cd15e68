// File calls: the system calls fio makes on a job's file outside its I/O —
// write_hint's fcntl(2) and sync_file_range(2) — on a descriptor of their own.
//
// The file driver owns the descriptor the I/O goes through and the graph
// does not hand it out.  Both calls act on what every descriptor of the
// file shares: F_SET_RW_HINT sets the inode's write life time and
// sync_file_range(2) writes out the file's page cache, so a second
// descriptor (SideFd, opened read-only: neither call needs write access)
// does what fio's call on its own descriptor does.  The exception is
// F_SET_FILE_RW_HINT (fio's call for direct=1), which would set the hint
// of the open file description only; Linux 5.17 removed it (EINVAL), as
// fio's own direct=1 write_hint job fails on this machine's 6.x kernel.
//
// Errors are negative errno.  Thread-safety: none needed (plain calls).
#pragma once

#include <cstdint>
#include <string>

#include "tools/block_bench/jobfile/job.h"

namespace blk::bench {

// A descriptor of a file or block device, closed with the object.
class SideFd {
 public:
  SideFd() = default;
  ~SideFd();
  SideFd(SideFd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  SideFd& operator=(SideFd&& o) noexcept;
  SideFd(const SideFd&) = delete;
  SideFd& operator=(const SideFd&) = delete;
  // Opens `path` read-only.  0 or negative errno.
  int open(const std::string& path);
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// The fcntl(2) command fio 3.33 uses for write_hint: F_SET_FILE_RW_HINT for
// a direct=1 job (the open file's hint), F_SET_RW_HINT otherwise (the
// inode's).
int WriteHintCommand(bool direct);

// fcntl(fd, WriteHintCommand(direct), &hint) with hint the
// RWH_WRITE_LIFE_* value of `h`.  REQUIRES: h != kNotSet.  0 or -errno.
int SetWriteHint(int fd, JobOptions::WriteHint h, bool direct);

}  // namespace blk::bench
