#include "tools/block_bench/trace/blktrace_merge.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <blkstack/util/input_file.h>

namespace blk::bench::trace {
namespace {

constexpr size_t kRecordSize = 48;
constexpr uint32_t kMagic = 0x65617400;
constexpr uint32_t kTaQueue = 1;
constexpr uint32_t kTcRead = 1u << 0, kTcWrite = 1u << 1, kTcDiscard = 1u << 13;

// The record's fields, in this machine's byte order.
struct Record {
  uint32_t magic, sequence;
  uint64_t time, sector;
  uint32_t bytes, action, pid, device, cpu;
  uint16_t error, pdu_len;
};

template <class T>
T Load(const unsigned char* p, bool swap) {
  T v;
  std::memcpy(&v, p, sizeof v);
  if (!swap) return v;
  if constexpr (sizeof(T) == 2) return T(__builtin_bswap16(v));
  if constexpr (sizeof(T) == 4) return T(__builtin_bswap32(v));
  return T(__builtin_bswap64(v));
}

Record Decode(const unsigned char* p, bool swap) {
  Record r;
  r.magic = Load<uint32_t>(p, swap);
  r.sequence = Load<uint32_t>(p + 4, swap);
  r.time = Load<uint64_t>(p + 8, swap);
  r.sector = Load<uint64_t>(p + 16, swap);
  r.bytes = Load<uint32_t>(p + 24, swap);
  r.action = Load<uint32_t>(p + 28, swap);
  r.pid = Load<uint32_t>(p + 32, swap);
  r.device = Load<uint32_t>(p + 36, swap);
  r.cpu = Load<uint32_t>(p + 40, swap);
  r.error = Load<uint16_t>(p + 44, swap);
  r.pdu_len = Load<uint16_t>(p + 46, swap);
  return r;
}

void Append(std::string& out, const Record& r) {
  unsigned char b[kRecordSize];
  auto put = [&b](size_t at, const auto& v) { std::memcpy(b + at, &v, sizeof v); };
  put(0, r.magic);
  put(4, r.sequence);
  put(8, r.time);
  put(16, r.sector);
  put(24, r.bytes);
  put(28, r.action);
  put(32, r.pid);
  put(36, r.device);
  put(40, r.cpu);
  put(44, r.error);
  const uint16_t no_pdu = 0;
  put(46, no_pdu);
  out.append(reinterpret_cast<const char*>(b), kRecordSize);
}

bool Kept(const Record& r) {
  const uint32_t category = r.action >> 16;
  return (r.action & 0xffff) == kTaQueue && (category & (kTcRead | kTcWrite | kTcDiscard));
}

uint64_t Scaled(uint64_t time, uint32_t pass, uint64_t length, uint32_t scalar) {
  const unsigned __int128 t =
      ((unsigned __int128)time + (unsigned __int128)pass * length) * scalar / 100;
  return t > UINT64_MAX ? UINT64_MAX : uint64_t(t);
}

// One input being read: its next kept record.
struct Cursor {
  const MergeInput* in;
  bool swap = false;
  size_t pos = 0;          // the next record's offset
  uint64_t index = 0;      // the next record's number in this pass
  uint32_t pass = 0;
  uint64_t length = 0;     // the time of the input's last record
  bool kept_in_pass = false;
  Record rec{};            // the current record, its time transformed
};

std::string Where(const Cursor& c, const std::string& what) {
  return c.in->name + ": record " + std::to_string(c.index) + " at byte " + std::to_string(c.pos) +
         ": " + what;
}

// Moves `c` to its next kept record: true, false at the end of its last
// pass, or an error.
Expected<bool> Advance(Cursor& c) {
  const auto* p = reinterpret_cast<const unsigned char*>(c.in->data.data());
  const size_t size = c.in->data.size();
  for (;;) {
    if (c.pos == size) {
      // A pass without a kept record would repeat forever: the input ends.
      if (++c.pass >= c.in->iters || !c.kept_in_pass) return false;
      c.pos = 0;
      c.index = 0;
      c.kept_in_pass = false;
      continue;
    }
    if (size - c.pos < kRecordSize)
      return MakeError(-EINVAL, Where(c, "truncated record (" + std::to_string(size - c.pos) +
                                             " of 48 bytes)"));
    const Record r = Decode(p + c.pos, c.swap);
    if ((r.magic & 0xffffff00) != kMagic) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%08x", Load<uint32_t>(p + c.pos, false));
      return MakeError(-EINVAL, Where(c, std::string("bad magic ") + buf +
                                             (c.pos == 0 ? " (not a blktrace)" : "")));
    }
    if (r.pdu_len > size - c.pos - kRecordSize)
      return MakeError(-EINVAL, Where(c, "payload of " + std::to_string(r.pdu_len) +
                                             " bytes runs past the end of the file"));
    c.pos += kRecordSize + r.pdu_len;
    c.index++;
    if (!Kept(r)) continue;
    c.rec = r;
    c.rec.time = Scaled(r.time, c.pass, c.length, c.in->scalar);
    c.kept_in_pass = true;
    return true;
  }
}

// The time of the input's last record (raw): the span a pass takes.
Expected<uint64_t> LastTime(const Cursor& c) {
  const auto* p = reinterpret_cast<const unsigned char*>(c.in->data.data());
  uint64_t last = 0;
  for (size_t pos = 0; pos + kRecordSize <= c.in->data.size();) {
    const Record r = Decode(p + pos, c.swap);
    if ((r.magic & 0xffffff00) != kMagic) break;  // Advance() reports it
    last = r.time;
    pos += kRecordSize + r.pdu_len;
  }
  return last;
}

}  // namespace

Expected<MergeResult> MergeBlktraceData(const std::vector<MergeInput>& inputs) {
  std::vector<Cursor> open;
  for (const MergeInput& in : inputs) {
    Cursor c;
    c.in = &in;
    if (in.data.size() >= 4) {
      const uint32_t m = Load<uint32_t>(reinterpret_cast<const unsigned char*>(in.data.data()), false);
      c.swap = (m & 0xffffff00) != kMagic && (__builtin_bswap32(m) & 0xffffff00) == kMagic;
    }
    Expected<uint64_t> last = LastTime(c);
    if (!last.ok()) return last.error();
    c.length = last.value();
    Expected<bool> more = Advance(c);
    if (!more.ok()) return more.error();
    if (more.value()) open.push_back(c);
  }
  MergeResult out;
  while (!open.empty()) {
    size_t first = 0;
    for (size_t i = 1; i < open.size(); i++)
      if (open[i].rec.time < open[first].rec.time) first = i;
    Cursor& c = open[first];
    Append(out.data, c.rec);
    out.records++;
    Expected<bool> more = Advance(c);
    if (!more.ok()) return more.error();
    if (!more.value()) {
      open[first] = open.back();  // fio's order: the last open input takes the place
      open.pop_back();
    }
  }
  return out;
}

Expected<uint64_t> MergeBlktraceFiles(const std::vector<std::string>& files,
                                      const std::vector<uint32_t>& scalars,
                                      const std::vector<uint32_t>& iters, const std::string& out,
                                      uint64_t max_bytes) {
  if (!scalars.empty() && scalars.size() != files.size())
    return MakeError(-EINVAL, "merge_blktrace_scalars has " + std::to_string(scalars.size()) +
                                  " values for " + std::to_string(files.size()) +
                                  " read_iolog files (fio: merge_blktrace_scalars(" +
                                  std::to_string(scalars.size()) + ") != nr_logs(" +
                                  std::to_string(files.size()) + "))");
  if (!iters.empty() && iters.size() != files.size())
    return MakeError(-EINVAL, "merge_blktrace_iters has " + std::to_string(iters.size()) +
                                  " values for " + std::to_string(files.size()) +
                                  " read_iolog files (fio: merge_blktrace_iters(" +
                                  std::to_string(iters.size()) + ") != nr_logs(" +
                                  std::to_string(files.size()) + "))");
  std::vector<std::string> datas;
  datas.reserve(files.size());
  InputLimit limit;
  limit.max_bytes = max_bytes;
  limit.what = "a trace";
  limit.how_to_raise = "raise it with trace_max_size=";
  for (const std::string& f : files) {
    Expected<std::string> d = ReadInputFile(f, limit);
    if (!d.ok()) return d.error();
    datas.push_back(std::move(d.value()));
  }
  std::vector<MergeInput> inputs(files.size());
  for (size_t i = 0; i < files.size(); i++) {
    inputs[i].name = files[i];
    inputs[i].data = datas[i];
    if (!scalars.empty()) inputs[i].scalar = scalars[i];
    if (!iters.empty()) inputs[i].iters = iters[i];
  }
  Expected<MergeResult> merged = MergeBlktraceData(inputs);
  if (!merged.ok()) return merged.error();
  const std::string tmp = out + ".tmp." + std::to_string(getpid());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int e = errno;
    return MakeError(-e, "merge_blktrace_file=" + out + ": cannot create " + tmp + ": " +
                             ErrnoString(-e));
  }
  const std::string& data = merged.value().data;
  for (size_t done = 0; done < data.size();) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      close(fd);
      unlink(tmp.c_str());
      return MakeError(-e, "merge_blktrace_file=" + out + ": write: " + ErrnoString(-e));
    }
    done += size_t(n);
  }
  if (close(fd) != 0 || rename(tmp.c_str(), out.c_str()) != 0) {
    const int e = errno;
    unlink(tmp.c_str());
    return MakeError(-e, "merge_blktrace_file=" + out + ": " + ErrnoString(-e));
  }
  return merged.value().records;
}

}  // namespace blk::bench::trace
