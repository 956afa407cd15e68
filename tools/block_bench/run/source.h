// IoSource: where a job clone's I/O comes from.  The worker asks the source
// for the next I/O, a pacer (RatePacer, or the trace's own times) for when
// it is due, and hands it to the graph.
//
// Sources: IoGenerator (fio's synthetic patterns, generator.h) and
// TraceSource (a recorded trace, trace_source.h).
//
// Thread-safety: one source per clone, used on its worker thread.
#pragma once

#include <cstdint>

#include "tools/block_bench/jobfile/job.h"

namespace blk::bench {

struct IoUnit {
  Dir dir = Dir::kRead;  // for a flush: kWrite (it is accounted with writes)
  uint64_t offset = 0;
  uint64_t len = 0;
  bool flush = false;  // a cache flush (offset and len 0)
  bool fua = false;    // a write with forced unit access
  uint32_t file = 0;   // which of the job's files (nrfiles; run/files.h)
  // The first I/O since the job opened its file (fio's get_next_file opens
  // a file when a pick lands on it; the file closes when done and at the
  // end of each pass): the file-system engines' call comes before it.
  bool opens = false;
  // The source's pass over its region this I/O belongs to, from 0 (loops=,
  // io_size= beyond size=: FioPasses, run/passes.h).
  uint32_t pass = 0;
  // Time based: how many times the offsets of this I/O's file have wrapped
  // to the region's start so far (a sequential position past the end, a
  // full random map reset; never reset): where fio drops the file's cached
  // pages (loop_cache_invalidate).  0 for sources that do not wrap.
  uint32_t wrap = 0;
  // When the source's own schedule wants it issued, in ns from the start of
  // the schedule; -1: no schedule of its own (issue when there is room, or
  // when RatePacer says).
  int64_t at_ns = -1;
  // Set when it is issued (run/cmdprio.h): the I/O priority it is reported
  // under, and whether the request carries it (cmdprio chose it) or the
  // thread's applies.
  uint16_t ioprio = 0;
  bool ioprio_sent = false;
  // verify_only's job I/O (fio's do_dry_run): taken through the queue and
  // accounted as done at once, never sent to the target nor recorded in
  // write_iolog; its writes are what the read-back checks.
  bool dry = false;
  friend bool operator==(const IoUnit&, const IoUnit&) = default;
};

// Decides the direction of a read/write mix's next I/O after the mix drew
// one: rate pacing (Pacing, RatePacer::choose) lets a direction that is
// behind its rate go before one that is ahead of it, as fio's rate_ddir.
class DirChooser {
 public:
  virtual ~DirChooser() = default;
  // `drawn`: the mix's choice (read or write), asked only when both have a
  // share in the mix; returns read or write.
  virtual Dir choose(Dir drawn) = 0;
};

class IoSource {
 public:
  virtual ~IoSource() = default;
  // The next I/O; false when the source is exhausted.
  virtual bool next(IoUnit* u) = 0;
  // Whether any I/O of direction `d` can come (flushes count as writes).
  virtual bool has_dir(Dir d) const = 0;
  // The largest I/O in bytes (the size of each I/O buffer).
  virtual uint64_t max_bs() const = 0;
  // Bytes the source will hand out (for progress), 0 when unbounded.
  virtual uint64_t io_limit() const = 0;
  // ramp_time ended: a budget-limited source starts its budget again.
  virtual void reset_budget() {}
  // `len` bytes of I/O not from the source went out between its passes
  // (verify's read-back): fio counts them in the bytes that decide whether
  // another pass begins (keep_running's io_bytes).
  virtual void note_other_io(uint64_t len) { (void)len; }
  // The source ran out (next() said false) and the phase after it is done
  // (verify's read-back, whose bytes note_other_io counted): true when it
  // goes on with another pass, next() handing out its I/O (fio's
  // keep_running after do_verify: run/passes.h).
  virtual bool resume() { return false; }
  // From now on a read/write mix asks `c` (null: nobody) for the direction
  // of each I/O once the mix drew one; `c` outlives the source.  Sources
  // without a mix (a trace, one direction) ignore it.
  virtual void set_dir_chooser(DirChooser* c) { (void)c; }
};

}  // namespace blk::bench
