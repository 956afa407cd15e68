// Worker: runs one job clone on its own loop (internal to the runner).
//
// One submitter coroutine takes I/O from the clone's IoSource (fio's
// synthetic patterns, or a trace with read_iolog) and keeps up to iodepth
// requests in flight: it refills when the depth drops to iodepth_low,
// submits up to iodepth_batch_submit requests inside one plug/unplug and
// obeys thinktime and fsync/fdatasync; each request is a coroutine that
// records its completion latency.  With verify, the written blocks are read
// back and checked once the main phase ends.
//
// Pacing.  An I/O with a due time (rate/rate_iops via RatePacer, or a
// trace's timestamps) is issued at that time on an absolute schedule from
// the clone's start, never earlier: lateness never accumulates.  A trace is
// replayed open loop: an I/O whose time has come is issued even if earlier
// ones are still in flight, up to the depth cap (iodepth if given, else the
// trace's recorded maximum outstanding, else kDefaultReplayDepth); an I/O
// due while the cap is full is counted as held back.  For a trace the
// submitter sleeps on a timer until a window before the due time, then
// yields to the loop until it is due (the window adapts to the timer's
// observed oversleep, kSpinMinNs..kSpinMaxNs); rate jobs only sleep.  Every
// paced I/O records its lateness (issue - due) and its latency from the
// due time (sched_lat, free of coordinated omission): ScheduleResult.
//
// Offload (io_submit_mode=offload, fio's submitter threads).  Once the
// target is open and prepared, the clone starts a submitter IOThread and
// moves its graphs there (BlockBackend::move_to).  The clone's loop still
// generates, paces and accounts every I/O, and stamps its start when it is
// generated (as fio's start_time); the request's coroutine then moves to
// the submitter's loop, is submitted and reaped there (slat ends at the
// driver's hand-over, clat at completion, both read on that thread), and
// moves back to be accounted.  So slat includes the hand-off to the
// submitter and lat any wait behind it.  Unlike fio's pool of iodepth
// workers at depth 1, one submitter keeps up to iodepth requests in flight
// through the driver's own engine (no plug: each request is submitted as it
// arrives).  The graph returns to the clone's loop after the I/O, before the
// counters are read and the graph drained; the submitter's CPU time counts
// in the clone's usr/sys/ctx.
//
// Recording.  write_iolog= writes every issued I/O (fio iolog v3, the actual
// issue times), also for a replay: recording a replay shows its fidelity.
//
// Ending.  Every wait of the clone ends by the job's end:
//  * sleeps (startdelay, rate, thinktime) last at most until the runtime
//    ends, and interrupt() cuts them short;
//  * requests still in flight kEndGraceNs after the runtime ended, or when
//    interrupt() runs, have the graph's own waits cancelled
//    (BlockBackend::cancel_waits: null latency-ns, throttle); they complete
//    with -ECANCELED and are counted as dropped, not as I/O or errors.
//    Requests at the kernel or a cluster cannot be recalled and are waited
//    for.
//
// Errors.  Every failed request is counted (CloneResult::total_errors,
// first_error).  As in fio, continue_on_error=<dir> lets a job go on only
// past EIO and EILSEQ (fio's default ignore_error list) in the named
// directions; any other error ends the job (CloneResult::error).
//
// Lifetime: the graph is closed after `co_await drain()`, which returns at
// the loop's top level (see BlockNode::co_drain).
//
// Thread-safety: everything on the clone's loop thread; the coordinator
// reaches a worker only by posting interrupt() to that loop, and reads
// LiveCounters.
#pragma once

#include <sys/resource.h>

#include <atomic>
#include <coroutine>
#include <deque>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "block/backend.h"
#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/buffer_fill.h"
#include "tools/block_bench/run/files.h"
#include "tools/block_bench/run/generator.h"
#include "tools/block_bench/run/pacer.h"
#include "tools/block_bench/run/result.h"
#include "tools/block_bench/run/runner.h"
#include "tools/block_bench/run/source.h"
#include "tools/block_bench/run/target.h"
#include "tools/block_bench/run/trace_source.h"
#include "tools/block_bench/run/verify.h"
#include "tools/block_bench/trace/iolog_writer.h"
#include "util/aio_context.h"
#include "util/aligned_buffer.h"
#include "util/iothread.h"
#include "util/task.h"

namespace blk::bench {

// Counters a clone publishes for the progress line (single writer: the
// clone's thread; the coordinator reads).
struct LiveCounters {
  std::atomic<uint64_t> ios[kNumDirs] = {};
  std::atomic<uint64_t> bytes[kNumDirs] = {};
  std::atomic<uint64_t> lat_ns_sum{0};  // completion latencies of the I/Os in ios
  std::atomic<int64_t> start_ns{0};
  std::atomic<int64_t> planned_ns{0};  // ramp+runtime, 0: size based
  std::atomic<uint64_t> planned_bytes{0};
  std::atomic<bool> done{false};
};

// How long requests still in flight after the runtime ended are waited for
// before the graph's own waits are cancelled.
inline constexpr int64_t kEndGraceNs = 1'000'000'000;
// A replay's depth cap when neither iodepth= nor the trace gives one.
inline constexpr uint32_t kDefaultReplayDepth = 64;
// Bounds of the window before a trace I/O's due time spent yielding to the
// loop instead of sleeping on a timer.
inline constexpr int64_t kSpinMinNs = 20'000;
inline constexpr int64_t kSpinMaxNs = 500'000;

// fio's flow control (flow=, flow_id=): a member that issued `mine` of the
// group's I/Os with weight w of the members' total is ahead while
// mine / issued > w / total; the group's counters count members running
// now (leave() takes a member's share out).  Members on other threads: the
// shares are read without a lock, a momentary inexactness as in fio.
class FlowGroup {
 public:
  void join(uint32_t weight) { weight_.fetch_add(weight, std::memory_order_relaxed); }
  void leave(uint32_t weight, uint64_t issued) {
    weight_.fetch_sub(weight, std::memory_order_relaxed);
    issued_.fetch_sub(issued, std::memory_order_relaxed);
  }
  bool ahead(uint64_t mine, uint32_t weight) const {
    const double total = double(weight_.load(std::memory_order_relaxed));
    return total > 0 && double(mine) / double(issued_.load(std::memory_order_relaxed)) >
                            double(weight) / total;
  }
  void issued() { issued_.fetch_add(1, std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> issued_{1};  // 1: no member is ahead before any I/O
  std::atomic<uint64_t> weight_{0};
};

// What the workers of one run share; outlives them.
struct RunShared {
  TraceCache traces;  // read_iolog traces, parsed once
  // Held while a clone sets its files up (PrepareTarget): clones of one job
  // share a file, and one laying it out while another extends or sizes it
  // could shrink it under the other (fio's create_serialize=1).
  std::mutex setup;
  // The flow groups by flow_id; flow() from any thread.
  FlowGroup& flow(uint32_t id) {
    std::lock_guard lock(mu);
    return flows[id];
  }
  std::mutex mu;
  std::map<uint32_t, FlowGroup> flows;  // node-based: references stay valid
};

class Worker {
 public:
  Worker(const JobOptions& job, CloneResult* res, LiveCounters* live, const RunOptions& opts,
         RunShared* shared);
  Worker(const Worker&) = delete;
  ~Worker() { leave_flow(); }
  Worker& operator=(const Worker&) = delete;

  // The whole clone: start delay, open, I/O, verify, drain, close, CPU
  // usage.  Runs on `ctx`'s loop.
  Task<void> run(AioContext& ctx);
  // Ends the clone as soon as possible (SIGINT): no new I/O, sleeps cut
  // short, the graph's own waits cancelled; marks the result interrupted.
  // Loop thread; at any time, also before run() starts or after it ended.
  void interrupt();
  // Ends the main phase now as if its runtime had ended (steady state was
  // reached, exitall): no new requests; those in flight complete (or are
  // cancelled kEndGraceNs later, as at the runtime's end); the clone is not
  // marked interrupted.  Before the I/O started (also before run()) the
  // clone ends as soon as it would start.  A no-op once the main phase is
  // over.  On the clone's loop.
  void end_now();
  // Copies the results so far into `out` as the final ones would read
  // (latencies merged, runtime and CPU up to now).  On the clone's loop.
  void snapshot(CloneResult* out) const;
  // flow=: leaves the job's flow group (idempotent); run() does when its
  // I/O ends, the runner for a clone whose thread could not start.
  void leave_flow();
  // Makes the clone wait between preparing its target and its first I/O
  // (RunOptions::sync): run() calls `prepared` on the loop once the target
  // is open and prepared, or failed (res->error says why), and then, if
  // prepared, parks until release().  A ramp_time then does not end by the
  // clone's clock but at end_ramp() (the runtime counts from there).  Call
  // before run().
  void set_gate(std::function<void()> prepared);
  // Ends a held ramp now: the measured phase starts with the next I/O (a
  // sleep in progress is cut short).  On the clone's loop; a no-op without
  // a held ramp or once called; before the clock started, the ramp is then
  // not held.
  void end_ramp();
  // Ends the wait: `go` starts the I/O (the clock starts now), else the
  // clone ends without I/O.  On the clone's loop; a no-op unless parked or
  // about to park, and after the first call.
  void release(bool go);

 private:
  struct Slot {
    AlignedBuffer buf;
    IoVec iov;
    // A verify read: check the block when it completes; with the generation
    // the block had when the read was issued (0: unknown, a read-only job).
    bool check = false;
    uint64_t want_gen = 0;
    bool want_zero = false;  // a trimmed block (trim_verify_zero): all zeros
    // A verify write in flight: its range and generation.
    bool writing = false;
    uint64_t write_offset = 0, write_len = 0, write_gen = 0;  // write_offset: a vkey()
    // Marked by the driver when it handed the slot's request over.
    SubmitStamp stamp;
    uint32_t cycle = 0;  // latency_target: the search cycle it was issued in
  };
  // A block written with verify data: read back and checked at the end.
  struct Written {
    uint64_t len;
    uint64_t gen;
    bool done;       // the write succeeded
    bool ambiguous;  // issued while an overlapping write was in flight: the
                     // device may apply either last, so it is not checked
    bool checked;    // read back and checked
    bool trimmed = false;  // trimmed by trim_backlog: reads back as zeros
  };
  struct WaitAwaiter {
    Worker* w;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) noexcept { w->waiter_ = h; }
    void await_resume() const noexcept {}
  };
  // Lets the loop run one round (completions, timers) and resumes.
  struct YieldAwaiter {
    AioContext* ctx;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) noexcept { ctx->defer(h); }
    void await_resume() const noexcept {}
  };

  // Set-up after the start delay; false (with res_->error set) on failure.
  // cpus_allowed: binds the clone's thread; false (with res_->error) when
  // the CPUs cannot be used.
  bool bind_cpus();
  void join_flow();
  bool open_target(AioContext& ctx);
  // read_iolog: loads the trace and decides the target job (filename from
  // replay_redirect or the iolog, size from the trace's extent).
  bool load_trace(JobOptions* target_job);
  bool prepare_io();
  // Starts the clone's clock: ramp, runtime, pacing, progress figures.
  void start_clock();
  // startdelay= (interrupt() cuts it short).
  Task<void> start_delay();
  bool open_iolog();
  Task<void> submitter();
  Task<void> wait_all();
  // Sleeps (or, for a trace, spins near the end) until `due`, at most until
  // the runtime ends.
  Task<void> wait_until(int64_t due);
  // When `u` is due: RatePacer's time, the source's schedule, or 0 (now).
  int64_t due_of(const IoUnit& u);
  Task<void> do_io(uint32_t slot, IoUnit u, int64_t t0, int64_t due, bool measured);
  // The request of `u` (slot's buffer) or a flush of `u.file` on the graph's
  // loop: on the submitter's with offload (moving there and back), else
  // here.  *done_ns: when it completed, read on the loop that reaped it.
  Task<Status> perform(uint32_t slot, const IoUnit& u, int64_t* done_ns);
  // io_submit_mode=offload: starts the submitter and moves the graphs to
  // it; false (with res_->error set) when the thread cannot be started.
  // Then offload_home() brings them back (after the I/O, before drain).
  Task<bool> offload_start();
  Task<void> offload_home();
  // The submitter's CPU usage (its thread's rusage); zeros without one.
  rusage offload_usage() const;
  Task<void> do_flush(uint32_t file, int64_t t0, bool measured);
  // Accounts a completed flush (fsync=, or a trace's): sync latency, errors.
  // t1: when it completed (0: now).
  void flush_done(uint32_t file, int64_t t0, bool measured, Status st, int64_t t1 = 0);
  // `due`: 0, or when the schedule wanted it; `held`: it waited for room.
  void issue(const IoUnit& u, int64_t now, int64_t due, bool held);
  // t1: when it completed (0: now).
  void complete(uint32_t slot, const IoUnit& u, int64_t t0, int64_t due, bool measured, Status st,
                int64_t t1 = 0);
  // Decides at issue whether a read is checked: only a block whose write
  // completed, and then only if no write to it is issued before the read
  // completes (the read could see either): see check_verify_read.
  void plan_verify_read(uint32_t slot, const IoUnit& u);
  void check_verify_read(uint32_t slot, const IoUnit& u);
  // A failed request (not a cancelled one): counts it, and ends the job
  // unless continue_on_error covers it.
  void io_error(Dir dir, int err, const std::string& what);
  void wake_if_due();
  bool next_unit(IoUnit* u);
  void fail(int err, const std::string& msg);
  // write_lat_log: one request's lat, clat and (when it has one) slat.
  void log_latency(int d, int64_t t1, const IoUnit& u, uint64_t lat, uint64_t clat,
                   const uint64_t* slat);
  // Takes each periodic sample (SampleKind) whose period has passed since
  // its last one; `last`: the job's end, where one at least half a period
  // long is taken.
  void sample(int64_t now, bool last = false);
  // When the sampler timer fires next.
  int64_t next_sample_ns(int64_t now) const;
  // write_hist_log: appends one fio histogram-log entry per direction with
  // the completions since the previous call.
  void hist_sample(int64_t now);
  // Records a verify write about to be issued from `slot`.
  void note_written(uint32_t slot, const IoUnit& u, uint64_t gen);
  // Drops the entries of written_ that [k, k + len) overlaps (keys: vkey()).
  void erase_written(uint64_t k, uint64_t len);
  // The graph's own waits end now; requests that then fail with -ECANCELED
  // are dropped, not errors.
  void cancel_in_flight();
  // (Re)arms overdue_ for end_ns_ + kEndGraceNs.  REQUIRES: ctx_ set.
  void arm_overdue();

  const JobOptions& job_;
  CloneResult* res_;
  LiveCounters* live_;
  const RunOptions& opts_;
  RunShared* shared_;
  int64_t begin_ns_ = 0;  // run() entered
  rusage ru0_{};          // the thread's usage when run() began
  // Into `out`: the latencies of unsplit_ (I/Os without a hand-over stamp)
  // as clat and lat, as the statistics kept say.
  void merge_unsplit(CloneResult* out) const;
  // Into `out`: CPU, context switches, faults and elapsed time since run()
  // began (begin_ns_, ru0_) up to `now`.  On the clone's thread.
  void usage_since_begin(CloneResult* out, int64_t now) const;
  FlowGroup* flow_ = nullptr;  // flow=: the job's group while it runs
  uint64_t flow_issued_ = 0;   // the I/Os it counted there
  AioContext* ctx_ = nullptr;
  // io_submit_mode=offload: the submitter, and whether the graphs are on
  // its loop (set and read on the clone's loop only).
  std::unique_ptr<IOThread> offload_;
  bool offloaded_ = false;
  rusage offload_ru0_{};
  // The job's files (one unless nrfiles; run/files.h): each its target and
  // its open graph.  base: where the file's offsets start in the key space
  // of written_ (the files one after another).
  struct File {
    Target target;
    std::unique_ptr<BlockBackend> blk;
    uint64_t base = 0;
  };
  std::vector<File> files_;
  BlockBackend& blk(uint32_t f) { return *files_[f].blk; }
  const std::string& display(uint32_t f) const { return files_[f].target.display; }
  // written_'s key of an I/O: its offset in the files laid end to end.
  uint64_t vkey(const IoUnit& u) const { return files_[u.file].base + u.offset; }
  uint32_t last_write_file_ = 0;  // fsync=N flushes the file written last
  std::unique_ptr<IoSource> source_;
  std::shared_ptr<const trace::Trace> trace_;  // read_iolog
  TraceSource* trace_source_ = nullptr;        // source_, when replaying
  RatePacer pacer_;
  int64_t spin_ns_ = kSpinMinNs;
  int64_t last_issue_ns_ = 0;
  std::optional<trace::IologWriter> iolog_;  // write_iolog
  SleepGroup sleeps_;  // startdelay, rate, thinktime
  std::unique_ptr<Timer> overdue_;  // runtime end + grace: cancel_in_flight()
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
  uint32_t depth_ = 1, low_ = 1, batch_ = 1, complete_min_ = 1;
  // latency_target: fio's depth search.  The queue starts at depth 1 and
  // doubles after each latency_window in which latency_percentile of the
  // I/Os kept within the target, until a window fails; then it bisects
  // between the last depth that passed (low) and the one that failed
  // (high).  An I/O over the target fails the window at once when the
  // percentile is 100.  A depth change first lets the I/Os in flight
  // complete (quiesce); I/Os issued in an earlier cycle do not count.  When
  // a pass leaves the depth where it was, the statistics restart and one
  // more window runs at that depth (the report covers it alone); when that
  // passes too the job ends (latency_run=1: it goes on adjusting).  A
  // failing window at depth 1 keeps the depth; an I/O over a 100 % target
  // at depth 1 ends the job with ETIMEDOUT, as fio.
  struct LatencyTarget {
    uint32_t qd = 1, low = 1, high = 1;
    int64_t window_start = 0;
    uint64_t ios = 0, failed = 0;  // this cycle's counted completions
    uint32_t cycle = 1;
    bool final_run = false;
  };
  std::optional<LatencyTarget> lt_;
  bool quiesce_ = false;        // the submitter lets every I/O complete first
  bool restart_stats_ = false;  // ... and then restarts the statistics
  uint32_t queue_cap() const { return lt_ ? lt_->qd : depth_; }
  void latency_target_complete(uint64_t lat, int64_t now);
  void latency_new_cycle(int64_t now);
  bool latency_ramp_down(int64_t now);
  void latency_pass(int64_t now);
  void restart_stats(int64_t now);
  // rate_min / rate_iops_min (fio's check_min_rate): after 2 s from the
  // start and past the ramp, every rate_cycle the rate of each direction
  // with a minimum over that cycle; below it the job ends with EIO.  From
  // completions and from the sampler, so that a stalled device is caught.
  void check_min_rate(int64_t now);
  struct RateCheck {
    int64_t at = 0;  // 0: not started
    uint64_t bytes = 0, ios = 0;
  };
  RateCheck rate_check_[kNumDirs];
  bool rate_min_ = false;  // any minimum set
  uint32_t inflight_ = 0;
  std::coroutine_handle<> waiter_;
  // The start gate (set_gate / release).
  enum class Gate { kWaiting, kGo, kNoGo };
  struct GateAwaiter {
    Worker* w;
    bool await_ready() const noexcept { return w->gate_ != Gate::kWaiting; }
    void await_suspend(std::coroutine_handle<> h) noexcept { w->gate_waiter_ = h; }
    bool await_resume() const noexcept { return w->gate_ == Gate::kGo; }
  };
  std::unique_ptr<BufferFiller> filler_;  // what writes carry (prepare_io)
  std::function<void()> prepared_;
  bool ramp_held_ = false;  // set_gate() with a ramp_time, until end_ramp()
  Gate gate_ = Gate::kWaiting;
  std::coroutine_handle<> gate_waiter_;
  bool wait_all_ = false;
  bool stop_ = false;         // no new I/O (error, interrupt)
  bool interrupted_ = false;
  bool cancelling_ = false;   // cancel_in_flight() ran
  bool io_finished_ = false;  // the submitter returned: all I/O done
  bool end_requested_ = false;  // end_now() before the I/O started
  bool finished_ = false;     // run() is past its last use of the graph
  uint32_t completions_since_wake_ = 0;

  int64_t start_ns_ = 0, ramp_end_ns_ = 0, end_ns_ = INT64_MAX;
  bool measuring_ = false;
  int64_t measure_start_ = 0, last_done_ns_ = 0;
  uint64_t raw_ios_[kNumDirs] = {}, raw_bytes_[kNumDirs] = {}, raw_lat_sum_ = 0;

  // think time (fio's handle_thinktime; JobOptions::thinktime): I/Os issued
  // and completed (read/write/trim, ramp included), the count at the last
  // pause, and when it was decided (or the clock started).
  uint64_t think_issued_ = 0, think_completed_ = 0, think_last_blocks_ = 0;
  int64_t think_last_ns_ = 0;
  // Whether a pause is due after the I/O just issued; if so, notes the count.
  bool think_due(int64_t now);
  // The pause: quiesce, spin, sleep (all ending with the runtime).
  Task<void> think();
  // syncs
  uint32_t writes_since_sync_ = 0;
  bool sync_due_ = false;

  // verify
  bool verify_ = false, verify_phase_ = false;
  VerifyLayout layout_;  // method, verify_pattern, verify_interval, verify_offset
  bool setup_verify();
  // verify_only: the write `u` the job would issue, recorded as done
  // (written_, with the generation it would carry) without writing.
  void note_unwritten(const IoUnit& u);
  std::map<uint64_t, Written> written_;
  std::map<uint64_t, Written>::iterator verify_it_;
  // verify_backlog, as fio's: hist_len_ counts the writes issued and not
  // yet read back.  When it reaches a multiple of verify_backlog right
  // after a write, a batch of verify_backlog_batch (0: verify_backlog)
  // reads starts: the submitter lets the I/O in flight complete and queues
  // reads of the oldest written blocks (backlog_, keys of written_, in
  // completion order) still theirs and unchecked; next_unit() issues those
  // first.  What is left of a batch when the backlog is empty is taken by
  // the next writes, one read after each.  The verify phase then skips the
  // checked blocks.
  std::deque<uint64_t> backlog_;
  std::deque<IoUnit> backlog_reads_;
  uint64_t hist_len_ = 0;
  uint32_t verify_batch_ = 0;
  Dir last_dir_ = Dir::kRead;
  // The verify read of the block written_ holds at `it`.
  IoUnit VerifyReadOf(std::map<uint64_t, Written>::const_iterator it) const;
  // trim_percentage / trim_backlog, as fio's (JobOptions::trim_*): each
  // write picked (trim_percentage) joins trim_list_ when issued.  Before
  // each I/O the submitter asks trim_due() fio's question: with blocks
  // queued, is a batch under way, or has hist_len_ reached a multiple of
  // trim_backlog right after a write (a batch of trim_backlog_batch, 0:
  // trim_backlog, starts)?  If so, the I/O in flight completes and
  // take_trim() queues a trim of the oldest queued block still written
  // (in backlog_reads_, issued next).  With trim_verify_zero the block
  // stays in written_, marked trimmed: it must read back as zeros; without,
  // it leaves written_ and hist_len_ (not read back).  A block that is
  // rewritten, or checked by verify_backlog, leaves the queue.
  struct TrimEntry {
    uint64_t key, gen;  // written_'s key and the write's generation
  };
  bool trim_on_ = false;  // verify, do_verify, a writing job, both options set
  std::deque<TrimEntry> trim_list_;
  uint32_t trim_batch_ = 0;
  uint64_t trim_rolls_ = 0;
  bool trim_queued(const TrimEntry& e) const;
  bool trim_due();
  bool take_trim(IoUnit* u);
  uint64_t gen_counter_ = 0;

  // samples and logs
  std::unique_ptr<Timer> sampler_;
  std::unique_ptr<Timer> hist_sampler_;  // write_hist_log, every log_hist_msec
  std::vector<uint64_t> hist_last_[kNumDirs];  // fio bins at the last hist_sample
  // The periodic samples sample() takes, one timer for all: the report's
  // bandwidth samples (and the bw log's entries with log_avg_msec) every
  // bwavgtime, its IOPS samples every iopsavgtime, the latency logs'
  // log_avg_msec windows.
  enum SampleKind { kBwSample, kIopsSample, kLatWindow, kSampleKinds };
  struct SamplePeriod {
    int64_t every_ns = 0;          // 0: not taken
    int64_t last_ns = 0;
    uint64_t last[kNumDirs] = {};  // bytes (kBwSample) or I/Os (kIopsSample) at last_ns
  };
  SamplePeriod periods_[kSampleKinds];
  // log_avg_msec windows of write_lat_log: [kind][dir], kind = lat, clat, slat.
  uint64_t win_lat_sum_[3][kNumDirs] = {}, win_lat_n_[3][kNumDirs] = {};
  uint64_t win_lat_max_[3][kNumDirs] = {};  // log_max_value
  // Measured requests without a slat (see run/result.h): recorded once here
  // and added to both clat and lat when the I/O ends (one record per I/O
  // instead of two on drivers that never split).
  LatencyHistogram unsplit_[kNumDirs];
  bool lat_log_ = false, bw_log_ = false, iops_log_ = false;
};

}  // namespace blk::bench
