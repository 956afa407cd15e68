// Clone: one job clone on its own loop — the coordinator of its parts.
//
// run() is the clone's life: bind its CPUs, set its nice value
// (job_process.h), the start delay, open and lay out its files
// (CloneFiles), make its source and queue (clone_source.h),
// its slots (SlotPool: mapped, not touched) and the components the job
// enables, wait at the start gate when there is one, start the offload
// submitter, start the clock, fill the write buffers (in pieces, counted
// in the runtime, ended by an interrupt), run the submit loop (SubmitLoop)
// until the I/O (and verify's read-back) is done (fio's exec_prerun
// just before the I/O, exec_postrun after it), then end_fsync, close
// the logs, drain and close the graphs, unlink, and read the CPU usage.
//
// The parts, each with its own header and contract:
//   clone_files.h    target set-up, open, close, unlink
//   clone_source.h   the IoSource and the queue's shape
//   slot_pool.h      one buffer per request in flight
//   submit_loop.h    fetch, pace, issue, complete; hooks
//   clone_stats.h    latency split, live counters
//   clone_state.h    the timeline and the error policy
//   pacing.h         rate and trace schedules
//   sampler.h        periodic samples and logs
//   offload.h        io_submit_mode=offload
//   io_recorder.h    write_iolog
//   write_content.h  what writes carry
//   features/        the optional fio features, as SubmitHooks (verify,
//                    verify_backlog, trim_backlog, latency_target,
//                    thinktime, rate_min, flow, fsync=, sync_file_range=,
//                    max_latency, lockfile=, unlink_each_loop=)
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
// Errors: CloneErrors (clone_state.h), fio's continue_on_error rules.
//
// Lifetime: the graphs are closed after `co_await drain()`, which returns at
// the loop's top level (see BlockNode::co_drain).
//
// Thread-safety: everything on the clone's loop thread; the coordinator
// reaches a clone only by posting interrupt() (and the others below) to that
// loop, and reads LiveCounters.
#pragma once

#include <sys/resource.h>

#include <atomic>
#include <coroutine>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/buffer_fill.h"
#include "tools/block_bench/run/cgroup.h"
#include "tools/block_bench/run/clone_files.h"
#include "tools/block_bench/run/clone_source.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/clone_stats.h"
#include "tools/block_bench/run/cmdprio.h"
#include "tools/block_bench/run/features/file_lock_hook.h"
#include "tools/block_bench/run/features/flow.h"
#include "tools/block_bench/run/features/fsync_cadence.h"
#include "tools/block_bench/run/features/latency_target.h"
#include "tools/block_bench/run/features/max_latency.h"
#include "tools/block_bench/run/features/overlap_guard.h"
#include "tools/block_bench/run/features/pass_invalidate.h"
#include "tools/block_bench/run/features/rate_guard.h"
#include "tools/block_bench/run/features/sync_file_range.h"
#include "tools/block_bench/run/features/think_time.h"
#include "tools/block_bench/run/features/trim_backlog.h"
#include "tools/block_bench/run/features/unlink_each_loop.h"
#include "tools/block_bench/run/features/verify_backlog.h"
#include "tools/block_bench/run/features/verify_state.h"
#include "tools/block_bench/run/features/verify_tracker.h"
#include "tools/block_bench/run/fs_calls.h"
#include "tools/block_bench/run/io_recorder.h"
#include "tools/block_bench/run/job_process.h"
#include "tools/block_bench/run/net_engine.h"
#include "tools/block_bench/run/offload.h"
#include "tools/block_bench/run/pacing.h"
#include "tools/block_bench/run/resources.h"
#include "tools/block_bench/run/result.h"
#include "tools/block_bench/run/runner.h"
#include "tools/block_bench/run/sampler.h"
#include "tools/block_bench/run/slot_pool.h"
#include "tools/block_bench/run/work_engine.h"
#include "tools/block_bench/run/stop.h"
#include "tools/block_bench/run/submit_loop.h"
#include "tools/block_bench/run/trace_source.h"
#include "tools/block_bench/run/verify.h"
#include "tools/block_bench/run/verify_offload.h"
#include "tools/block_bench/run/write_content.h"
#include <blkstack/util/aio_context.h>
#include <blkstack/util/task.h>

namespace blk::bench {

// How long requests still in flight after the runtime ended are waited for
// before the graph's own waits are cancelled.
inline constexpr int64_t kEndGraceNs = 1'000'000'000;

// What the clones of one run share; outlives them.
struct RunShared {
  RunShared() = default;
  // `memory_limit`: what the clones' buffers may take together (MemoryBudget).
  RunShared(uint64_t memory_limit, std::string memory_source)
      : memory(memory_limit, std::move(memory_source)) {}
  TraceCache traces;  // read_iolog traces, parsed once
  // The run's memory limit, charged by each clone's buffers (SlotPool).
  MemoryBudget memory;
  // Held while a clone sets its files up (PrepareTarget): clones of one job
  // share a file, and one laying it out while another extends or sizes it
  // could shrink it under the other (fio's create_serialize=1).
  std::mutex setup;
  // lockfile=: the files' locks, by name, across every job of the run.
  FileLocks locks;
  // cgroup=: the groups the run made, removed when the run ends.
  CgroupDirs cgroups;
  // Every clone's seed (CloneResult::seed), in thread_number order:
  // dedupe_global's working set draws on them.  Set before the clones
  // start; read-only afterwards.
  std::vector<uint64_t> clone_seeds;
  // The flow groups by flow_id; flow() from any thread.
  FlowGroup& flow(uint32_t id) {
    std::lock_guard lock(mu);
    return flows[id];
  }
  std::mutex mu;
  std::map<uint32_t, FlowGroup> flows;  // node-based: references stay valid
  // Clones of jobs that do I/O (not cpuio, exec) that have not ended, in
  // every group: set before the clones start, each one's end counts down
  // (cpuio's exit_on_io_done).
  std::atomic<int64_t> io_clones_left{0};
  int64_t io_clones = 0;  // of the run (set before the clones start)
};

class Clone {
 public:
  Clone(const JobOptions& job, CloneResult* res, LiveCounters* live, const RunOptions& opts,
        RunShared* shared);
  Clone(const Clone&) = delete;
  Clone& operator=(const Clone&) = delete;
  ~Clone();

  // The whole clone (see above).  Runs on `ctx`'s loop.
  Task<void> run(AioContext& ctx);
  // Ends the clone as soon as possible (SIGINT): no new I/O, sleeps cut
  // short, the graph's own waits cancelled; marks the result interrupted.
  // Loop thread; at any time, also before run() starts or after it ended.
  void interrupt();
  // Ends the main phase now as if its runtime had ended (steady state was
  // reached, exitall, latency_target found its depth): no new requests;
  // those in flight complete (or are cancelled kEndGraceNs later, as at the
  // runtime's end); the clone is not marked interrupted.  Before the I/O
  // started (also before run()) the clone ends as soon as it would start.
  // A no-op once the main phase is over.  On the clone's loop.
  void end_now();
  // Copies the results so far into `out` as the final ones would read
  // (latencies merged, runtime and CPU up to now).  On the clone's loop.
  void snapshot(CloneResult* out) const;
  // flow=: leaves the job's flow group (idempotent); run() does when its
  // I/O ends, the runner for a clone whose thread could not start.
  void leave_flow();
  // This clone of a job that does I/O ended (or will never run):
  // RunShared::io_clones_left counts it down, once.  run() and the
  // destructor do; the runner for a clone whose thread could not start.
  void count_down_io();
  // Makes the clone wait between preparing its target and its first I/O
  // (RunOptions::sync): run() calls `prepared` on the loop once the target
  // is open and prepared, or failed (res->error says why), and then, if
  // prepared, parks until release().  A ramp_time then does not end by the
  // clone's clock but at end_ramp() (the runtime counts from there).  Call
  // before run().
  void set_gate(std::function<void()> prepared);
  // The start gate of a run of one process: as set_gate, but released by
  // `start` (fired once every clone of the segment was prepared: RunJobs),
  // and the clone's clock (ramp_time, runtime, pacing) starts at the
  // instant it fired, the same for every clone of the segment, however
  // late this clone's thread gets the CPU: with thousands of clones the
  // segment still ends by its runtime.  A ramp is not held.  Not for a clone
  // with a startdelay (its own clock starts after its delay).  `start`
  // outlives the clone; call before run().
  void set_start_gate(std::function<void()> prepared, const Broadcast* start);
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
  // The start gate (set_gate / release).
  struct Gate {
    enum State { kWaiting, kGo, kNoGo };
    std::function<void()> prepared;
    State state = kWaiting;
    std::coroutine_handle<> waiter;
    const Broadcast* start = nullptr;  // set_start_gate: released by it
  };
  struct GateAwaiter {
    Gate* g;
    bool await_ready() const noexcept { return g->state != Gate::kWaiting; }
    void await_suspend(std::coroutine_handle<> h) noexcept { g->waiter = h; }
    bool await_resume() const noexcept { return g->state == Gate::kGo; }
  };
  // Where the clone is in its life.
  struct Life {
    bool ramp_held = false;      // set_gate() with a ramp_time, until end_ramp()
    bool interrupted = false;
    bool cancelling = false;     // cancel_in_flight() ran
    bool io_finished = false;    // the submit loop returned: all I/O done
    bool end_requested = false;  // end_now() before the I/O started
    bool finished = false;       // run() is past its last use of the graphs
    bool io_counted_down = false;  // RunShared::io_clones_left has this clone's end
  };
  // The thread's usage when run() began.
  // The thread's usage: from the clone's start, then (fio's ru_start,
  // taken where its I/O loop begins, and again when its ramp ends) from
  // the start of the measured I/O; until the I/O ended (io_end: fio's
  // update_rusage_stat after its loop), the set-up and the close left out.
  struct Begin {
    int64_t ns = 0;
    rusage ru{};
    std::optional<rusage> io_end;
  };
  // What the writes carry.
  struct Content {
    std::unique_ptr<BufferFiller> filler;
    VerifyLayout layout;  // verify=, verify_pattern
    std::unique_ptr<WriteContent> writes;  // null: verify fills, or nothing per write
  };
  // The optional fio features the job enables (features/).
  struct Features {
    std::unique_ptr<MaxLatency> max_latency;
    std::unique_ptr<LatencyTarget> latency;
    std::unique_ptr<RateGuard> rate;
    std::unique_ptr<VerifyOffload> verify_async;  // verify_async's threads
    std::unique_ptr<VerifyTracker> verify;
    std::unique_ptr<VerifyStateLog> state_log;  // verify_state_save
    std::optional<VerifyState> loaded_state;    // verify_state_load
    std::unique_ptr<VerifyBacklog> backlog;
    std::unique_ptr<TrimBacklog> trim;
    std::unique_ptr<FsyncCadence> fsync;
    std::unique_ptr<SyncFileRange> sync_range;
    std::unique_ptr<UnlinkEachLoop> unlink_loop;
    std::unique_ptr<PassInvalidate> invalidate;  // invalidate=1, buffered, each pass
    std::unique_ptr<ThinkTime> think;
    std::unique_ptr<FlowMember> flow;
    std::unique_ptr<OverlapGuard> overlap;
    std::unique_ptr<FileLockHook> lock;  // lockfile=
    std::unique_ptr<CmdPrio> cmdprio;  // cmdprio_percentage / cmdprio_bssplit
    std::unique_ptr<WorkEngine> work;  // cpuio, exec: the I/O's work
    std::unique_ptr<NetEngine> net;    // net: the I/O's socket
    std::unique_ptr<ExitOnIoDone> exit_on_io_done;
    std::unique_ptr<FsCalls> fs_calls;  // filecreate, filestat, filedelete
  };

  // cpus_allowed: binds the clone's thread; false (with the error) when
  // the CPUs cannot be used.
  bool bind_cpus();
  // numa_cpu_nodes / numa_mem_policy on the clone's thread, after
  // bind_cpus (the nodes' CPUs replace its mask, as fio's); false (the
  // error set) when refused.
  bool place_on_numa();
  // fio's cgroup= (cgroup_ once joined; left in leave_cgroup()); false
  // (the error set) when the thread cannot join.
  bool join_cgroup();
  void leave_cgroup();
  // prio/prioclass: the clone's thread (and the threads it starts) get the
  // job's I/O priority with ioprio_set(2), as fio's; false (with the error)
  // when the kernel refuses it.
  bool set_io_priority();
  // fio's nice= on the clone's thread; false (the error set) when refused.
  bool set_nice();
  // fio's lockmem (pinned_, until the I/O ended); false (the error set)
  // when the memory cannot be pinned.
  bool pin_memory();
  // fio's ioscheduler, on the disk of the clone's first file (after the
  // files are open); false (the error set) when it cannot be set.
  bool switch_io_scheduler();
  void say_seed() const;  // --debug=random
  // startdelay= (interrupt() cuts it short).
  Task<void> start_delay();
  // Opens the files, makes the source, the slots and the parts; false with
  // the error set.
  bool open_and_prepare(AioContext& ctx);
  bool prepare(AioContext& ctx);
  // Makes the features the job enables and registers them with the loop.
  // False (with the error) when a feature cannot be set up.
  bool add_features();
  bool add_verify(bool writes);
  // Starts the offload submitter when the job asks; false (failed) when it
  // cannot.
  Task<bool> start_offload(AioContext& ctx);
  // net: accept or connect (run/net_engine.h); false: no I/O (an error is
  // set, or the clone was interrupted while waiting).
  Task<bool> open_net(AioContext& ctx);
  // Starts the clock: ramp, runtime, pacing, progress figures.
  void start_clock();
  // The clock, the submit loop and what ends the I/O.
  Task<void> main_phase(AioContext& ctx);
  // Fills the write buffers (SlotPool::fill_piece) until done or
  // fill_stopped(), going back to the loop after each piece.
  Task<void> fill_buffers(AioContext& ctx);
  // Filling ends: interrupted, ended early, a stop request, the runtime over.
  bool fill_stopped() const;
  // A target that spins: the loop that reaps polls; returns the loop's
  // settings to restore.
  std::optional<PollParams> spin(AioContext& ctx);
  Task<void> end_fsync();
  // After the I/O: the iolog closed, the replay's span, blocks not verified.
  void close_records();
  // verify_state_save: fio's state file for this clone (a warning on
  // opts_.messages when it cannot be written, as fio goes on).
  void save_verify_state();
  // The graph's own waits end now; requests that then fail with -ECANCELED
  // are dropped, not errors.
  void cancel_in_flight();
  // (Re)arms the timer that cancels what is in flight at end + kEndGraceNs.
  void arm_overdue();
  // As at the end of a ramp (latency_target): the statistics restart.
  void restart_stats(int64_t now);
  bool failed_setup(const Error& e);
  // Into `out`: CPU, context switches and faults over Begin's window (up
  // to `now` while the I/O runs), and the elapsed time since run() began.
  void usage_since_begin(CloneResult* out, int64_t now) const;

  const JobOptions& job_;
  CloneResult* res_;
  LiveCounters* live_;
  const RunOptions& opts_;
  RunShared* shared_;
  std::optional<CgroupMount> cgroup_;  // joined (cgroup=)
  AioContext* ctx_ = nullptr;
  Begin begin_;
  Timeline time_;
  CloneErrors errors_;
  SleepGroup sleeps_;  // startdelay, rate, thinktime, flow_sleep
  CloneFiles files_;
  SlotPool slots_;
  PinnedMemory pinned_;  // fio's lockmem
  CloneStats stats_;
  Pacing pacing_;
  Content content_;
  CloneSource source_;
  std::unique_ptr<Sampler> sampler_;
  std::optional<Offload> offload_;
  IoRecorder recorder_;
  std::unique_ptr<SubmitLoop> loop_;
  Features features_;
  Gate gate_;
  Life life_;
  std::unique_ptr<Timer> overdue_;  // runtime end + grace: cancel_in_flight()
};

}  // namespace blk::bench
