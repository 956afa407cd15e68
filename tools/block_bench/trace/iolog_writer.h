// IologWriter: writes fio's iolog version 3 (what `fio --write_iolog` writes
// and `fio --read_iolog` reads): a header line, then one line per event,
// each starting with the microseconds since the job started:
//
//   fio version 3 iolog
//   12 /dev/vdb add
//   15 /dev/vdb open
//   40 /dev/vdb read 4096 4096
//   ...
//   9120 /dev/vdb close
//
// Flushes are written as "sync 0 0" (fio writes OFFSET LENGTH on every I/O
// line and its reader needs them), trims as "trim"; FUA is not expressible in
// the format and is dropped.  File names must not contain whitespace (the
// format splits on it): such characters are written as '_'; a JSON graph
// spec (block/options.h) is first written in its key=value form, so that
// read_iolog opens the same graph from it (run/trace_source.h).
//
// Errors: a failed open is returned by Open(); a failed write (ENOSPC, EIO)
// is remembered and returned by close(), which every caller must check.
//
// Thread-safety: one writer per job clone, used from one thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tools/block_bench/trace/trace.h"
#include <blkstack/util/result.h>

namespace blk::bench::trace {

class IologWriter {
 public:
  // Creates (truncates) `path` and writes the header.
  static Expected<IologWriter> Open(const std::string& path);
  IologWriter(IologWriter&& o) noexcept;
  IologWriter& operator=(IologWriter&&) = delete;
  IologWriter(const IologWriter&) = delete;
  ~IologWriter();  // closes the fd; data not yet flushed is lost: call close()

  // Names a file ("add" and "open" lines); returns its index for io().
  uint16_t add_file(int64_t t_us, std::string_view name);
  // One I/O of `file` (an index from add_file).
  void io(int64_t t_us, uint16_t file, Op op, uint64_t offset, uint64_t len);
  // "close" lines for every file, then flushes and closes; the first error
  // of any write, naming the path.
  Expected<void> close(int64_t t_us);

 private:
  explicit IologWriter(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  void flush_if(size_t threshold);

  int fd_ = -1;
  std::string path_;
  std::string buf_;
  std::vector<std::string> files_;
  int error_ = 0;
};

}  // namespace blk::bench::trace
