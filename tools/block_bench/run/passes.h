// FioPasses: when a job's pass over its region ends and whether another
// begins, as fio 3.33 decides in do_io() and keep_running() (backend.c), so
// that loops=, io_size= and number_ios= give fio's I/Os, pass by pass.
//
// A job runs in passes; each starts over from the region's start, with an
// empty random map and (randrepeat) its generators as at the job's start.
// Before each I/O of a pass (fio's do_io loop) the pass ends when
//  * the job's bytes in its counted directions (read + write for a mix,
//    else its one direction; trimwrite: its writes) reach (io_size, else
//    size) x loops, or its I/Os reach number_ios x loops (fio's
//    io_issue_bytes_exceeded, exceeds_number_ios);
//  * the engine queues (CountsPassBytes) and the pass's bytes, in every
//    direction, reach size (random writes with norandommap: the larger of
//    size and io_size; trimwrite: size + io_size x loops).  fio adds an I/O
//    to the pass's bytes only when its engine answers FIO_Q_QUEUED, so a
//    synchronous engine's pass never ends this way;
// and when the generator has no I/O left (fio: the file is done): the end
// of a sequential region, a full random map.
// After a pass (fio's keep_running): a pass that issued nothing ends the
// job; while loops remain (the first pass counts as one), another; else
// another while number_ios is not reached and the job's bytes in every
// direction lie below io_size (else size) by at least the largest block
// size, if io_size was given or the pass did not run out of I/O.
// With a read-back after each pass (verify=, do_verify, an engine that is
// not fio's FIO_UNIDIR), fio's clear_io_state before do_verify leaves no
// file done, so running out of I/O never ends the job, and the read-back's
// bytes count: once no loops are left, the decision waits for them
// (deferred(), then resume()).
// A time based job never ends a pass by bytes or I/Os, but with verify= a
// pass ends after those size bytes on an engine that queues (fio's do_io
// breaks "to run verification": each pass is then read back, and the job
// writes and verifies by turns until its runtime); one that runs out of
// I/O starts another.
//
// Thread-safety: a plain value, one per generator.
#pragma once

#include <cstdint>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/source.h"

namespace blk::bench {

// Whether fio 3.33's engine for `job` answers FIO_Q_QUEUED (libaio,
// io_uring, posixaio, rbd, nbd, null at iodepth > 1) rather than completing
// each I/O at once (the sync family, null at iodepth 1, and any engine
// under io_submit_mode=offload); only then does fio count a pass's bytes.
bool CountsPassBytes(const JobOptions& job);

struct PassLimits {
  uint64_t size = 0;        // the region's bytes (fio's size)
  uint64_t io_size = 0;     // 0: none given
  uint32_t loops = 1;       // >= 1
  uint64_t number_ios = 0;  // 0: none
  uint64_t pass_cut = 0;    // a pass's bytes that end it; 0: never
  uint64_t max_bs = 0;      // the largest block size of any direction
  unsigned counted = 0;     // mask of 1 << Dir counted toward the job's bytes
  bool unlimited = false;   // time based
  bool verify = false;      // verify= (a time based pass still ends at pass_cut)
  bool read_back = false;   // fio's do_verify runs after each pass

  // fio's limits for `job` on a region of `size` bytes with `io_size`
  // (resolved, 0 when not given).
  static PassLimits Of(const JobOptions& job, uint64_t size, uint64_t io_size);
};

class FioPasses {
 public:
  FioPasses() = default;
  explicit FioPasses(const PassLimits& l);

  // Whether the current pass may issue another I/O.
  bool may_issue() const;
  // An I/O of `len` bytes in direction `d` was handed out.
  void issued(Dir d, uint64_t len);
  // The current pass ended, for want of I/O when `out_of_io`, else because
  // may_issue() said no.  True: another pass begins (pass() counts it).
  // False with deferred() set: the read-back's bytes decide (resume()).
  bool next_pass(bool out_of_io);
  // Whether the last next_pass() left the decision to resume().
  bool deferred() const { return deferred_; }
  // The read-back after a deferred pass end is done (its bytes noted by
  // other_io): fio's keep_running after do_verify.  True: another pass
  // begins.  False when nothing was deferred.
  bool resume();
  // The current pass, from 0.
  uint32_t pass() const { return pass_; }
  // (io_size, else size) x loops: the bytes the job hands out unless time
  // based (for progress).
  uint64_t budget() const;
  // ramp_time ended: the bytes and I/Os count from 0 again.
  void restart_budget();
  // Bytes of other I/O (verify's read-back between passes), which count
  // toward io_size (else size) when deciding whether another pass begins.
  void other_io(uint64_t len) { all_bytes_ += len; }
  void set_unlimited(bool u) { l_.unlimited = u; }

 private:
  uint64_t byte_limit() const;  // (io_size or size) x loops, saturated
  // The job's bytes in every direction lie below io_size (else size) by at
  // least the largest block (keep_running).
  bool below_limit() const;
  void begin_pass();
  PassLimits l_;
  uint64_t counted_bytes_ = 0;  // fio's io_issue_bytes in the counted directions
  uint64_t all_bytes_ = 0;      // fio's io_bytes, every direction
  uint64_t ios_ = 0;
  uint64_t pass_bytes_ = 0;
  uint32_t loops_left_ = 0;  // fio's o.loops after the first keep_running
  uint32_t pass_ = 0;
  bool deferred_ = false;
};

}  // namespace blk::bench
