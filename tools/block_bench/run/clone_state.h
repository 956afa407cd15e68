// What every part of one job clone shares: its timeline (Timeline) and how
// its errors end it (CloneErrors).
//
// The clone (run/clone.h) owns both; its components read the timeline and
// report errors through CloneErrors, which writes them into the clone's
// CloneResult with fio's rules.
//
// Thread-safety: the clone's loop thread only.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/result.h"

namespace blk::bench {

// The clone's clock (CLOCK_MONOTONIC ns).
struct Timeline {
  int64_t start_ns = 0;        // the clock started (0: not yet)
  int64_t ramp_end_ns = 0;     // I/O issued from here on is measured
  int64_t end_ns = INT64_MAX;  // no new I/O of the main phase from here on
  bool measuring = false;      // the first measured I/O was issued ...
  int64_t measure_start_ns = 0;  // ... at this time
  bool verify_phase = false;   // reading back the written blocks (no time limit)
  bool measured(int64_t issue_ns) const { return issue_ns >= ramp_end_ns; }
  // Milliseconds since the start (fio's log time).
  uint64_t msec(int64_t now) const { return uint64_t((now - start_ns) / 1000000); }
};

// fio's continue_on_error: whether an error `err` (positive errno) in
// direction `d` lets the job go on.  Only EIO and EILSEQ (fio's default
// ignore_error list) in the named directions do; any other error (ENOSPC,
// EBADF, ...) ends the job whatever continue_on_error says.
bool ContinuesPast(ContinueOnError c, Dir d, int err);
// Whether a bad verify block lets the job go on (continue_on_error=verify
// or all).
bool ContinuesPastVerify(ContinueOnError c);
// With fio's ignore_error lists (JobOptions::ignore_error; not all empty):
// fio's td_non_fatal_error.  The error's type is verify for EILSEQ, read
// for a read, else write (a trim too); the type must be on
// (continue_on_error's, or a list given for it), and `err` in its list
// (no list given for the type: EIO and EILSEQ).
bool IgnoresError(ContinueOnError c, const std::array<std::vector<int>, 3>& lists, Dir d, int err);

// Where a failed request was: what fio 3.33's error_dump line names.
struct FailedIo {
  Dir dir = Dir::kRead;
  bool flush = false;     // a flush (fio's "sync" direction, offset and length 0)
  std::string_view file;  // the file's name as the job gave it
  uint64_t offset = 0;
  uint64_t len = 0;
};

// fio 3.33's line for a failed request (io_u.c, __io_u_log_error), without
// its "fio: " prefix: "io_u error on file F: <strerror>: <dir> offset=O,
// buflen=L".  `err` positive errno.
std::string IoErrorLine(const FailedIo& io, int err);

// The clone's errors, written into `res` as fio counts them: the error
// that ends the job (error, error_message: the first one), every failed
// request (total_errors, first_error).  stopped(): no new I/O.
class CloneErrors {
 public:
  CloneErrors(CloneResult* res, ContinueOnError continue_on_error)
      : res_(res), continue_(continue_on_error) {}
  // Ends the job with `err` (positive errno), unless an error ended it
  // already (the first one stays); stops new I/O either way.
  void fail(int err, const std::string& msg);
  // Counts a failed request (total_errors, and first_error if it is the
  // first) without ending the job.
  void count(int err, const std::string& msg);
  // A failed request (not a cancelled one): counts it, and ends the job
  // unless continue_on_error covers it.
  void io_error(Dir d, int err, const std::string& msg);
  // The same, and with a dump sink (error_dump=1) it also gets fio's line
  // for the request (IoErrorLine), whether the error ends the job or not.
  void io_error(const FailedIo& io, int err, const std::string& msg);
  // error_dump=1: every failed request's IoErrorLine goes to `sink`, at
  // once, on the clone's thread.  Empty (error_dump=0, fio 3.33's default):
  // none; the run's summary still names the first (cli/run_status.h).
  void set_dump(std::function<void(std::string_view line)> sink) { dump_ = std::move(sink); }
  // A block that read back wrong: counts it (verify_errors too); it is the
  // job's error (EILSEQ) unless continue_on_error covers verify, and stops
  // the job only with `fatal` (verify_fatal), whether continue_on_error
  // covers verify or not (fio 3.33: continue_on_error=verify with
  // verify_fatal=1 stops at the first bad block).
  void verify_error(const std::string& msg, bool fatal);
  // No new I/O (an error, an interrupt, fill_device, a missed rate).
  void stop() { stop_ = true; }
  bool stopped() const { return stop_; }
  // Sets the job's error without stopping anything (set-up failures, which
  // happen before any I/O): `err` positive errno.
  void set(int err, std::string msg);
  // ignore_error: these lists decide (IgnoresError) instead of
  // continue_on_error alone; all empty: continue_on_error as above.
  void set_ignore(const std::array<std::vector<int>, 3>& lists) {
    ignore_ = lists;
    use_ignore_ = lists != std::array<std::vector<int>, 3>{};
  }

 private:
  CloneResult* res_;
  ContinueOnError continue_;
  std::array<std::vector<int>, 3> ignore_;
  bool use_ignore_ = false;
  bool stop_ = false;
  std::function<void(std::string_view)> dump_;
};

}  // namespace blk::bench
