// WriteContent: what a write carries when verify does not decide it.
//
// verify_pattern without verify (written, unchecked: fio's), else the
// buffer options (run/buffer_fill.h): refill_buffers gives every write new
// contents, scramble_buffers stamps its offset and issue time into the
// buffer filled once; otherwise the buffer is written as it was filled.
// A verify job's writes are filled by VerifyTracker instead.
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <cstdint>

#include "tools/block_bench/run/buffer_fill.h"
#include "tools/block_bench/run/source.h"
#include "tools/block_bench/run/verify.h"

namespace blk::bench {

class WriteContent {
 public:
  WriteContent(BufferFiller& filler, const VerifyLayout& layout)
      : filler_(filler), layout_(layout) {}
  // Whether any write needs filling at issue (else the buffers stay as
  // filled once).
  bool per_write() const {
    return !layout_.pattern.empty() || filler_.refill() || filler_.scramble();
  }
  // Fills `buf` for the write `u` issued at `now`.
  void fill(uint8_t* buf, const IoUnit& u, int64_t now) {
    if (!layout_.pattern.empty()) {
      FillPattern(buf, u.len, u.offset, layout_.pattern, layout_.pattern_offsets);
    } else if (filler_.refill()) {
      filler_.fill(buf, u.len);
    } else if (filler_.scramble()) {
      BufferFiller::Scramble(buf, u.len, u.offset, now);
    }
  }

 private:
  BufferFiller& filler_;
  const VerifyLayout& layout_;
};

}  // namespace blk::bench
