// The NBD wire codec against byte layouts written out from the protocol
// document (doc/proto.md), and CheckRequest's verdicts.
#include "tools/storage_daemon/nbd_wire.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

namespace blk::nbd {
namespace {

const uint8_t* U(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

std::string Hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string o;
  for (unsigned char c : s) o += {d[c >> 4], d[c & 15]};
  return o;
}

TEST(NbdWire, GreetingIsMagicIHaveOptAndFlags) {
  EXPECT_EQ(Hex(EncodeGreeting(kFlagFixedNewstyle | kFlagNoZeroes)),
            "4e42444d41474943" "49484156454f5054" "0003");
}

TEST(NbdWire, OptionHeaderNeedsIHaveOptAndSixteenBytes) {
  std::string h;
  Put64(&h, kIHaveOpt);
  Put32(&h, kOptGo);
  Put32(&h, 7);
  OptionHeader oh;
  ASSERT_TRUE(ParseOptionHeader(U(h), h.size(), &oh));
  EXPECT_EQ(oh.option, uint32_t(kOptGo));
  EXPECT_EQ(oh.length, 7u);
  EXPECT_FALSE(ParseOptionHeader(U(h), 15, &oh));
  h[0] ^= 1;
  EXPECT_FALSE(ParseOptionHeader(U(h), h.size(), &oh));
}

TEST(NbdWire, OptionReplyLayout) {
  EXPECT_EQ(Hex(EncodeOptionReply(kOptList, kRepAck)),
            "0003e889045565a9" "00000003" "00000001" "00000000");
  EXPECT_EQ(Hex(EncodeOptionReply(kOptGo, kRepErrUnknown, "x")),
            "0003e889045565a9" "00000007" "80000006" "00000001" "78");
}

TEST(NbdWire, InfoRequestParsesNameAndInfos) {
  std::string d;
  Put32(&d, 3);
  d += "abc";
  Put16(&d, 2);
  Put16(&d, kInfoBlockSize);
  Put16(&d, kInfoName);
  InfoRequest ir;
  ASSERT_TRUE(ParseInfoRequest(U(d), d.size(), &ir));
  EXPECT_EQ(ir.name, "abc");
  ASSERT_EQ(ir.infos.size(), 2u);
  EXPECT_EQ(ir.infos[0], kInfoBlockSize);
  EXPECT_EQ(ir.infos[1], kInfoName);
  // Every truncation, and a trailing byte, is malformed.
  for (size_t n = 0; n < d.size(); n++) EXPECT_FALSE(ParseInfoRequest(U(d), n, &ir)) << n;
  std::string longer = d + "z";
  EXPECT_FALSE(ParseInfoRequest(U(longer), longer.size(), &ir));
  // A name length beyond the data does not read past it.
  std::string big;
  Put32(&big, 0xffffffffu);
  EXPECT_FALSE(ParseInfoRequest(U(big), big.size(), &ir));
}

TEST(NbdWire, MetaContextRequestParsesQueries) {
  std::string d;
  Put32(&d, 0);
  Put32(&d, 2);
  Put32(&d, 15);
  d += "base:allocation";
  Put32(&d, 5);
  d += "qemu:";
  MetaContextRequest mr;
  ASSERT_TRUE(ParseMetaContextRequest(U(d), d.size(), &mr));
  EXPECT_EQ(mr.name, "");
  ASSERT_EQ(mr.queries.size(), 2u);
  EXPECT_TRUE(QueryMatchesBaseAllocation(mr.queries[0]));
  EXPECT_FALSE(QueryMatchesBaseAllocation(mr.queries[1]));
  EXPECT_TRUE(QueryMatchesBaseAllocation("base:"));
  for (size_t n = 0; n < d.size(); n++) EXPECT_FALSE(ParseMetaContextRequest(U(d), n, &mr)) << n;
  // A query count no data could hold is refused before any allocation.
  std::string huge;
  Put32(&huge, 0);
  Put32(&huge, 0xffffffffu);
  EXPECT_FALSE(ParseMetaContextRequest(U(huge), huge.size(), &mr));
}

TEST(NbdWire, RequestRoundTripsAndNeedsMagic) {
  Request r{kCmdFlagFua, kCmdWrite, 0x1122334455667788ull, 4096, 512};
  const std::string e = EncodeRequest(r);
  EXPECT_EQ(Hex(e), "25609513" "0001" "0001" "1122334455667788" "0000000000001000" "00000200");
  Request p;
  ASSERT_TRUE(ParseRequest(U(e), e.size(), &p));
  EXPECT_EQ(p.flags, r.flags);
  EXPECT_EQ(p.type, r.type);
  EXPECT_EQ(p.cookie, r.cookie);
  EXPECT_EQ(p.offset, r.offset);
  EXPECT_EQ(p.length, r.length);
  EXPECT_FALSE(ParseRequest(U(e), e.size() - 1, &p));
  std::string bad = e;
  bad[3] = 0;
  EXPECT_FALSE(ParseRequest(U(bad), bad.size(), &p));
}

TEST(NbdWire, ReplyLayouts) {
  EXPECT_EQ(Hex(EncodeSimpleReply(9, kEio)), "67446698" "00000005" "0000000000000009");
  EXPECT_EQ(Hex(EncodeChunkHeader(kReplyFlagDone, kReplyTypeOffsetData, 1, 4104)),
            "668e33ef" "0001" "0001" "0000000000000001" "00001008");
  EXPECT_EQ(Hex(EncodeErrorChunk(2, kEperm, "no")),
            "668e33ef" "0001" "8001" "0000000000000002" "00000008" "00000001" "0002" "6e6f");
  EXPECT_EQ(Hex(EncodeBlockStatusChunk(3, 1, {{65536, 0}})),
            "668e33ef" "0001" "0005" "0000000000000003" "0000000c" "00000001" "00010000"
            "00000000");
  EXPECT_EQ(Hex(EncodeExportNameReply(1, kTxHasFlags, true)), "0000000000000001" "0001");
  EXPECT_EQ(EncodeExportNameReply(1, kTxHasFlags, false).size(), 8u + 2 + 124);
  EXPECT_EQ(Hex(EncodeInfoBlockSize(1, 4096, 1u << 25)),
            "0003" "00000001" "00001000" "02000000");
}

TEST(NbdWire, ErrnoMapsToProtocolValues) {
  EXPECT_EQ(ErrnoToNbd(-EPERM), kEperm);
  EXPECT_EQ(ErrnoToNbd(-EROFS), kEperm);
  EXPECT_EQ(ErrnoToNbd(-EIO), kEio);
  EXPECT_EQ(ErrnoToNbd(-ENOSPC), kEnospc);
  EXPECT_EQ(ErrnoToNbd(-ENOTSUP), kEnotsup);
  EXPECT_EQ(ErrnoToNbd(-EBADF), kEio);  // anything else
}

class CheckRequestTest : public ::testing::Test {
 protected:
  ExportView rw{1 << 20, false, 1 << 16, true, true};
  ExportView ro{1 << 20, true, 1 << 16, false, false};
};

TEST_F(CheckRequestTest, InRangeRequestsRun) {
  EXPECT_EQ(CheckRequest({0, kCmdRead, 1, 0, 4096}, rw).verdict, Verdict::kOk);
  Check w = CheckRequest({kCmdFlagFua, kCmdWrite, 1, (1 << 20) - 4096, 4096}, rw);
  EXPECT_EQ(w.verdict, Verdict::kOk);
  EXPECT_EQ(w.payload, 4096u);
  EXPECT_EQ(CheckRequest({kCmdFlagNoHole | kCmdFlagFastZero, kCmdWriteZeroes, 1, 0, 1 << 20}, rw)
                .verdict,
            Verdict::kOk);
  EXPECT_EQ(CheckRequest({0, kCmdBlockStatus, 1, 0, 1 << 20}, rw).verdict, Verdict::kOk);
}

TEST_F(CheckRequestTest, PastTheEnd) {
  Check r = CheckRequest({0, kCmdRead, 1, (1 << 20) - 512, 1024}, rw);
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_EQ(r.error, kEinval);
  // A write past the end is refused with ENOSPC, its payload still read.
  Check w = CheckRequest({0, kCmdWrite, 1, 1 << 20, 4096}, rw);
  EXPECT_EQ(w.verdict, Verdict::kError);
  EXPECT_EQ(w.error, kEnospc);
  EXPECT_EQ(w.payload, 4096u);
  // offset + length overflowing 64 bits is out of range, not wrapped.
  EXPECT_EQ(CheckRequest({0, kCmdRead, 1, ~0ull - 10, 4096}, rw).error, kEinval);
  EXPECT_EQ(CheckRequest({0, kCmdTrim, 1, ~0ull, 1}, rw).error, kEinval);
}

TEST_F(CheckRequestTest, ReadOnlyRefusesEveryWriteWithEperm) {
  Check w = CheckRequest({0, kCmdWrite, 1, 0, 4096}, ro);
  EXPECT_EQ(w.error, kEperm);
  EXPECT_EQ(w.payload, 4096u);
  EXPECT_EQ(CheckRequest({0, kCmdTrim, 1, 0, 4096}, ro).error, kEperm);
  EXPECT_EQ(CheckRequest({0, kCmdWriteZeroes, 1, 0, 4096}, ro).error, kEperm);
  EXPECT_EQ(CheckRequest({0, kCmdRead, 1, 0, 4096}, ro).verdict, Verdict::kOk);
  EXPECT_EQ(CheckRequest({0, kCmdFlush, 1, 0, 0}, ro).verdict, Verdict::kOk);
}

TEST_F(CheckRequestTest, OversizeAndUnknown) {
  // A write payload larger than the server buffers: framing cannot be kept.
  EXPECT_EQ(CheckRequest({0, kCmdWrite, 1, 0, (1 << 16) + 1}, rw).verdict, Verdict::kDisconnect);
  // An oversize read has no payload: an error reply suffices.
  Check r = CheckRequest({0, kCmdRead, 1, 0, (1 << 16) + 1}, rw);
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_EQ(r.error, kEoverflow);
  EXPECT_EQ(CheckRequest({0, 99, 1, 0, 0}, rw).error, kEinval);
  EXPECT_EQ(CheckRequest({0x8000, kCmdRead, 1, 0, 512}, rw).error, kEinval);
  // Block status and DF need what negotiation did not give.
  EXPECT_EQ(CheckRequest({0, kCmdBlockStatus, 1, 0, 512}, ro).error, kEinval);
  EXPECT_EQ(CheckRequest({kCmdFlagDf, kCmdRead, 1, 0, 512}, ro).error, kEinval);
}

}  // namespace
}  // namespace blk::nbd
