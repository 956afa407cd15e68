// Mapping a job's target options to a blkstack driver-graph spec.
//
//   blockdev=SPEC          SPEC, verbatim (overrides everything below)
//   ioengine=null          driver=null,size=<offset+size, default 1G>
//   ioengine=libaio        driver=file,filename=F,aio=native,cache.direct=on|off
//                          [,aio-poll=on with userspace_reap=1 and
//                          iodepth_batch_complete_min=0: see Target::spin]
//   ioengine=io_uring      as libaio (the file driver has no io_uring mode yet)
//   ioengine=psync|sync|pvsync|pvsync2
//                          driver=file,filename=F,aio=threads,cache.direct=on|off
//   ioengine=rbd           driver=rbd,pool=P,image=I[,user=U][,completion=poll
//                          and Target::spin with busy_poll=1]
//                          [,write-cache=off when direct=1]
// F is filename (the first of filename=a:b, prefixed by directory=), or fio's
// default "<jobname>.<clone>.0".  A file that does not exist is created
// sparse with offset+size bytes (fio would lay it out by writing it).
//
// Thread-safety: pure except PrepareFile (touches the file system).
#pragma once

#include <cstdint>
#include <string>

#include "tools/block_bench/job.h"
#include "util/result.h"

namespace blk::bench {

struct Target {
  std::string spec;      // what OpenBackend gets
  std::string display;   // for messages: filename, image or spec
  std::string filename;  // file-backed targets only
  uint64_t create_size = 0;  // >0: create/extend the file to this size
  // Busy-poll without sleeping while requests are in flight (fio's libaio
  // userspace_reap with iodepth_batch_complete_min=0, fio's rbd busy_poll):
  // the runner raises its loop's poll window to kSpinPollMaxNs for the job.
  bool spin = false;
};

inline constexpr int64_t kSpinPollMaxNs = 1'000'000'000;

Expected<Target> JobTarget(const JobOptions& job, uint32_t clone);

// Creates filename sparse with create_size bytes when missing (or shorter,
// for regular files).  No-op for other targets.
Expected<void> PrepareTarget(const Target& t);

}  // namespace blk::bench
