// fio's --debug lines (jobfile/debug_mask.h): "CATEGORY TID  text", one
// line per call, in fio's layout ("%-8s %-5d ", then the text), on the
// run's output stream.
//
// What block-bench prints per category:
//   parse    each option of each job as parsed: handle_option=NAME, ptr=VALUE
//   file     each file set up, opened and closed
//   io       each I/O as queued: "queue: io_u: off=0x..,len=0x..,ddir=D,file=F"
//   random   each clone's seed, and where it comes from (randseed=,
//            randrepeat's fixed seed, or the system's RNG)
//   job      each clone's start and end
//   process  each clone's thread
// The other categories are accepted and print nothing.
//
// Thread-safety: const methods may be called from any thread (a line is
// one fprintf: stdio locks the stream).  The FILE must outlive the log.
#pragma once

#include <cstdint>
#include <cstdio>

#include "tools/block_bench/jobfile/debug_mask.h"

namespace blk::bench {

class DebugLog {
 public:
  // `out`: where the lines go (may be null: none); `mask`: DebugMask::mask.
  DebugLog(FILE* out, uint32_t mask) : out_(out), mask_(out ? mask : 0) {}

  bool on(DebugCategory c) const { return (mask_ & Bit(c)) != 0; }

  // One line in category `c`, printf-style, without the '\n'.
  void print(DebugCategory c, const char* fmt, ...) const __attribute__((format(printf, 3, 4)));

 private:
  FILE* out_;
  uint32_t mask_;
};

}  // namespace blk::bench
