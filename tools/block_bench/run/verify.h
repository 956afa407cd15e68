// Verified writes in fio 3.33's on-disk format, so that fio verifies what
// block-bench wrote and block-bench verifies what fio wrote (one format:
// block-bench's own "BBV*" headers are gone).
//
// A verified chunk (a block, or one verify_interval of it) starts with
// fio's 40-byte struct verify_header, little-endian:
//   0  u16 magic 0xacca          2  u16 verify_type (fio's enum, below)
//   4  u32 len (the chunk's)     8  u64 rand_seed
//  16  u64 offset (the chunk's file offset)
//  24  u32 time_sec  28 u32 time_nsec (block-bench writes 0: fio never checks them)
//  32  u16 thread    34 u16 numberio  36 u32 crc32c of bytes [0, 36)
// then the method's checksum field, then data up to the chunk's end.  The
// checksum covers the data after the field, to the end of the chunk.
//
//   method      type  field  checksum, as fio 3.33 computes it
//   meta          1     0    none: fio's VERIFY_HDR_ONLY, the header alone
//   md5           2    16    MD5 (OpenSSL)
//   crc64         3     8    CRC-64/Jones, reflected, init 0, no final xor
//                            (= ~ISA-L crc64_jones_refl(~0)); not ECMA
//   crc32         4     4    CRC-32 MSB-first (poly 0x04c11db7), init 0, no
//                            final xor (= ~ISA-L crc32_ieee(~0))
//   crc32c        5     4    CRC-32C, init ~0, no final xor (ISA-L
//                            crc32_iscsi(~0)); crc32c-intel is the same
//   crc16         7     2    CRC-16 reflected (poly 0xa001), init 0: no
//                            library has it, a table built from the poly
//   crc7          8     1    CRC-7 MSB-first (poly 0x09), init 0: likewise
//   sha256        9    64    fio's own SHA-256: the compression of SHA-256
//                            (OpenSSL's), but the bit length appended
//                            little-endian; the field is fio's work
//                            buffer after its final: the last padded
//                            block with its first 8 bytes replaced by the
//                            low byte of each state word
//   sha512       10   128    fio 3.33 never finishes its SHA-512: the
//                            field is its work buffer after the updates,
//                            the data's last (n % 128) bytes then data
//                            bytes [n % 128, 128).  Only those bytes are
//                            covered (as fio: a change elsewhere passes)
//   sha3-*    11-14 28/32/48/64  SHA3 (OpenSSL)
//   xxhash       15     4    XXH32 with seed 1 (libxxhash)
//   sha1         16    20    SHA-1 (OpenSSL), each 32-bit word stored
//                            little-endian
//   pattern_hdr  17     0    fio's VERIFY_PATTERN (verify_pattern= with no
//                            verify=): the header, then the pattern checked
//   pattern      18     -    no header: the block is verify_pattern
//   null         19     -    no header, nothing checked (fio's "pretend")
//
// Data: verify_pattern's bytes, else fio's __fill_random_buf from rand_seed
// (4 seed buckets, the golden-ratio hash), over the whole block before the
// headers are written: byte for byte what fio writes with that seed.
// block-bench's own checks ride in fio's fields: rand_seed is the block's
// generation (the writing clone's, per write; a read whose writer is known
// expects it: a stale block), thread the writing clone (16 bits), numberio
// its write count (16 bits).  fio reading with rw=read/verify_only takes
// rand_seed from the header and does not check numberio, so it accepts them.
//
// A read checks, per chunk, as fio: magic, length, rand_seed (when the
// generation is known), offset, the header's crc32c, the method in the
// header against the job's, then the method's checksum; with a pattern,
// the pattern after the header too.
//
// fio's options on top of a method (VerifyLayout):
//   verify_pattern  the data is the pattern (repeated from the block's first
//                   byte, the headers written over it); %o pieces hold the
//                   block's offset, 8 bytes little-endian, pasted into the
//                   pattern's first copy only (fio's paste).
//   verify_interval a header per `interval` bytes of the block.
//   verify_offset   each chunk's header swapped with the bytes at this
//                   offset of the chunk (fio's memswp), and back to check.
//
// Thread-safety: pure functions over caller buffers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/block_bench/jobfile/job.h"

namespace blk::bench {

inline constexpr uint16_t kFioVerifyMagic = 0xacca;  // fio's FIO_HDR_MAGIC
inline constexpr uint64_t kFioHeaderSize = 40;       // sizeof(struct verify_header)

// fio 3.33's verify_type for `method` (the table above; 0 for kNone).
uint16_t FioVerifyType(VerifyMethod method);
// The method's checksum field after the 40-byte header (0 for none).
uint64_t VerifyChecksumSize(VerifyMethod method);
// The header's size for `method`: the smallest chunk it can verify (0 for
// kPattern, kNull and kNone, which write none).
uint64_t VerifyHeaderSize(VerifyMethod method);

// CRC-32C (ISA-L's crc32_iscsi): `init` in, no inversion either side.
uint32_t Crc32c(const void* data, uint64_t len, uint32_t init = 0);

// The checksum field fio 3.33 writes for `method` over data[0, len) into
// out[0, VerifyChecksumSize(method)).  REQUIRES: a checksumming method;
// for kSha512, out holds the bytes already in the field (fio's leftover
// when len < 128).  False only if OpenSSL fails (out of memory).
bool FioChecksum(VerifyMethod method, const uint8_t* data, uint64_t len, uint8_t* out);

// fio's __fill_random_buf: buf[0, len) from `seed`.
void FioRandomFill(uint8_t* buf, uint64_t len, uint64_t seed);

// How a job's blocks are written and checked.
struct VerifyLayout {
  VerifyMethod method = VerifyMethod::kCrc32c;
  // verify_pattern's bytes (run/buffer_fill.h's ResolvePattern); empty:
  // fio's random data.  REQUIRED for kPattern and kPatternHdr.
  std::string pattern;
  // Where %o pieces sit in `pattern`: 8 bytes each (cut at its end).
  std::vector<uint32_t> pattern_offsets;
  // A header per this many bytes; 0 (or >= the block): one per block.
  // REQUIRES: 0 or >= header_offset + VerifyHeaderSize(method).
  uint64_t interval = 0;
  // verify_offset: where in each chunk the header sits.
  uint64_t header_offset = 0;
  // The writer (fio's thread_number), written into each header and
  // expected back with a known generation.
  uint16_t thread = 0;
};

// Fills buf[0, len) as block-bench writes the block at file offset
// `offset` with generation `gen` (rand_seed) and write count `numberio`.
// REQUIRES: len >= header_offset + VerifyHeaderSize(method), method is not
// kNone.
void FillVerifyBlock(uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen,
                     const VerifyLayout& layout, uint16_t numberio = 0);
inline void FillVerifyBlock(uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen,
                            VerifyMethod method = VerifyMethod::kCrc32c) {
  VerifyLayout l;
  l.method = method;
  FillVerifyBlock(buf, len, offset, gen, l);
}

// Checks buf[0, len) read at file offset `offset`.  `gen` is the expected
// generation (rand_seed) or 0 when unknown (a read-only or verify_only
// job, as fio).  Returns "" when good, else what is wrong; with several
// intervals, which one ("interval at offset N: ..."), and a pattern
// mismatch names the first differing byte's offset.  When bad and given,
// *bad_at and *bad_len say which chunk (its start in the block, length).
std::string CheckVerifyBlock(const uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen,
                             const VerifyLayout& layout, uint64_t* bad_at = nullptr,
                             uint64_t* bad_len = nullptr);

// What a block read at `offset` should hold, rebuilt as fio's verify_dump
// rebuilds it: from the first header's rand_seed, numberio and thread (the
// pattern, for kPattern), the time fields taken from each read header.
// Empty for kNull and kNone (nothing to rebuild).
std::vector<uint8_t> ExpectedVerifyBlock(const uint8_t* read, uint64_t len, uint64_t offset,
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
