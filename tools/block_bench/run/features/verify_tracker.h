// VerifyTracker: fio's verify= for one clone — what it wrote with verify
// data, and checking it when it is read back.
//
// Every write is filled with a verify block (run/verify.h) of a new
// generation and recorded by key (FileKeys: the files laid end to end).  A
// write of exactly the range of other writes still in flight (norandommap
// at depth > 1) may land before or after them: once all completed, the
// block is checked against any of their generations (fio checks the last
// one only, so the blocks read back are fio's, and a reordering device
// fails none).  A write overlapping a part of one in flight is marked
// ambiguous and never checked (fio checks it: "verify limited").  A
// read is checked only if, when it is issued, the block's writes completed
// and it is not ambiguous, and no write to it is issued before the read
// completes (the read could see either);
// a read-only job checks every read (the writer is unknown).  A block
// trimmed by trim_backlog with trim_verify_zero must read back as zeros.
// Bad blocks go to CloneErrors::verify_error (fio's verify_fatal and
// continue_on_error rules).  verify_async (Options::async): the decision to
// check a read is taken as above when it completes, but the check itself
// runs on a verify thread (run/verify_offload.h) while the loop goes on;
// the tracker holds the read's slot (hook.h's holds/settle) until the
// verdict is back, then reports it as the inline check would.
//
// After the main phase, verify_reader() is the verify phase's IoSource:
// a read of every block whose write completed and was not ambiguous (and,
// with verify_backlog, not checked already), in key order or, with the
// random map, in the order of their writes (Options::issue_order, fio's
// choice of its io_hist list or rbtree).  A verify phase
// also runs after each pass of the job (loops, time based passes: fio's
// do_verify after each do_io); close_pass() then empties the list, as
// fio's do_verify consumes its io_hist.  verify_only:
// record_only() wraps the job's source so that its I/O is dry (IoUnit::dry:
// accounted as done, not issued, as fio's do_dry_run), each write recorded
// as done; their blocks are then checked, after each pass, as fio's
// verify_only checks them: the header's rand_seed (generation) is taken as
// read, so a file fio or another seed wrote passes if each block is whole
// and in its place.
//
// fio's io_hist (history()): writes issued and not yet read back, counted
// for verify_backlog and trim_backlog (count_history); with verify_backlog
// the completed writes queue in completion order for pop_backlog().
//
// MakeVerifyLayout: the job's verify layout (method, verify_pattern,
// verify_interval, verify_offset) with fio's checks; with verify=0 only a
// verify_pattern (written, unchecked).
//
// Thread-safety: the clone's loop thread; with verify_async, verdict() on
// a verify thread, reading only what does not change after construction
// and the held slot's buffer.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/clone_files.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/features/verify_state.h"
#include "tools/block_bench/run/hook.h"
#include "tools/block_bench/run/result.h"
#include "tools/block_bench/run/rng.h"
#include "tools/block_bench/run/slot_pool.h"
#include "tools/block_bench/run/source.h"
#include "tools/block_bench/run/verify.h"
#include "tools/block_bench/run/verify_offload.h"
#include <blkstack/util/aio_context.h>
#include <blkstack/util/result.h>

namespace blk::bench {

// fio's MAX_PATTERN_SIZE: the longest verify_pattern.
inline constexpr size_t kMaxVerifyPattern = size_t(64) << 20;

// `dirs`: what the job issues (the blocks verified are the writes', else
// the reads').  Error (EINVAL, or the pattern file's) naming the option.
Expected<VerifyLayout> MakeVerifyLayout(const JobOptions& job, const IoSource& dirs);

class VerifyTracker : public SubmitHook {
 public:
  struct Options {
    uint64_t seed = 0;           // the clone's: generations derive from it
    bool has_write = true;       // the job writes (else every read is checked)
    bool count_history = false;  // verify_backlog or trim_backlog
    bool backlog = false;        // verify_backlog: queue completed writes
    bool skip_checked = false;   // verify_backlog: the verify phase skips checked blocks
    bool fatal = false;          // verify_fatal
    // verify_dump: a bad block's bad chunk (the block, or the interval) as
    // read and as expected (verify.h's ExpectedVerifyBlock) to
    // BASENAME.OFFSET.received and .expected in the working directory,
    // OFFSET the chunk's: fio 3.33's dump files and names.
    bool dump = false;
    // fio's FIO_FAKEIO (the null engine): reads are issued and the blocks
    // marked read back, but nothing is checked or counted as verified, as
    // fio's verify_io_u answers at once for an engine that moves no data.
    bool fake_io = false;
    // The verify phase reads the blocks in the order their writes were
    // issued (fio's io_hist list, kept when the job has its random map),
    // else in key order (its rbtree: file, then offset).
    bool issue_order = false;
    // verify_state_save: the writes issued and completed (and verify_only's
    // recorded writes, as fio's dry run counts them) go to this log; null:
    // none.  Outlives the tracker.
    VerifyStateLog* state_log = nullptr;
    // verify_state_load: the verify phase stops where this state says the
    // writes stopped (verify_state.h's VerifyStateShouldStop); the blocks
    // left are not owed a check.  Null: none.  Outlives the tracker.
    const VerifyState* loaded_state = nullptr;
    // verify_async: the checks run on these threads, the verdicts coming
    // back to `home` (the clone's loop).  Null: inline.  Both outlive the
    // tracker.
    VerifyOffload* async = nullptr;
    AioContext* home = nullptr;
  };
  // `names`: the files' names for messages.
  VerifyTracker(const Options& o, const VerifyLayout& layout, const FileKeys& keys,
                std::vector<std::string> names, SlotPool& slots, CloneErrors& errors,
                CloneResult* res);
  ~VerifyTracker() override;

  unsigned points() const override {
    return kOnIssue | kOnComplete | kOnRetire | (o_.async ? kSettle : 0u);
  }
  void on_issue(const IssuedIo& io) override;
  void on_complete(const DoneIo& io) override;
  // verify_async: the read from `slot` awaits its check.
  bool holds(uint32_t slot) override { return slot_[slot].settling; }
  // Checks it on a verify thread and reports the verdict here.
  Task<void> settle(uint32_t slot) override;
  void on_retire(uint32_t slot) override { slot_[slot].writing = false; }
  bool sees_dry() const override { return true; }  // verify_only records its writes

  // The verify phase's source (see above), from the first block; the job's
  // source answers for its directions and sizes.
  IoSource& verify_reader(const IoSource& job_source);
  // verify_only: `job_source` with every I/O dry (on_issue records a dry
  // write as done).
  IoSource& record_only(IoSource& job_source);
  // The end of a verify phase between passes (`ran`), or of a pass whose
  // verify phase the runtime skipped (!ran, as fio's): the list starts
  // empty for the next pass; the blocks it held unchecked count as not
  // verified only if the phase ran (else fio would not have read them).
  void close_pass(bool ran);
  // Blocks written but never checked.
  uint64_t not_verified() const;

  // fio's io_hist: writes issued and not yet read back.
  uint64_t history() const { return hist_len_; }
  // verify_backlog: a read of the oldest completed write still unchecked
  // (dropping those that failed, raced or were checked); false when none.
  bool pop_backlog(IoUnit* u);
  // After a backlog batch: with no completed write left, the history is
  // empty (failed or dropped writes left nothing to read).
  void settle_history() {
    if (backlog_.empty()) hist_len_ = 0;
  }
  // trim_backlog: the generation of the last write issued.
  uint64_t last_gen() const { return gen_; }
  // Whether the block written at `key` with generation `gen` is still
  // there, unchecked and untrimmed.
  bool trimmable(uint64_t key, uint64_t gen) const;
  // Turns that block into a trim (*u) if its write completed unambiguously:
  // with `keep` (trim_verify_zero) it stays, to read back as zeros; else it
  // leaves the verify list and the history.  False: nothing to trim.
  bool trim(uint64_t key, uint64_t gen, bool keep, IoUnit* u);

 private:
  struct Written {
    uint64_t len;
    uint64_t gen;
    bool done;       // the write succeeded
    bool ambiguous;  // issued while an overlapping write was in flight
    bool checked;    // read back and checked
    bool trimmed;    // trimmed by trim_backlog: reads back as zeros
    // How many of the writes of the same range in flight when this one was
    // issued (their generations: alt_gens_) have not completed.
    uint32_t alts_pending = 0;
    uint64_t seq = 0;  // the write's number among the clone's writes
    // Completed, unambiguous: its content is gen's or one of alt_gens_'.
    bool readable() const { return done && alts_pending == 0 && !ambiguous; }
  };
  // Per slot: the read's check, or the write in flight.
  struct SlotState {
    bool check = false;
    uint64_t want_gen = 0;  // 0: unknown (a read-only job)
    std::vector<uint64_t> want_alts;  // the other generations the block may hold
    bool want_zero = false;
    bool writing = false;
    uint64_t write_key = 0, write_len = 0, write_gen = 0;
    // verify_async: the read (with its expected generation) awaiting its
    // check on a verify thread.
    bool settling = false;
    IoUnit read;
    uint64_t check_gen = 0;
    std::vector<uint64_t> check_alts;
  };
  class Reader;
  class RecordOnly;
  void plan_read(uint32_t slot, const IoUnit& u);
  void check_read(uint32_t slot, const IoUnit& u);
  // What is wrong with the block read into p[0, u.len) ("" if good):
  // zeros expected (trim_verify_zero), else the verify block of generation
  // `gen` (0: as read) or of one of `alts`.  Any thread: reads only the
  // layout and names.
  std::string verdict(const uint8_t* p, const IoUnit& u, bool want_zero, uint64_t gen,
                      const std::vector<uint64_t>& alts) const;
  // verify_dump's files for the bad block p[0, u.len); what was written
  // (", received data dumped as ..."), or why not.
  std::string dump(const uint8_t* p, const IoUnit& u, uint64_t bad_at, uint64_t bad_len) const;
  void note_written(uint32_t slot, const IoUnit& u, uint64_t gen);
  void note_unwritten(const IoUnit& u);
  // Drops the entries that [k, k + len) overlaps.
  void erase_written(uint64_t k, uint64_t len);
  // The entries of the list not checked.
  uint64_t unchecked() const;
  // A new generation, from the clone's seed (odd: never 0, "unknown").
  uint64_t next_gen() {
    gen_ = Mix64(o_.seed + ++gen_counter_) | 1;
    return gen_;
  }

  Options o_;
  const VerifyLayout& layout_;
  const FileKeys& keys_;
  std::vector<std::string> names_;
  SlotPool& slots_;
  CloneErrors& errors_;
  CloneResult* res_;
  std::map<uint64_t, Written> written_;
  // By key, for the few entries that have them: the generations of the
  // writes of the same range in flight when the entry's was issued (the
  // block may hold any of them).  Kept with written_ (erase_written).
  std::map<uint64_t, std::vector<uint64_t>> alt_gens_;
  std::vector<SlotState> slot_;
  std::deque<uint64_t> backlog_;  // keys of completed writes, completion order
  uint64_t closed_unverified_ = 0;  // not verified in passes closed already
  uint64_t hist_len_ = 0;
  uint64_t gen_counter_ = 0, gen_ = 0;
  std::unique_ptr<Reader> reader_;
  std::unique_ptr<RecordOnly> record_only_;
  bool verify_phase_ = false;
};

}  // namespace blk::bench
