#include "tools/block_bench/run/verify.h"

#include <isa-l/crc.h>
#include <isa-l/crc64.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>

namespace blk::bench {
namespace {

// fio's struct verify_header (verify.h, 3.33), little-endian on disk.
struct FioHeader {
  uint16_t magic;
  uint16_t verify_type;
  uint32_t len;
  uint64_t rand_seed;
  uint64_t offset;
  uint32_t time_sec;
  uint32_t time_nsec;
  uint16_t thread;
  uint16_t numberio;
  uint32_t crc32;
};
static_assert(sizeof(FioHeader) == kFioHeaderSize);
constexpr uint64_t kHeaderCrcBytes = offsetof(FioHeader, crc32);

uint32_t HeaderCrc(const FioHeader& h) { return Crc32c(&h, kHeaderCrcBytes, ~0u); }

// CRC-16 (fio's crc/crc16.c: reflected 0xa001, init 0) and CRC-7 (crc7.c:
// MSB-first x^7 + x^3 + 1, init 0): no Debian library has either, so their
// byte tables are built here from the polynomial.
constexpr std::array<uint16_t, 256> kCrc16Table = [] {
  std::array<uint16_t, 256> t{};
  for (unsigned i = 0; i < 256; i++) {
    unsigned c = i;
    for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0xa001 : c >> 1;
    t[i] = uint16_t(c);
  }
  return t;
}();
// Indexed by (crc << 1) ^ byte, as the kernel's crc7_syndrome_table.
constexpr std::array<uint8_t, 256> kCrc7Table = [] {
  std::array<uint8_t, 256> t{};
  for (unsigned i = 0; i < 256; i++) {
    unsigned c = i;  // 8 message bits, MSB first, through a 7-bit register
    for (int k = 0; k < 8; k++) c = (c & 0x80) ? ((c << 1) ^ (0x09 << 1)) : c << 1;
    t[i] = uint8_t((c >> 1) & 0x7f);
  }
  return t;
}();

uint16_t Crc16(const uint8_t* p, uint64_t len) {
  uint16_t c = 0;
  for (uint64_t i = 0; i < len; i++) c = uint16_t((c >> 8) ^ kCrc16Table[(c ^ p[i]) & 0xff]);
  return c;
}

uint8_t Crc7(const uint8_t* p, uint64_t len) {
  uint8_t c = 0;
  for (uint64_t i = 0; i < len; i++) c = kCrc7Table[uint8_t(c << 1) ^ p[i]];
  return c;
}

const EVP_MD* EvpOf(VerifyMethod m) {
  switch (m) {
    case VerifyMethod::kMd5: return EVP_md5();
    case VerifyMethod::kSha1: return EVP_sha1();
    case VerifyMethod::kSha3_224: return EVP_sha3_224();
    case VerifyMethod::kSha3_256: return EVP_sha3_256();
    case VerifyMethod::kSha3_384: return EVP_sha3_384();
    case VerifyMethod::kSha3_512: return EVP_sha3_512();
    default: return nullptr;
  }
}

bool EvpDigest(const EVP_MD* md, const uint8_t* p, uint64_t len, uint8_t* out) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  unsigned n = 0;
  const bool ok = ctx && EVP_DigestInit_ex(ctx, md, nullptr) == 1 &&
                  EVP_DigestUpdate(ctx, p, size_t(len)) == 1 &&
                  EVP_DigestFinal_ex(ctx, out, &n) == 1;
  EVP_MD_CTX_free(ctx);
  return ok;
}

// fio's SHA-256 (crc/sha256.c): SHA-256's compression (OpenSSL's, through
// its low-level API: the only way to reach the state), the bit length
// appended little-endian, and the field left as fio's final leaves its
// buffer (see verify.h).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
bool FioSha256(const uint8_t* p, uint64_t len, uint8_t out[64]) {
  SHA256_CTX c;
  if (SHA256_Init(&c) != 1) return false;
  const uint64_t full = len & ~uint64_t(63);
  if (full && SHA256_Update(&c, p, size_t(full)) != 1) return false;
  // The tail, 0x80, zeros to 56 mod 64, the length: one or two blocks.
  uint8_t last[128] = {};
  const uint64_t tail = len - full;
  std::memcpy(last, p + full, size_t(tail));
  last[tail] = 0x80;
  const uint64_t blocks = tail < 56 ? 1 : 2;
  const uint64_t bits = len << 3;
  std::memcpy(last + blocks * 64 - 8, &bits, 8);
  if (SHA256_Update(&c, last, size_t(blocks * 64)) != 1) return false;
  std::memcpy(out, last + (blocks - 1) * 64, 64);
  for (int i = 0; i < 8; i++) out[i] = uint8_t(c.h[i]);
  return true;
}
#pragma GCC diagnostic pop

// fio 3.33's "SHA-512" field: its update's work buffer, never finished.
void FioSha512(const uint8_t* p, uint64_t len, uint8_t out[128]) {
  if (len < 128) {
    std::memcpy(out, p, size_t(len));  // the rest: what the field held
    return;
  }
  const uint64_t r = len % 128;
  std::memcpy(out + r, p + r, size_t(128 - r));
  std::memcpy(out, p + len - r, size_t(r));
}

std::string Hex(const uint8_t* p, size_t n) {
  static const char kHex[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n && i < 16; i++) {
    s += kHex[p[i] >> 4];
    s += kHex[p[i] & 15];
  }
  return n > 16 ? s + "..." : s;
}

bool HasHeader(VerifyMethod m) {
  return m != VerifyMethod::kNone && m != VerifyMethod::kPattern && m != VerifyMethod::kNull;
}

std::string TypeName(uint16_t type) {
  for (VerifyMethod m :
       {VerifyMethod::kMeta, VerifyMethod::kMd5, VerifyMethod::kCrc64, VerifyMethod::kCrc32,
        VerifyMethod::kCrc32c, VerifyMethod::kCrc16, VerifyMethod::kCrc7, VerifyMethod::kSha256,
        VerifyMethod::kSha512, VerifyMethod::kSha3_224, VerifyMethod::kSha3_256,
        VerifyMethod::kSha3_384, VerifyMethod::kSha3_512, VerifyMethod::kXxhash,
        VerifyMethod::kSha1, VerifyMethod::kPatternHdr}) {
    if (FioVerifyType(m) == type) return std::string(Name(m));
  }
  if (type == 6) return "crc32c-intel";
  return "unknown type " + std::to_string(type);
}

}  // namespace

uint16_t FioVerifyType(VerifyMethod method) {
  switch (method) {
    case VerifyMethod::kNone: return 0;
    case VerifyMethod::kMeta: return 1;
    case VerifyMethod::kMd5: return 2;
    case VerifyMethod::kCrc64: return 3;
    case VerifyMethod::kCrc32: return 4;
    case VerifyMethod::kCrc32c: return 5;
    case VerifyMethod::kCrc16: return 7;
    case VerifyMethod::kCrc7: return 8;
    case VerifyMethod::kSha256: return 9;
    case VerifyMethod::kSha512: return 10;
    case VerifyMethod::kSha3_224: return 11;
    case VerifyMethod::kSha3_256: return 12;
    case VerifyMethod::kSha3_384: return 13;
    case VerifyMethod::kSha3_512: return 14;
    case VerifyMethod::kXxhash: return 15;
    case VerifyMethod::kSha1: return 16;
    case VerifyMethod::kPatternHdr: return 17;
    case VerifyMethod::kPattern: return 18;
    case VerifyMethod::kNull: return 19;
  }
  return 0;
}

uint64_t VerifyChecksumSize(VerifyMethod method) {
  switch (method) {
    case VerifyMethod::kMd5: return 16;
    case VerifyMethod::kCrc64: return 8;
    case VerifyMethod::kCrc32:
    case VerifyMethod::kCrc32c:
    case VerifyMethod::kXxhash: return 4;
    case VerifyMethod::kCrc16: return 2;
    case VerifyMethod::kCrc7: return 1;
    case VerifyMethod::kSha256: return 64;
    case VerifyMethod::kSha512: return 128;
    case VerifyMethod::kSha3_224: return 28;
    case VerifyMethod::kSha3_256: return 32;
    case VerifyMethod::kSha3_384: return 48;
    case VerifyMethod::kSha3_512: return 64;
    case VerifyMethod::kSha1: return 20;
    default: return 0;
  }
}

uint64_t VerifyHeaderSize(VerifyMethod method) {
  return HasHeader(method) ? kFioHeaderSize + VerifyChecksumSize(method) : 0;
}

uint32_t Crc32c(const void* data, uint64_t len, uint32_t init) {
  // crc32_iscsi takes an int length: feed large buffers in pieces.
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint32_t c = init;
  while (len > 0) {
    int n = len > (1u << 30) ? (1 << 30) : int(len);
    c = crc32_iscsi(const_cast<uint8_t*>(p), n, c);
    p += n;
    len -= uint64_t(n);
  }
  return c;
}

bool FioChecksum(VerifyMethod m, const uint8_t* p, uint64_t len, uint8_t* out) {
  switch (m) {
    case VerifyMethod::kCrc32c: {
      const uint32_t c = Crc32c(p, len, ~0u);
      std::memcpy(out, &c, 4);
      return true;
    }
    case VerifyMethod::kCrc32: {
      const uint32_t c = ~crc32_ieee(~0u, p, len);
      std::memcpy(out, &c, 4);
      return true;
    }
    case VerifyMethod::kCrc64: {
      const uint64_t c = ~crc64_jones_refl(~uint64_t(0), p, len);
      std::memcpy(out, &c, 8);
      return true;
    }
    case VerifyMethod::kCrc16: {
      const uint16_t c = Crc16(p, len);
      std::memcpy(out, &c, 2);
      return true;
    }
    case VerifyMethod::kCrc7: out[0] = Crc7(p, len); return true;
    case VerifyMethod::kXxhash: {
      const uint32_t h = XXH32(p, size_t(len), 1);
      std::memcpy(out, &h, 4);
      return true;
    }
    case VerifyMethod::kSha256: return FioSha256(p, len, out);
    case VerifyMethod::kSha512: FioSha512(p, len, out); return true;
    case VerifyMethod::kSha1: {
      // fio keeps SHA-1's five words in host order.
      if (!EvpDigest(EVP_sha1(), p, len, out)) return false;
      for (int w = 0; w < 5; w++) std::reverse(out + 4 * w, out + 4 * w + 4);
      return true;
    }
    default: {
      const EVP_MD* md = EvpOf(m);
      return md && EvpDigest(md, p, len, out);
    }
  }
}

void FioRandomFill(uint8_t* buf, uint64_t len, uint64_t seed) {
  // fio's lib/rand.c with its default 4 seed buckets: word i of each group
  // of 4 from bucket i (seed times 1, 2, 3, 5), each bucket hashed by the
  // 64-bit golden ratio after use; the words after the last whole group
  // continue bucket 0, the last bytes a prefix of its next value.
  constexpr uint64_t kGolden = 0x61c8864680b583ebull;
  constexpr uint64_t kBuckets = 4;
  uint64_t s[kBuckets] = {seed, seed * 2, seed * 3, seed * 5};
  const uint64_t words = len / 8;
  const uint64_t grouped = words / kBuckets * kBuckets;
  uint64_t i = 0;
  for (; i < grouped; i += kBuckets) {
    for (uint64_t b = 0; b < kBuckets; b++) {
      std::memcpy(buf + 8 * (i + b), &s[b], 8);
      s[b] *= kGolden;
    }
  }
  uint64_t v = s[0];
  for (; i < words; i++) {
    std::memcpy(buf + 8 * i, &v, 8);
    v *= kGolden;
  }
  std::memcpy(buf + 8 * words, &v, size_t(len - 8 * words));
}

namespace {

// One chunk's header and checksum written over buf[0, len) (its data in
// place), for the chunk at file offset `offset`.
void FillChunk(uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen, uint16_t numberio,
               const VerifyLayout& l) {
  FioHeader h{};
  h.magic = kFioVerifyMagic;
  h.verify_type = FioVerifyType(l.method);
  h.len = uint32_t(len);
  h.rand_seed = gen;
  h.offset = offset;
  h.thread = l.thread;
  h.numberio = numberio;
  h.crc32 = HeaderCrc(h);
  std::memcpy(buf, &h, sizeof h);
  const uint64_t field = VerifyChecksumSize(l.method);
  if (field) {
    const uint64_t hs = kFioHeaderSize + field;
    FioChecksum(l.method, buf + hs, len - hs, buf + kFioHeaderSize);
  }
}

// The header of a chunk checked, in fio's order (verify_header, then the
// method): "" or what is wrong.
std::string CheckChunk(const uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen,
                       const VerifyLayout& l) {
  char msg[320];
  if (len < VerifyHeaderSize(l.method)) return "block shorter than the verify header";
  FioHeader h;
  std::memcpy(&h, buf, sizeof h);
  if (h.magic != kFioVerifyMagic) {
    std::snprintf(msg, sizeof msg, "bad magic header %x, wanted %x: not fio's verify data", h.magic,
                  kFioVerifyMagic);
    return msg;
  }
  if (h.len != uint32_t(len)) {
    std::snprintf(msg, sizeof msg, "bad header length %u, wanted %llu", h.len,
                  (unsigned long long)len);
    return msg;
  }
  if (gen != 0 && h.rand_seed != gen) {
    std::snprintf(msg, sizeof msg,
                  "stale block: header rand_seed (generation) %llu, expected %llu",
                  (unsigned long long)h.rand_seed, (unsigned long long)gen);
    return msg;
  }
  if (h.offset != offset) {
    std::snprintf(msg, sizeof msg, "bad header offset %llu, wanted %llu: misplaced write",
                  (unsigned long long)h.offset, (unsigned long long)offset);
    return msg;
  }
  const uint32_t crc = HeaderCrc(h);
  if (crc != h.crc32) {
    std::snprintf(msg, sizeof msg, "bad header crc %x, wanted %x", h.crc32, crc);
    return msg;
  }
  const uint16_t want_type = FioVerifyType(l.method);
  if (h.verify_type != want_type) {
    return "written with verify method " + TypeName(h.verify_type) + ", checked with " +
           std::string(Name(l.method));
  }
  if (gen != 0 && h.thread != l.thread) {
    std::snprintf(msg, sizeof msg, "header says writer (thread) %u, expected %u", h.thread,
                  l.thread);
    return msg;
  }
  const uint64_t field = VerifyChecksumSize(l.method);
  if (!field) return "";
  const uint64_t hs = kFioHeaderSize + field;
  uint8_t want[128];
  std::memcpy(want, buf + kFioHeaderSize, size_t(field));
  if (!FioChecksum(l.method, buf + hs, len - hs, want))
    return std::string(Name(l.method)) + " could not be computed (out of memory?)";
  // fio 3.33's sha512 field holds only the data it saw (see verify.h).
  const uint64_t n = l.method == VerifyMethod::kSha512 ? std::min(field, len - hs) : field;
  if (std::memcmp(want, buf + kFioHeaderSize, size_t(n)) != 0) {
    return std::string(Name(l.method)) + " mismatch: header " + Hex(buf + kFioHeaderSize, n) +
           ", data " + Hex(want, n);
  }
  return "";
}

// verify_offset: the header at the chunk's start trades places with the
// bytes at `at` (fio's memswp; the two ranges do not overlap).
void SwapHeader(uint8_t* chunk, uint64_t header, uint64_t at) {
  if (at == 0 || header == 0) return;
  uint8_t tmp[256];
  std::memcpy(tmp, chunk, header);
  std::memcpy(chunk, chunk + at, header);
  std::memcpy(chunk + at, tmp, header);
}

// The pattern with the block's offset pasted, repeated to a whole number of
// copies of at least 4 KiB, so that a block compares in few memcmp calls.
std::string RepeatedPattern(uint64_t offset, const std::string& pattern,
                            const std::vector<uint32_t>& offsets) {
  std::string first = pattern;
  for (uint32_t at : offsets) {
    for (uint32_t k = 0; k < 8 && at + k < first.size(); k++)
      first[at + k] = char((offset >> (8 * k)) & 0xff);
  }
  std::string rep;
  const size_t copies = std::max<size_t>(1, 4096 / first.size());
  rep.reserve(copies * first.size());
  for (size_t i = 0; i < copies; i++) rep += first;
  return rep;
}

// Compares block positions [from, to), `data` pointing at position
// `from`, with the pattern repeated from the block's first byte; "" or the
// first differing byte.
std::string CheckPattern(const uint8_t* data, uint64_t from, uint64_t to, uint64_t offset,
                         const std::string& rep, size_t period) {
  const auto want = [&](uint64_t pos) { return uint8_t(rep[size_t(pos % rep.size())]); };
  for (uint64_t p = from; p < to;) {
    const size_t phase = size_t(p % rep.size());
    const uint64_t n = std::min<uint64_t>(rep.size() - phase, to - p);
    if (std::memcmp(data + (p - from), rep.data() + phase, n) != 0) {
      uint64_t i = p;
      while (data[i - from] == want(i)) i++;
      char msg[200];
      std::snprintf(msg, sizeof msg,
                    "pattern mismatch at offset %llu (byte %llu of the block): read 0x%02x, "
                    "expected 0x%02x (pattern of %zu bytes)",
                    (unsigned long long)(offset + i), (unsigned long long)i, data[i - from],
                    want(i), period);
      return msg;
    }
    p += n;
  }
  return "";
}

// The chunks of a block: [start, end) pairs, `interval` apart, the last
// taking the rest.
template <class F>
std::string ForEachChunk(uint64_t len, uint64_t interval, F f) {
  const uint64_t step = interval == 0 || interval >= len ? len : interval;
  for (uint64_t s = 0; s < len; s += step) {
    const uint64_t e = len - s < 2 * step ? len : s + step;
    std::string bad = f(s, e);
    if (!bad.empty()) return bad;
    if (e == len) break;
  }
  return "";
}

}  // namespace

void FillPattern(uint8_t* buf, uint64_t len, uint64_t offset, const std::string& pattern,
                 const std::vector<uint32_t>& offsets) {
  const std::string rep = RepeatedPattern(offset, pattern, offsets);
  uint64_t p = 0;
  while (p < len) {
    const uint64_t n = std::min<uint64_t>(rep.size(), len - p);
    std::memcpy(buf + p, rep.data(), n);
    p += n;
  }
}

void FillVerifyBlock(uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen,
                     const VerifyLayout& l, uint16_t numberio) {
  if (!l.pattern.empty())
    FillPattern(buf, len, offset, l.pattern, l.pattern_offsets);
  else
    FioRandomFill(buf, len, gen);
  if (!HasHeader(l.method)) return;
  const uint64_t header = VerifyHeaderSize(l.method);
  ForEachChunk(len, l.interval, [&](uint64_t s, uint64_t e) {
    FillChunk(buf + s, e - s, offset + s, gen, numberio, l);
    SwapHeader(buf + s, header, l.header_offset);
    return std::string();
  });
}

std::string CheckVerifyBlock(const uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen,
                             const VerifyLayout& l, uint64_t* bad_at, uint64_t* bad_len) {
  if (l.method == VerifyMethod::kNull || l.method == VerifyMethod::kNone) return "";
  if (bad_at) *bad_at = 0;
  if (bad_len) *bad_len = len;
  const uint64_t header = VerifyHeaderSize(l.method);
  if (len < header + l.header_offset) return "block shorter than the verify header";
  const std::string rep =
      l.pattern.empty() ? std::string() : RepeatedPattern(offset, l.pattern, l.pattern_offsets);
  if (l.method == VerifyMethod::kPattern)
    return CheckPattern(buf, 0, len, offset, rep, l.pattern.size());
  const bool several = l.interval != 0 && l.interval < len && len >= 2 * l.interval;
  std::vector<uint8_t> scratch;
  return ForEachChunk(len, l.interval, [&](uint64_t s, uint64_t e) -> std::string {
    const uint8_t* chunk = buf + s;
    if (l.header_offset) {
      scratch.assign(buf + s, buf + e);
      SwapHeader(scratch.data(), header, l.header_offset);
      chunk = scratch.data();
    }
    std::string bad = CheckChunk(chunk, e - s, offset + s, gen, l);
    // The pattern's phase runs on from the block's first byte.
    if (bad.empty() && !rep.empty())
      bad = CheckPattern(chunk + header, s + header, e, offset, rep, l.pattern.size());
    if (bad.empty()) return bad;
    if (bad_at) *bad_at = s;
    if (bad_len) *bad_len = e - s;
    if (!several) return bad;
    return "interval at offset " + std::to_string(offset + s) + " length " +
           std::to_string(e - s) + ": " + bad;
  });
}

std::vector<uint8_t> ExpectedVerifyBlock(const uint8_t* read, uint64_t len, uint64_t offset,
                                         const VerifyLayout& l) {
  std::vector<uint8_t> exp;
  if (l.method == VerifyMethod::kNull || l.method == VerifyMethod::kNone) return exp;
  exp.resize(len);
  if (l.method == VerifyMethod::kPattern) {
    FillPattern(exp.data(), len, offset, l.pattern, l.pattern_offsets);
    return exp;
  }
  if (len < l.header_offset + kFioHeaderSize) return {};
  FioHeader first;
  std::memcpy(&first, read + l.header_offset, sizeof first);
  VerifyLayout as_read = l;
  as_read.thread = first.thread;
  FillVerifyBlock(exp.data(), len, offset, first.rand_seed, as_read, first.numberio);
  ForEachChunk(len, l.interval, [&](uint64_t s, uint64_t e) {
    const uint64_t at = s + l.header_offset;
    if (at + kFioHeaderSize > e) return std::string();
    FioHeader want, got;
    std::memcpy(&want, &exp[at], sizeof want);
    std::memcpy(&got, read + at, sizeof got);
    want.time_sec = got.time_sec;
    want.time_nsec = got.time_nsec;
    want.crc32 = HeaderCrc(want);
    std::memcpy(&exp[at], &want, sizeof want);
    return std::string();
  });
  return exp;
}

}  // namespace blk::bench
