// CloneFiles: a clone's targets, from set-up to close.
//
// open() does, for every file of the job (one unless nrfiles, run/files.h):
// the target's graph spec (run/target.h), its set-up under the run's set-up
// lock (layout, preallocation, invalidate, pre_read: PrepareTarget; clones
// of one job share a file), and the open graph (OpenBackend, read-only for a
// job that only reads).  With read_iolog it first loads the trace (parsed
// once per run, RunShared::traces) and takes the target from it
// (TakeTraceTarget: the graph spec or existing file the iolog names, unless
// filename=, blockdev=, replay_redirect= or ioengine=null/rbd say otherwise),
// sized to the trace's extent when no size= is given.
// A job that writes to a block device with a mounted file system is refused
// (-EBUSY, fio's message) unless allow_mounted_write=1.
// fio's "Laying out IO file" line goes to RunOptions::info, preallocation
// warnings to RunOptions::messages.
//
// Keys: a verify job's blocks are tracked by key, the files' offsets laid
// end to end (each file after the previous one's end + 4096): FileKeys.
//
// file_append=1: a regular file's I/O starts at its size before set-up
// (offset= ignored), and the file is extended by the job's size from there,
// as fio's.
//
// write_hint: each file or block device gets fio's fcntl(2) when it is
// opened (run/file_calls.h); its failure is the clone's error, as fio's
// ("fcntl write hint").
//
// close() reads the drivers' counters into the result (the first file's
// under their names, the others' after "fileN."), drains and closes every
// graph; unlink() then removes the regular files with unlink=1.
//
// Thread-safety: the clone's loop thread; open() takes RunShared::setup.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <blkstack/block/backend.h>
#include <blkstack/block/registry.h>
#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/buffer_fill.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/file_calls.h"
#include "tools/block_bench/run/result.h"
#include "tools/block_bench/run/runner.h"
#include "tools/block_bench/run/slot_pool.h"
#include "tools/block_bench/run/source.h"
#include "tools/block_bench/run/target.h"
#include "tools/block_bench/run/trace_source.h"
#include <blkstack/util/aio_context.h>
#include <blkstack/util/task.h>

namespace blk::bench {

// The files' offsets laid end to end: a key per byte of every file.
class FileKeys {
 public:
  // The files start at `bases` (ascending, bases[0] == 0).
  explicit FileKeys(std::vector<uint64_t> bases = {0}) : bases_(std::move(bases)) {}
  uint64_t key(const IoUnit& u) const { return bases_[u.file] + u.offset; }
  // A read of `len` bytes at key `k`: the last file starting at or below it.
  IoUnit read_at(uint64_t k, uint64_t len) const;
  // The next file starts at `base`.  REQUIRES: above the last one's.
  void add(uint64_t base) { bases_.push_back(base); }
  uint64_t base(uint32_t f) const { return bases_[f]; }

 private:
  std::vector<uint64_t> bases_;
};

class CloneFiles {
 public:
  struct File {
    Target target;
    std::unique_ptr<BlockBackend> blk;
    // A descriptor of its own (run/file_calls.h) for write_hint's fcntl
    // and sync_file_range: open only when the job asks for one, on a file
    // or block device.
    SideFd side;
    // file_append=1: where its I/O starts (AppendOffset, target.h), as
    // the file was before set-up; the clone's generator starts there.
    std::optional<uint64_t> append_at;
  };
  CloneFiles(const JobOptions& job, CloneResult* res, const RunOptions& opts, TraceCache* traces,
             std::mutex* setup)
      : job_(job), res_(res), opts_(opts), traces_(traces), setup_(setup) {}

  // read_iolog: loads the trace and takes the target from it (a no-op
  // without read_iolog).  Before open().  Error names the trace.
  Expected<void> load_trace();
  // Opens the job's files on `ctx` as described above, laying them out with
  // `filler`'s contents.  Error: the message names the file.
  Expected<void> open(AioContext& ctx, BufferFiller* filler);
  // fixedbufs: pins every slot's buffer in each file's io_uring (the nodes
  // take them back when they close).  Error names the target and errno.
  Expected<void> register_buffers(SlotPool& slots);
  // Ends the graphs' own waits (null latency-ns, throttle).
  void cancel_waits();
  // Counters into the result, then drains and closes every graph;
  // fsync_on_close=1 on a writing job: then fsync(2)s each file (a failure
  // is the clone's error, when it has none yet).
  Task<void> close();
  // unlink_each_loop=1, between two loops: drains and closes each graph,
  // unlinks each regular file and creates it again, empty but as long as
  // before (the graph's I/O stays within its length: fio's new file is
  // empty and grows with the writes), then opens the graph again and its
  // side descriptor (write_hint's fcntl again, as fio's open).  No request
  // may be in flight.  Error names the file.
  Task<Expected<void>> recreate(AioContext& ctx);
  // unlink=1: removes the regular files (never a device); a failure is said
  // on RunOptions::messages, as the data is the user's to clean up.
  void unlink() const;

  uint32_t size() const { return uint32_t(files_.size()); }
  BlockBackend& blk(uint32_t f) { return *files_[f].blk; }
  std::vector<File>& files() { return files_; }
  // For messages: the file, image or spec, whole (quote it with
  // QuoteName, util/quote.h, which cuts it to kMaxQuotedNameBytes).
  const std::string& display(uint32_t f) const { return files_[f].target.display; }
  // Every file's display name, in file order, for components' messages:
  // already cut and escaped by ShortenName (a 100 KB graph spec shows its
  // first 4096 bytes; a path is never cut).
  std::vector<std::string> names() const;
  const FileKeys& keys() const { return keys_; }
  // The clone's job with the target it runs on (a replay's blockdev= or
  // filename= taken from its trace).  After load_trace().
  const JobOptions& target_job() const { return target_job_; }
  // read_iolog: the trace (null otherwise).
  const std::shared_ptr<const trace::Trace>& trace() const { return trace_; }
  bool any_spin() const;

 private:
  OpenFlags flags() const;
  void fsync_on_close(const Target& t);
  Expected<void> open_file(AioContext& ctx, const JobOptions& target_job, uint32_t i, uint32_t n,
                           BufferFiller* filler, OpenFlags flags);
  // write_hint (fcntl on the file's own descriptor, File::side, opened
  // here also for sync_file_range=): as fio's td_io_open_file, an error is
  // the job's.
  Expected<void> side_calls(File& file);
  // fio's "Laying out IO file" line, when files were created or extended.
  void say_laid_out() const;

  const JobOptions& job_;
  CloneResult* res_;
  const RunOptions& opts_;
  TraceCache* traces_;
  std::mutex* setup_;
  JobOptions target_job_;  // the clone's job, with the trace's target
  bool loaded_ = false;
  std::vector<File> files_;
  FileKeys keys_;
  std::shared_ptr<const trace::Trace> trace_;
  uint64_t laid_files_ = 0, laid_bytes_ = 0;
};

}  // namespace blk::bench
