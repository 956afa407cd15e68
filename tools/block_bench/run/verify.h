// verify=crc32c: every written I/O carries a 32-byte header
//   magic "BBV1", length, offset, generation (the writing clone's seed and a
//   per-offset counter), crc32c of the whole block with the crc field zero,
// followed by pseudo-random data derived from offset and generation.  A read
// checks magic, offset, length and crc, and the generation when the writer
// is known, so a torn, stale or misplaced block is caught.  CRC32C is ISA-L's
// crc32_iscsi.
//
// Thread-safety: pure functions over caller buffers.
#pragma once

#include <cstdint>
#include <string>

namespace blk::bench {

inline constexpr uint32_t kVerifyMagic = 0x31564242;  // "BBV1"
inline constexpr uint64_t kVerifyHeaderSize = 32;

uint32_t Crc32c(const void* data, uint64_t len, uint32_t init = 0);

// Fills buf[0, len) as block-bench writes the block at `offset` with
// generation `gen`.  REQUIRES: len >= kVerifyHeaderSize.
void FillVerifyBlock(uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen);

// Checks buf[0, len) read at `offset`.  `gen` is the expected generation or
// 0 when unknown.  Returns "" when good, else what is wrong.
std::string CheckVerifyBlock(const uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen);

}  // namespace blk::bench
