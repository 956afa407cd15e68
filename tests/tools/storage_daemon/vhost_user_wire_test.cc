// The vhost-user codec against byte layouts written out from QEMU's
// docs/interop/vhost-user.rst and struct virtio_blk_config of the virtio
// 1.1 specification (5.2.4).
#include "tools/storage_daemon/vhost_user_wire.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace blk::vhost {
namespace {

const uint8_t* U(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

std::string Hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string o;
  for (unsigned char c : s) o += {d[c >> 4], d[c & 15]};
  return o;
}

uint32_t At32(const std::string& s, size_t off) {
  uint32_t v;
  std::memcpy(&v, s.data() + off, 4);
  return v;
}

TEST(VhostUserWire, HeaderIsRequestFlagsSizeLittleEndian) {
  EXPECT_EQ(Hex(EncodeHeader({kSetVringAddr, kVersion | kFlagNeedReply, 40})),
            "09000000" "09000000" "28000000");
  MsgHeader h;
  const std::string b = EncodeHeader({kGetConfig, kVersion, 72});
  ASSERT_TRUE(ParseHeader(U(b), b.size(), &h));
  EXPECT_EQ(h.request, uint32_t(kGetConfig));
  EXPECT_EQ(h.size, 72u);
  EXPECT_FALSE(ParseHeader(U(b), 11, &h));
}

TEST(VhostUserWire, HeaderRefusesOtherVersionsAndHugePayloads) {
  MsgHeader h;
  std::string b = EncodeHeader({kGetFeatures, 0, 0});
  EXPECT_FALSE(ParseHeader(U(b), b.size(), &h));
  b = EncodeHeader({kGetFeatures, 2, 0});
  EXPECT_FALSE(ParseHeader(U(b), b.size(), &h));
  b = EncodeHeader({kSetMemTable, kVersion, kMaxPayload});
  EXPECT_TRUE(ParseHeader(U(b), b.size(), &h));
  b = EncodeHeader({kSetMemTable, kVersion, kMaxPayload + 1});
  EXPECT_FALSE(ParseHeader(U(b), b.size(), &h));
}

TEST(VhostUserWire, ReplyHasReplyFlag) {
  const std::string r = EncodeReply(kGetQueueNum, EncodeU64(4));
  EXPECT_EQ(Hex(r), "11000000" "05000000" "08000000" "0400000000000000");
}

TEST(VhostUserWire, VringStateAndAddr) {
  VringState s;
  ASSERT_TRUE(ParseVringState(U(EncodeVringState({1, 256})), 8, &s));
  EXPECT_EQ(s.index, 1u);
  EXPECT_EQ(s.num, 256u);
  EXPECT_FALSE(ParseVringState(U(EncodeVringState({1, 256})), 7, &s));
  VringAddr a{2, 0, 0x1000, 0x3000, 0x2000, 0};
  const std::string b = EncodeVringAddr(a);
  ASSERT_EQ(b.size(), kVringAddrSize);
  // index, flags, then descriptor, used, available, log (in that order).
  EXPECT_EQ(Hex(b.substr(8, 24)), "0010000000000000" "0030000000000000" "0020000000000000");
  VringAddr p;
  ASSERT_TRUE(ParseVringAddr(U(b), b.size(), &p));
  EXPECT_EQ(p.desc_user_addr, 0x1000u);
  EXPECT_EQ(p.used_user_addr, 0x3000u);
  EXPECT_EQ(p.avail_user_addr, 0x2000u);
  EXPECT_FALSE(ParseVringAddr(U(b), b.size() - 1, &p));
}

TEST(VhostUserWire, MemTableRoundTripAndLimits) {
  std::vector<MemRegionDesc> in = {{0, 0xa0000, 0x7f0000000000, 0},
                                   {0xc0000, 0xff40000, 0x7f00000c0000, 0xc0000}};
  std::string b = EncodeMemTable(in);
  ASSERT_EQ(b.size(), 8u + 2 * 32);
  std::vector<MemRegionDesc> out;
  ASSERT_TRUE(ParseMemTable(U(b), b.size(), &out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].guest_addr, 0xc0000u);
  EXPECT_EQ(out[1].size, 0xff40000u);
  EXPECT_EQ(out[1].user_addr, 0x7f00000c0000u);
  EXPECT_EQ(out[1].mmap_offset, 0xc0000u);
  EXPECT_FALSE(ParseMemTable(U(b), b.size() - 1, &out));      // short
  EXPECT_FALSE(ParseMemTable(U(EncodeMemTable({})), 8, &out));  // no region
  std::vector<MemRegionDesc> nine(kMaxRegions + 1, {0, 4096, 0, 0});
  b = EncodeMemTable(nine);
  EXPECT_FALSE(ParseMemTable(U(b), b.size(), &out));
  b = EncodeMemTable({{~0ull - 100, 4096, 0, 0}});  // guest range wraps
  EXPECT_FALSE(ParseMemTable(U(b), b.size(), &out));
  b = EncodeMemTable({{0, 0, 0, 0}});  // empty region
  EXPECT_FALSE(ParseMemTable(U(b), b.size(), &out));
}

TEST(VhostUserWire, ConfigMessageBounds) {
  ConfigMsg c{0, 60, 0, std::string(60, 'x')};
  std::string b = EncodeConfig(c);
  ConfigMsg p;
  ASSERT_TRUE(ParseConfig(U(b), b.size(), &p));
  EXPECT_EQ(p.size, 60u);
  EXPECT_EQ(p.payload, std::string(60, 'x'));
  EXPECT_FALSE(ParseConfig(U(b), b.size() - 1, &p));  // payload shorter than size
  b = EncodeConfig({0, kMaxConfigSize + 1, 0, std::string(kMaxConfigSize + 1, 0)});
  EXPECT_FALSE(ParseConfig(U(b), b.size(), &p));
  b = EncodeConfig({kMaxConfigSize - 4, 8, 0, std::string(8, 0)});  // past the end
  EXPECT_FALSE(ParseConfig(U(b), b.size(), &p));
}

TEST(VhostUserWire, BlkConfigLayout) {
  BlkConfig c;
  c.capacity = 0x123456789;
  c.seg_max = 126;
  c.blk_size = 4096;
  c.num_queues = 3;
  c.max_discard_sectors = 77;
  c.max_discard_seg = 1;
  c.discard_sector_alignment = 8;
  c.max_write_zeroes_sectors = 99;
  c.max_write_zeroes_seg = 1;
  c.write_zeroes_may_unmap = 1;
  const std::string s = EncodeBlkConfig(c, 0, 96);
  ASSERT_EQ(s.size(), 96u);
  EXPECT_EQ(Hex(s.substr(0, 8)), "8967452301000000");
  EXPECT_EQ(At32(s, 12), 126u);
  EXPECT_EQ(At32(s, 20), 4096u);
  EXPECT_EQ(uint8_t(s[34]) | uint8_t(s[35]) << 8, 3);
  EXPECT_EQ(At32(s, 36), 77u);
  EXPECT_EQ(At32(s, 40), 1u);
  EXPECT_EQ(At32(s, 44), 8u);
  EXPECT_EQ(At32(s, 48), 99u);
  EXPECT_EQ(At32(s, 52), 1u);
  EXPECT_EQ(s[56], 1);
  EXPECT_EQ(s.substr(kBlkConfigSize), std::string(96 - kBlkConfigSize, '\0'));
  // A slice: the front end may read part of the space.
  EXPECT_EQ(EncodeBlkConfig(c, 20, 4), s.substr(20, 4));
}

TEST(VhostUserWire, RequestNames) {
  EXPECT_STREQ(RequestName(kGetVringBase), "GET_VRING_BASE");
  EXPECT_STREQ(RequestName(999), "?");
}

}  // namespace
}  // namespace blk::vhost
