// What a clone issues and how deep: its IoSource and its queue's shape.
//
// MakeCloneSource: with read_iolog, a TraceSource over the loaded trace
// (its replay figures go to the result's ScheduleResult; a trace with
// nothing to replay is an error); else fio's synthetic patterns, one
// IoGenerator per file (MultiFileSource over several, file_service_type).
//
// QueueShapeOf: the depth (iodepth; for a replay without iodepth=, the
// trace's recorded maximum outstanding up to kReplayDepthCap, else
// kDefaultReplayDepth; 1 for fio's synchronous engines), the refill point
// (iodepth_low; default: after every completion), the submission batch
// (iodepth_batch_submit, 0: the depth) and the completions a refill waits
// for (iodepth_batch_complete_min, within 1..depth).
//
// Thread-safety: pure, but for the sources made (one clone's).
#pragma once

#include <cstdint>
#include <memory>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/clone_files.h"
#include "tools/block_bench/run/result.h"
#include "tools/block_bench/run/source.h"
#include "tools/block_bench/run/trace_source.h"
#include <blkstack/util/result.h>

namespace blk::bench {

// A replay's depth cap when neither iodepth= nor the trace gives one.
inline constexpr uint32_t kDefaultReplayDepth = 64;
// The most a replay takes from the trace's outstanding count: deeper than
// any Linux block queue runs by default (nr_requests), while a trace that
// lost its completion events shows tens of thousands outstanding, each a
// buffer.  iodepth= sets any depth (then the memory limit applies:
// run/resources.h).
inline constexpr uint32_t kReplayDepthCap = 1024;

struct CloneSource {
  std::unique_ptr<IoSource> source;
  TraceSource* trace = nullptr;  // `source`, when replaying
};

// The clone's source over its open files; fills res->schedule.
Expected<CloneSource> MakeCloneSource(const JobOptions& job, CloneResult* res, CloneFiles& files,
                                      bool rate_paced);

struct QueueShape {
  uint32_t depth = 1;
  uint32_t low = 0;    // refill once the requests in flight fell to this
  uint32_t batch = 1;  // requests per plug/unplug
  uint32_t complete_min = 1;
  // The trace's outstanding count when kReplayDepthCap cut it to `depth`
  // (0: not capped).
  uint32_t capped_from = 0;
};
QueueShape QueueShapeOf(const JobOptions& job, const trace::Trace* trace);

// The smallest (largest) block the job issues in direction d (bs=, or the
// bssplit entries with a share).
uint64_t MinBlockSize(const JobOptions& job, Dir d);
uint64_t MaxBlockSize(const JobOptions& job, Dir d);

}  // namespace blk::bench
