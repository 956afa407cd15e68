// The NBD wire format: constants, and the pure parsing and encoding of the
// handshake's option messages, transmission requests and replies.
//
// Written from the NBD protocol document (NetworkBlockDevice/nbd,
// doc/proto.md): fixed newstyle negotiation, simple and structured replies.
// Everything on the wire is big-endian.  Nothing here touches a socket or a
// graph: each function reads or writes a byte range, so the server
// (nbd_server.h) and the fuzz target share exactly this code.
//
// Parsers never read past the `len` they are given; they return false (or
// a WireError) on malformed input and never abort.  Thread-safety: pure
// functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace blk::nbd {

// ---- magics ----
inline constexpr uint64_t kNbdMagic = 0x4e42444d41474943ull;      // "NBDMAGIC"
inline constexpr uint64_t kIHaveOpt = 0x49484156454F5054ull;      // "IHAVEOPT"
inline constexpr uint64_t kOptReplyMagic = 0x0003e889045565a9ull;
inline constexpr uint32_t kRequestMagic = 0x25609513u;
inline constexpr uint32_t kSimpleReplyMagic = 0x67446698u;
inline constexpr uint32_t kStructuredReplyMagic = 0x668e33efu;

// ---- handshake flags (server) and client flags ----
inline constexpr uint16_t kFlagFixedNewstyle = 1u << 0;
inline constexpr uint16_t kFlagNoZeroes = 1u << 1;
inline constexpr uint32_t kClientFixedNewstyle = 1u << 0;
inline constexpr uint32_t kClientNoZeroes = 1u << 1;

// ---- transmission flags ----
inline constexpr uint16_t kTxHasFlags = 1u << 0;
inline constexpr uint16_t kTxReadOnly = 1u << 1;
inline constexpr uint16_t kTxSendFlush = 1u << 2;
inline constexpr uint16_t kTxSendFua = 1u << 3;
inline constexpr uint16_t kTxSendTrim = 1u << 5;
inline constexpr uint16_t kTxSendWriteZeroes = 1u << 6;
inline constexpr uint16_t kTxSendDf = 1u << 7;
inline constexpr uint16_t kTxCanMultiConn = 1u << 8;
inline constexpr uint16_t kTxSendFastZero = 1u << 11;

// ---- options ----
enum Opt : uint32_t {
  kOptExportName = 1,
  kOptAbort = 2,
  kOptList = 3,
  kOptStartTls = 5,
  kOptInfo = 6,
  kOptGo = 7,
  kOptStructuredReply = 8,
  kOptListMetaContext = 9,
  kOptSetMetaContext = 10,
};

// ---- option reply types ----
inline constexpr uint32_t kRepAck = 1;
inline constexpr uint32_t kRepServer = 2;
inline constexpr uint32_t kRepInfo = 3;
inline constexpr uint32_t kRepMetaContext = 4;
inline constexpr uint32_t kRepErrUnsup = (1u << 31) + 1;
inline constexpr uint32_t kRepErrPolicy = (1u << 31) + 2;
inline constexpr uint32_t kRepErrInvalid = (1u << 31) + 3;
inline constexpr uint32_t kRepErrUnknown = (1u << 31) + 6;
inline constexpr uint32_t kRepErrShutdown = (1u << 31) + 7;
inline constexpr uint32_t kRepErrTooBig = (1u << 31) + 9;

// ---- NBD_INFO types ----
inline constexpr uint16_t kInfoExport = 0;
inline constexpr uint16_t kInfoName = 1;
inline constexpr uint16_t kInfoDescription = 2;
inline constexpr uint16_t kInfoBlockSize = 3;

// ---- commands and command flags ----
enum Cmd : uint16_t {
  kCmdRead = 0,
  kCmdWrite = 1,
  kCmdDisc = 2,
  kCmdFlush = 3,
  kCmdTrim = 4,
  kCmdCache = 5,
  kCmdWriteZeroes = 6,
  kCmdBlockStatus = 7,
};
inline constexpr uint16_t kCmdFlagFua = 1u << 0;
inline constexpr uint16_t kCmdFlagNoHole = 1u << 1;
inline constexpr uint16_t kCmdFlagDf = 1u << 2;
inline constexpr uint16_t kCmdFlagReqOne = 1u << 3;
inline constexpr uint16_t kCmdFlagFastZero = 1u << 4;

// ---- structured reply chunk types and flags ----
inline constexpr uint16_t kReplyFlagDone = 1u << 0;
inline constexpr uint16_t kReplyTypeNone = 0;
inline constexpr uint16_t kReplyTypeOffsetData = 1;
inline constexpr uint16_t kReplyTypeBlockStatus = 5;
inline constexpr uint16_t kReplyTypeError = (1u << 15) + 1;

// ---- NBD error values (the protocol's, not the host's errno) ----
inline constexpr uint32_t kEperm = 1;
inline constexpr uint32_t kEio = 5;
inline constexpr uint32_t kEnomem = 12;
inline constexpr uint32_t kEinval = 22;
inline constexpr uint32_t kEnospc = 28;
inline constexpr uint32_t kEoverflow = 75;
inline constexpr uint32_t kEnotsup = 95;
inline constexpr uint32_t kEshutdown = 108;

// The base:allocation meta context's id on this server.
inline constexpr uint32_t kBaseAllocationId = 1;
inline constexpr std::string_view kBaseAllocation = "base:allocation";
// base:allocation extent flags: no data stored / reads return zeros.
inline constexpr uint32_t kStateHole = 1u << 0;
inline constexpr uint32_t kStateZero = 1u << 1;

// Sizes of fixed headers.
inline constexpr size_t kOptionHeaderSize = 16;   // IHAVEOPT, option, length
inline constexpr size_t kRequestSize = 28;        // magic..length
inline constexpr size_t kSimpleReplySize = 16;
inline constexpr size_t kStructuredReplySize = 20;

// Maps a negative host errno from the block layer to the NBD error value
// (unknown errors become EIO, as the protocol asks).
uint32_t ErrnoToNbd(int neg_errno);

// ---- big-endian helpers ----
uint16_t Load16(const uint8_t* p);
uint32_t Load32(const uint8_t* p);
uint64_t Load64(const uint8_t* p);
void Put16(std::string* out, uint16_t v);
void Put32(std::string* out, uint32_t v);
void Put64(std::string* out, uint64_t v);

// ---- handshake ----
// The server's 18-byte greeting (NBDMAGIC, IHAVEOPT, handshake flags).
std::string EncodeGreeting(uint16_t handshake_flags);

struct OptionHeader {
  uint32_t option = 0;
  uint32_t length = 0;  // bytes of data that follow
};
// Parses 16 bytes.  False when `len` is short or the magic is not IHAVEOPT.
bool ParseOptionHeader(const uint8_t* p, size_t len, OptionHeader* out);

// An option reply (magic, option, type, data length, data).
std::string EncodeOptionReply(uint32_t option, uint32_t type, std::string_view data = {});

// NBD_OPT_INFO / NBD_OPT_GO data: the export name and the NBD_INFO types the
// client asks for.  False when the data is malformed (lengths disagree).
struct InfoRequest {
  std::string name;
  std::vector<uint16_t> infos;
};
bool ParseInfoRequest(const uint8_t* p, size_t len, InfoRequest* out);

// NBD_OPT_LIST_META_CONTEXT / SET_META_CONTEXT data: the export name and
// the queries.  False when malformed.
struct MetaContextRequest {
  std::string name;
  std::vector<std::string> queries;
};
bool ParseMetaContextRequest(const uint8_t* p, size_t len, MetaContextRequest* out);

// Whether a meta-context query selects base:allocation ("base:allocation"
// exactly, or the namespace-wide "base:").
bool QueryMatchesBaseAllocation(std::string_view query);

// NBD_REP_INFO payloads.
std::string EncodeInfoExport(uint64_t size, uint16_t tx_flags);
std::string EncodeInfoBlockSize(uint32_t minimum, uint32_t preferred, uint32_t maximum);
std::string EncodeInfoName(std::string_view name);
// NBD_REP_SERVER payload (NBD_OPT_LIST).
std::string EncodeRepServer(std::string_view name);
// NBD_REP_META_CONTEXT payload.
std::string EncodeRepMetaContext(uint32_t id, std::string_view name);
// NBD_OPT_EXPORT_NAME's reply: size, flags, and 124 zero bytes unless the
// client set NO_ZEROES.
std::string EncodeExportNameReply(uint64_t size, uint16_t tx_flags, bool no_zeroes);

// ---- transmission ----
struct Request {
  uint16_t flags = 0;
  uint16_t type = 0;
  uint64_t cookie = 0;
  uint64_t offset = 0;
  uint32_t length = 0;
};
// Parses 28 bytes.  False when `len` is short or the magic is wrong (the
// connection must then be dropped: framing is lost).
bool ParseRequest(const uint8_t* p, size_t len, Request* out);
// Encodes a request (for tests and the fuzz target's round trip).
std::string EncodeRequest(const Request& r);

// What the server must do with a parsed request before touching the graph.
enum class Verdict {
  kOk,            // run it
  kError,         // reply with `error` (payload, if any, already consumed)
  kDisconnect,    // framing cannot be trusted: drop the connection
};
struct Check {
  Verdict verdict = Verdict::kOk;
  uint32_t error = 0;          // NBD error value when kError
  uint32_t payload = 0;        // bytes of write payload to read after the header
};
// Checks a request against the export: size, read-only, the largest payload
// the server accepts (`max_payload`), and whether structured replies /
// base:allocation were negotiated.  A write's payload is always to be read
// (so framing stays) unless it exceeds max_payload, which disconnects.
struct ExportView {
  uint64_t size = 0;
  bool read_only = false;
  uint32_t max_payload = 0;
  bool structured = false;
  bool base_allocation = false;
};
Check CheckRequest(const Request& r, const ExportView& e);

// Replies.  A simple reply; a read's data follows it on the wire.
std::string EncodeSimpleReply(uint64_t cookie, uint32_t error);
// A structured reply chunk header; `length` bytes of payload follow.
std::string EncodeChunkHeader(uint16_t flags, uint16_t type, uint64_t cookie, uint32_t length);
// A whole NBD_REPLY_TYPE_ERROR chunk (DONE) with a message.
std::string EncodeErrorChunk(uint64_t cookie, uint32_t error, std::string_view msg);
// A whole NBD_REPLY_TYPE_BLOCK_STATUS chunk (DONE): one extent per entry
// of (length, flags).
std::string EncodeBlockStatusChunk(uint64_t cookie, uint32_t context_id,
                                   const std::vector<std::pair<uint32_t, uint32_t>>& extents);

}  // namespace blk::nbd
