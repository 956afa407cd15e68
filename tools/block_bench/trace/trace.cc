// The trace driver: format names, sniffing, loading files, and the helpers
// every parser shares (numbers, lines, devices, outstanding counts, the final
// sort).  The formats themselves are in iolog.cc, blktrace.cc, perf.cc and
// csv.cc.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "tools/block_bench/trace/trace.h"
#include "tools/block_bench/trace/trace_internal.h"
#include <blkstack/util/input_file.h>
#include <blkstack/util/quote.h>

namespace blk::bench::trace {
namespace internal {

bool ParseU64(std::string_view s, uint64_t* out) {
  if (s.empty() || s[0] < '0' || s[0] > '9') return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool ParseI64(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  const bool neg = s[0] == '-';
  std::string_view digits = neg ? s.substr(1) : s;
  if (digits.empty() || digits[0] < '0' || digits[0] > '9') return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool ParseMajMin(std::string_view s, uint32_t* maj, uint32_t* min) {
  const size_t comma = s.find(',');
  if (comma == std::string_view::npos) return false;
  uint64_t a, b;
  if (!ParseU64(s.substr(0, comma), &a) || !ParseU64(s.substr(comma + 1), &b)) return false;
  if (a > UINT32_MAX || b > UINT32_MAX) return false;
  *maj = uint32_t(a);
  *min = uint32_t(b);
  return true;
}

namespace {
bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
}  // namespace

std::string_view Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && IsBlank(s[b])) b++;
  while (e > b && IsBlank(s[e - 1])) e--;
  return s.substr(b, e - b);
}

size_t SplitBlanks(std::string_view s, std::string_view* fields, size_t max) {
  size_t n = 0, i = 0;
  while (true) {
    while (i < s.size() && IsBlank(s[i])) i++;
    if (i == s.size()) return n;
    size_t j = i;
    while (j < s.size() && !IsBlank(s[j])) j++;
    if (n == max) return max + 1;
    fields[n++] = s.substr(i, j - i);
    i = j;
  }
}

size_t SplitCommas(std::string_view s, std::string_view* fields, size_t max) {
  size_t n = 0, i = 0;
  while (true) {
    const size_t j = std::min(s.find(',', i), s.size());
    if (n == max) return max + 1;
    fields[n++] = Trim(s.substr(i, j - i));
    if (j == s.size()) return n;
    i = j + 1;
  }
}

bool LineReader::next(std::string_view* line, uint64_t* number) {
  if (pos_ >= data_.size()) return false;
  size_t end = data_.find('\n', pos_);
  if (end == std::string_view::npos) end = data_.size();
  std::string_view l = data_.substr(pos_, end - pos_);
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  pos_ = end + 1;
  *line = l;
  *number = ++number_;
  return true;
}

std::string LineMessage(std::string_view name, uint64_t line, std::string_view what) {
  return std::string(name) + ":" + std::to_string(line) + ": " + std::string(what);
}

std::string NotANumber(std::string_view field, std::string_view value) {
  return std::string(field) + " " + QuoteInput(value) + " is not a number";
}

std::string TimeOutOfRange(std::string_view field, std::string_view value, std::string_view unit) {
  return std::string(field) + " " + QuoteInput(value) + (unit.empty() ? "" : " ") +
         std::string(unit) + " is out of range (a trace's times must lie within 2^63 - 1 ns, " +
         "292 years, of each other)";
}

void DeviceSet::add(std::string_view dev) {
  for (const std::string& n : names_)
    if (n == dev) return;
  if (names_.size() < kKeep + 1) {
    names_.emplace_back(dev);
    count_ = names_.size();
  } else {
    count_ = kKeep + 2;  // "and more": the exact count is not kept
  }
}

std::string DeviceSet::list() const {
  std::string out;
  const size_t shown = std::min(names_.size(), kKeep);
  for (size_t i = 0; i < shown; i++) out += (i ? ", " : "") + ShortenInput(names_[i]);
  if (count_ > kKeep) out += " and more";
  return out;
}

Error SeveralDevices(std::string_view name, const DeviceSet& devices, std::string_view syntax) {
  return MakeError(-EINVAL, std::string(name) + ": the trace has records of several devices (" +
                                devices.list() + "): pick one with trace_device=" +
                                std::string(syntax));
}

void Outstanding::finish(Trace* trace) {
  bool any_end = false;
  for (const Event& e : events_) any_end |= e.delta < 0;
  if (!any_end) return;
  // Ends first at equal times: an I/O issued as another completes does not
  // overlap it.
  std::stable_sort(events_.begin(), events_.end(), [](const Event& a, const Event& b) {
    return a.t != b.t ? a.t < b.t : a.delta < b.delta;
  });
  uint32_t n = 0, max = 0;
  long double area = 0;
  for (size_t i = 0; i < events_.size(); i++) {
    if (i) area += (long double)n * ((long double)events_[i].t - (long double)events_[i - 1].t);
    if (events_[i].delta > 0) n++;
    else if (n) n--;
    max = std::max(max, n);
  }
  const long double span = (long double)events_.back().t - (long double)events_.front().t;
  trace->max_outstanding = max;
  trace->mean_outstanding = span > 0 ? double(area / span) : double(max);
}

std::string AddRecord(Trace* trace, Record r) {
  if (r.op == Op::kFlush) {
    r.offset = 0;
    r.len = 0;
  } else if (r.len == 0) {
    trace->ignored++;  // nothing to replay
    return {};
  } else if (r.offset > UINT64_MAX - r.len) {
    return "offset " + std::to_string(r.offset) + " + length " + std::to_string(r.len) +
           " is beyond 2^64 bytes";
  }
  trace->records.push_back(r);
  return {};
}

Expected<Trace> Finish(Trace trace, std::string_view name) {
  if (trace.records.empty()) {
    std::string why;
    if (trace.bad || trace.filtered || trace.ignored)
      why = " (" + std::to_string(trace.bad) + " bad, " + std::to_string(trace.filtered) +
            " of other devices, " + std::to_string(trace.ignored) + " not I/O)";
    return MakeError(-EINVAL, std::string(name) + ": no I/O records in the trace" + why);
  }
  auto& recs = trace.records;
  if (!std::is_sorted(recs.begin(), recs.end(),
                      [](const Record& a, const Record& b) { return a.t_ns < b.t_ns; }))
    std::stable_sort(recs.begin(), recs.end(),
                     [](const Record& a, const Record& b) { return a.t_ns < b.t_ns; });
  const int64_t base = recs.front().t_ns;
  int64_t span;
  if (!CheckedSub(recs.back().t_ns, base, &span))
    return MakeError(-EINVAL, std::string(name) + ": the trace's times span more than " +
                                  "2^63 - 1 ns (292 years)");
  for (Record& r : recs) r.t_ns -= base;
  return trace;
}

}  // namespace internal

using namespace internal;

namespace {

constexpr struct {
  Format format;
  std::string_view name;
} kNames[] = {
    {Format::kAuto, "auto"},       {Format::kIologV2, "iolog2"}, {Format::kIologV3, "iolog3"},
    {Format::kBlktrace, "blktrace"}, {Format::kPerf, "perf"},    {Format::kAlibaba, "alibaba"},
    {Format::kTencent, "tencent"}, {Format::kMsr, "msr"},
};

constexpr std::string_view kFormatList = "iolog2, iolog3, blktrace, perf, alibaba, tencent, msr";

constexpr std::string_view kIologV2Header = "fio version 2 iolog";
constexpr std::string_view kIologV3Header = "fio version 3 iolog";

// The reader's limit for the trace's (remaining) budget.
InputLimit LimitFor(const ParseOptions& opts, uint64_t budget) {
  InputLimit l;
  l.max_bytes = budget;
  l.what = "a trace";
  l.how_to_raise = opts.how_to_raise;
  l.interrupted = opts.interrupted;
  return l;
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

}  // namespace

std::string_view Name(Format f) {
  for (const auto& n : kNames)
    if (n.format == f) return n.name;
  return "?";
}

Expected<Format> ParseFormat(std::string_view name) {
  for (const auto& n : kNames)
    if (n.name == name) return n.format;
  return MakeError(-EINVAL, "trace_format: unknown format " + QuoteInput(name) + " (one of auto, " +
                                std::string(kFormatList) + ")");
}

Format SniffFormat(std::string_view data) {
  if (LooksLikeBlktrace(data)) return Format::kBlktrace;
  const std::string_view first = data.substr(0, std::min(data.find('\n'), data.size()));
  if (Trim(first) == kIologV2Header) return Format::kIologV2;
  if (Trim(first) == kIologV3Header) return Format::kIologV3;
  // perf script: a tracepoint name on one of the first lines.
  const std::string_view head = data.substr(0, 1 << 16);
  if (head.find(" block:block_") != std::string_view::npos) return Format::kPerf;
  return SniffCsv(data);
}

Expected<Trace> ParseTrace(std::string_view data, std::string_view name, const ParseOptions& opts) {
  Format f = opts.format;
  if (f == Format::kAuto) {
    f = SniffFormat(data);
    if (f == Format::kAuto)
      return MakeError(-EINVAL, std::string(name) +
                                    ": cannot tell the trace's format from its content: name it "
                                    "with trace_format= (one of " +
                                    std::string(kFormatList) + ")");
  }
  switch (f) {
    case Format::kIologV2:
    case Format::kIologV3: {
      auto t = ParseIolog(data, name, opts);
      if (t.ok() && t->format != f)
        return MakeError(-EINVAL, std::string(name) + ": trace_format=" + std::string(Name(f)) +
                                      " but the file is a " + std::string(Name(t->format)));
      return t;
    }
    case Format::kBlktrace:
      return ParseBlktrace({NamedData{name, data}}, opts);
    case Format::kPerf:
      return ParsePerf(data, name, opts);
    case Format::kAlibaba:
    case Format::kTencent:
    case Format::kMsr:
      return ParseCsv(data, name, opts, f);
    case Format::kAuto:
      break;
  }
  return MakeError(-EINVAL, std::string(name) + ": unknown trace format");
}

Expected<Trace> LoadTrace(const std::string& path, const ParseOptions& opts) {
  if (path == "-") {
    auto data = ReadInputFd(STDIN_FILENO, "-", LimitFor(opts, opts.max_bytes));
    if (!data.ok()) return data.error();
    return ParseTrace(*data, "-", opts);
  }
  if (!Exists(path) && Exists(path + ".blktrace.0") &&
      (opts.format == Format::kAuto || opts.format == Format::kBlktrace)) {
    // The limit is for the files together: each gets what the others left.
    uint64_t left = opts.max_bytes;
    std::vector<std::string> names, datas;
    for (int cpu = 0; Exists(path + ".blktrace." + std::to_string(cpu)); cpu++) {
      names.push_back(path + ".blktrace." + std::to_string(cpu));
      auto data = ReadInputFile(names.back(), LimitFor(opts, left));
      if (!data.ok()) return data.error();
      left -= data->size();
      datas.push_back(std::move(*data));
    }
    std::vector<NamedData> files;
    for (size_t i = 0; i < names.size(); i++) files.push_back({names[i], datas[i]});
    return ParseBlktrace(files, opts);
  }
  auto data = ReadInputFile(path, LimitFor(opts, opts.max_bytes));
  if (!data.ok()) return data.error();
  return ParseTrace(*data, path, opts);
}

}  // namespace blk::bench::trace
