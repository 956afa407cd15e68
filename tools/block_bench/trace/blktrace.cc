// blktrace binary traces: a stream of `struct blk_io_trace` records (48
// bytes, see kRecordSize) each followed by pdu_len bytes of payload, in the
// byte order of the machine that traced (told by the magic).  blktrace
// writes one file per CPU (NAME.blktrace.N); `blkparse -d` writes the merged
// stream; both parse here.
//
// The layout, from the kernel's include/uapi/linux/blktrace_api.h:
//   u32 magic (0x65617400 | version 0x07), u32 sequence, u64 time (ns),
//   u64 sector, u32 bytes, u32 action, u32 pid, u32 device, u32 cpu,
//   u16 error, u16 pdu_len.
//   action = category bits << 16 | action code; the code's bit 8
//   (__BLK_TA_CGROUP) marks an 8-byte cgroup id at the start of the payload.
//   device is the kernel's dev_t: MAJ << 20 | MIN.
//
// Replayed: queue (Q) events, the requests as the submitter made them.
// Issue (D) and complete (C) events give the outstanding counts; notify
// records (process names, timestamps, messages) and every other event are
// counted in Trace::ignored.
#include <cerrno>
#include <cstring>

#include "tools/block_bench/trace/trace_internal.h"
#include <blkstack/util/quote.h>

namespace blk::bench::trace::internal {
namespace {

constexpr size_t kRecordSize = 48;
constexpr uint32_t kMagic = 0x65617400;
constexpr uint32_t kVersion = 0x07;

// Category bits (action >> 16).
constexpr uint32_t kTcWrite = 1u << 1;
constexpr uint32_t kTcFlush = 1u << 2;
constexpr uint32_t kTcNotify = 1u << 10;
constexpr uint32_t kTcDiscard = 1u << 13;
constexpr uint32_t kTcFua = 1u << 15;
// Action codes (action & 0xff) and flags.
constexpr uint32_t kTaQueue = 1;
constexpr uint32_t kTaIssue = 7;
constexpr uint32_t kTaComplete = 8;
constexpr uint32_t kTaCgroup = 1u << 8;
constexpr size_t kCgroupIdSize = 8;

uint32_t Load32(const unsigned char* p, bool swap) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return swap ? __builtin_bswap32(v) : v;
}
uint64_t Load64(const unsigned char* p, bool swap) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return swap ? __builtin_bswap64(v) : v;
}
uint16_t Load16(const unsigned char* p, bool swap) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return swap ? __builtin_bswap16(v) : v;
}

struct Event {
  uint32_t magic, action, device, bytes;
  uint64_t time, sector;
  uint16_t pdu_len;
};

Event Decode(const unsigned char* p, bool swap) {
  Event e;
  e.magic = Load32(p, swap);
  e.time = Load64(p + 8, swap);
  e.sector = Load64(p + 16, swap);
  e.bytes = Load32(p + 24, swap);
  e.action = Load32(p + 28, swap);
  e.device = Load32(p + 36, swap);
  e.pdu_len = Load16(p + 46, swap);
  return e;
}

std::string DevName(uint32_t dev) {
  return std::to_string(dev >> 20) + "," + std::to_string(dev & ((1u << 20) - 1));
}

// ParseOptions::device as a dev_t: "MAJ,MIN" or the number in decimal.
Expected<uint32_t> ParseDevice(std::string_view s) {
  uint32_t maj, min;
  if (ParseMajMin(s, &maj, &min) && maj < (1u << 12) && min < (1u << 20)) return maj << 20 | min;
  uint64_t v;
  if (ParseU64(s, &v) && v <= UINT32_MAX) return uint32_t(v);
  return MakeError(-EINVAL, "trace_device=" + QuoteInput(s) +
                                ": a blktrace device is MAJ,MIN (MAJ < 4096, MIN < 2^20) or a "
                                "dev_t in decimal");
}

class BlktraceParser {
 public:
  explicit BlktraceParser(const ParseOptions& opts) : opts_(opts) {
    trace_.format = Format::kBlktrace;
  }
  Expected<void> set_filter() {
    if (opts_.device.empty()) return {};
    auto d = ParseDevice(opts_.device);
    if (!d.ok()) return d.error();
    filter_ = *d;
    return {};
  }
  // One file; an error naming it and the record's offset.
  Expected<void> file(std::string_view name, std::string_view data);
  Expected<Trace> finish(std::string_view name);

 private:
  // One record; an error text or empty.
  std::string event(const Event& e);

  const ParseOptions& opts_;
  std::optional<uint32_t> filter_;
  Trace trace_;
  DeviceSet devices_;
  uint32_t last_device_ = 0;
  Outstanding outstanding_;
};

std::string BlktraceParser::event(const Event& e) {
  const uint32_t category = e.action >> 16, code = e.action & 0xff;
  if ((e.action & kTaCgroup) && e.pdu_len < kCgroupIdSize)
    return "a cgroup record with a payload of " + std::to_string(e.pdu_len) +
           " bytes (the cgroup id takes 8)";
  if (category & kTcNotify) {
    trace_.ignored++;
    return {};
  }
  if (filter_ && e.device != *filter_) {
    trace_.filtered++;
    return {};
  }
  if (e.time > uint64_t(INT64_MAX)) return TimeOutOfRange("time", std::to_string(e.time), "ns");
  const int64_t t = int64_t(e.time);
  if (code == kTaIssue) outstanding_.start(t);
  if (code == kTaComplete) outstanding_.end(t);
  if (code != kTaQueue) {
    trace_.ignored++;
    return {};
  }
  if (!filter_ && (devices_.size() == 0 || e.device != last_device_)) {
    devices_.add(DevName(e.device));
    last_device_ = e.device;
  }
  Record r;
  r.t_ns = t;
  if (category & kTcDiscard) r.op = Op::kTrim;
  else if ((category & kTcFlush) && e.bytes == 0) r.op = Op::kFlush;
  else if (category & kTcWrite) r.op = Op::kWrite;
  else r.op = Op::kRead;
  r.fua = r.op == Op::kWrite && (category & kTcFua);
  if (e.sector > UINT64_MAX / 512) return "sector " + std::to_string(e.sector) + " is beyond 2^64 bytes";
  r.offset = e.sector * 512;
  r.len = e.bytes;
  return AddRecord(&trace_, r);
}

Expected<void> BlktraceParser::file(std::string_view name, std::string_view data) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  bool swap = false;
  uint64_t index = 0;
  for (size_t pos = 0; pos < data.size(); index++) {
    if (StopAsked(opts_, index + 1)) return Stopped(name);
    auto fail = [&](const std::string& what) -> Expected<void> {
      return MakeError(-EINVAL, std::string(name) + ": record " + std::to_string(index) +
                                    " at byte " + std::to_string(pos) + ": " + what);
    };
    std::string err;
    size_t next = data.size();
    if (data.size() - pos < kRecordSize) {
      err = "truncated record (" + std::to_string(data.size() - pos) + " of 48 bytes)";
    } else {
      if (pos == 0) swap = (Load32(p, false) & 0xffffff00) != kMagic;
      const Event e = Decode(p + pos, swap);
      if ((e.magic & 0xffffff00) != kMagic) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "0x%08x", Load32(p + pos, false));
        err = std::string("bad magic ") + buf + " (not a blktrace record)";
        // The next record's place is unknown: a bad magic ends the file.
      } else if ((e.magic & 0xff) != kVersion) {
        err = "unsupported blktrace version " + std::to_string(e.magic & 0xff) + " (7 is known)";
        next = pos + kRecordSize + e.pdu_len;
      } else if (e.pdu_len > data.size() - pos - kRecordSize) {
        err = "payload of " + std::to_string(e.pdu_len) + " bytes runs past the end of the file";
      } else {
        next = pos + kRecordSize + e.pdu_len;
        err = event(e);
      }
    }
    if (!err.empty()) {
      if (!opts_.skip_bad) return fail(err);
      trace_.bad++;
    }
    pos = std::min(next, data.size());
  }
  return {};
}

Expected<Trace> BlktraceParser::finish(std::string_view name) {
  if (devices_.size() > 1 && !opts_.every_device)
    return SeveralDevices(name, devices_, "MAJ,MIN");
  outstanding_.finish(&trace_);
  return Finish(std::move(trace_), name);
}

}  // namespace

bool LooksLikeBlktrace(std::string_view data) {
  if (data.size() < 4) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  return (Load32(p, false) & 0xffffff00) == kMagic || (Load32(p, true) & 0xffffff00) == kMagic;
}

Expected<Trace> ParseBlktrace(const std::vector<NamedData>& files, const ParseOptions& opts) {
  BlktraceParser p(opts);
  if (auto f = p.set_filter(); !f.ok()) return f.error();
  for (const NamedData& f : files)
    if (auto r = p.file(f.name, f.data); !r.ok()) return r.error();
  // Per-CPU files: messages name the stem's first file.
  return p.finish(files.empty() ? std::string_view("blktrace") : files[0].name);
}

}  // namespace blk::bench::trace::internal
