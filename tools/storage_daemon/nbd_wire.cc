#include "tools/storage_daemon/nbd_wire.h"

#include <cerrno>

namespace blk::nbd {

uint32_t ErrnoToNbd(int neg_errno) {
  switch (-neg_errno) {
    case EPERM:
    case EROFS:
      return kEperm;
    case EIO:
      return kEio;
    case ENOMEM:
      return kEnomem;
    case EINVAL:
      return kEinval;
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
      return kEnospc;
    case EOVERFLOW:
      return kEoverflow;
    case ENOTSUP:
      return kEnotsup;
    case ESHUTDOWN:
    case ECANCELED:
      return kEshutdown;
    default:
      return kEio;
  }
}

uint16_t Load16(const uint8_t* p) { return uint16_t(p[0] << 8 | p[1]); }
uint32_t Load32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}
uint64_t Load64(const uint8_t* p) { return uint64_t(Load32(p)) << 32 | Load32(p + 4); }
void Put16(std::string* out, uint16_t v) {
  out->push_back(char(v >> 8));
  out->push_back(char(v));
}
void Put32(std::string* out, uint32_t v) {
  Put16(out, uint16_t(v >> 16));
  Put16(out, uint16_t(v));
}
void Put64(std::string* out, uint64_t v) {
  Put32(out, uint32_t(v >> 32));
  Put32(out, uint32_t(v));
}

std::string EncodeGreeting(uint16_t handshake_flags) {
  std::string s;
  Put64(&s, kNbdMagic);
  Put64(&s, kIHaveOpt);
  Put16(&s, handshake_flags);
  return s;
}

bool ParseOptionHeader(const uint8_t* p, size_t len, OptionHeader* out) {
  if (len < kOptionHeaderSize || Load64(p) != kIHaveOpt) return false;
  out->option = Load32(p + 8);
  out->length = Load32(p + 12);
  return true;
}

std::string EncodeOptionReply(uint32_t option, uint32_t type, std::string_view data) {
  std::string s;
  Put64(&s, kOptReplyMagic);
  Put32(&s, option);
  Put32(&s, type);
  Put32(&s, uint32_t(data.size()));
  s.append(data);
  return s;
}

namespace {
// A bounds-checked reader over option data.
struct Cursor {
  const uint8_t* p;
  size_t left;
  bool u16(uint16_t* v) {
    if (left < 2) return false;
    *v = Load16(p);
    p += 2, left -= 2;
    return true;
  }
  bool u32(uint32_t* v) {
    if (left < 4) return false;
    *v = Load32(p);
    p += 4, left -= 4;
    return true;
  }
  bool str(size_t n, std::string* s) {
    if (left < n) return false;
    s->assign(reinterpret_cast<const char*>(p), n);
    p += n, left -= n;
    return true;
  }
};
}  // namespace

bool ParseInfoRequest(const uint8_t* p, size_t len, InfoRequest* out) {
  Cursor c{p, len};
  uint32_t name_len;
  uint16_t n;
  if (!c.u32(&name_len) || !c.str(name_len, &out->name) || !c.u16(&n)) return false;
  if (c.left != size_t(n) * 2) return false;
  out->infos.clear();
  for (uint16_t i = 0; i < n; i++) {
    uint16_t t;
    c.u16(&t);
    out->infos.push_back(t);
  }
  return true;
}

bool ParseMetaContextRequest(const uint8_t* p, size_t len, MetaContextRequest* out) {
  Cursor c{p, len};
  uint32_t name_len, n;
  if (!c.u32(&name_len) || !c.str(name_len, &out->name) || !c.u32(&n)) return false;
  // Each query takes at least 4 bytes: a count beyond that is malformed
  // (and must not make us reserve memory for it).
  if (n > c.left / 4) return false;
  out->queries.clear();
  for (uint32_t i = 0; i < n; i++) {
    uint32_t qlen;
    std::string q;
    if (!c.u32(&qlen) || !c.str(qlen, &q)) return false;
    out->queries.push_back(std::move(q));
  }
  return c.left == 0;
}

bool QueryMatchesBaseAllocation(std::string_view query) {
  return query == kBaseAllocation || query == "base:";
}

std::string EncodeInfoExport(uint64_t size, uint16_t tx_flags) {
  std::string s;
  Put16(&s, kInfoExport);
  Put64(&s, size);
  Put16(&s, tx_flags);
  return s;
}

std::string EncodeInfoBlockSize(uint32_t minimum, uint32_t preferred, uint32_t maximum) {
  std::string s;
  Put16(&s, kInfoBlockSize);
  Put32(&s, minimum);
  Put32(&s, preferred);
  Put32(&s, maximum);
  return s;
}

std::string EncodeInfoName(std::string_view name) {
  std::string s;
  Put16(&s, kInfoName);
  s.append(name);
  return s;
}

std::string EncodeRepServer(std::string_view name) {
  std::string s;
  Put32(&s, uint32_t(name.size()));
  s.append(name);
  return s;
}

std::string EncodeRepMetaContext(uint32_t id, std::string_view name) {
  std::string s;
  Put32(&s, id);
  s.append(name);
  return s;
}

std::string EncodeExportNameReply(uint64_t size, uint16_t tx_flags, bool no_zeroes) {
  std::string s;
  Put64(&s, size);
  Put16(&s, tx_flags);
  if (!no_zeroes) s.append(124, '\0');
  return s;
}

bool ParseRequest(const uint8_t* p, size_t len, Request* out) {
  if (len < kRequestSize || Load32(p) != kRequestMagic) return false;
  out->flags = Load16(p + 4);
  out->type = Load16(p + 6);
  out->cookie = Load64(p + 8);
  out->offset = Load64(p + 16);
  out->length = Load32(p + 24);
  return true;
}

std::string EncodeRequest(const Request& r) {
  std::string s;
  Put32(&s, kRequestMagic);
  Put16(&s, r.flags);
  Put16(&s, r.type);
  Put64(&s, r.cookie);
  Put64(&s, r.offset);
  Put32(&s, r.length);
  return s;
}

namespace {
bool InRange(const Request& r, uint64_t size) {
  return r.offset <= size && r.length <= size - r.offset;
}
Check Err(uint32_t e, uint32_t payload = 0) { return Check{Verdict::kError, e, payload}; }
}  // namespace

Check CheckRequest(const Request& r, const ExportView& e) {
  constexpr uint16_t kKnownFlags =
      kCmdFlagFua | kCmdFlagNoHole | kCmdFlagDf | kCmdFlagReqOne | kCmdFlagFastZero;
  if (r.type == kCmdWrite) {
    // The payload follows whatever we think of the request: read it to keep
    // the framing, unless it is larger than we will ever buffer.
    if (r.length > e.max_payload) return Check{Verdict::kDisconnect, 0, 0};
    const uint32_t pl = r.length;
    if (r.flags & ~(kCmdFlagFua)) return Err(kEinval, pl);
    if (e.read_only) return Err(kEperm, pl);
    if (!InRange(r, e.size)) return Err(kEnospc, pl);
    return Check{Verdict::kOk, 0, pl};
  }
  if (r.flags & ~kKnownFlags) return Err(kEinval);
  switch (r.type) {
    case kCmdRead:
      if (r.flags & ~(kCmdFlagFua | kCmdFlagDf)) return Err(kEinval);
      if ((r.flags & kCmdFlagDf) && !e.structured) return Err(kEinval);
      if (r.length > e.max_payload) return Err(kEoverflow);
      if (!InRange(r, e.size)) return Err(kEinval);
      return {};
    case kCmdDisc:
    case kCmdFlush:
      return {};
    case kCmdTrim:
      if (r.flags & ~kCmdFlagFua) return Err(kEinval);
      if (e.read_only) return Err(kEperm);
      if (!InRange(r, e.size)) return Err(kEinval);
      return {};
    case kCmdWriteZeroes:
      if (r.flags & ~(kCmdFlagFua | kCmdFlagNoHole | kCmdFlagFastZero)) return Err(kEinval);
      if (e.read_only) return Err(kEperm);
      if (!InRange(r, e.size)) return Err(kEnospc);
      return {};
    case kCmdBlockStatus:
      if (r.flags & ~kCmdFlagReqOne) return Err(kEinval);
      if (!e.structured || !e.base_allocation) return Err(kEinval);
      if (r.length == 0 || !InRange(r, e.size)) return Err(kEinval);
      return {};
    default:
      return Err(kEinval);
  }
}

std::string EncodeSimpleReply(uint64_t cookie, uint32_t error) {
  std::string s;
  Put32(&s, kSimpleReplyMagic);
  Put32(&s, error);
  Put64(&s, cookie);
  return s;
}

std::string EncodeChunkHeader(uint16_t flags, uint16_t type, uint64_t cookie, uint32_t length) {
  std::string s;
  Put32(&s, kStructuredReplyMagic);
  Put16(&s, flags);
  Put16(&s, type);
  Put64(&s, cookie);
  Put32(&s, length);
  return s;
}

std::string EncodeErrorChunk(uint64_t cookie, uint32_t error, std::string_view msg) {
  if (msg.size() > 4096) msg = msg.substr(0, 4096);
  std::string s = EncodeChunkHeader(kReplyFlagDone, kReplyTypeError, cookie,
                                    uint32_t(6 + msg.size()));
  Put32(&s, error);
  Put16(&s, uint16_t(msg.size()));
  s.append(msg);
  return s;
}

std::string EncodeBlockStatusChunk(uint64_t cookie, uint32_t context_id,
                                   const std::vector<std::pair<uint32_t, uint32_t>>& extents) {
  std::string s = EncodeChunkHeader(kReplyFlagDone, kReplyTypeBlockStatus, cookie,
                                    uint32_t(4 + 8 * extents.size()));
  Put32(&s, context_id);
  for (auto [len, flags] : extents) {
    Put32(&s, len);
    Put32(&s, flags);
  }
  return s;
}

}  // namespace blk::nbd
