// Verified writes: every written block carries a header that names it and a
// checksum of the whole block, followed by pseudo-random data derived from
// offset and generation.  A read checks magic, offset, length and checksum,
// and the generation when the writer is known, so a torn, stale or
// misplaced block is caught.
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
//
// Thread-safety: pure functions over caller buffers.
#pragma once

#include <cstdint>
#include <string>

#include "tools/block_bench/job.h"

namespace blk::bench {

inline constexpr uint32_t kVerifyMagic = 0x31564242;    // "BBV1"
inline constexpr uint32_t kVerifyMagicV2 = 0x32564242;  // "BBV2"

// The header's size for `method`: the smallest block it can verify.
uint64_t VerifyHeaderSize(VerifyMethod method);

uint32_t Crc32c(const void* data, uint64_t len, uint32_t init = 0);

// Fills buf[0, len) as block-bench writes the block at `offset` with
// generation `gen`.  REQUIRES: len >= VerifyHeaderSize(method), method is
// not kNone.
void FillVerifyBlock(uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen,
                     VerifyMethod method = VerifyMethod::kCrc32c);

// Checks buf[0, len) read at `offset`.  `gen` is the expected generation or
// 0 when unknown.  Returns "" when good, else what is wrong.
std::string CheckVerifyBlock(const uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen,
                             VerifyMethod method = VerifyMethod::kCrc32c);

}  // namespace blk::bench
