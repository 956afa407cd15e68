#include "tools/block_bench/run/verify.h"

#include <isa-l/crc.h>

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
static_assert(sizeof(Header) == kVerifyHeaderSize);

uint32_t BlockCrc(const uint8_t* buf, uint64_t len) {
  Header h;
  std::memcpy(&h, buf, sizeof h);
  h.crc = 0;
  uint32_t c = Crc32c(&h, sizeof h);
  return Crc32c(buf + sizeof h, len - sizeof h, c);
}

}  // namespace

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

void FillVerifyBlock(uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen) {
  Header h{kVerifyMagic, uint32_t(len), offset, gen, 0, 0};
  std::memcpy(buf, &h, sizeof h);
  Rng r(Mix64(offset) ^ gen);
  uint64_t i = sizeof h;
  for (; i + 8 <= len; i += 8) {
    uint64_t v = r.next();
    std::memcpy(buf + i, &v, 8);
  }
  for (; i < len; i++) buf[i] = uint8_t(r.next());
  h.crc = BlockCrc(buf, len);
  std::memcpy(buf, &h, sizeof h);
}

std::string CheckVerifyBlock(const uint8_t* buf, uint64_t len, uint64_t offset, uint64_t gen) {
  char msg[256];
  if (len < kVerifyHeaderSize) return "block shorter than the verify header";
  Header h;
  std::memcpy(&h, buf, sizeof h);
  if (h.magic != kVerifyMagic) {
    std::snprintf(msg, sizeof msg, "bad magic 0x%08x (want 0x%08x): not written by block-bench",
                  h.magic, kVerifyMagic);
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
  uint32_t want = BlockCrc(buf, len);
  if (h.crc != want) {
    std::snprintf(msg, sizeof msg, "crc32c mismatch: header 0x%08x, data 0x%08x", h.crc, want);
    return msg;
  }
  if (gen != 0 && h.gen != gen) {
    std::snprintf(msg, sizeof msg, "stale block: generation %llu, expected %llu",
                  (unsigned long long)h.gen, (unsigned long long)gen);
    return msg;
  }
  return "";
}

}  // namespace blk::bench
