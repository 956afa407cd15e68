// Fuzzes the NBD server's parsers (tools/storage_daemon/nbd_wire.h) with
// what a client controls: option headers and the data of INFO/GO and
// META_CONTEXT options, and transmission request headers checked against
// an export.  Beyond "no crash, no sanitizer report", it traps when an
// invariant the server relies on breaks:
//   * a request CheckRequest lets run is inside the export, and a write's
//     payload is exactly its length and at most max_payload;
//   * a parsed request or INFO/GO option re-encodes to the same bytes;
//   * nothing parsed holds more than the input could carry.
#include <cstdint>
#include <cstring>
#include <string>

#include "tools/storage_daemon/nbd_wire.h"

namespace {
using namespace blk::nbd;

void Require(bool ok) {
  if (!ok) __builtin_trap();
}

std::string EncodeInfo(const InfoRequest& ir) {
  std::string s;
  Put32(&s, uint32_t(ir.name.size()));
  s += ir.name;
  Put16(&s, uint16_t(ir.infos.size()));
  for (uint16_t t : ir.infos) Put16(&s, t);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t mode = data[0];
  data++, size--;
  OptionHeader oh;
  if (ParseOptionHeader(data, size, &oh)) Require(Load64(data) == kIHaveOpt);

  InfoRequest ir;
  if (ParseInfoRequest(data, size, &ir)) {
    Require(ir.name.size() + 2 * ir.infos.size() + 6 == size);
    Require(EncodeInfo(ir) == std::string(reinterpret_cast<const char*>(data), size));
  }
  MetaContextRequest mr;
  if (ParseMetaContextRequest(data, size, &mr)) {
    size_t total = 8 + mr.name.size();
    for (const auto& q : mr.queries) total += 4 + q.size();
    Require(total == size);
  }

  // The rest as a stream of request headers against an export whose shape
  // the first byte picks.
  ExportView e;
  e.size = (mode & 1) ? (1ull << 30) : (uint64_t(mode) << 20) + 512;
  e.read_only = mode & 2;
  e.max_payload = (mode & 4) ? (32u << 20) : 4096;
  e.structured = mode & 8;
  e.base_allocation = mode & 16;
  for (size_t off = 0; off + kRequestSize <= size; off += kRequestSize) {
    Request r;
    if (!ParseRequest(data + off, kRequestSize, &r)) continue;
    Require(EncodeRequest(r) ==
            std::string(reinterpret_cast<const char*>(data + off), kRequestSize));
    const Check c = CheckRequest(r, e);
    if (c.verdict == Verdict::kDisconnect) {
      Require(r.type == kCmdWrite && r.length > e.max_payload);
      continue;
    }
    if (r.type == kCmdWrite) Require(c.payload == r.length && c.payload <= e.max_payload);
    else Require(c.payload == 0);
    if (c.verdict == Verdict::kOk && r.type != kCmdFlush && r.type != kCmdDisc) {
      Require(r.offset <= e.size && r.length <= e.size - r.offset);
      if (r.type == kCmdRead) Require(r.length <= e.max_payload);
      if (r.type == kCmdWrite || r.type == kCmdTrim || r.type == kCmdWriteZeroes) {
        Require(!e.read_only);
      }
    }
    if (c.verdict == Verdict::kError) Require(c.error != 0);
  }
  return 0;
}
