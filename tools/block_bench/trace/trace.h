// Block I/O traces: the records a replay job issues, read from fio iologs,
// blktrace, `perf script` text and public cloud/VM CSV traces.
//
// Every format is turned into the same Trace: records sorted by time (a
// stable sort, so records with equal times keep the file's order), times in
// nanoseconds relative to the first I/O record, offsets and lengths in
// bytes.  Formats and their units are listed in docs/replay.md.
//
// Errors: a malformed record is an error naming "FILE:LINE" (text formats)
// or "FILE: record N at byte B" (blktrace), the field and the value
// (quoted and cut to a bounded length); with ParseOptions::skip_bad it is
// counted in Trace::bad instead.  Parsers never crash and do not allocate
// more than a small constant per input byte.
//
// Thread-safety: pure functions; a Trace is a plain value.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <blkstack/util/result.h>

namespace blk::bench::trace {

enum class Op : uint8_t { kRead, kWrite, kTrim, kFlush };

struct Record {
  int64_t t_ns = 0;     // since the trace's first I/O record (>= 0)
  uint64_t offset = 0;  // bytes (0 for a flush)
  uint32_t len = 0;     // bytes (0 for a flush)
  Op op = Op::kRead;
  bool fua = false;     // a write with forced unit access
  uint16_t file = 0;    // index into Trace::files (iolog); 0 otherwise
  friend bool operator==(const Record&, const Record&) = default;
};

enum class Format {
  kAuto,      // sniffed from the content (SniffFormat)
  kIologV2,   // fio iolog version 2: "FILE ACTION [OFFSET LENGTH]"
  kIologV3,   // fio iolog version 3: "TIME_US FILE ACTION [OFFSET LENGTH]"
  kBlktrace,  // struct blk_io_trace records (either byte order)
  kPerf,      // `perf script` text of block:block_rq_issue/_insert/block_bio_queue
  kAlibaba,   // Alibaba Cloud block traces 2020: device_id,opcode,offset,length,timestamp
  kTencent,   // Tencent CBS: Timestamp,Offset,Size,IOType,VolumeID
  kMsr,       // MSR Cambridge (SNIA): Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
};

// "iolog2", "iolog3", "blktrace", "perf", "alibaba", "tencent", "msr", "auto".
std::string_view Name(Format f);
Expected<Format> ParseFormat(std::string_view name);

struct ParseOptions {
  Format format = Format::kAuto;
  // Only records of this device/volume (trace_device=): blktrace and perf
  // "MAJ,MIN" (or blktrace's 32-bit dev_t in decimal), Alibaba device_id,
  // Tencent VolumeID, MSR "Hostname,DiskNumber" or "Hostname" (then disk 0)
  // ; iolog: a file name.  Empty: every record (a CSV trace with several
  // devices is then an error naming the devices found, as is an iolog
  // naming several files — the caller redirects them).
  std::string device;
  // blktrace and perf with `device` empty: records of every device are
  // taken as one (replay_redirect=: fio sends every device's records to the
  // one target) instead of the several-devices error.
  bool every_device = false;
  // Count malformed records in Trace::bad instead of failing.
  bool skip_bad = false;
  // LoadTrace only: the most bytes read (all per-CPU blktrace files
  // together); a larger trace is refused (util/input_file.h), the message
  // saying how to raise the limit (`how_to_raise`, e.g. "trace_max_size=").
  uint64_t max_bytes = kDefaultMaxBytes;
  std::string how_to_raise;
  // Polled while reading (LoadTrace) and every 65536 records while parsing;
  // true ends the load with -EINTR (a stop request: SIGINT/SIGTERM in the
  // run command).
  std::function<bool()> interrupted;

  static constexpr uint64_t kDefaultMaxBytes = uint64_t(4) << 30;  // 4 GiB
};

struct Trace {
  Format format = Format::kAuto;
  std::vector<Record> records;     // sorted by t_ns; records[0].t_ns == 0
  std::vector<std::string> files;  // iolog: the files named; else empty
  uint64_t bad = 0;       // malformed records skipped (skip_bad)
  uint64_t filtered = 0;  // records of other devices (ParseOptions::device)
  uint64_t ignored = 0;   // well-formed records that are not I/O (blktrace
                          // events other than Q, iolog open/close, ...)
  // When the trace records completions (blktrace C events, MSR response
  // times, perf block_rq_complete): the largest and the time-weighted mean
  // number of I/Os outstanding on the device.  Empty otherwise.
  std::optional<uint32_t> max_outstanding;
  std::optional<double> mean_outstanding;
  int64_t span_ns() const { return records.empty() ? 0 : records.back().t_ns; }
};

// The format of `data` judged from its content (magic numbers, headers,
// column shapes); Format::kAuto when nothing matches.
Format SniffFormat(std::string_view data);

// Parses a whole trace held in memory; `name` is used in error messages.
Expected<Trace> ParseTrace(std::string_view data, std::string_view name, const ParseOptions& opts);

// Reads and parses `path`: a file, "-" for standard input, or the stem of
// per-CPU blktrace files ("NAME" reads NAME.blktrace.0, .1, ... and merges
// them in time order).  Errors name the path.  Reading obeys
// ParseOptions::max_bytes and ::interrupted: a device (`/dev/zero`) is
// refused at once, a file over the limit before it is read, a pipe or
// standard input once more than the limit came (util/input_file.h).
Expected<Trace> LoadTrace(const std::string& path, const ParseOptions& opts);

}  // namespace blk::bench::trace
