// TraceSource: a recorded trace (read_iolog=) as a job clone's I/O, with
// fio's replay options applied to every record in this order:
//  1. replay_skip drops the named operations (counted in skipped());
//  2. replay_scale divides offsets; replay_align rounds offsets and lengths
//     down to its power of 2 (a length below it becomes one unit);
//  3. a record of length 0 (other than a flush) is dropped (skipped());
//  4. folding: a record that would end past the target gets the offset
//     (offset mod (target size - length + 1)) rounded down to 512 bytes (or
//     replay_align), so it lands inside the target with its length and
//     alignment kept (counted in folded()); a record longer than the target
//     is dropped (too_large());
//  5. at_ns = t_ns * 100 / replay_time_scale, saturating at kNeverNs
//     (util/saturating.h: a time past int64 is never due, see pacing.h);
//     -1 with replay_no_stall.
// The trace is shared by the clones replaying it (TraceCache).
//
// Thread-safety: a TraceSource on its clone's thread; TraceCache from any
// thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/source.h"
#include "tools/block_bench/run/stop.h"
#include "tools/block_bench/trace/trace.h"
#include <blkstack/util/result.h>

namespace blk::bench {

// The trace clone `clone` of `job` replays: read_iolog's entries in turn.
const std::string& TracePathFor(const JobOptions& job, uint32_t clone);

// True when `name` (an iolog's file column) is a driver-graph spec: text
// that parses as a spec (QEMU -blockdev style or JSON, block/options.h) and
// has a `driver` key.  block-bench's write_iolog on a graph target and
// tools/emulator --write-iolog name the graph this way.
bool IsGraphSpec(std::string_view name);

// The target of a replay whose job names none (no filename=, blockdev= or
// replay_redirect=, and an ioengine other than null and rbd), taken from
// the one file trace `t` (read from `path`) names, into `tj`:
//  * a graph spec (IsGraphSpec) becomes tj->blockdev: the replay opens that
//    graph exactly as blockdev= would;
//  * a path that exists becomes tj->filenames (fio's behaviour);
//  * anything else is refused: nothing is ever created under a name the
//    trace only mentions (fio 3.33 fails to open it too).
// Errors (-EINVAL) are one line naming `path`, what the trace names, and
// the options that give a target.  Only stats the name.
Expected<void> TakeTraceTarget(const trace::Trace& t, const std::string& path, JobOptions* tj);

// Traces loaded once per run and shared by the clones that replay them.
class TraceCache {
 public:
  // The trace at `path` parsed with the job's trace_format, trace_device
  // and trace_skip_bad, read up to its trace_max_size; errors name the path
  // (and the line).  A request on `stop` (may be null) ends the reading
  // with -EINTR (a pipe is waited on at most 100 ms between checks).
  Expected<std::shared_ptr<const trace::Trace>> get(const std::string& path, const JobOptions& job,
                                                    const StopSource* stop = nullptr);

 private:
  std::mutex mu_;
  std::map<std::string, Expected<std::shared_ptr<const trace::Trace>>> loaded_;
};

class TraceSource final : public IoSource {
 public:
  // `target_size`: the length of the opened target in bytes.
  TraceSource(std::shared_ptr<const trace::Trace> t, const JobOptions& job, uint64_t target_size);

  bool next(IoUnit* u) override;
  bool has_dir(Dir d) const override { return has_[int(d)]; }
  uint64_t max_bs() const override { return max_bs_; }
  uint64_t io_limit() const override { return bytes_; }

  uint64_t ios() const { return ios_; }          // records that will be issued
  uint64_t skipped() const { return skipped_; }  // replay_skip and empty records
  uint64_t folded() const { return folded_; }
  uint64_t too_large() const { return too_large_; }
  int64_t span_ns() const { return span_ns_; }   // of the issued records, scaled

  // The largest extent (offset + length) any record reaches after replay_scale
  // and replay_align: the size a new file or null device gets.
  static uint64_t Extent(const trace::Trace& t, const JobOptions& job);

 private:
  // Transforms record `r`; false when it is not issued.  Counts if `count`.
  bool convert(const trace::Record& r, IoUnit* u, bool count);

  std::shared_ptr<const trace::Trace> trace_;
  const JobOptions& job_;
  uint64_t target_size_;
  size_t next_ = 0;
  bool has_[kNumDirs] = {};
  uint64_t max_bs_ = 512, bytes_ = 0, ios_ = 0;
  uint64_t skipped_ = 0, folded_ = 0, too_large_ = 0;
  int64_t span_ns_ = 0;
};

}  // namespace blk::bench
