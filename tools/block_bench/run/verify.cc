#include "tools/block_bench/run/verify.h"

#include <isa-l/crc.h>
#include <openssl/evp.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "tools/block_bench/run/rng.h"

namespace blk::bench {
namespace {

struct Header {
  uint32_t magic;
  uint32_t len;
  uint64_t offset;
  uint64_t gen;
  uint32_t crc;
  uint32_t pad;
};
static_assert(sizeof(Header) == 32);

// verify=meta (fio's header-only verification): the fixed fields, the
// writer, and a CRC32C of the header alone; the data is not checksummed.
struct HeaderMeta {
  uint32_t magic;
  uint32_t len;
  uint64_t offset;
  uint64_t gen;
  uint32_t thread;
  uint32_t crc;
};
static_assert(sizeof(HeaderMeta) == 32);

uint32_t MetaCrc(HeaderMeta h) {
  h.crc = 0;
  return Crc32c(&h, sizeof h);
}

// verify= methods other than crc32c: the digest follows the fixed fields.
struct HeaderV2 {
  uint32_t magic;
  uint32_t len;
  uint64_t offset;
  uint64_t gen;
  uint8_t method;
  uint8_t digest_len;
  uint8_t pad[6];
  uint8_t digest[64];
};
static_assert(sizeof(HeaderV2) == 96);

const EVP_MD* EvpOf(VerifyMethod m) {
  switch (m) {
    case VerifyMethod::kMd5: return EVP_md5();
    case VerifyMethod::kSha1: return EVP_sha1();
    case VerifyMethod::kSha256: return EVP_sha256();
    case VerifyMethod::kSha512: return EVP_sha512();
    default: return nullptr;
  }
}

// The digest of buf[0, len) with the header's digest field (digest_len and
// digest) zero, into
// `out`; returns its length (0: the library failed, which only an
// allocation failure can cause).
size_t Digest(VerifyMethod m, const uint8_t* buf, uint64_t len, uint8_t out[64]) {
  HeaderV2 h;
  std::memcpy(&h, buf, sizeof h);
  h.digest_len = 0;  // the digest field: its length and bytes
  std::memset(h.digest, 0, sizeof h.digest);
  const uint8_t* rest = buf + sizeof h;
  const uint64_t rest_len = len - sizeof h;
  if (m == VerifyMethod::kCrc32) {
    uint32_t c = crc32_gzip_refl(0, reinterpret_cast<const unsigned char*>(&h), sizeof h);
    c = crc32_gzip_refl(c, rest, rest_len);
    std::memcpy(out, &c, 4);
    return 4;
  }
  if (m == VerifyMethod::kXxhash) {
    XXH32_state_t* st = XXH32_createState();
    if (!st) return 0;
    XXH32_reset(st, 0);
    XXH32_update(st, &h, sizeof h);
    XXH32_update(st, rest, size_t(rest_len));
    const uint32_t d = XXH32_digest(st);
    XXH32_freeState(st);
    std::memcpy(out, &d, 4);
    return 4;
  }
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  unsigned n = 0;
  const bool ok = ctx && EVP_DigestInit_ex(ctx, EvpOf(m), nullptr) == 1 &&
                  EVP_DigestUpdate(ctx, &h, sizeof h) == 1 &&
                  EVP_DigestUpdate(ctx, rest, size_t(rest_len)) == 1 &&
                  EVP_DigestFinal_ex(ctx, out, &n) == 1;
  EVP_MD_CTX_free(ctx);
  return ok ? n : 0;
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

void FillData(uint8_t* buf, uint64_t from, uint64_t len, uint64_t offset, uint64_t gen) {
  Rng r(Mix64(offset) ^ gen);
  uint64_t i = from;
  for (; i + 8 <= len; i += 8) {
    uint64_t v = r.next();
    std::memcpy(buf + i, &v, 8);
  }
  for (; i < len; i++) buf[i] = uint8_t(r.next());
}

uint32_t BlockCrc(const uint8_t* buf, uint64_t len) {
  Header h;
  std::memcpy(&h, buf, sizeof h);
  h.crc = 0;
  uint32_t c = Crc32c(&h, sizeof h);
  return Crc32c(buf + sizeof h, len - sizeof h, c);
}

}  // namespace

uint64_t VerifyHeaderSize(VerifyMethod method) {
  if (method == VerifyMethod::kPattern) return 0;
  if (method == VerifyMethod::kMeta) return sizeof(HeaderMeta);
  return method == VerifyMethod::kCrc32c ? sizeof(Header) : sizeof(HeaderV2);
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

namespace {

// One header-carrying chunk (a block, or one verify_interval of it) at
// file offset `offset`: the header, then pseudo-random data unless the
// caller filled the data already (`random_data` false: verify_pattern).
void FillChunk(uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen, uint32_t thread,
               VerifyMethod method, bool random_data) {
  if (method == VerifyMethod::kMeta) {
    HeaderMeta h{kVerifyMagicMeta, uint32_t(len), offset, gen, thread, 0};
    h.crc = MetaCrc(h);
    std::memcpy(buf, &h, sizeof h);
    if (random_data) FillData(buf, sizeof h, len, offset, gen);
    return;
  }
  if (method != VerifyMethod::kCrc32c) {
    HeaderV2 h{};
    h.magic = kVerifyMagicV2;
    h.len = uint32_t(len);
    h.offset = offset;
    h.gen = gen;
    h.method = uint8_t(method);
    std::memcpy(buf, &h, sizeof h);
    if (random_data) FillData(buf, sizeof h, len, offset, gen);
    h.digest_len = uint8_t(Digest(method, buf, len, h.digest));
    std::memcpy(buf, &h, sizeof h);
    return;
  }
  Header h{kVerifyMagic, uint32_t(len), offset, gen, 0, 0};
  std::memcpy(buf, &h, sizeof h);
  if (random_data) FillData(buf, sizeof h, len, offset, gen);
  h.crc = BlockCrc(buf, len);
  std::memcpy(buf, &h, sizeof h);
}

uint32_t MagicOf(VerifyMethod method) {
  if (method == VerifyMethod::kMeta) return kVerifyMagicMeta;
  return method == VerifyMethod::kCrc32c ? kVerifyMagic : kVerifyMagicV2;
}

// The header of a chunk checked: magic, offset, length, checksum (kMeta: of
// the header alone), and the generation (kMeta: and the writer) when `gen`
// is not 0.
std::string CheckChunk(const uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen,
                       uint32_t thread, VerifyMethod method) {
  char msg[256];
  if (len < VerifyHeaderSize(method)) return "block shorter than the verify header";
  Header h;
  std::memcpy(&h, buf, sizeof h);
  const uint32_t magic = MagicOf(method);
  if (h.magic != magic) {
    std::snprintf(msg, sizeof msg, "bad magic 0x%08x (want 0x%08x): not written by block-bench",
                  h.magic, magic);
    return msg;
  }
  if (h.offset != offset) {
    std::snprintf(msg, sizeof msg, "header says offset %llu: misplaced write",
                  (unsigned long long)h.offset);
    return msg;
  }
  if (h.len != uint32_t(len)) {
    std::snprintf(msg, sizeof msg, "header says length %u, read %llu", h.len,
                  (unsigned long long)len);
    return msg;
  }
  if (method == VerifyMethod::kMeta) {
    HeaderMeta m;
    std::memcpy(&m, buf, sizeof m);
    const uint32_t want = MetaCrc(m);
    if (m.crc != want) {
      std::snprintf(msg, sizeof msg, "meta header crc32c mismatch: header 0x%08x, computed 0x%08x",
                    m.crc, want);
      return msg;
    }
    if (gen != 0 && m.gen == gen && m.thread != thread) {
      std::snprintf(msg, sizeof msg, "header says writer %u, expected %u", m.thread, thread);
      return msg;
    }
  } else if (method == VerifyMethod::kCrc32c) {
    uint32_t want = BlockCrc(buf, len);
    if (h.crc != want) {
      std::snprintf(msg, sizeof msg, "crc32c mismatch: header 0x%08x, data 0x%08x", h.crc, want);
      return msg;
    }
  } else {
    HeaderV2 h2;
    std::memcpy(&h2, buf, sizeof h2);
    const std::string name(Name(method));
    if (h2.method != uint8_t(method)) {
      std::snprintf(msg, sizeof msg, "written with verify method %u, checked with %s",
                    unsigned(h2.method), name.c_str());
      return msg;
    }
    uint8_t want[64];
    const size_t n = Digest(method, buf, len, want);
    if (n == 0) return name + " digest could not be computed (out of memory?)";
    if (h2.digest_len != n || std::memcmp(h2.digest, want, n) != 0) {
      return name + " mismatch: header " + Hex(h2.digest, h2.digest_len) + ", data " + Hex(want, n);
    }
  }
  if (gen != 0 && h.gen != gen) {
    std::snprintf(msg, sizeof msg, "stale block: generation %llu, expected %llu",
                  (unsigned long long)h.gen, (unsigned long long)gen);
    return msg;
  }
  return "";
}

// verify_offset: the header at the chunk's start trades places with the
// bytes at `at` (fio's swap; the two ranges do not overlap).
void SwapHeader(uint8_t* chunk, uint64_t header, uint64_t at) {
  if (at == 0) return;
  uint8_t tmp[128];
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
                     const VerifyLayout& l) {
  if (!l.pattern.empty()) FillPattern(buf, len, offset, l.pattern, l.pattern_offsets);
  if (l.method == VerifyMethod::kPattern) return;
  const uint64_t header = VerifyHeaderSize(l.method);
  ForEachChunk(len, l.interval, [&](uint64_t s, uint64_t e) {
    FillChunk(buf + s, e - s, offset + s, gen, l.thread, l.method, l.pattern.empty());
    SwapHeader(buf + s, header, l.header_offset);
    return std::string();
  });
}

std::string CheckVerifyBlock(const uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen,
                             const VerifyLayout& l) {
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
    std::string bad = CheckChunk(chunk, e - s, offset + s, gen, l.thread, l.method);
    // The pattern's phase runs on from the block's first byte.
    if (bad.empty() && !rep.empty())
      bad = CheckPattern(chunk + header, s + header, e, offset, rep, l.pattern.size());
    if (bad.empty() || !several) return bad;
    return "interval at offset " + std::to_string(offset + s) + " length " +
           std::to_string(e - s) + ": " + bad;
  });
}

}  // namespace blk::bench
