#include "tools/block_bench/run/runner.h"

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>

#include "tools/block_bench/run/files.h"
#include "tools/block_bench/run/resources.h"
#include "tools/block_bench/run/rng.h"
#include "tools/block_bench/run/steady.h"
#include "tools/block_bench/run/target.h"
#include "tools/block_bench/run/stop.h"
#include "tools/block_bench/run/sync.h"
#include "tools/block_bench/run/clone.h"
#include <blkstack/util/clock.h>
#include <blkstack/util/iothread.h>
#include <blkstack/util/task.h>

namespace blk::bench {
namespace {

constexpr int64_t kProgressNs = 1'000'000'000;

// The clones of one stonewall segment, on their threads.
struct Segment {
  size_t c0 = 0, c1 = 0;  // clone range [c0, c1)
  std::vector<std::unique_ptr<IOThread>> threads;  // null: could not start
  std::vector<std::unique_ptr<Clone>> clones;
  Broadcast start;  // fired once every thread exists (StartSegment)
  // Runs of one process: the clones that wait at `go` until every one of
  // them was prepared (each counts itself in the ready counter), and the
  // release.  Not the clones with a startdelay.
  Broadcast go;
  size_t at_gate = 0;
  // wait_for: the clones of job `waiter` start once the clones `waitees`
  // (of the earlier jobs of the waitee's name, in this segment) ended.
  struct WaitFor {
    uint32_t waiter = 0;
    std::vector<size_t> waitees;
    std::unique_ptr<Broadcast> release;
  };
  std::vector<WaitFor> waits;
  // The wait of clone k's job, if any.
  const WaitFor* wait_of(const RunResult& rr, size_t k) const {
    for (const WaitFor& w : waits)
      if (w.waiter == rr.clones[k].job_index) return &w;
    return nullptr;
  }
};

// Fills seg.waits: one per job of the segment with wait_for whose waitee
// has clones in the segment (those of earlier segments ended already).
// Only earlier jobs count (fio's waitee is defined before its waiter), so
// no two jobs wait for each other.
void PlanWaits(const RunResult& rr, Segment& seg) {
  for (size_t k = seg.c0; k < seg.c1; k++) {
    const CloneResult& r = rr.clones[k];
    if (r.clone != 0 || r.job->proc.wait_for.empty()) continue;
    Segment::WaitFor w;
    w.waiter = r.job_index;
    for (size_t e = seg.c0; e < k; e++)
      if (rr.clones[e].job->name == r.job->proc.wait_for && rr.clones[e].job->name != r.job->name)
        w.waitees.push_back(e);
    if (w.waitees.empty()) continue;
    w.release = std::make_unique<Broadcast>();
    seg.waits.push_back(std::move(w));
  }
}

// Releases the waiting jobs whose waitees all ended (`all`: every one, on
// a stop request).
void ReleaseWaits(Segment& seg, const std::vector<LiveCounters>& live, bool all) {
  for (Segment::WaitFor& w : seg.waits) {
    if (w.release->fired()) continue;
    if (all || std::all_of(w.waitees.begin(), w.waitees.end(),
                           [&](size_t e) { return live[e].done.load(); }))
      w.release->fire();
  }
}

// Counts clones that finished: each writes 1 to an eventfd the coordinator
// polls together with the stop request.
class DoneCounter {
 public:
  DoneCounter() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  ~DoneCounter() {
    if (fd_ >= 0) close(fd_);
  }
  DoneCounter(const DoneCounter&) = delete;
  DoneCounter& operator=(const DoneCounter&) = delete;
  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  void add_one() {
    uint64_t one = 1;
    ssize_t r = write(fd_, &one, sizeof one);
    (void)r;  // cannot fail short of 2^64 - 1 clones
  }
  // How many finished since the last take().
  uint64_t take() {
    uint64_t v = 0;
    return read(fd_, &v, sizeof v) == ssize_t(sizeof v) ? v : 0;
  }

 private:
  int fd_;
};

// One clone's life on its loop: it watches the stop request itself (one
// write to the request's eventfd reaches every clone at once, however many
// there are and however busy the CPUs), waits for the segment's start
// (every thread of the segment exists), runs, and counts itself done.
// `after_fd` (>= 0): wait_for's release, awaited after the start.
Task<void> RunClone(Clone* w, AioContext& ctx, int start_fd, int stop_fd, int after_fd,
                    DoneCounter* done) {
  OnceReadable stop(ctx, stop_fd, [w] { w->interrupt(); });
  if (start_fd >= 0) co_await WhenReadable(ctx, start_fd);
  if (after_fd >= 0) co_await WhenReadable(ctx, after_fd);
  co_await w->run(ctx);
  stop.cancel();
  done->add_one();
}

// The progress line's figures for clones [c0, c1).
class ProgressMeter {
 public:
  ProgressMeter(const RunResult& rr, const std::vector<LiveCounters>& live, size_t c0, size_t c1)
      : rr_(rr), live_(live), c0_(c0), c1_(c1), prev_t_(NowNs()) {}

  ProgressSnapshot snapshot() {
    ProgressSnapshot ps;
    ps.total = int(rr_.clones.size());
    const int64_t now = NowNs();
    double frac_min = 1.0, eta = 0;
    uint64_t bytes[kNumDirs] = {}, ios[kNumDirs] = {};
    for (size_t k = c0_; k < c1_; k++) {
      const LiveCounters& lv = live_[k];
      const bool done = lv.done.load();
      if (!done) ps.running++;
      uint64_t b = 0;
      for (int d = 0; d < kNumDirs; d++) {
        bytes[d] += lv.bytes[d].load(std::memory_order_relaxed);
        ios[d] += lv.ios[d].load(std::memory_order_relaxed);
        b += lv.bytes[d].load(std::memory_order_relaxed);
      }
      double frac = 1.0;
      const int64_t st = lv.start_ns.load();
      if (!done && st) {
        const int64_t planned = lv.planned_ns.load();
        const uint64_t pb = lv.planned_bytes.load();
        if (planned > 0) frac = std::min(1.0, double(now - st) / double(planned));
        else if (pb > 0) frac = std::min(1.0, double(b) / double(pb));
        else frac = 0;
        const double el = double(now - st) / 1e9;
        if (frac > 0) eta = std::max(eta, el * (1 - frac) / frac);
      } else if (!done) {
        frac = 0;
      }
      frac_min = std::min(frac_min, frac);
    }
    const double dt = double(now - prev_t_) / 1e9;
    for (int d = 0; d < kNumDirs; d++) {
      ps.bw_bytes[d] = dt > 0 ? double(bytes[d] - prev_bytes_[d]) / dt : 0;
      ps.iops[d] = dt > 0 ? double(ios[d] - prev_ios_[d]) / dt : 0;
      prev_bytes_[d] = bytes[d];
      prev_ios_[d] = ios[d];
    }
    prev_t_ = now;
    ps.percent = frac_min * 100;
    ps.eta_s = eta;
    // fio-like mode letters: r/w/R/W/m/M for the running clones.
    std::map<char, int> letters;
    for (size_t k = c0_; k < c1_; k++) {
      if (live_[k].done.load()) continue;
      static const char kL[] = {'R', 'W', 'D', 'r', 'w', 'd', 'M', 'm'};
      letters[kL[int(rr_.clones[k].job->rw)]]++;
    }
    for (auto& [ch, n] : letters) ps.modes += std::string(1, ch) + "(" + std::to_string(n) + ")";
    return ps;
  }

 private:
  const RunResult& rr_;
  const std::vector<LiveCounters>& live_;
  size_t c0_, c1_;
  int64_t prev_t_;
  uint64_t prev_bytes_[kNumDirs] = {}, prev_ios_[kNumDirs] = {};
};

// Fills rr.clones: one per clone, in job order.
void MakeClones(const std::vector<JobOptions>& jobs, uint64_t seed_salt, RunResult* rr,
                std::vector<size_t>* first_clone) {
  const std::vector<int> groups = GroupIds(jobs);
  size_t total = 0;
  for (auto& j : jobs) total += std::max<uint32_t>(1, j.numjobs);
  rr->clones.resize(total);
  first_clone->resize(jobs.size());
  size_t k = 0;
  for (size_t i = 0; i < jobs.size(); i++) {
    (*first_clone)[i] = k;
    for (uint32_t c = 0; c < std::max<uint32_t>(1, jobs[i].numjobs); c++, k++) {
      CloneResult& r = rr->clones[k];
      r.job = &jobs[i];
      r.job_index = uint32_t(i);
      r.clone = c;
      r.thread_number = uint32_t(k + 1);
      r.groupid = groups[i];
      r.seed = JobSeed(jobs[i], uint32_t(i), c);
      // Other processes of a multi-process run draw other sequences (rank
      // 0's are the single-host ones).
      if (seed_salt) r.seed ^= Mix64(seed_salt);
      r.rand_thread = uint32_t(k + 1 + seed_salt * total);
    }
  }
}

// Starts every clone of `seg`; a clone whose thread cannot start gets that
// error.  Returns how many were started.
// The threads are all made first, idle, and the clones then start together
// at one broadcast (`start`): a thread made while earlier clones already
// keep the CPUs busy would wait for a turn behind every one of them, which
// made starting n busy clones cost O(n^2) (100 s for 5000 on 2 CPUs).
// A stop request meanwhile ends the start-up at once: the clones whose
// thread was not made yet do not start (not_run).
// `ready`: each gated clone counts itself there once prepared or failed
// (RunOptions::sync: the clones wait for every process; else for seg.go,
// WaitSegment).
size_t StartSegment(RunResult& rr, std::vector<LiveCounters>& live, const RunOptions& opts,
                    RunShared& shared, DoneCounter& done, DoneCounter* ready, Segment& seg) {
  const StopSource* stop = opts.stop;
  PlanWaits(rr, seg);
  // Every clone first (flow groups are complete before any clone runs).
  for (size_t k = seg.c0; k < seg.c1; k++) {
    CloneResult& r = rr.clones[k];
    seg.clones.push_back(std::make_unique<Clone>(*r.job, &r, &live[k], opts, &shared));
    Clone& c = *seg.clones.back();
    if (opts.sync) c.set_gate([ready] { ready->add_one(); });
    else if (seg.go.ok() && r.job->startdelay.max.count() <= 0 && !seg.wait_of(rr, k))
      c.set_start_gate([ready] { ready->add_one(); }, &seg.go);
  }
  for (size_t k = seg.c0; k < seg.c1; k++) {
    CloneResult& r = rr.clones[k];
    Clone* w = seg.clones[k - seg.c0].get();
    // Gated runs start every clone (the processes agree on each segment).
    if (!opts.sync && stop && stop->requested()) {
      r.not_run = true;
      w->leave_flow();
      w->count_down_io();
      live[k].done.store(true);
      seg.threads.push_back(nullptr);
      continue;
    }
    std::string tname = "bb-" + r.job->name.substr(0, 8) + "." + std::to_string(r.clone);
    auto t = IOThread::Create(tname);
    if (!t.ok()) {
      r.error = -t.error().code;
      r.error_message = t.error().message;
      w->leave_flow();
      w->count_down_io();
      live[k].done.store(true);
      seg.threads.push_back(nullptr);
      continue;
    }
    seg.threads.push_back(std::move(*t));
    if (!opts.sync && seg.go.ok() && r.job->startdelay.max.count() <= 0 && !seg.wait_of(rr, k))
      seg.at_gate++;
  }
  // Without the start descriptor (none left) each clone starts at once.
  Broadcast& start = seg.start;
  const int stop_fd = stop ? stop->fd() : -1;
  size_t started = 0;
  for (size_t i = 0; i < seg.threads.size(); i++) {
    if (!seg.threads[i]) continue;
    AioContext& ctx = seg.threads[i]->ctx();
    const Segment::WaitFor* wait = seg.wait_of(rr, seg.c0 + i);
    Spawn(ctx, RunClone(seg.clones[i].get(), ctx, start.fd(), stop_fd,
                        wait ? wait->release->fd() : -1, &done));
    started++;
  }
  start.fire();
  return started;
}

// Interrupts the clones of `seg` still running by posting to their loops.
// The clones watch the stop request themselves (RunClone); this is for a
// request without a descriptor, and for the gate of gated runs.
void InterruptSegment(Segment& seg, const std::vector<LiveCounters>& live) {
  for (size_t i = 0; i < seg.threads.size(); i++) {
    if (!seg.threads[i] || live[seg.c0 + i].done.load()) continue;
    Clone* w = seg.clones[i].get();
    seg.threads[i]->ctx().post([w] { w->interrupt(); });
  }
}

// Gated runs: waits until the `running` clones of `seg` are prepared (or
// failed), asks opts.sync whether every process is ready, and starts the
// clones' I/O or ends them without any.  A stop request meanwhile
// interrupts the clones; the processes still agree (segment_ready is
// collective), and the answer is then an error.
Expected<void> GateSegment(RunResult& rr, const std::vector<LiveCounters>& live,
                           const RunOptions& opts, DoneCounter& ready, Segment& seg,
                           size_t running, size_t index) {
  const StopSource* stop = opts.stop;
  bool interrupted = false;
  while (running > 0) {
    if (stop && stop->requested() && !interrupted) {
      interrupted = true;
      InterruptSegment(seg, live);
    }
    struct pollfd p[2] = {{ready.fd(), POLLIN, 0}, {-1, POLLIN, 0}};
    if (stop && !interrupted) p[1].fd = stop->fd();
    poll(p, 2, stop && stop->fd() < 0 ? 100 : -1);
    running -= std::min<uint64_t>(running, ready.take());
  }
  std::string failure;
  if (stop && stop->requested()) {
    failure = "interrupted by a signal before the I/O started";
  } else {
    for (size_t k = seg.c0; k < seg.c1 && failure.empty(); k++) {
      const CloneResult& c = rr.clones[k];
      if (c.error)
        failure = "job '" + c.job->name + "' (clone " + std::to_string(c.clone) + "): " +
                  c.error_message;
    }
  }
  Expected<void> go = opts.sync->segment_ready(index, failure);
  for (size_t i = 0; i < seg.threads.size(); i++) {
    if (!seg.threads[i]) continue;
    Clone* w = seg.clones[i].get();
    const bool ok = go.ok();
    seg.threads[i]->ctx().post([w, ok] { w->release(ok); });
  }
  return go;
}

// The steady state monitors of a segment: one per clone of a job with
// ss_dur, or one per group with group_reporting (as fio).
std::vector<SteadyMonitor> SteadyMonitors(const RunResult& rr, const Segment& seg) {
  std::vector<SteadyMonitor> out;
  std::map<int, size_t> group_unit;  // groupid -> index in out
  for (size_t k = seg.c0; k < seg.c1; k++) {
    const CloneResult& r = rr.clones[k];
    if (r.job->ss_dur.count() <= 0) continue;
    if (r.job->group_reporting) {
      auto it = group_unit.find(r.groupid);
      if (it != group_unit.end()) {
        std::vector<size_t> c = out[it->second].clones();
        c.push_back(k);
        out[it->second] = SteadyMonitor(*rr.clones[c.front()].job, c);
        continue;
      }
      group_unit[r.groupid] = out.size();
    }
    out.emplace_back(*r.job, std::vector<size_t>{k});
  }
  return out;
}

// Waits until `running` clones finished, interrupting them when a stop is
// requested, ending the units whose steady state was reached and reporting
// progress about once a second.
// Gated runs (opts.sync): the ramps of a started segment end on every
// process together.  One agreement per distinct ramp_time, in increasing
// order, begun once every clone here with that ramp_time has ended or run
// its ramp by its own clock (which starts after its startdelay, as fio's
// ramp); a done agreement ends the ramp of those clones.
class RampSync {
 public:
  RampSync(const RunResult& rr, const std::vector<LiveCounters>& live, const RunOptions& opts,
           Segment& seg, int64_t go_ns)
      : rr_(rr), live_(live), sync_(opts.sync), seg_(seg) {
    if (!sync_ || !go_ns) return;
    for (size_t k = seg.c0; k < seg.c1; k++) {
      const int64_t r = int64_t(rr.clones[k].job->ramp_time.count()) * 1000;
      if (r > 0) ramps_.push_back(r);
    }
    std::sort(ramps_.begin(), ramps_.end());
    ramps_.erase(std::unique(ramps_.begin(), ramps_.end()), ramps_.end());
  }
  bool finished() const { return i_ == ramps_.size(); }
  // When poll() has something to do next (INT64_MAX: nothing).
  int64_t next_due_ns() const {
    if (finished()) return INT64_MAX;
    if (pending_) return NowNs() + 1'000'000;  // poll a pending one every ms
    int64_t due = 0;  // the last of the clones' ramp ends (a clone not started: soon)
    for (size_t k = seg_.c0; k < seg_.c1; k++) {
      if (!has_ramp(k) || live_[k].done.load()) continue;
      const int64_t st = live_[k].start_ns.load();
      due = std::max(due, st ? st + ramps_[i_] : NowNs() + 10'000'000);
    }
    return due;
  }
  // Advances the agreements; `clones_done`: this process's clones all ended.
  void poll(bool clones_done) {
    while (!finished()) {
      if (!pending_) {
        if (!clones_done && !ramps_over()) return;
        sync_->ramp_begin();
        pending_ = true;
      }
      if (!sync_->ramp_done()) return;
      pending_ = false;
      for (size_t k = seg_.c0; k < seg_.c1; k++) {
        const size_t i = k - seg_.c0;
        if (!seg_.threads[i] || !has_ramp(k)) continue;
        Clone* w = seg_.clones[i].get();
        seg_.threads[i]->ctx().post([w] { w->end_ramp(); });
      }
      i_++;
    }
  }

 private:
  bool has_ramp(size_t k) const {
    return int64_t(rr_.clones[k].job->ramp_time.count()) * 1000 == ramps_[i_];
  }
  // Every clone with the current ramp_time ended or ran its ramp.
  bool ramps_over() const {
    const int64_t now = NowNs();
    for (size_t k = seg_.c0; k < seg_.c1; k++) {
      if (!has_ramp(k) || live_[k].done.load()) continue;
      const int64_t st = live_[k].start_ns.load();
      if (!st || now < st + ramps_[i_]) return false;
    }
    return true;
  }
  const RunResult& rr_;
  const std::vector<LiveCounters>& live_;
  RunSync* sync_;
  Segment& seg_;
  std::vector<int64_t> ramps_;  // ns, increasing
  size_t i_ = 0;
  bool pending_ = false;
};

// --status-interval: the results so far.  Clones of the running segment
// copy theirs on their own loops (Clone::snapshot); the others are copied
// here (ended, or not started: nobody writes them).  A clone whose loop
// does not answer within 2 s (blocked laying out a file) shows as not
// started.  The copies meet here under a mutex: a late one lands in the
// shared state, which it keeps alive, and is dropped.
RunResult StatusSnapshot(const RunResult& rr, const std::vector<LiveCounters>& live, Segment& seg) {
  struct Copies {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<std::optional<CloneResult>> got;
    size_t pending = 0;
  };
  auto copies = std::make_shared<Copies>();
  copies->got.resize(seg.c1 - seg.c0);
  RunResult snap;
  snap.disk_util = rr.disk_util;
  snap.start_unix_ms = rr.start_unix_ms;
  snap.pid = rr.pid;
  snap.clones.reserve(rr.clones.size());
  for (size_t k = 0; k < rr.clones.size(); k++) {
    const bool running = k >= seg.c0 && k < seg.c1 && !live[k].done.load() && seg.threads[k - seg.c0];
    if (!running) {
      snap.clones.push_back(rr.clones[k]);
      continue;
    }
    CloneResult empty;
    empty.job = rr.clones[k].job;
    empty.job_index = rr.clones[k].job_index;
    empty.clone = rr.clones[k].clone;
    empty.thread_number = rr.clones[k].thread_number;
    empty.groupid = rr.clones[k].groupid;
    snap.clones.push_back(std::move(empty));
    const size_t i = k - seg.c0;
    Clone* w = seg.clones[i].get();
    {
      std::lock_guard l(copies->mu);
      copies->pending++;
    }
    seg.threads[i]->ctx().post([w, copies, i] {
      CloneResult c;
      w->snapshot(&c);
      std::lock_guard l(copies->mu);
      copies->got[i] = std::move(c);
      copies->pending--;
      copies->cv.notify_one();
    });
  }
  std::unique_lock l(copies->mu);
  copies->cv.wait_for(l, std::chrono::seconds(2), [&] { return copies->pending == 0; });
  for (size_t i = 0; i < copies->got.size(); i++)
    if (copies->got[i]) snap.clones[seg.c0 + i] = std::move(*copies->got[i]);
  return snap;
}

// While it lives, the calling thread (the coordinator, which also takes
// the signals) runs at real-time priority (SCHED_RR 1) when the process may
// (root, CAP_SYS_NICE or RLIMIT_RTPRIO): with thousands of clones keeping
// the CPUs busy, a normal thread woken by a signal or a finished clone
// waits seconds for a turn; this one runs at once, and only briefly (it
// mostly sleeps in poll).  Without the permission nothing changes.  Made
// after the segment's threads: a thread inherits its creator's policy.
class CoordinatorPriority {
 public:
  CoordinatorPriority() {
    if (pthread_getschedparam(pthread_self(), &policy_, &saved_) != 0) return;
    sched_param p{};
    p.sched_priority = 1;
    raised_ = pthread_setschedparam(pthread_self(), SCHED_RR, &p) == 0;
  }
  ~CoordinatorPriority() {
    if (raised_) pthread_setschedparam(pthread_self(), policy_, &saved_);
  }
  CoordinatorPriority(const CoordinatorPriority&) = delete;
  CoordinatorPriority& operator=(const CoordinatorPriority&) = delete;

 private:
  int policy_ = SCHED_OTHER;
  sched_param saved_{};
  bool raised_ = false;
};

// exitall / exitall_on_error with exit_what: ends the clones a clone that
// ended (in error) ends, once per group (exit_what=group) or per segment.
class ExitAll {
 public:
  ExitAll(const RunResult& rr, const Segment& seg) {
    for (size_t k = seg.c0; k < seg.c1; k++)
      watch_ = watch_ || rr.clones[k].job->exitall || rr.clones[k].job->exitall_on_error;
  }
  // Called after each wake-up while clones run.  Returns true once a clone
  // with exit_what=all fired: the run's later segments are not to start.
  bool poll(const RunResult& rr, const std::vector<LiveCounters>& live, Segment& seg) {
    if (!watch_ || whole_) return false;
    for (size_t k = seg.c0; k < seg.c1 && !whole_; k++) {
      if (!live[k].done.load()) continue;
      const CloneResult& c = rr.clones[k];
      if (!c.job->exitall && !(c.job->exitall_on_error && (c.error || c.total_errors))) continue;
      const bool group = c.job->exit_what == JobOptions::ExitWhat::kGroup;
      if (group && std::find(groups_.begin(), groups_.end(), c.groupid) != groups_.end()) continue;
      if (group) groups_.push_back(c.groupid);
      whole_ = !group;
      all_ = c.job->exit_what == JobOptions::ExitWhat::kAll;
      // As at the end of their runtime.
      for (size_t i = 0; i < seg.threads.size(); i++) {
        if (!seg.threads[i] || (group && rr.clones[seg.c0 + i].groupid != c.groupid)) continue;
        Clone* w = seg.clones[i].get();
        seg.threads[i]->ctx().post([w] { w->end_now(); });
      }
    }
    return all_;
  }

 private:
  bool watch_ = false;      // a job of the segment has exitall / exitall_on_error
  bool whole_ = false;      // the segment was ended (exit_what=stonewall|all)
  bool all_ = false;        // ... by exit_what=all
  std::vector<int> groups_; // the groups ended (exit_what=group)
};

// `go_ns`: gated runs, when the segment's I/O started (0: it did not).
// Runs of one process: releases the clones at seg.go once all of them were
// prepared (counted in `ready`), or at once on a stop request.
// Returns true when exit_what=all ended the run: no later segment starts.
bool WaitSegment(RunResult& rr, const std::vector<LiveCounters>& live, const RunOptions& opts,
                 DoneCounter& done, DoneCounter& ready, Segment& seg, size_t running,
                 int64_t go_ns) {
  const CoordinatorPriority priority;
  ProgressMeter meter(rr, live, seg.c0, seg.c1);
  RampSync ramps(rr, live, opts, seg, go_ns);
  const StopSource* stop = opts.stop;
  bool interrupted = false;
  // Not looked for without a job that has it: a scan of every clone at each
  // wake-up.
  ExitAll exit_all(rr, seg);
  bool end_run = false;
  int64_t next_progress = NowNs() + kProgressNs;
  const bool status = opts.status_interval_ns > 0 && opts.on_status;
  int64_t next_status = status ? NowNs() + opts.status_interval_ns : INT64_MAX;
  std::vector<SteadyMonitor> steady = SteadyMonitors(rr, seg);
  auto check_steady = [&] {
    const int64_t now = NowNs();
    for (SteadyMonitor& m : steady) {
      if (!m.poll(now, live)) continue;
      for (size_t k : m.clones()) {  // attained: end the unit's clones
        const size_t i = k - seg.c0;
        if (!seg.threads[i]) continue;
        Clone* w = seg.clones[i].get();
        seg.threads[i]->ctx().post([w] { w->end_now(); });
      }
    }
  };
  size_t unprepared = seg.at_gate;
  if (!unprepared) seg.go.fire();
  ReleaseWaits(seg, live, false);  // waitees that could not start
  while (running > 0) {
    if (stop && stop->requested() && !interrupted) {
      interrupted = true;
      seg.go.fire();  // the clones at the gate end without I/O
      ReleaseWaits(seg, live, true);  // ... and those waiting for a job
      InterruptSegment(seg, live);
    }
    struct pollfd p[3] = {{done.fd(), POLLIN, 0}, {-1, POLLIN, 0}, {-1, POLLIN, 0}};
    if (stop && !interrupted) p[1].fd = stop->fd();  // -1 when it has none: ignored
    if (unprepared) p[2].fd = ready.fd();
    int64_t due = std::min({next_progress, next_status, ramps.next_due_ns()});
    for (const SteadyMonitor& m : steady) due = std::min(due, m.next_due_ns());
    int64_t wait_ns = std::max<int64_t>(0, due - NowNs());
    // Without a stop descriptor a request is seen at least every 100 ms.
    if (stop && stop->fd() < 0) wait_ns = std::min<int64_t>(wait_ns, 100'000'000);
    poll(p, 3, int((wait_ns + 999'999) / 1'000'000));
    if (unprepared) {
      unprepared -= std::min<uint64_t>(unprepared, ready.take());
      if (!unprepared) seg.go.fire();
    }
    running -= std::min<uint64_t>(running, done.take());
    ReleaseWaits(seg, live, false);
    ramps.poll(running == 0);
    if (!interrupted) check_steady();
    if (!interrupted && running > 0) end_run = exit_all.poll(rr, live, seg) || end_run;
    if (NowNs() >= next_status && running > 0 && !interrupted) {
      next_status += opts.status_interval_ns;
      opts.on_status(StatusSnapshot(rr, live, seg));
    }
    if (NowNs() >= next_progress) {
      next_progress = NowNs() + kProgressNs;
      if (opts.on_progress && running > 0) opts.on_progress(meter.snapshot());
    }
  }
  // Every process takes part in every agreement, also after its clones ended.
  while (!ramps.finished()) {
    ramps.poll(true);
    if (!ramps.finished()) poll(nullptr, 0, 1);
  }
  for (const SteadyMonitor& m : steady) rr.clones[m.clones().front()].steadystate = m.result();
  // A clone that ended last fired no poll above.
  if (!interrupted) end_run = exit_all.poll(rr, live, seg) || end_run;
  return end_run;
}

}  // namespace

Expected<void> CheckWaitFor(const std::vector<JobOptions>& jobs) {
  for (size_t i = 0; i < jobs.size(); i++) {
    const std::string& waitee = jobs[i].proc.wait_for;
    if (waitee.empty()) continue;
    const bool before = std::any_of(jobs.begin(), jobs.begin() + ptrdiff_t(i),
                                    [&](const JobOptions& j) { return j.name == waitee; });
    if (!before)
      return MakeError(-EINVAL, "job '" + jobs[i].name + "': wait_for=" + waitee +
                                    ": no job of that name before it (fio: waitee job " + waitee +
                                    " unknown)");
  }
  return {};
}

std::vector<int> GroupIds(const std::vector<JobOptions>& jobs) {
  std::vector<int> ids;
  int g = 0;
  for (size_t i = 0; i < jobs.size(); i++) {
    if (i > 0 && (jobs[i].stonewall || jobs[i].new_group)) g++;
    ids.push_back(g);
  }
  return ids;
}

RunResult RunJobs(const std::vector<JobOptions>& jobs, const RunOptions& opts) {
  RunResult rr;
  rr.pid = int(getpid());
  rr.start_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  // Before any allocation per clone: numjobs=4294967295 must be an error,
  // not an attempt.
  // With opts.sync the other processes learn of a failure here at their
  // first segment (segment_ready is collective).
  const ResourceLimits limits = ResourceLimits::FromSystem(opts.max_memory);
  Expected<void> ok = CheckResources(jobs, limits);
  if (ok.ok()) ok = CheckWaitFor(jobs);
  // wait_for would hold a clone back from the processes' common start.
  if (opts.sync && ok.ok()) {
    for (const JobOptions& j : jobs)
      if (!j.proc.wait_for.empty())
        ok = MakeError(-EINVAL, "job '" + j.name + "': wait_for is not supported in a run of "
                                                  "several processes (their jobs start together)");
  }
  if (!ok.ok()) {
    rr.setup_error = ok.error();
    if (opts.sync) (void)opts.sync->segment_ready(0, rr.setup_error->message);
    return rr;
  }
  DoneCounter done, ready;
  if (!done.ok() || !ready.ok()) {
    const int e = -errno;
    rr.setup_error = MakeError(e, "eventfd: " + ErrnoString(e));
    if (opts.sync) (void)opts.sync->segment_ready(0, rr.setup_error->message);
    return rr;
  }
  RunShared shared(limits.memory, limits.memory_source);  // traces, set-up lock, memory
  std::vector<size_t> first_clone;
  MakeClones(jobs, opts.seed_salt, &rr, &first_clone);
  for (const CloneResult& c : rr.clones) {
    shared.clone_seeds.push_back(c.seed);
    if (!MovesNoData(c.job->ioengine)) shared.io_clones++;
  }
  shared.io_clones_left.store(shared.io_clones);
  // fio's disk statistics: the devices under the file targets of the jobs
  // with disk_util=1, over the run.
  std::vector<std::string> paths;
  for (const JobOptions& job : jobs) {
    if (!job.disk_util) continue;
    for (uint32_t c = 0; c < std::max<uint32_t>(1, job.numjobs); c++) {
      for (uint32_t f = 0; f < std::max<uint32_t>(1, job.nrfiles); f++) {
        if (auto t = JobTarget(FileJob(job, c, f), c); t.ok() && !t.value().filename.empty())
          paths.push_back(t.value().filename);
      }
    }
  }
  const DiskWatch disks(paths);
  std::vector<LiveCounters> live(rr.clones.size());
  const StopSource* stop = opts.stop;
  size_t i = 0;
  // Gated runs: every process runs every segment, also after a stop request
  // (segment_ready is collective); the clones then end without I/O.
  for (size_t index = 0; i < jobs.size() && (opts.sync || !(stop && stop->requested()));
       index++) {
    size_t j = i + 1;
    while (j < jobs.size() && !jobs[j].stonewall) j++;
    Segment seg;
    seg.c0 = first_clone[i];
    seg.c1 = j < jobs.size() ? first_clone[j] : rr.clones.size();
    const size_t running = StartSegment(rr, live, opts, shared, done, &ready, seg);
    bool no_go = false;
    int64_t go_ns = 0;
    if (opts.sync) {
      Expected<void> go = GateSegment(rr, live, opts, ready, seg, running, index);
      if (!go.ok()) {
        if (!(stop && stop->requested())) rr.sync_error = go.error();
        no_go = true;
      } else {
        go_ns = NowNs();
      }
    }
    // exit_what=all: no later segment (under RunOptions::sync every process
    // runs every segment, so there it ends the segment only).
    const bool end_run = WaitSegment(rr, live, opts, done, ready, seg, running, go_ns);
    // Every loop is told to stop first, so the threads end together; then
    // the joins (a posted interrupt() after the end is a no-op).
    for (auto& t : seg.threads)
      if (t) t->ctx().stop();
    seg.threads.clear();
    seg.clones.clear();
    if (no_go) break;  // i: this segment did not run
    i = j;
    if (end_run && !opts.sync) break;  // i: the first segment not run
  }
  if (stop && stop->requested()) rr.interrupted_by = stop->signal() ? stop->signal() : -1;
  for (size_t k = i < jobs.size() ? first_clone[i] : rr.clones.size(); k < rr.clones.size(); k++)
    rr.clones[k].not_run = true;
  rr.disk_util = disks.Finish();
  return rr;
}

}  // namespace blk::bench
