// Public block-I/O traces in CSV, one I/O a line, with or without a header
// line (a first line whose time field is not a number is taken as one):
//
//   Alibaba Cloud block traces 2020:  device_id,opcode,offset,length,timestamp
//       opcode R or W; offset and length in bytes; timestamp in microseconds.
//   Tencent CBS:                      Timestamp,Offset,Size,IOType,VolumeID
//       Timestamp in whole seconds; Offset and Size in 512-byte sectors;
//       IOType 0 read, 1 write.  With one-second resolution, the records of
//       one second all get that second's time and keep the file's order (the
//       sort is stable): a replay issues them back to back.
//   MSR Cambridge (SNIA IOTTA):       Timestamp,Hostname,DiskNumber,Type,
//                                     Offset,Size,ResponseTime
//       Timestamp and ResponseTime in Windows filetime ticks (100 ns); Type
//       Read or Write; Offset and Size in bytes.  The response times give
//       the outstanding counts.  The device is "Hostname,DiskNumber".
//
// Times are taken relative to the first record before the unit conversion,
// so absolute filetimes (~1.3e17 ticks, beyond int64 in nanoseconds) work.
#include <cerrno>

#include "tools/block_bench/trace/trace_internal.h"
#include <blkstack/util/quote.h>

namespace blk::bench::trace::internal {
namespace {

struct Layout {
  size_t columns;
  size_t time;  // index of the time field
  std::string_view header;
  int64_t ns_per_tick;
};

Layout LayoutOf(Format f) {
  switch (f) {
    case Format::kAlibaba: return {5, 4, "device_id,opcode,offset,length,timestamp", 1000};
    case Format::kTencent: return {5, 0, "Timestamp,Offset,Size,IOType,VolumeID", 1000000000};
    default:
      return {7, 0, "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime", 100};
  }
}

bool HasLetter(std::string_view s) {
  for (char c : s)
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return false;
}

bool IsNumber(std::string_view s) {
  int64_t v;
  return ParseI64(s, &v);
}

// The format one data line has, or kAuto.
Format Classify(std::string_view line) {
  std::string_view f[8];
  const size_t n = SplitCommas(line, f, 7);
  if (n == 5 && (f[1] == "R" || f[1] == "W") && IsNumber(f[2]) && IsNumber(f[4]))
    return Format::kAlibaba;
  if (n == 5 && (f[3] == "0" || f[3] == "1") && IsNumber(f[0]) && IsNumber(f[1]))
    return Format::kTencent;
  if (n == 7 && (f[3] == "Read" || f[3] == "Write") && IsNumber(f[0])) return Format::kMsr;
  return Format::kAuto;
}

class CsvParser {
 public:
  CsvParser(const ParseOptions& opts, Format f) : opts_(opts), format_(f), layout_(LayoutOf(f)) {
    trace_.format = f;
    if (f == Format::kMsr && !opts.device.empty()) {
      const size_t comma = opts.device.find(',');
      host_ = std::string_view(opts.device).substr(0, comma);
      disk_ = comma == std::string::npos ? "0" : std::string_view(opts.device).substr(comma + 1);
    }
  }
  // One line; `first` for the first non-blank line (may be a header).
  std::string line(std::string_view text, bool first);
  Trace& trace() { return trace_; }
  Expected<Trace> finish(std::string_view name) {
    if (devices_.size() > 1)
      return SeveralDevices(name, devices_,
                            format_ == Format::kAlibaba   ? "DEVICE_ID"
                            : format_ == Format::kTencent ? "VOLUME_ID"
                                                          : "HOSTNAME,DISK");
    outstanding_.finish(&trace_);
    return Finish(std::move(trace_), name);
  }

 private:
  // `raw` time in the format's ticks as ns since the first record.
  std::string Time(std::string_view raw, int64_t* ns);
  // false when filtered out.
  bool Keep(std::string_view a, std::string_view b);

  const ParseOptions& opts_;
  Format format_;
  Layout layout_;
  Trace trace_;
  std::optional<int64_t> base_;
  std::string_view host_, disk_;  // MSR filter
  DeviceSet devices_;
  std::string last_a_, last_b_;
  bool have_last_ = false;
  Outstanding outstanding_;
};

std::string CsvParser::Time(std::string_view raw, int64_t* ns) {
  int64_t ticks, delta;
  if (!ParseI64(raw, &ticks)) return NotANumber("timestamp", raw);
  if (!base_) base_ = ticks;
  // Relative to the first record: absolute MSR filetimes (~1.3e17 ticks)
  // are beyond int64 in ns, their differences are not.
  if (!CheckedSub(ticks, *base_, &delta) || !CheckedMul(delta, layout_.ns_per_tick, ns))
    return "timestamp " + QuoteInput(raw) + " is too far from the first record's (" +
           std::to_string(*base_) + "): a trace's times must lie within 2^63 - 1 ns, 292 " +
           "years, of each other";
  return {};
}

bool CsvParser::Keep(std::string_view a, std::string_view b) {
  if (!opts_.device.empty()) {
    const bool keep = format_ == Format::kMsr ? (a == host_ && b == disk_) : a == opts_.device;
    if (!keep) trace_.filtered++;
    return keep;
  }
  if (!have_last_ || a != last_a_ || b != last_b_) {
    devices_.add(format_ == Format::kMsr ? std::string(a) + "," + std::string(b) : std::string(a));
    last_a_ = a;
    last_b_ = b;
    have_last_ = true;
  }
  return true;
}

std::string CsvParser::line(std::string_view text, bool first) {
  std::string_view f[8];
  const size_t n = SplitCommas(text, f, 7);
  if (n != layout_.columns)
    return "expected " + std::to_string(layout_.columns) + " fields (" +
           std::string(layout_.header) + "), found " +
           (n > 7 ? std::string("more than 7") : std::to_string(n)) + ": " + QuoteInput(text);
  if (first && !IsNumber(f[layout_.time]) && HasLetter(f[layout_.time])) return {};  // header
  Record r;
  uint64_t offset, len;
  std::string err;
  int64_t resp_ticks = -1;
  switch (format_) {
    case Format::kAlibaba:
      if (f[1] == "R" || f[1] == "r") r.op = Op::kRead;
      else if (f[1] == "W" || f[1] == "w") r.op = Op::kWrite;
      else return "opcode " + QuoteInput(f[1]) + " is not R or W";
      if (!ParseU64(f[2], &offset)) return NotANumber("offset", f[2]);
      if (!ParseU64(f[3], &len)) return NotANumber("length", f[3]);
      if (!(err = Time(f[4], &r.t_ns)).empty()) return err;
      if (!Keep(f[0], {})) return {};
      break;
    case Format::kTencent: {
      if (f[3] == "0") r.op = Op::kRead;
      else if (f[3] == "1") r.op = Op::kWrite;
      else return "IOType " + QuoteInput(f[3]) + " is not 0 (read) or 1 (write)";
      uint64_t sector, sectors;
      if (!ParseU64(f[1], &sector)) return NotANumber("offset", f[1]);
      if (!ParseU64(f[2], &sectors)) return NotANumber("size", f[2]);
      if (sector > UINT64_MAX / 512) return "offset " + QuoteInput(f[1]) + " is beyond 2^64 bytes";
      if (sectors > UINT64_MAX / 512) return "size " + QuoteInput(f[2]) + " is beyond 2^64 bytes";
      offset = sector * 512;
      len = sectors * 512;
      if (!(err = Time(f[0], &r.t_ns)).empty()) return err;
      if (!Keep(f[4], {})) return {};
      break;
    }
    default:
      if (f[3] == "Read") r.op = Op::kRead;
      else if (f[3] == "Write") r.op = Op::kWrite;
      else return "Type " + QuoteInput(f[3]) + " is not Read or Write";
      if (!ParseU64(f[4], &offset)) return NotANumber("offset", f[4]);
      if (!ParseU64(f[5], &len)) return NotANumber("size", f[5]);
      if (!ParseI64(f[6], &resp_ticks) || resp_ticks < 0) return NotANumber("response time", f[6]);
      if (!(err = Time(f[0], &r.t_ns)).empty()) return err;
      if (!Keep(f[1], f[2])) return {};
      break;
  }
  if (len > UINT32_MAX) return "length " + std::to_string(len) + " is above 4 GiB - 1";
  r.offset = offset;
  r.len = uint32_t(len);
  if (resp_ticks >= 0) {
    int64_t resp_ns, end;
    if (!CheckedMul(resp_ticks, 100, &resp_ns) || !CheckedAdd(r.t_ns, resp_ns, &end))
      return TimeOutOfRange("response time", f[6], "ticks");
    outstanding_.start(r.t_ns);
    outstanding_.end(end);
  }
  return AddRecord(&trace_, r);
}

}  // namespace

Format SniffCsv(std::string_view data) {
  // The first few non-blank lines: those of a known shape must agree (a
  // header or a malformed line has none); at least one must have one.
  LineReader lines(data);
  std::string_view text;
  uint64_t number;
  Format found = Format::kAuto;
  for (int looked = 0; looked < 8 && lines.next(&text, &number);) {
    if (Trim(text).empty()) continue;
    looked++;
    const Format f = Classify(text);
    if (f == Format::kAuto) continue;
    if (found != Format::kAuto && f != found) return Format::kAuto;
    found = f;
  }
  return found;
}

Expected<Trace> ParseCsv(std::string_view data, std::string_view name, const ParseOptions& opts,
                         Format format) {
  CsvParser p(opts, format);
  LineReader lines(data);
  std::string_view text;
  uint64_t number;
  bool first = true;
  while (lines.next(&text, &number)) {
    if (StopAsked(opts, number)) return Stopped(name);
    if (Trim(text).empty()) continue;
    std::string err = p.line(text, first);
    first = false;
    if (err.empty()) continue;
    if (!opts.skip_bad) return MakeError(-EINVAL, LineMessage(name, number, err));
    p.trace().bad++;
  }
  return p.finish(name);
}

}  // namespace blk::bench::trace::internal
