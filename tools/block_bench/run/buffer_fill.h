// What a job writes: fio's buffer-content options.
//
//   buffer_pattern=       the written data is the pattern, repeated
//   zero_buffers          zeros
//   (neither)             random bytes (fio's default)
//   buffer_compress_percentage=P, buffer_compress_chunk=C
//                         each C-byte chunk (0: the whole block) is random
//                         for its first (100-P)% and then the fixed data
//                         (the pattern, or zeros), so it compresses to
//                         about (100-P)%
//   dedupe_percentage=D   D% of the writes repeat earlier contents: the
//                         last unique write's (dedupe_mode=repeat), or one
//                         of the working set's (working_set, dedupe_global:
//                         run/dedupe.h decides each write's seed)
//   refill_buffers        new contents for every write (implied by
//                         buffer_compress_percentage and dedupe_percentage);
//                         otherwise each buffer is filled once
//   scramble_buffers      (fio's default) without refilling, every write
//                         stamps its offset and issue time into each
//                         512-byte block, so no two writes are identical to
//                         naive dedupe; not with zero_buffers or a pattern,
//                         whose contents must stay as asked
// Verify jobs write verify blocks instead (run/verify.h).
//
// Thread-safety: a BufferFiller belongs to one clone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/dedupe.h"
#include "tools/block_bench/run/rng.h"
#include <blkstack/util/result.h>

namespace blk::bench {

// fio's limit on a pattern's bytes (MAX_PATTERN_SIZE, 128 MiB).
inline constexpr uint64_t kMaxPatternBytes = uint64_t(128) << 20;

// The bytes of a parsed buffer_pattern (or verify_pattern, `option`), its
// 'file' pieces read now and %o pieces 8 zero bytes whose positions go to
// `offsets`.  Error (naming the option and file) when one cannot be read,
// is a device (refused without reading: util/input_file.h) or takes the
// pattern past kMaxPatternBytes.
Expected<std::string> ResolvePattern(const std::vector<PatternPiece>& pieces,
                                     std::string_view option = "buffer_pattern",
                                     std::vector<uint32_t>* offsets = nullptr);

class BufferFiller {
 public:
  // `pattern`: ResolvePattern's bytes (empty: zeros as the fixed data).
  // `world`: the run's clones, for dedupe_global (DedupeSeeds::World).
  BufferFiller(const JobOptions& job, std::string pattern, uint64_t seed,
               DedupeWorld world = {});

  // The contents of a buffer for a new write (or a buffer's first fill).
  void fill(uint8_t* buf, size_t len);
  // Bytes [from, to) of a buffer filled once (!refill()), laid out as
  // fill(buf, to) lays them out: the pattern's phase and the compression
  // chunks count from buf[0]; random bytes are a new draw.  A buffer can so
  // be filled in pieces (SlotPool: on first use, stopping early).
  void fill_part(uint8_t* buf, size_t from, size_t to);
  // Whether every write gets new contents (fill), or a stamp (scramble).
  bool refill() const { return refill_; }
  bool scramble() const { return scramble_; }
  // fio's scramble: into each whole 512-byte block, the block's offset at
  // one of its 8 cache lines (picked by time and offset) and the time at
  // the end of the first.
  static void Scramble(uint8_t* buf, size_t len, uint64_t offset, int64_t now_ns);

 private:
  void fill_fixed(uint8_t* p, size_t len, size_t phase) const;
  std::string pattern_;
  bool zero_;
  uint32_t compress_ = 0;  // percent, 0: no compression target
  bool compressing_ = false;
  size_t chunk_;
  uint32_t dedupe_;
  bool refill_;
  bool scramble_;
  Rng rng_;
  std::optional<DedupeSeeds> dedupe_seeds_;  // with dedupe_percentage
};

}  // namespace blk::bench
