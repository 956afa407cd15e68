// Fuzzes what a vhost-user front end and its guest control: the message
// codec (tools/storage_daemon/vhost_user_wire.h) and the split virtqueue
// (virtqueue.h) over guest memory whose contents are the input.
//
// Input: one mode byte, then bytes used both as a stream of messages
// (header + payload, parsed as their request type says) and as the
// content of a 64 KiB "guest" region holding a ring.  Traps when:
//   * a parsed message does not re-encode to the bytes it came from;
//   * a parsed memory table or config message breaks its documented bounds;
//   * a chain popped from the ring has a segment outside the region, more
//     segments than the queue (or an indirect table) allows, or the ring
//     hands out more chains than the avail index announced.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tools/storage_daemon/virtqueue.h"
#include "tools/storage_daemon/vhost_user_wire.h"

namespace {
using namespace blk::vhost;

void Require(bool ok) {
  if (!ok) __builtin_trap();
}

std::string S(const uint8_t* p, size_t n) { return std::string(reinterpret_cast<const char*>(p), n); }

void Messages(const uint8_t* data, size_t size) {
  size_t off = 0;
  while (off + kHeaderSize <= size) {
    MsgHeader h;
    if (!ParseHeader(data + off, size - off, &h)) return;
    Require(EncodeHeader(h) == S(data + off, kHeaderSize));
    off += kHeaderSize;
    const size_t n = std::min<size_t>(h.size, size - off);
    const uint8_t* p = data + off;
    off += n;
    uint64_t u;
    VringState st;
    VringAddr a;
    std::vector<MemRegionDesc> regions;
    ConfigMsg c;
    switch (h.request) {
      case kSetFeatures:
      case kSetProtocolFeatures:
      case kSetVringKick:
        if (ParseU64(p, n, &u)) Require(EncodeU64(u) == S(p, 8));
        break;
      case kSetVringNum:
      case kSetVringBase:
      case kGetVringBase:
      case kSetVringEnable:
        if (ParseVringState(p, n, &st)) Require(EncodeVringState(st) == S(p, 8));
        break;
      case kSetVringAddr:
        if (ParseVringAddr(p, n, &a)) Require(EncodeVringAddr(a) == S(p, n));
        break;
      case kSetMemTable:
        if (ParseMemTable(p, n, &regions)) {
          Require(!regions.empty() && regions.size() <= kMaxRegions);
          for (const MemRegionDesc& r : regions) {
            Require(r.size > 0 && r.guest_addr + r.size > r.guest_addr);
          }
          // The padding word is not kept: compare all but it.
          const std::string e = EncodeMemTable(regions);
          Require(e.substr(0, 4) == S(p, 4) && e.substr(8) == S(p + 8, n - 8));
        }
        break;
      case kGetConfig:
      case kSetConfig:
        if (ParseConfig(p, n, &c)) {
          Require(c.size <= kMaxConfigSize && c.offset + c.size <= kMaxConfigSize);
          Require(EncodeConfig(c) == S(p, n));
          BlkConfig cfg;
          Require(EncodeBlkConfig(cfg, c.offset, c.size).size() == c.size);
        }
        break;
    }
  }
}

void RingOf(uint8_t mode, const uint8_t* data, size_t size) {
  constexpr size_t kRegion = 64 << 10;
  constexpr uint64_t kGpa = 0x40000, kUva = 0x7f0000000000;
  std::vector<uint8_t> mem(kRegion);
  std::memcpy(mem.data(), data, std::min(size, kRegion));
  GuestMemory gm;
  gm.add({kGpa, kRegion, kUva, mem.data()});
  const uint32_t num = 1u << (mode % 8);  // 1..128 entries
  SplitQueue q;
  Require(q.attach(&gm, num, kUva, kUva + 0x4000, kUva + 0x6000));
  uint16_t avail_idx;
  std::memcpy(&avail_idx, mem.data() + 0x4002, 2);
  Chain c;
  for (uint32_t i = 0; i <= num; i++) {
    const SplitQueue::Pop r = q.pop(&c);
    if (r != SplitQueue::Pop::kChain) break;
    Require(i < num && uint16_t(i + 1) <= avail_idx);
    Require(c.head < num);
    Require(c.segs.size() <= std::max<uint32_t>(num, kMaxIndirect));
    for (const Segment& s : c.segs) {
      Require(s.len > 0 && s.p >= mem.data() && s.p + s.len <= mem.data() + kRegion);
    }
    q.push(c.head, 0);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t mode = data[0];
  Messages(data + 1, size - 1);
  RingOf(mode, data + 1, size - 1);
  return 0;
}
