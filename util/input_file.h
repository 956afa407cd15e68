// Reading a whole input file (a job file, a trace, a result document, a
// log) into memory at a bounded cost.
//
// Every tool input goes through ReadInputFile / ReadInputFd, which promise:
//  * a bound on memory: at most `max_bytes` are read.  A regular file
//    larger than that is refused before anything is read; a pipe (or
//    standard input) is read until the bound is passed, then refused;
//  * no endless source: a path naming a character or block device, a
//    socket or a directory is refused at once (`/dev/zero` as a job file or
//    a trace), without reading from it;
//  * a bound on time when asked to stop: `interrupted` is polled before
//    every read of a regular file (1 MiB at a time) and at least every
//    100 ms while a pipe has nothing to read, so a stop request is answered
//    within that much;
//  * errors for people: a negative errno (-EFBIG over the bound, -EINVAL a
//    source that is not a file or pipe, -EINTR interrupted, else the
//    errno of open/read) and a message naming the file ("PATH: ..."), the
//    bound and, when over it, how to raise it (`how_to_raise`); -EISDIR
//    for a directory.
//
// A path is opened without blocking (a FIFO with no writer yet does not
// hang the open; the reader waits for one within the interruption rule).
//
// Thread-safety: no shared state; `interrupted` is called on the calling
// thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <blkstack/util/result.h>

namespace blk {

struct InputLimit {
  // The most bytes read (0: only an empty input is accepted).
  uint64_t max_bytes = uint64_t(64) << 20;
  // What the input is, for messages: "a job file", "a trace", ...
  std::string_view what = "an input file";
  // How to raise the bound, appended to the message when the input is over
  // it ("raise it with trace_max_size="); empty: the bound is fixed.
  std::string_view how_to_raise;
  // Polled while reading; true ends the read with -EINTR.  Empty: never.
  std::function<bool()> interrupted;
};

// Reads all of the file at `path`.  Sources allowed: a regular file, a FIFO
// (named pipe, also /dev/fd/N of a pipe).  See the header comment for the
// rest of the contract.
Expected<std::string> ReadInputFile(const std::string& path, const InputLimit& limit);

// Reads `fd` to its end (the caller keeps and closes it).  `name` is used
// in messages ("-" for standard input).  Sources allowed: a regular file, a
// pipe or FIFO, a socket or a terminal (what standard input can be); any
// other device is refused.  The fd's flags are not changed.
Expected<std::string> ReadInputFd(int fd, const std::string& name, const InputLimit& limit);

// "64 MiB", "4 GiB", "1000 bytes": a limit as messages and docs state it.
std::string FormatLimit(uint64_t bytes);

}  // namespace blk
