// Per-node I/O accounting: operations, bytes, errors and latency histograms
// per operation type.  Updated on the node's loop thread only; read it there
// too (or after the loop stopped).  Mergeable, for numjobs-style totals.
#pragma once

#include <cstdint>

#include <blkstack/util/histogram.h>

namespace blk {

enum class IoOp : int { kRead = 0, kWrite, kFlush, kDiscard, kWriteZeroes, kCount };

const char* IoOpName(IoOp op);

struct OpStats {
  uint64_t ops = 0;     // completed requests, successful or not
  uint64_t bytes = 0;   // bytes of successful requests
  uint64_t errors = 0;  // requests that completed with an error
  LatencyHistogram latency_ns;  // completion latency of every request

  void merge(const OpStats& o) {
    ops += o.ops;
    bytes += o.bytes;
    errors += o.errors;
    latency_ns.merge(o.latency_ns);
  }
};

struct NodeStats {
  OpStats op[int(IoOp::kCount)];
  uint64_t padded_requests = 0;  // requests bounced for alignment
  uint64_t split_requests = 0;   // requests split at max_transfer
  uint64_t fua_emulated = 0;     // FUA writes done as write + flush
  uint64_t zeroes_emulated = 0;  // write-zeroes done by writing buffers

  OpStats& operator[](IoOp o) { return op[int(o)]; }
  const OpStats& operator[](IoOp o) const { return op[int(o)]; }
  void merge(const NodeStats& o) {
    for (int i = 0; i < int(IoOp::kCount); i++) op[i].merge(o.op[i]);
    padded_requests += o.padded_requests;
    split_requests += o.split_requests;
    fua_emulated += o.fua_emulated;
    zeroes_emulated += o.zeroes_emulated;
  }
};

}  // namespace blk
