// Verified writes: every written block carries a header that names it and a
// checksum of the whole block, followed by pseudo-random data derived from
// offset and generation (or by fio's verify_pattern).  A read checks magic,
// offset, length and checksum, and the generation when the writer is known,
// so a torn, stale or misplaced block is caught.
//
//   verify=crc32c   "BBV1", 32-byte header: magic, length, offset,
//                   generation (the writing clone's seed and a per-offset
//                   counter), CRC32C (ISA-L's crc32_iscsi) of the block with
//                   the crc field zero.
//   verify=crc32, md5, sha1, sha256, sha512, xxhash
//                   "BBV2", 96-byte header: magic, length, offset,
//                   generation, the method, the digest length, then the
//                   digest (up to 64 bytes) of the block with the digest
//                   field zero.  crc32: ISA-L's crc32_gzip_refl (zlib's
//                   CRC-32); md5, sha*: OpenSSL's EVP digests; xxhash:
//                   XXH32 (libxxhash), as fio's "xxhash".
//   verify=pattern  no header: the block is verify_pattern repeated, as
//                   fio's (byte for byte), and only the pattern is checked.
//   verify=meta     fio 3.33's header-only verification (its "meta" reads
//                   as VERIFY_HDR_ONLY): "BBVM", 32-byte header: magic,
//                   length, offset, generation, the writing clone (job index
//                   << 16 | clone), CRC32C of the header alone.  The data is
//                   not checksummed (with verify_pattern, the pattern is
//                   checked, as fio).  A read checks magic, header CRC,
//                   offset and length, and with a known generation the
//                   generation and the writer.
//
// fio's options on top of a method (VerifyLayout):
//   verify_pattern  the data after the header is the pattern (repeated from
//                   the block's first byte, the header written over its
//                   start), checked besides the checksum.  %o pieces hold
//                   the block's offset, 8 bytes little-endian, pasted into
//                   the pattern's first copy only (fio's paste).
//   verify_interval a header per `interval` bytes of the block, naming the
//                   interval's offset and length and checksumming only it;
//                   a block is checked interval by interval.  The last
//                   interval takes the rest of a block that is not a
//                   multiple.
//   verify_offset   each interval's header swapped with the data at this
//                   offset of the interval (fio's swap), and back to check.
//
// Thread-safety: pure functions over caller buffers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/block_bench/jobfile/job.h"

namespace blk::bench {

inline constexpr uint32_t kVerifyMagic = 0x31564242;    // "BBV1"
inline constexpr uint32_t kVerifyMagicV2 = 0x32564242;  // "BBV2"
inline constexpr uint32_t kVerifyMagicMeta = 0x4d564242;  // "BBVM"

// The header's size for `method`: the smallest block it can verify (0 for
// kPattern, which has none).
uint64_t VerifyHeaderSize(VerifyMethod method);

uint32_t Crc32c(const void* data, uint64_t len, uint32_t init = 0);

// How a job's blocks are written and checked.
struct VerifyLayout {
  VerifyMethod method = VerifyMethod::kCrc32c;
  // verify_pattern's bytes (run/buffer_fill.h's ResolvePattern); empty:
  // pseudo-random data.  REQUIRED for kPattern.
  std::string pattern;
  // Where %o pieces sit in `pattern`: 8 bytes each (cut at its end).
  std::vector<uint32_t> pattern_offsets;
  // A header per this many bytes; 0 (or >= the block): one per block.
  // REQUIRES: 0 or >= header_offset + VerifyHeaderSize(method).
  uint64_t interval = 0;
  // verify_offset: where in each interval the header sits.
  uint64_t header_offset = 0;
  // kMeta: the writer written into each header and expected back with a
  // known generation (the clone's job index << 16 | clone).
  uint32_t thread = 0;
};

// Fills buf[0, len) as block-bench writes the block at `offset` with
// generation `gen`.  REQUIRES: len >= header_offset +
// VerifyHeaderSize(method), method is not kNone.
void FillVerifyBlock(uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen,
                     const VerifyLayout& layout);
inline void FillVerifyBlock(uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen,
                            VerifyMethod method = VerifyMethod::kCrc32c) {
  VerifyLayout l;
  l.method = method;
  FillVerifyBlock(buf, len, offset, gen, l);
}

// Checks buf[0, len) read at `offset`.  `gen` is the expected generation or
// 0 when unknown (kPattern has none to check).  Returns "" when good, else
// what is wrong; with several intervals, which one ("interval at offset
// N: ..."), and a pattern mismatch names the first differing byte's offset.
std::string CheckVerifyBlock(const uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen,
                             const VerifyLayout& layout);
inline std::string CheckVerifyBlock(const uint8_t* buf, uint64_t len, uint64_t offset,
                                    uint64_t gen, VerifyMethod method = VerifyMethod::kCrc32c) {
  VerifyLayout l;
  l.method = method;
  return CheckVerifyBlock(buf, len, offset, gen, l);
}

// buf[0, len) filled with `pattern` repeated from buf[0], the block's
// `offset` pasted at `offsets` in the first copy (fio's verify_pattern fill).
void FillPattern(uint8_t* buf, uint64_t len, uint64_t offset, const std::string& pattern,
                 const std::vector<uint32_t>& offsets);

}  // namespace blk::bench
