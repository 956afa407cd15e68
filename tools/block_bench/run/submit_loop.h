// SubmitLoop: a clone's submitter — takes I/O from the clone's source and
// keeps up to iodepth requests in flight.
//
// One round of run():
//   1. the before_fetch hooks (run/hook.h), in registration order;
//   2. the next I/O: queued by a hook (inject()), else from the phase's
//      source; none left, or the runtime ended: the main phase is done,
//      and with a next phase (verify's read-back, set_next_phase) the loop
//      lets every request complete and goes on with that source; with
//      set_phase_each_pass, the main source's first I/O of a new pass
//      (IoUnit::pass) waits while every request completes and the next
//      phase runs, then the main phase goes on with it (fio's thread_main:
//      do_verify after each do_io); when the phase after the main source
//      ran out is done (or there is none), the main source may go on with
//      another pass (IoSource::resume: its passes decide with the phase's
//      bytes counted) unless the clone stopped or its runtime ended;
//   3. not yet due (Pacing): wait for its time (the pacer holds it);
//   4. the depth full (iodepth, or a hook's cap: set_depth_cap): wait
//      until the requests in flight fell to iodepth_low and at least
//      iodepth_batch_complete_min completed (or none is left); a paced I/O
//      that waits here is counted as held back;
//   5. the before_issue hooks;
//   6. issue: a free slot, the depth histogram, the start of the measured
//      phase, lateness, write_iolog, the I/O priority (CmdPrio), the
//      write's contents, the on_issue
//      hooks; requests go out inside one plug/unplug of up to
//      iodepth_batch_submit (plugging only when that is over 1);
//   7. the after_issue hooks.
// Each request is a coroutine (perform()) that, on completion, is accounted
// (CloneStats, the on_complete hooks, CloneErrors) and wakes the submitter
// when the refill point is reached.  A hook that holds the request's slot
// (hook.h's holds/settle: verify_async) keeps the slot taken until its
// settle() returned; the request is no longer in flight meanwhile, and a
// submitter short of slots is woken when it comes back.
//
// Ending: the loop stops fetching when CloneErrors::stopped(); a request
// cancelled at the end (BlockBackend::cancel_waits, set_cancelling) that
// fails with -ECANCELED is counted as dropped, not as an I/O or error;
// fill_device's ENOSPC ends the job without an error.
//
// Offload (run/offload.h): perform() moves the request's coroutine to the
// submitter and back; no plug.
//
// Thread-safety: the clone's loop thread (the offload submitter runs the
// request between the moves).
#pragma once

#include <coroutine>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/clone_files.h"
#include "tools/block_bench/run/clone_source.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/clone_stats.h"
#include "tools/block_bench/run/cmdprio.h"
#include "tools/block_bench/run/hook.h"
#include "tools/block_bench/run/io_recorder.h"
#include "tools/block_bench/run/offload.h"
#include "tools/block_bench/run/pacing.h"
#include "tools/block_bench/run/runner.h"
#include "tools/block_bench/run/sampler.h"
#include "tools/block_bench/run/slot_pool.h"
#include "tools/block_bench/run/net_engine.h"
#include "tools/block_bench/run/work_engine.h"
#include "tools/block_bench/run/write_content.h"
#include <blkstack/block/driver.h>
#include <blkstack/util/aio_context.h>
#include <blkstack/util/task.h>

namespace blk::bench {

class SubmitLoop {
 public:
  // What the loop works with; everything outlives it.
  struct Parts {
    const JobOptions& job;
    CloneResult* res;
    const RunOptions& opts;
    Timeline& time;
    CloneErrors& errors;
    CloneStats& stats;
    SlotPool& slots;
    Pacing& pacing;
    Sampler& sampler;
    CloneFiles& files;
  };
  SubmitLoop(const Parts& parts, const QueueShape& shape, IoSource& source, AioContext& ctx)
      : p_(parts), shape_(shape), source_(&source), ctx_(ctx),
        job_ioprio_(parts.job.ioprio.job_ioprio()),
        rw_flags_(parts.job.nowait ? uint32_t(kReqNoWait) : 0u) {}
  SubmitLoop(const SubmitLoop&) = delete;
  SubmitLoop& operator=(const SubmitLoop&) = delete;

  // Calls `h` at the points it names, after the hooks added before it.
  void add_hook(SubmitHook* h);
  // Optional parts (null: none).
  void set_offload(Offload* o) { offload_ = o; }
  void set_recorder(IoRecorder* r) { recorder_ = r; }
  void set_content(WriteContent* c) { content_ = c; }
  // Called when the measured phase starts (the first I/O after the ramp).
  void set_on_measuring(std::function<void()> f) { on_measuring_ = std::move(f); }
  // Each request's I/O priority (prio/prioclass, cmdprio_*; run/cmdprio.h).
  void set_cmdprio(CmdPrio* p) { cmdprio_ = p; }
  // cpuio, exec (run/work_engine.h): each I/O is `w`'s work instead of a
  // request to the graph (flushes still go to the graph); its sleeps in
  // `sleeps`.
  void set_work(WorkEngine* w, SleepGroup* sleeps) {
    work_ = w;
    work_sleeps_ = sleeps;
  }
  // net (run/net_engine.h): each read or write is a receive or send on
  // `n`'s socket instead of a request to the graph; it waits in `sleeps`.
  // The peer ending the stream ends the job (no error, that I/O uncounted).
  void set_net(NetEngine* n, SleepGroup* sleeps) {
    net_ = n;
    work_sleeps_ = sleeps;
  }
  // The depth in effect is *cap instead of iodepth (latency_target).
  void set_depth_cap(const uint32_t* cap) { cap_ = cap; }
  // The main phase's source from now on (verify_only's recorder).
  void set_source(IoSource& source) { source_ = &source; }
  // After the main phase: the source of the next one (verify's read-back),
  // asked once every request completed.
  void set_next_phase(std::function<IoSource&()> next) { next_phase_ = std::move(next); }
  // The next phase also runs between the main source's passes (fio's
  // do_verify after each do_io), and not at all when the runtime ended the
  // main phase (fio's terminate).  `closed(ran)` is called after each run
  // between passes, once its requests completed (ran: true), and when the
  // runtime skipped the last one (false).
  void set_phase_each_pass(std::function<void(bool ran)> closed) {
    pass_closed_ = std::move(closed);
  }
  // Whether the phase running is the one between passes (the main phase
  // goes on after it).
  bool between_passes() const { return between_; }

  // The submitter: until the phases are done or the clone stops, then every
  // request completed.
  Task<void> run();

  // ---- for hooks' turns and the clone ----
  // Ends the current batch: unplug and count it (res->submit).
  void end_batch();
  // Every request in flight completed.
  Task<void> wait_all();
  // One wake-up of the refill rule (step 4), counted (res->complete).
  Task<void> wait_completion();
  // The next I/O is fetched already (taken from the source, not issued).
  bool has_pending() const { return pending_.have; }
  // That I/O.  REQUIRES: has_pending().
  const IoUnit& pending_io() const { return pending_.u; }
  // Fetches the next I/O now if none is pending; false: none left.
  bool prefetch() {
    if (pending_.have) return true;
    pending_.injected = !injected_.empty();
    if (!fetch(&pending_.u)) return false;
    pending_.have = true;
    pending_.held = false;
    pending_.waited_from = 0;
    pending_.due = pending_.u.dry ? 0 : p_.pacing.due(pending_.u);  // a dry run is not paced
    return true;
  }
  // `u` is issued before anything else the loop would fetch.
  void inject(const IoUnit& u) { injected_.push_back(u); }
  bool injected_empty() const { return injected_.empty(); }
  // A flush of `file` now, taking a depth slot (fsync=).
  void spawn_flush(uint32_t file);
  // A synchronous sync of `file` (sync_file_range=) that began at t0 and
  // ended now with `st` (0 or -errno): its latency recorded with the
  // syncs' (not counted in their total, as fio's), a failure named `what`
  // is a write error.
  void sync_done_now(uint32_t file, int64_t t0, int st, const char* what);
  uint32_t inflight() const { return inflight_; }
  // Completed requests whose slot a hook still holds (hook.h's settle).
  uint32_t held() const { return held_; }
  uint32_t depth() const { return shape_.depth; }
  // The direction of the last I/O issued (flushes count as writes).
  Dir last_dir() const { return last_dir_; }
  AioContext& ctx() { return ctx_; }
  Pacing& pacing() { return p_.pacing; }
  // Wakes the submitter from a wait for completions (not from wait_all):
  // it sees a stop or a new end at once.
  void kick();
  // Requests failing with -ECANCELED from now on were cancelled, not
  // failed.
  void set_cancelling() { cancelling_ = true; }
  bool cancelling() const { return cancelling_; }
  // When the last I/O was issued (0: none).
  int64_t last_issue_ns() const { return last_issue_ns_; }
  // The request of `u` (slot's buffer) or a flush of `u.file`, on the
  // graph's loop (the submitter's with offload, moving there and back).
  // *done_ns: when it completed, read on the loop that reaped it.
  Task<Status> perform(uint32_t slot, const IoUnit& u, int64_t* done_ns);

 private:
  struct WaitAwaiter {
    SubmitLoop* l;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) noexcept { l->waiter_ = h; }
    void await_resume() const noexcept {}
  };
  // The hooks by point, in registration order.
  struct Hooks {
    std::vector<SubmitHook*> before_fetch, before_issue, on_issue, after_issue, on_complete,
        on_retire, settle;
  };
  // The I/O taken from the source and not yet issued.
  struct Pending {
    IoUnit u;
    bool have = false;
    int64_t due = 0;    // when it is due (0: now)
    int64_t waited_from = 0;  // when it was first found not yet due (0: never)
    bool held = false;  // it waited for room after it was due
    bool injected = false;  // a hook's (inject()), not the source's
  };
  uint32_t cap() const { return cap_ ? *cap_ : shape_.depth; }
  bool fetch(IoUnit* u) {
    if (injected_.empty()) return source_->next(u);
    *u = injected_.front();
    injected_.pop_front();
    return true;
  }
  // The main phase is done: true when a next phase starts (or, after one
  // between passes, the main phase goes on).
  // `runtime_over`: the runtime ended the main phase.
  Task<bool> next_phase(bool runtime_over);
  // Whether the pending I/O is the main source's first of a new pass and
  // the next phase is to run first (set_phase_each_pass).
  bool pass_ended();
  // Runs the next phase between passes, the pending I/O kept for after it.
  Task<void> begin_between_passes();
  // A wake-up after waiting for completions: how many it saw.
  void note_wakeup() {
    p_.res->complete[BatchBucket(completions_since_wake_)]++;
    completions_since_wake_ = 0;
  }
  void begin_measuring(int64_t now);
  void issue(const IoUnit& u, int64_t now, int64_t due, int64_t waited_from, bool held);
  // --debug=io: fio's "queue: io_u: off=0x..,len=0x..,ddir=D,file=F" line.
  void say_io(const IoUnit& u) const;
  Task<void> do_io(uint32_t slot, IoUnit u, int64_t t0, int64_t due, bool measured);
  Task<void> do_flush(uint32_t file, int64_t t0, bool measured);
  void complete(uint32_t slot, const IoUnit& u, int64_t t0, int64_t due, bool measured, Status st,
                int64_t t1);
  // Whether a settle hook holds `slot` after its request completed.
  bool holding(uint32_t slot);
  // The hooks' settle(), then the slot retired (held_ counted it).
  Task<void> settle(uint32_t slot);
  // The on_retire hooks, and the slot back to the pool.
  void retire(uint32_t slot, bool dry = false);
  void flush_done(uint32_t file, int64_t t0, bool measured, Status st, int64_t t1);
  void wake_if_due();

  Parts p_;
  QueueShape shape_;
  IoSource* source_;
  AioContext& ctx_;
  Hooks hooks_;
  Offload* offload_ = nullptr;
  IoRecorder* recorder_ = nullptr;
  WriteContent* content_ = nullptr;
  CmdPrio* cmdprio_ = nullptr;
  std::function<void()> on_measuring_;
  WorkEngine* work_ = nullptr;
  NetEngine* net_ = nullptr;
  SleepGroup* work_sleeps_ = nullptr;
  uint16_t job_ioprio_;  // prio/prioclass: what a request not picked by cmdprio has
  const uint32_t rw_flags_;  // every read's and write's request flags (nowait: kReqNoWait)
  const uint32_t* cap_ = nullptr;
  std::function<IoSource&()> next_phase_;
  std::function<void(bool)> pass_closed_;
  std::optional<uint32_t> main_pass_;  // the pass of the main source's last I/O
  // Between passes: the main phase's source and pending I/O, for after.
  bool between_ = false;
  IoSource* main_source_ = nullptr;
  Pending main_pending_;
  Pending pending_;
  std::deque<IoUnit> injected_;
  uint32_t batched_ = 0;  // issued in the current batch
  bool plugged_ = false;
  uint32_t inflight_ = 0;
  uint32_t held_ = 0;  // completed, slot held by a settle hook
  std::coroutine_handle<> waiter_;
  bool wait_all_ = false;
  uint32_t completions_since_wake_ = 0;
  Dir last_dir_ = Dir::kRead;
  int64_t last_issue_ns_ = 0;
  bool cancelling_ = false;
};

}  // namespace blk::bench
