// Offload: io_submit_mode=offload, fio's submitter threads, for one clone.
//
// Once the clone's files are open and prepared, start() starts a submitter
// IOThread and moves the graphs there (BlockBackend::move_to).  The clone's
// loop still generates, paces and accounts every I/O and stamps its start
// when it is generated (as fio's start_time); the request's coroutine then
// moves to the submitter's loop, is submitted and reaped there (slat ends
// at the driver's hand-over, clat at completion, both read on that
// thread), and moves back to be accounted (SubmitLoop::perform).  So slat
// includes the hand-off to the submitter and lat any wait behind it.
// Unlike fio's pool of iodepth workers at depth 1, one submitter keeps up
// to iodepth requests in flight through the driver's own engine (no plug:
// each request is submitted as it arrives).  home() brings the graphs back
// after the I/O, before the counters are read and the graphs drained; the
// submitter's CPU time counts in the clone's usr/sys/ctx (add_usage).
//
// Thread-safety: start(), home(), cancel_waits() and add_usage() on the
// clone's loop; the submitter runs the graphs between start() and home().
#pragma once

#include <sys/resource.h>

#include <memory>
#include <string>

#include "tools/block_bench/run/clone_files.h"
#include "tools/block_bench/run/result.h"
#include <blkstack/util/aio_context.h>
#include <blkstack/util/iothread.h>
#include <blkstack/util/result.h>
#include <blkstack/util/task.h>

namespace blk::bench {

class Offload {
 public:
  explicit Offload(std::string thread_name) : name_(std::move(thread_name)) {}
  // Starts the submitter and moves `files`' graphs to it, resuming on
  // `home`.  Error when the thread cannot be started.
  Task<Expected<void>> start(CloneFiles& files, AioContext& home);
  // Brings the graphs back to `home`.  REQUIRES: started, nothing in flight.
  Task<void> home(CloneFiles& files, AioContext& home);
  // Whether the graphs are on the submitter (loop thread reads only).
  bool active() const { return active_; }
  AioContext& ctx() { return thread_->ctx(); }
  // Ends the graphs' own waits on the submitter (those still there).
  void cancel_waits(CloneFiles& files);
  // The target spins (Target::spin): the submitter, which reaps, polls.
  void spin(int64_t max_ns);
  // Adds the submitter's CPU usage since start() to `out`.
  void add_usage(CloneResult* out) const;
  // Stops the submitter.  REQUIRES: its graphs came home.
  void close() { thread_.reset(); }

 private:
  std::string name_;
  std::unique_ptr<IOThread> thread_;
  bool active_ = false;
  rusage ru0_{};
};

}  // namespace blk::bench
