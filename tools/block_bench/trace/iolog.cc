// fio iologs, versions 2 and 3 (what `fio --write_iolog` writes and
// `fio --read_iolog` reads).
//
//   fio version 2 iolog                fio version 3 iolog
//   FILE ACTION                        TIME_US FILE ACTION
//   FILE ACTION OFFSET LENGTH          TIME_US FILE ACTION OFFSET LENGTH
//
// File actions (add, open, close) take no numbers; I/O actions (read,
// write, trim, sync, datasync, and v2's wait) take both, as in fio, which
// rejects any other field count.  File actions and waits are counted in
// Trace::ignored.  Trace::files lists the files that have I/O records, in
// the order first seen.
//
// Times.  v3: TIME_US is microseconds since the job started.  v2 has no
// timestamps; its only timing is "FILE wait VALUE LENGTH", and fio 3.33
// (iolog.c, read_iolog_get: `if (ipo->delay > mtime_since_genesis())
// usec_sleep(...)`) treats VALUE as an *absolute* time, in milliseconds since
// the job started, to wait for — not a delay added to the previous one:
// a wait whose time has passed does nothing (fio issues #247, #1568: ten
// "wait 1000" lines wait one second in all).  LENGTH is required and
// ignored.  So a v2 record's time is the largest wait VALUE before it
// (0 if none).  fio ignores "wait" in a v3 log (with a message); so do we.
#include <cerrno>

#include "tools/block_bench/trace/trace_internal.h"
#include <blkstack/util/quote.h>

namespace blk::bench::trace::internal {
namespace {

constexpr std::string_view kV2 = "fio version 2 iolog";
constexpr std::string_view kV3 = "fio version 3 iolog";

class IologParser {
 public:
  IologParser(std::string_view name, const ParseOptions& opts, int version)
      : name_(name), opts_(opts), version_(version) {
    trace_.format = version == 2 ? Format::kIologV2 : Format::kIologV3;
  }

  // One line (not the header); an error text or empty.
  std::string line(std::string_view text);
  Trace& trace() { return trace_; }

 private:
  // The index of `file` in trace_.files, added if new; -1 if there are
  // already 65536 files.
  int FileIndex(std::string_view file);

  std::string_view name_;
  const ParseOptions& opts_;
  int version_;
  Trace trace_;
  int64_t v2_now_ns_ = 0;
  std::string_view last_file_;  // cache for FileIndex
  int last_index_ = -1;
};

int IologParser::FileIndex(std::string_view file) {
  if (last_index_ >= 0 && file == last_file_) return last_index_;
  int i = 0;
  for (; i < int(trace_.files.size()); i++)
    if (trace_.files[i] == file) break;
  if (i == int(trace_.files.size())) {
    if (i > UINT16_MAX) return -1;
    trace_.files.emplace_back(file);
  }
  last_file_ = file;  // a view of the input, which outlives the parser
  last_index_ = i;
  return i;
}

std::string IologParser::line(std::string_view text) {
  std::string_view f[6];
  const size_t n = SplitBlanks(text, f, 5);
  if (n == 0) return {};  // a blank line
  if (Trim(text) == kV2 || Trim(text) == kV3)
    return "a second iolog header (fio appends to an existing --write_iolog file: delete it "
           "before each run)";
  int64_t t_ns = v2_now_ns_;
  std::string_view* rest = f;
  size_t nrest = n;
  if (version_ == 3) {
    int64_t us;
    if (!ParseI64(f[0], &us)) return NotANumber("time", f[0]);
    if (us < 0) return "time " + QuoteInput(f[0]) + " is negative (us since the job started)";
    if (!CheckedMul(us, 1000, &t_ns)) return TimeOutOfRange("time", f[0], "us");
    rest++;
    nrest--;
  }
  if (nrest != 2 && nrest != 4)
    return std::string("expected ") + (version_ == 3 ? "TIME " : "") +
           "FILE ACTION [OFFSET LENGTH], found " + QuoteInput(text);
  const std::string_view file = rest[0], action = rest[1];
  if (nrest == 2) {
    if (action != "add" && action != "open" && action != "close")
      return "unknown file action " + QuoteInput(action) + " (add, open, close; I/O actions " +
             "take OFFSET LENGTH)";
    if (!opts_.device.empty() && file != opts_.device) trace_.filtered++;
    else trace_.ignored++;
    return {};
  }
  Record r;
  bool wait = false;
  if (action == "read") r.op = Op::kRead;
  else if (action == "write") r.op = Op::kWrite;
  else if (action == "trim") r.op = Op::kTrim;
  else if (action == "sync" || action == "datasync") r.op = Op::kFlush;
  else if (action == "wait") wait = true;
  else
    return "unknown action " + QuoteInput(action) +
           " (read, write, trim, sync, datasync, wait, add, open, close)";
  uint64_t offset, len;
  if (!ParseU64(rest[2], &offset)) return NotANumber(wait ? "wait time" : "offset", rest[2]);
  if (!ParseU64(rest[3], &len)) return NotANumber("length", rest[3]);
  if (!wait && len > UINT32_MAX)
    return "length " + QuoteInput(rest[3]) + " is above 4 GiB - 1 (2^32 - 1 bytes)";
  if (!opts_.device.empty() && file != opts_.device) {
    trace_.filtered++;
    return {};
  }
  if (wait) {
    trace_.ignored++;
    if (version_ == 3) return {};  // fio ignores it too
    int64_t ns;
    if (offset > uint64_t(INT64_MAX) || !CheckedMul(int64_t(offset), 1000000, &ns))
      return TimeOutOfRange("wait time", rest[2], "ms");
    v2_now_ns_ = std::max(v2_now_ns_, ns);
    return {};
  }
  const int index = FileIndex(file);
  if (index < 0) return "more than 65536 files";
  r.t_ns = t_ns;
  r.offset = offset;
  r.len = uint32_t(len);
  r.file = uint16_t(index);
  return AddRecord(&trace_, r);
}

}  // namespace

Expected<Trace> ParseIolog(std::string_view data, std::string_view name, const ParseOptions& opts) {
  LineReader lines(data);
  std::string_view text;
  uint64_t number;
  int version = 0;
  if (lines.next(&text, &number)) {
    if (Trim(text) == kV2) version = 2;
    else if (Trim(text) == kV3) version = 3;
  }
  if (!version)
    return MakeError(-EINVAL, LineMessage(name, 1, "not a fio iolog: the first line must be \"" +
                                                       std::string(kV2) + "\" or \"" +
                                                       std::string(kV3) + "\""));
  IologParser p(name, opts, version);
  while (lines.next(&text, &number)) {
    if (StopAsked(opts, number)) return Stopped(name);
    std::string err = p.line(text);
    if (err.empty()) continue;
    if (!opts.skip_bad) return MakeError(-EINVAL, LineMessage(name, number, err));
    p.trace().bad++;
  }
  return Finish(std::move(p.trace()), name);
}

}  // namespace blk::bench::trace::internal
