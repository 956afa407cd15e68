// The vhost-user wire format for a vhost-user-blk back end: message
// numbers, feature bits, and the pure parsing and encoding of the messages
// a front end (QEMU) sends and the replies the back end returns.
//
// Written from QEMU's docs/interop/vhost-user.rst: every message is a
// 12-byte header (request, flags, payload size; native, i.e. little-endian
// on x86) and a payload; file descriptors travel as SCM_RIGHTS ancillary
// data beside the message.  The virtio-blk configuration space follows the
// virtio 1.1 specification (5.2.4, struct virtio_blk_config).
//
// Nothing here touches a socket or memory it was not given: each function
// reads or writes a byte range, so the export (vhost_blk_export.h), the
// unit tests and the fuzz target share exactly this code.  Parsers never
// read past the size they are given and return false on malformed input.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace blk::vhost {

// ---- message header ----
inline constexpr size_t kHeaderSize = 12;
inline constexpr uint32_t kVersionMask = 0x3;
inline constexpr uint32_t kVersion = 0x1;
inline constexpr uint32_t kFlagReply = 1u << 2;
inline constexpr uint32_t kFlagNeedReply = 1u << 3;
// Largest payload accepted (the biggest message handled, SET_MEM_TABLE with
// 8 regions, is 264 bytes; GET_CONFIG is 12 + at most kMaxConfigSize).
inline constexpr uint32_t kMaxPayload = 4096;
// Most regions in SET_MEM_TABLE (VHOST_MEMORY_BASELINE_NREGIONS).
inline constexpr uint32_t kMaxRegions = 8;
// Most file descriptors one message may carry.
inline constexpr size_t kMaxFds = kMaxRegions;
// Largest configuration space read or written through GET/SET_CONFIG.
inline constexpr uint32_t kMaxConfigSize = 256;

// ---- front-end requests ----
enum Request : uint32_t {
  kGetFeatures = 1,
  kSetFeatures = 2,
  kSetOwner = 3,
  kResetOwner = 4,
  kSetMemTable = 5,
  kSetLogBase = 6,
  kSetLogFd = 7,
  kSetVringNum = 8,
  kSetVringAddr = 9,
  kSetVringBase = 10,
  kGetVringBase = 11,
  kSetVringKick = 12,
  kSetVringCall = 13,
  kSetVringErr = 14,
  kGetProtocolFeatures = 15,
  kSetProtocolFeatures = 16,
  kGetQueueNum = 17,
  kSetVringEnable = 18,
  kGetConfig = 24,
  kSetConfig = 25,
};
// A name for messages ("GET_FEATURES"), "?" for unknown numbers.
const char* RequestName(uint32_t request);

// ---- virtio feature bits (GET/SET_FEATURES) ----
inline constexpr int kBlkFSegMax = 2;
inline constexpr int kBlkFRo = 5;
inline constexpr int kBlkFBlkSize = 6;
inline constexpr int kBlkFFlush = 9;
inline constexpr int kBlkFMq = 12;
inline constexpr int kBlkFDiscard = 13;
inline constexpr int kBlkFWriteZeroes = 14;
inline constexpr int kRingFIndirectDesc = 28;
inline constexpr int kRingFEventIdx = 29;
inline constexpr int kFProtocolFeatures = 30;  // VHOST_USER_F_PROTOCOL_FEATURES
inline constexpr int kFVersion1 = 32;

// ---- protocol feature bits (GET/SET_PROTOCOL_FEATURES) ----
inline constexpr int kProtocolMq = 0;
inline constexpr int kProtocolReplyAck = 3;
inline constexpr int kProtocolConfig = 9;

// SET_VRING_KICK/CALL/ERR payload: bits 0-7 the queue, bit 8 "no fd".
inline constexpr uint64_t kVringIndexMask = 0xff;
inline constexpr uint64_t kVringNoFd = 1ull << 8;

struct MsgHeader {
  uint32_t request = 0;
  uint32_t flags = 0;
  uint32_t size = 0;
};

struct VringState {
  uint32_t index = 0;
  uint32_t num = 0;
};

struct VringAddr {
  uint32_t index = 0;
  uint32_t flags = 0;
  uint64_t desc_user_addr = 0;
  uint64_t used_user_addr = 0;
  uint64_t avail_user_addr = 0;
  uint64_t log_guest_addr = 0;
};
inline constexpr size_t kVringAddrSize = 40;

struct MemRegionDesc {
  uint64_t guest_addr = 0;
  uint64_t size = 0;
  uint64_t user_addr = 0;
  uint64_t mmap_offset = 0;
};

struct ConfigMsg {
  uint32_t offset = 0;
  uint32_t size = 0;
  uint32_t flags = 0;
  std::string payload;  // `size` bytes
};

// The device's view of struct virtio_blk_config (little-endian on the
// wire; 60 bytes up to write_zeroes_may_unmap, zero-padded beyond).
struct BlkConfig {
  uint64_t capacity = 0;  // in 512-byte sectors
  uint32_t seg_max = 0;
  uint32_t blk_size = 512;
  uint16_t num_queues = 1;
  uint32_t max_discard_sectors = 0;
  uint32_t max_discard_seg = 0;
  uint32_t discard_sector_alignment = 0;
  uint32_t max_write_zeroes_sectors = 0;
  uint32_t max_write_zeroes_seg = 0;
  uint8_t write_zeroes_may_unmap = 0;
};
inline constexpr size_t kBlkConfigSize = 60;

// Parses a header.  False if `len` < kHeaderSize, the version is not 1,
// or size > kMaxPayload (the stream cannot be trusted after that).
bool ParseHeader(const uint8_t* p, size_t len, MsgHeader* h);
std::string EncodeHeader(const MsgHeader& h);

// Payload parsers: false unless `len` is exactly (or, for u64 and state,
// at least) what the message carries.
bool ParseU64(const uint8_t* p, size_t len, uint64_t* v);
bool ParseVringState(const uint8_t* p, size_t len, VringState* s);
bool ParseVringAddr(const uint8_t* p, size_t len, VringAddr* a);
// SET_MEM_TABLE: a region count (1..kMaxRegions), padding, and that many
// regions; each region's size is non-zero and neither guest nor user
// range wraps around 2^64.
bool ParseMemTable(const uint8_t* p, size_t len, std::vector<MemRegionDesc>* regions);
// GET/SET_CONFIG: offset, size, flags and `size` bytes of payload;
// size <= kMaxConfigSize and offset + size <= kMaxConfigSize.
bool ParseConfig(const uint8_t* p, size_t len, ConfigMsg* c);

std::string EncodeU64(uint64_t v);
std::string EncodeVringState(const VringState& s);
std::string EncodeVringAddr(const VringAddr& a);
std::string EncodeMemTable(const std::vector<MemRegionDesc>& regions);
std::string EncodeConfig(const ConfigMsg& c);

// A whole reply: header (request, version | kFlagReply, payload size) and
// payload.
std::string EncodeReply(uint32_t request, const std::string& payload);

// The configuration space bytes [offset, offset + size) of `cfg`, zeros
// past its end.  REQUIRES: offset + size <= kMaxConfigSize.
std::string EncodeBlkConfig(const BlkConfig& cfg, uint32_t offset, uint32_t size);

}  // namespace blk::vhost
