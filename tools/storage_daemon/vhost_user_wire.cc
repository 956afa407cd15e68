#include "tools/storage_daemon/vhost_user_wire.h"

#include <cstring>

namespace blk::vhost {

namespace {

// The wire is the front end's native byte order; vhost-user is specified
// for hosts of the same endianness, and blkstack builds for x86-64 and
// other little-endian targets only.
uint32_t Get32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t Get64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
void Put16(std::string* s, uint16_t v) { s->append(reinterpret_cast<const char*>(&v), 2); }
void Put32(std::string* s, uint32_t v) { s->append(reinterpret_cast<const char*>(&v), 4); }
void Put64(std::string* s, uint64_t v) { s->append(reinterpret_cast<const char*>(&v), 8); }

}  // namespace

const char* RequestName(uint32_t request) {
  switch (request) {
    case kGetFeatures: return "GET_FEATURES";
    case kSetFeatures: return "SET_FEATURES";
    case kSetOwner: return "SET_OWNER";
    case kResetOwner: return "RESET_OWNER";
    case kSetMemTable: return "SET_MEM_TABLE";
    case kSetLogBase: return "SET_LOG_BASE";
    case kSetLogFd: return "SET_LOG_FD";
    case kSetVringNum: return "SET_VRING_NUM";
    case kSetVringAddr: return "SET_VRING_ADDR";
    case kSetVringBase: return "SET_VRING_BASE";
    case kGetVringBase: return "GET_VRING_BASE";
    case kSetVringKick: return "SET_VRING_KICK";
    case kSetVringCall: return "SET_VRING_CALL";
    case kSetVringErr: return "SET_VRING_ERR";
    case kGetProtocolFeatures: return "GET_PROTOCOL_FEATURES";
    case kSetProtocolFeatures: return "SET_PROTOCOL_FEATURES";
    case kGetQueueNum: return "GET_QUEUE_NUM";
    case kSetVringEnable: return "SET_VRING_ENABLE";
    case kGetConfig: return "GET_CONFIG";
    case kSetConfig: return "SET_CONFIG";
  }
  return "?";
}

bool ParseHeader(const uint8_t* p, size_t len, MsgHeader* h) {
  if (len < kHeaderSize) return false;
  h->request = Get32(p);
  h->flags = Get32(p + 4);
  h->size = Get32(p + 8);
  return (h->flags & kVersionMask) == kVersion && h->size <= kMaxPayload;
}

std::string EncodeHeader(const MsgHeader& h) {
  std::string s;
  Put32(&s, h.request);
  Put32(&s, h.flags);
  Put32(&s, h.size);
  return s;
}

bool ParseU64(const uint8_t* p, size_t len, uint64_t* v) {
  if (len < 8) return false;
  *v = Get64(p);
  return true;
}

bool ParseVringState(const uint8_t* p, size_t len, VringState* s) {
  if (len < 8) return false;
  s->index = Get32(p);
  s->num = Get32(p + 4);
  return true;
}

bool ParseVringAddr(const uint8_t* p, size_t len, VringAddr* a) {
  if (len != kVringAddrSize) return false;
  a->index = Get32(p);
  a->flags = Get32(p + 4);
  a->desc_user_addr = Get64(p + 8);
  a->used_user_addr = Get64(p + 16);
  a->avail_user_addr = Get64(p + 24);
  a->log_guest_addr = Get64(p + 32);
  return true;
}

bool ParseMemTable(const uint8_t* p, size_t len, std::vector<MemRegionDesc>* regions) {
  if (len < 8) return false;
  const uint32_t n = Get32(p);
  if (n == 0 || n > kMaxRegions || len != 8 + size_t(n) * 32) return false;
  regions->clear();
  for (uint32_t i = 0; i < n; i++) {
    const uint8_t* r = p + 8 + size_t(i) * 32;
    MemRegionDesc d{Get64(r), Get64(r + 8), Get64(r + 16), Get64(r + 24)};
    if (d.size == 0 || d.guest_addr + d.size < d.guest_addr ||
        d.user_addr + d.size < d.user_addr || d.mmap_offset + d.size < d.mmap_offset) {
      return false;
    }
    regions->push_back(d);
  }
  return true;
}

bool ParseConfig(const uint8_t* p, size_t len, ConfigMsg* c) {
  if (len < 12) return false;
  c->offset = Get32(p);
  c->size = Get32(p + 4);
  c->flags = Get32(p + 8);
  if (c->size > kMaxConfigSize || c->offset > kMaxConfigSize - c->size) return false;
  if (len != 12 + size_t(c->size)) return false;
  c->payload.assign(reinterpret_cast<const char*>(p + 12), c->size);
  return true;
}

std::string EncodeU64(uint64_t v) {
  std::string s;
  Put64(&s, v);
  return s;
}

std::string EncodeVringState(const VringState& st) {
  std::string s;
  Put32(&s, st.index);
  Put32(&s, st.num);
  return s;
}

std::string EncodeVringAddr(const VringAddr& a) {
  std::string s;
  Put32(&s, a.index);
  Put32(&s, a.flags);
  Put64(&s, a.desc_user_addr);
  Put64(&s, a.used_user_addr);
  Put64(&s, a.avail_user_addr);
  Put64(&s, a.log_guest_addr);
  return s;
}

std::string EncodeMemTable(const std::vector<MemRegionDesc>& regions) {
  std::string s;
  Put32(&s, uint32_t(regions.size()));
  Put32(&s, 0);
  for (const MemRegionDesc& r : regions) {
    Put64(&s, r.guest_addr);
    Put64(&s, r.size);
    Put64(&s, r.user_addr);
    Put64(&s, r.mmap_offset);
  }
  return s;
}

std::string EncodeConfig(const ConfigMsg& c) {
  std::string s;
  Put32(&s, c.offset);
  Put32(&s, c.size);
  Put32(&s, c.flags);
  s += c.payload;
  return s;
}

std::string EncodeReply(uint32_t request, const std::string& payload) {
  std::string s = EncodeHeader({request, kVersion | kFlagReply, uint32_t(payload.size())});
  s += payload;
  return s;
}

std::string EncodeBlkConfig(const BlkConfig& c, uint32_t offset, uint32_t size) {
  std::string s;
  Put64(&s, c.capacity);              // 0 capacity
  Put32(&s, 0);                       // 8 size_max (not offered)
  Put32(&s, c.seg_max);               // 12 seg_max
  Put32(&s, 0);                       // 16 geometry (not offered)
  Put32(&s, c.blk_size);              // 20 blk_size
  Put32(&s, 0);                       // 24 topology (not offered)
  Put32(&s, 0);
  s += char(0);                       // 32 writeback
  s += char(0);                       // 33 unused
  Put16(&s, c.num_queues);            // 34 num_queues
  Put32(&s, c.max_discard_sectors);   // 36
  Put32(&s, c.max_discard_seg);       // 40
  Put32(&s, c.discard_sector_alignment);  // 44
  Put32(&s, c.max_write_zeroes_sectors);  // 48
  Put32(&s, c.max_write_zeroes_seg);      // 52
  s += char(c.write_zeroes_may_unmap);    // 56
  s.append(3, '\0');                      // 57 unused
  s.resize(kMaxConfigSize, '\0');
  return s.substr(offset, size);
}

}  // namespace blk::vhost
