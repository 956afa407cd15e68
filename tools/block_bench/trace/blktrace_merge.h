// fio's blktrace merge (merge_blktrace_file=, merge_blktrace_scalars=,
// merge_blktrace_iters=, --merge-blktrace-only): several blktrace files
// become one stream ordered by time, which is then replayed as one trace.
//
//   * of each input only the queue (Q) events of a read, write or discard
//     are kept (fio's rule: `action & 0xffff` is __BLK_TA_QUEUE and the
//     category has TC_READ, TC_WRITE or TC_DISCARD);
//   * input k's times become (time + pass * length) * scalar_k / 100, where
//     pass counts its iterations from 0 and length is the time of the
//     input's last record (its span), so pass 1 starts where pass 0 ended;
//   * the output is the kept 48-byte records in this machine's byte order,
//     each with pdu_len 0, in time order; equal times go to the input
//     first in fio's cursor order (a finished input's place is taken by the
//     last one still open);
//   * a time past 2^64 ns saturates at 2^64 - 1.
//
// fio 3.33 documents this merge but its implementation writes an empty
// file ("fio: iolog short read": its read of each record fills a pointer,
// 8 bytes, instead of the 48-byte record), so the meaning here is fio's
// documented one (HOWTO "I/O Replay - Merging Traces").
//
// Thread-safety: stateless functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <blkstack/util/result.h>

namespace blk::bench::trace {

struct MergeInput {
  std::string name;       // for messages
  std::string_view data;  // the whole blktrace file
  uint32_t scalar = 100;  // percent of its times
  uint32_t iters = 1;     // passes over it (>= 1)
};

struct MergeResult {
  std::string data;      // the merged blktrace
  uint64_t records = 0;  // in it
};

// Merges the inputs.  An input that is not a blktrace (bad magic on its
// first record), a truncated record or a payload past its end: -EINVAL
// naming the input, the record's index and byte offset.
Expected<MergeResult> MergeBlktraceData(const std::vector<MergeInput>& inputs);

// Reads `files` (each at most `max_bytes`, the trace_max_size bound),
// merges them with per-file `scalars` and `iters` (empty: 100 and 1; else
// one per file) and writes `out` (through a temporary file renamed over
// it, so a reader never sees a partial merge).  Returns the records
// written.
Expected<uint64_t> MergeBlktraceFiles(const std::vector<std::string>& files,
                                      const std::vector<uint32_t>& scalars,
                                      const std::vector<uint32_t>& iters, const std::string& out,
                                      uint64_t max_bytes);

}  // namespace blk::bench::trace
