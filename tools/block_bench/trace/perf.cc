// `perf script` text of the Linux block tracepoints, e.g.
//
//   dd 26515 [001] 29964.255714:   block:block_bio_queue: 254,0 WS 382609288 + 8 [dd]
//   dd 26515 [001] 29964.255716:   block:block_rq_insert: 254,0 WS 4096 () 382609288 + 8 0x2,0,4 [dd]
//   dd 26515 [001] 29964.255717:    block:block_rq_issue: 254,0 WS 4096 () 382609288 + 8 0x2,0,4 [dd]
//   cc 26513 [001] 29964.255895: block:block_rq_complete: 254,0 WS () 382609296 + 8 0x2,0,4 [0]
//
// The command name may contain blanks; the time is seconds with 6 decimals
// (9 with `perf script --ns`).  After the event: the device MAJ,MIN, the
// RWBS flags, then (for rq events) bytes and a command in parentheses, then
// SECTOR + SECTORS (512-byte units), and on newer kernels the I/O priority.
//
// One event kind is replayed: the first of block_bio_queue, block_rq_insert,
// block_rq_issue the text holds (queue is nearest to what the application
// asked for).  block_rq_issue and block_rq_complete give the outstanding
// counts.  Every other line is counted in Trace::ignored.
//
// RWBS, as the kernel's blk_fill_rwbs() writes it: an optional 'F'
// (PREFLUSH), the operation (R read, W write, D discard, F flush, N none),
// then flags: 'F' (FUA), 'A' (ahead), 'S' (sync), 'M' (meta), 'E' (secure
// erase after D).  A flush, or a preflush with no data, is Op::kFlush; N is
// ignored.
#include <cerrno>

#include "tools/block_bench/trace/trace_internal.h"
#include <blkstack/util/quote.h>

namespace blk::bench::trace::internal {
namespace {

enum class Kind { kBioQueue, kRqInsert, kRqIssue, kRqComplete, kOther };

constexpr std::string_view kPrefix = "block:block_";

Kind KindOf(std::string_view event) {
  if (event == "bio_queue") return Kind::kBioQueue;
  if (event == "rq_insert") return Kind::kRqInsert;
  if (event == "rq_issue") return Kind::kRqIssue;
  if (event == "rq_complete") return Kind::kRqComplete;
  return Kind::kOther;
}

// "29964.255714" or "29964.255714442" (optionally ending in ':') as ns:
// an error text (empty: fine).
std::string ParseSeconds(std::string_view s, int64_t* ns) {
  const std::string_view raw = s;
  if (!s.empty() && s.back() == ':') s.remove_suffix(1);
  const size_t dot = s.find('.');
  uint64_t sec, frac = 0;
  bool ok = ParseU64(s.substr(0, dot), &sec);
  if (ok && dot != std::string_view::npos) {
    std::string_view f = s.substr(dot + 1);
    ok = !f.empty() && f.size() <= 9 && ParseU64(f, &frac);
    for (size_t i = f.size(); ok && i < 9; i++) frac *= 10;
  }
  if (!ok) return "time " + QuoteInput(raw) + " is not SECONDS.FRACTION";
  if (sec > uint64_t(INT64_MAX) || !CheckedMul(int64_t(sec), 1000000000, ns) ||
      !CheckedAdd(*ns, int64_t(frac), ns))
    return TimeOutOfRange("time", raw, "s");
  return {};
}

struct Rwbs {
  Op op = Op::kRead;
  bool fua = false;
  bool preflush = false;
  bool none = false;
};

bool IsOpChar(char c) { return c == 'R' || c == 'W' || c == 'D' || c == 'F' || c == 'N'; }

bool ParseRwbs(std::string_view s, Rwbs* out) {
  size_t i = 0;
  if (s.size() >= 2 && s[0] == 'F' && IsOpChar(s[1])) {
    out->preflush = true;
    i = 1;
  }
  if (i >= s.size() || !IsOpChar(s[i])) return false;
  switch (s[i++]) {
    case 'R': out->op = Op::kRead; break;
    case 'W': out->op = Op::kWrite; break;
    case 'D': out->op = Op::kTrim; break;
    case 'F': out->op = Op::kFlush; break;
    default: out->none = true; break;
  }
  if (out->op == Op::kTrim && i < s.size() && s[i] == 'E') i++;
  for (; i < s.size(); i++) {
    if (s[i] == 'F') out->fua = true;
    else if (s[i] != 'A' && s[i] != 'S' && s[i] != 'M') return false;
  }
  return true;
}

class PerfParser {
 public:
  PerfParser(std::string_view data, const ParseOptions& opts) : opts_(opts) {
    trace_.format = Format::kPerf;
    // The replayed kind: the first of the three the text holds.
    for (Kind k : {Kind::kBioQueue, Kind::kRqInsert, Kind::kRqIssue}) {
      const char* n = k == Kind::kBioQueue ? "block:block_bio_queue:"
                      : k == Kind::kRqInsert ? "block:block_rq_insert:"
                                             : "block:block_rq_issue:";
      if (data.find(n) != std::string_view::npos) {
        source_ = k;
        break;
      }
    }
  }
  Expected<void> set_filter() {
    if (opts_.device.empty()) return {};
    uint32_t maj, min;
    if (!ParseMajMin(opts_.device, &maj, &min))
      return MakeError(-EINVAL, "trace_device=" + QuoteInput(opts_.device) +
                                    ": a perf trace's device is MAJ,MIN");
    filter_ = std::to_string(maj) + "," + std::to_string(min);
    return {};
  }
  std::string line(std::string_view text);
  Trace& trace() { return trace_; }
  Expected<Trace> finish(std::string_view name) {
    if (devices_.size() > 1 && !opts_.every_device)
    return SeveralDevices(name, devices_, "MAJ,MIN");
    outstanding_.finish(&trace_);
    return Finish(std::move(trace_), name);
  }

 private:
  const ParseOptions& opts_;
  Kind source_ = Kind::kOther;
  std::optional<std::string> filter_;
  Trace trace_;
  DeviceSet devices_;
  std::string last_device_;
  Outstanding outstanding_;
};

std::string PerfParser::line(std::string_view text) {
  if (Trim(text).empty()) return {};
  const size_t at = text.find(kPrefix);
  if (at == std::string_view::npos) {
    trace_.ignored++;
    return {};
  }
  std::string_view after = text.substr(at + kPrefix.size());
  const size_t colon = after.find(':');
  if (colon == std::string_view::npos) return "no ':' after the event name";
  const Kind kind = KindOf(after.substr(0, colon));
  if (kind != source_ && kind != Kind::kRqIssue && kind != Kind::kRqComplete) {
    trace_.ignored++;
    return {};
  }
  // The time: the last blank-separated word before the event.
  std::string_view before = Trim(text.substr(0, at));
  const size_t sp = before.find_last_of(" \t");
  const std::string_view time = sp == std::string_view::npos ? before : before.substr(sp + 1);
  int64_t t = 0;
  if (std::string err = ParseSeconds(time, &t); !err.empty()) return err;

  std::string_view f[24];
  const size_t n = SplitBlanks(after.substr(colon + 1), f, 23);
  if (n < 2) return "expected DEV RWBS ... after the event name";
  uint32_t maj, min;
  if (!ParseMajMin(f[0], &maj, &min)) return "device " + QuoteInput(f[0]) + " is not MAJ,MIN";
  // The device's own spelling ("254,0") is the key.
  const std::string_view dev = f[0];
  if (filter_ && dev != *filter_) {
    trace_.filtered++;
    return {};
  }
  Rwbs rwbs;
  if (!ParseRwbs(f[1], &rwbs)) return "RWBS flags " + QuoteInput(f[1]) + " are not known";
  const size_t nf = std::min(n, size_t(23));  // fields beyond 23 are not looked at
  size_t plus = 2;
  while (plus < nf && f[plus] != "+") plus++;
  const bool has_range = plus + 1 < nf;
  if (kind != source_) {  // issue or complete only for the counts
    if (kind == Kind::kRqIssue) outstanding_.start(t);
    else outstanding_.end(t);
    trace_.ignored++;
    return {};
  }
  if (kind == Kind::kRqIssue) outstanding_.start(t);
  if (rwbs.none) {
    trace_.ignored++;
    return {};
  }
  if (!has_range) return "expected SECTOR + SECTORS";
  uint64_t sector, sectors;
  if (!ParseU64(f[plus - 1], &sector)) return NotANumber("sector", f[plus - 1]);
  if (!ParseU64(f[plus + 1], &sectors)) return NotANumber("sector count", f[plus + 1]);
  if (sector > UINT64_MAX / 512) return "sector " + QuoteInput(f[plus - 1]) + " is beyond 2^64 bytes";
  if (sectors > UINT32_MAX / 512)
    return "length of " + QuoteInput(f[plus + 1]) + " sectors is 4 GiB or more";
  if (!filter_ && (devices_.size() == 0 || dev != last_device_)) {
    devices_.add(dev);
    last_device_ = dev;
  }
  Record r;
  r.t_ns = t;
  r.offset = sector * 512;
  r.len = uint32_t(sectors * 512);
  r.op = rwbs.op;
  if ((rwbs.preflush && r.len == 0) || r.op == Op::kFlush) r.op = Op::kFlush;
  r.fua = r.op == Op::kWrite && rwbs.fua;
  return AddRecord(&trace_, r);
}

}  // namespace

Expected<Trace> ParsePerf(std::string_view data, std::string_view name, const ParseOptions& opts) {
  PerfParser p(data, opts);
  if (auto f = p.set_filter(); !f.ok()) return f.error();
  LineReader lines(data);
  std::string_view text;
  uint64_t number;
  while (lines.next(&text, &number)) {
    if (StopAsked(opts, number)) return Stopped(name);
    std::string err = p.line(text);
    if (err.empty()) continue;
    if (!opts.skip_bad) return MakeError(-EINVAL, LineMessage(name, number, err));
    p.trace().bad++;
  }
  return p.finish(name);
}

}  // namespace blk::bench::trace::internal
