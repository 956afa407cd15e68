// blktrace records built in tests, in either byte order: Bt is one
// `struct blk_io_trace` with its payload, Encode writes a file's bytes, Ev
// makes an event; kQ/kD/kC are the queue/issue/complete actions and the
// k* categories are ORed into them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace blk::bench::trace {

struct Bt {
  uint32_t magic = 0x65617407, seq = 0;
  uint64_t time = 0, sector = 0;
  uint32_t bytes = 0, action = 0, pid = 1, device = 8u << 20, cpu = 0;
  uint16_t error = 0, pdu_len = 0;
  std::string pdu;
};

constexpr uint32_t kQ = 1 | (1u << 4) << 16, kD = 7 | (1u << 6) << 16, kC = 8 | (1u << 7) << 16;
constexpr uint32_t kW = (1u << 1) << 16, kFl = (1u << 2) << 16, kDisc = (1u << 13) << 16,
                   kFua = (1u << 15) << 16, kNotify = (1u << 10) << 16, kCg = 1u << 8;

template <class T>
inline void Put(std::string* out, T v, bool big) {
  unsigned char b[sizeof(T)];
  for (size_t i = 0; i < sizeof(T); i++) {
    const size_t shift = 8 * (big ? sizeof(T) - 1 - i : i);
    b[i] = static_cast<unsigned char>(uint64_t(v) >> shift);
  }
  out->append(reinterpret_cast<char*>(b), sizeof(T));
}

// The struct in the given byte order, then its payload.
inline std::string Encode(const std::vector<Bt>& events, bool big) {
  std::string out;
  for (const Bt& e : events) {
    Put(&out, e.magic, big);
    Put(&out, e.seq, big);
    Put(&out, e.time, big);
    Put(&out, e.sector, big);
    Put(&out, e.bytes, big);
    Put(&out, e.action, big);
    Put(&out, e.pid, big);
    Put(&out, e.device, big);
    Put(&out, e.cpu, big);
    Put(&out, e.error, big);
    Put(&out, uint16_t(e.pdu.size()), big);
    out += e.pdu;
  }
  return out;
}

inline Bt Ev(uint64_t t, uint32_t action, uint64_t sector, uint32_t bytes, std::string pdu = "") {
  Bt b;
  b.time = t;
  b.action = action;
  b.sector = sector;
  b.bytes = bytes;
  b.pdu = std::move(pdu);
  return b;
}

// TC_READ: what the kernel sets on reads (fio's merge keeps a queue event
// only with TC_READ, TC_WRITE or TC_DISCARD).
constexpr uint32_t kR = (1u << 0) << 16;

}  // namespace blk::bench::trace
