#include "tools/block_bench/run/clone.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <utility>

#include "tools/block_bench/numa/numa.h"
#include "tools/block_bench/run/io_memory.h"
#include "tools/block_bench/run/job_process.h"
#include "tools/block_bench/run/rng.h"
#include "tools/block_bench/run/stop.h"
#include "tools/block_bench/run/target.h"
#include <blkstack/util/clock.h>
#include <blkstack/util/cpu_affinity.h>
#include <blkstack/util/quote.h>
#include <blkstack/util/saturating.h>

namespace blk::bench {
Clone::Clone(const JobOptions& job, CloneResult* res, LiveCounters* live, const RunOptions& opts,
             RunShared* shared)
    : job_(job),
      res_(res),
      live_(live),
      opts_(opts),
      shared_(shared),
      errors_(res, job.continue_on_error),
      files_(job, res, opts, &shared->traces, &shared->setup),
      stats_(job, res, live),
      pacing_(job, res->seed, time_, sleeps_, &res->schedule),
      recorder_(time_) {
  errors_.set_ignore(job.ignore_error);
  // error_dump=1: each failed request's line at once, as fio's log_err
  // (one fputs, so lines of clones on other threads do not interleave).
  if (job.error_dump) {
    errors_.set_dump([](std::string_view line) {
      std::fputs(("block-bench: " + std::string(line) + "\n").c_str(), stderr);
    });
  }
  if (job_.flow) {
    features_.flow = std::make_unique<FlowMember>(job_, shared_->flow(job_.flow_id), time_);
    // In the group from the start (the runner makes every clone of a
    // segment before it starts any), so that no clone runs alone first; one
    // with a start delay joins when its I/O starts, not to hold the others
    // back meanwhile.
    if (job_.startdelay.max.count() <= 0) features_.flow->join();
  }
}

Clone::~Clone() {
  leave_flow();
  count_down_io();
}

void Clone::count_down_io() {
  if (MovesNoData(job_.ioengine) || life_.io_counted_down) return;
  life_.io_counted_down = true;
  shared_->io_clones_left.fetch_sub(1, std::memory_order_acq_rel);
}

void Clone::leave_flow() {
  if (features_.flow) features_.flow->leave();
}

// ---- life cycle -------------------------------------------------------------

// The random category's lines: the seed and where it comes from.
void Clone::say_seed() const {
  const DebugLog& d = *opts_.debug;
  const char* from = job_.randseed ? "randseed=" : job_.randrepeat    ? "randrepeat=1 (fixed)"
                     : job_.allrandrepeat ? "allrandrepeat=1 (fixed)"
                                          : "the system's RNG";
  d.print(DebugCategory::kRandom, "%s (clone %u): seed %llu from %s%s", job_.name.c_str(),
          res_->clone, (unsigned long long)res_->seed, from,
          job_.randseed ? std::to_string(*job_.randseed).c_str() : "");
}

Task<void> Clone::run(AioContext& ctx) {
  ctx_ = &ctx;
  if (opts_.debug) {
    opts_.debug->print(DebugCategory::kProcess, "thread of %s (clone %u, thread %u) started",
                       job_.name.c_str(), res_->clone, res_->thread_number);
    opts_.debug->print(DebugCategory::kJob, "%s (clone %u): starting", job_.name.c_str(),
                       res_->clone);
    say_seed();
  }
  getrusage(RUSAGE_THREAD, &begin_.ru);
  begin_.ns = NowNs();
  // Else no I/O: the error says why.
  const bool bound =
      bind_cpus() && place_on_numa() && set_io_priority() && set_nice() && pin_memory() &&
      join_cgroup();
  const bool gated = static_cast<bool>(gate_.prepared);
  // Gated (RunOptions::sync): open and prepare, report, wait for every
  // process; the start delay counts from the common start.
  if (!gated && bound) co_await start_delay();
  bool ready = bound && !life_.interrupted && open_and_prepare(ctx);
  if (ready && !job_.proc.ioscheduler.empty()) ready = switch_io_scheduler();
  if (gated) {
    gate_.prepared();
    if (ready && gate_.start) {
      co_await WhenReadable(ctx, gate_.start->fd());
    } else if (ready) {
      ready = co_await GateAwaiter{&gate_};
      if (ready) co_await start_delay();
    }
    ready = ready && !life_.interrupted;
  }
  // fio's exec_prerun: after the set-up, before the I/O; a command that
  // fails leaves the clone without I/O and without an error, as fio's.
  if (ready && !job_.proc.exec_prerun.empty())
    ready = RunExecCommand(job_.name, job_.proc.exec_prerun, "prerun", opts_.info) == 0;
  if (ready && job_.offload()) ready = co_await start_offload(ctx);
  // net: accepted or connected before the runtime starts (fio resets its
  // statistics after accept).
  if (ready && features_.net) ready = co_await open_net(ctx);
  if (ready) co_await main_phase(ctx);
  if (features_.net) {
    features_.net->close();
    res_->dir[int(Dir::kRead)].drop_ios += features_.net->dropped();
  }
  pinned_.unpin();  // fio's lockmem, held for the I/O
  // fio's exec_postrun: after the I/O (and its verify), files still open.
  if (ready && !job_.proc.exec_postrun.empty())
    (void)RunExecCommand(job_.name, job_.proc.exec_postrun, "postrun", opts_.info);
  if (offload_ && offload_->active()) co_await offload_->home(files_, ctx);
  co_await files_.close();
  files_.unlink();
  leave_flow();  // a clone that failed before its I/O
  if (sampler_) sampler_->close();
  overdue_.reset();
  leave_cgroup();
  life_.finished = true;
  count_down_io();
  usage_since_begin(res_, NowNs());
  if (offload_) offload_->close();  // idle: its graphs came home
  if (opts_.debug)
    opts_.debug->print(DebugCategory::kJob, "%s (clone %u): done, %llu I/Os", job_.name.c_str(),
                       res_->clone,
                       (unsigned long long)(res_->dir[0].ios + res_->dir[1].ios + res_->dir[2].ios));
  live_->done.store(true);
}

bool Clone::bind_cpus() {
  std::vector<uint32_t> cpus = job_.cpus_allowed;
  if (cpus.empty()) return true;
  // fio clears gtod_cpu (when not 0) from a job's CPU mask, for its
  // time-keeping thread; only a job with a mask is bound at all.
  if (const auto g = job_.proc.gtod_cpu; g && *g) std::erase(cpus, *g);
  if (cpus.empty()) {
    errors_.set(EINVAL, "cpus_allowed: no CPU left once gtod_cpu=" + std::to_string(*job_.proc.gtod_cpu) +
                            " is taken out");
    return false;
  }
  // cpus_allowed_policy=split: clone N gets the list's N-th CPU (cycling).
  const int e = PinThisThread(job_.cpus_split
                                  ? std::vector<uint32_t>{cpus[res_->clone % cpus.size()]}
                                  : cpus);
  if (e == 0) return true;
  errors_.set(-e, PinErrorMessage("cpus_allowed", cpus, "the clone's thread", e));
  return false;
}

bool Clone::place_on_numa() {
  if (!job_.proc.numa_cpu_nodes.empty()) {
    const Expected<void> r = RunOnNumaNodes(job_.proc.numa_cpu_nodes);
    if (!r.ok()) return failed_setup(r.error());
  }
  if (job_.proc.numa_mem_policy.empty()) return true;
  const Expected<void> r = ApplyNumaMemPolicy(job_.proc.numa_mem);
  return r.ok() || failed_setup(r.error());
}

bool Clone::join_cgroup() {
  if (job_.proc.cgroup.empty()) return true;  // cgroup_weight alone: nothing, as fio
  Expected<CgroupMount> m = FindCgroupMount();
  if (!m.ok()) return failed_setup(m.error());
  const Expected<void> r = JoinCgroup(m.value(), job_.proc.cgroup, job_.proc.cgroup_weight,
                                      job_.proc.cgroup_nodelete, shared_->cgroups);
  if (!r.ok()) return failed_setup(r.error());
  cgroup_ = m.value();
  return true;
}

void Clone::leave_cgroup() {
  if (cgroup_) LeaveCgroup(*cgroup_);
  cgroup_.reset();
}

bool Clone::set_nice() {
  const Expected<void> r = ApplyNice(job_.proc.nice);
  if (r.ok()) return true;
  errors_.set(-r.error().code, r.error().message);
  return false;
}

bool Clone::switch_io_scheduler() {
  if (files_.files().empty() || files_.files()[0].target.filename.empty()) return true;  // null, graphs
  const Expected<void> r =
      SwitchIoScheduler(files_.files()[0].target.filename, job_.proc.ioscheduler, opts_.messages);
  if (r.ok()) return true;
  errors_.set(-r.error().code, r.error().message);
  return false;
}

bool Clone::pin_memory() {
  const Expected<void> r = pinned_.pin(job_.proc.lockmem, &shared_->memory, opts_.info);
  if (r.ok()) return true;
  errors_.set(-r.error().code, r.error().message);
  return false;
}

bool Clone::set_io_priority() {
  const uint16_t v = job_.ioprio.job_ioprio();
  if (!v) return true;
  if (syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0 /* this thread */, int(v)) == 0) return true;
  const int e = errno;
  errors_.set(e, "prio/prioclass: ioprio_set(class " + std::to_string(v >> 13) + ", level " +
                     std::to_string(v & 7) + ") on the clone's thread: " + ErrnoString(-e));
  return false;
}

Task<void> Clone::start_delay() {
  if (job_.startdelay.max.count() <= 0 || life_.interrupted) co_return;
  const int64_t lo = job_.startdelay.min.count(), hi = job_.startdelay.max.count();
  Rng r(res_->seed ^ 0x7777);
  const int64_t us = lo + int64_t(r.below(uint64_t(hi - lo) + 1));
  // interrupt() cuts it short; up to 2^63 us: saturate, never the past.
  (void)co_await sleeps_.until(*ctx_, SatAdd(NowNs(), SatMul(us, 1000)));
}

Task<bool> Clone::open_net(AioContext& ctx) {
  // Ended before: end_now() cancelled the sleeps there were, not this wait.
  if (life_.interrupted || life_.end_requested) co_return false;
  const int r = co_await features_.net->open(ctx, sleeps_, opts_.info);
  if (r == -ECANCELED || life_.interrupted || life_.end_requested) co_return false;
  if (r < 0) {
    errors_.set(-r, features_.net->error() + ": " + ErrnoString(r));
    co_return false;
  }
  co_return true;
}

Task<bool> Clone::start_offload(AioContext& ctx) {
  offload_.emplace(job_.name + "-submit");
  const Expected<void> started = co_await offload_->start(files_, ctx);
  if (!started.ok()) {
    errors_.fail(-started.error().code, started.error().message);
    co_return false;
  }
  loop_->set_offload(&*offload_);
  co_return true;
}

// ---- set-up -----------------------------------------------------------------

bool Clone::failed_setup(const Error& e) {
  errors_.set(-e.code, e.message);
  return false;
}

bool Clone::open_and_prepare(AioContext& ctx) {
  auto loaded = files_.load_trace();
  if (!loaded.ok()) return failed_setup(loaded.error());
  // The job's buffer contents: its writes, and the files laid out for it.
  auto pattern = ResolvePattern(job_.buffer_pattern);
  if (!pattern.ok()) return failed_setup(pattern.error());
  DedupeSeeds::World world;
  if (job_.dedupe_global) world = {shared_->clone_seeds, res_->thread_number - 1};
  content_.filler =
      std::make_unique<BufferFiller>(job_, std::move(*pattern), res_->seed, std::move(world));
  auto opened = files_.open(ctx, content_.filler.get());
  if (!opened.ok()) return failed_setup(opened.error());
  return !job_.create_only && prepare(ctx);
}

bool Clone::prepare(AioContext& ctx) {
  auto src = MakeCloneSource(job_, res_, files_, pacing_.rate_active());
  if (!src.ok()) return failed_setup(src.error());
  source_ = std::move(*src);
  pacing_.set_spin_near_due(source_.trace != nullptr);
  // A rate-paced read/write mix: each direction at its own rate.
  if (pacing_.rate_active()) source_.source->set_dir_chooser(&pacing_);
  auto layout = MakeVerifyLayout(job_, *source_.source);
  if (!layout.ok()) return failed_setup(layout.error());
  content_.layout = std::move(*layout);
  content_.layout.thread = uint16_t(res_->thread_number);  // fio's verify_header.thread
  // The target's job: a replay onto the graph its trace names is not run
  // one I/O at a time because the job's ioengine (default psync) would be.
  const QueueShape shape = QueueShapeOf(files_.target_job(), files_.trace().get());
  res_->schedule.depth = shape.depth;
  res_->schedule.depth_capped_from = shape.capped_from;
  // fio's note, once per clone on the report's stream (stdout), when a
  // synchronous engine caps iodepth > 1 at one I/O (offload queues there).
  if (opts_.info && job_.iodepth > 1 && !job_.offload() && OneIoAtATime(files_.target_job()))
    std::fputs("note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth "
               "will be capped at 1\n", opts_.info);
  // The buffers are mapped, not filled: they are filled once the clock
  // started (fill_buffers), and only when writes carry the contents filled
  // once; reads, verify blocks, verify_pattern and refill_buffers never
  // need it.
  const bool fill_once = source_.source->has_dir(Dir::kWrite) &&
                         job_.verify == VerifyMethod::kNone && content_.layout.pattern.empty() &&
                         !content_.filler->refill();
  uint32_t memory_alignment = 1;
  for (uint32_t f = 0; f < files_.size(); f++) {
    const uint32_t m = files_.blk(f).root().limits().memory_alignment;
    memory_alignment = std::max(memory_alignment, m);
    auto a = CheckMemAlign(job_.mem.align, m, files_.display(f));
    if (!a.ok()) return failed_setup(a.error());
  }
  IoMemoryOptions memory = job_.mem;
  // fio aligns its buffer area only for direct=1 or mem_align=; otherwise
  // mem=malloc's buffers start where glibc's malloc put the area: 16-byte
  // aligned only (a page + 16 for an mmapped chunk, 1 MiB and up; 0x...610
  // or 0x...620 on its heap, as the environment moves it: strace).  The
  // kernel copies into and out of buffers placed so more slowly (1 MiB
  // page-cache reads: 8.2 k against 18 k IOPS page-aligned), so
  // block-bench's buffered buffers sit 16 bytes past a page.
  constexpr uint32_t kMallocOffset = 16;
  if (memory.type == IoMem::kMalloc && memory.align == 0 && !job_.direct && memory_alignment == 1)
    memory.align = kMallocOffset;
  auto s = slots_.allocate(shape.depth, source_.source->max_bs(),
                           fill_once ? content_.filler.get() : nullptr, &shared_->memory, memory);
  if (!s.ok()) return failed_setup(s.error());
  slots_.set_fill_stop([this] { return fill_stopped(); });
  // fixedbufs: every slot's buffer pinned in each file's io_uring, as fio
  // registers its io_u buffers.
  if (job_.ioengine == IoEngine::kIoUring && job_.io_uring.fixedbufs) {
    auto r = files_.register_buffers(slots_);
    if (!r.ok()) return failed_setup(r.error());
  }
  if (!job_.write_iolog.empty()) {
    // One file per clone: fio's would interleave clones' lines.
    auto r = recorder_.open(job_.write_iolog, res_->clone, opts_.file_tag, files_);
    if (!r.ok()) return failed_setup(r.error());
  }
  sampler_ = std::make_unique<Sampler>(job_, res_, time_, stats_, *source_.source);
  SubmitLoop::Parts parts{job_,   res_,   opts_,    time_,     errors_,
                          stats_, slots_, pacing_, *sampler_, files_};
  loop_ = std::make_unique<SubmitLoop>(parts, shape, *source_.source, ctx);
  if (life_.cancelling) loop_->set_cancelling();
  if (recorder_.active()) loop_->set_recorder(&recorder_);
  if (job_.ioprio.per_request()) {
    features_.cmdprio = std::make_unique<CmdPrio>(job_.ioprio, res_->seed);
    loop_->set_cmdprio(features_.cmdprio.get());
    stats_.split_by_priority(features_.cmdprio.get());
  }
  if (job_.verify_state_load) {
    auto st = LoadVerifyState(VerifyStatePath(opts_.aux_path, job_.name, res_->thread_number - 1));
    if (!st.ok()) return failed_setup(st.error());
    features_.loaded_state = std::move(*st);
  }
  return add_features();
}

bool Clone::add_features() {
  // Registered in this order: the loop calls each point's hooks in it (a
  // latency_target quiesce before a verify_backlog batch before a trim
  // before an fsync; the tracker before trim_backlog, which reads the
  // write's generation).
  const IoSource& src = *source_.source;
  const bool writes = src.has_dir(Dir::kWrite);
  const std::vector<std::string> names = files_.names();
  if (MaxLatency::Wanted(job_)) {
    features_.max_latency = std::make_unique<MaxLatency>(job_, errors_, names);
    loop_->add_hook(features_.max_latency.get());
  }
  if (job_.latency_target.count() > 0) {
    LatencyTarget::Callbacks cb{[this](int64_t now) { restart_stats(now); },
                                [this] { end_now(); }};
    features_.latency = std::make_unique<LatencyTarget>(job_, loop_->depth(), slots_.size(),
                                                         errors_, std::move(cb));
    loop_->set_depth_cap(features_.latency->cap());
    loop_->add_hook(features_.latency.get());
  }
  if (RateGuard::Wanted(job_)) {
    features_.rate = std::make_unique<RateGuard>(job_, time_, stats_, src, errors_, names[0], [this] {
      loop_->kick();
      sleeps_.cancel_all();
    });
    loop_->add_hook(features_.rate.get());
  }
  if (sampler_->logs_per_request()) loop_->add_hook(sampler_.get());
  if (!add_verify(writes)) return false;
  if (const uint32_t every = job_.fsync ? job_.fsync : job_.fdatasync) {
    features_.fsync = std::make_unique<FsyncCadence>(every, time_);
    loop_->add_hook(features_.fsync.get());
  }
  if (job_.unlink_each_loop && job_.loops > 1 && !job_.time_based) {
    AioContext* ctx = &loop_->ctx();
    auto between = [this, ctx]() -> Task<Expected<void>> {
      Expected<void> r = co_await files_.recreate(*ctx);
      if (r.ok() && job_.ioengine == IoEngine::kIoUring && job_.io_uring.fixedbufs)
        r = files_.register_buffers(slots_);
      co_return r;
    };
    features_.unlink_loop =
        std::make_unique<UnlinkEachLoop>(std::move(between), errors_);
    loop_->add_hook(features_.unlink_loop.get());
  }
  {
    std::vector<PassInvalidate::File> cached;
    bool any = false;
    for (const CloneFiles::File& f : files_.files()) {
      const Target& t = f.target;
      const bool drop = t.invalidate && !t.filename.empty();
      cached.push_back({drop ? t.filename : std::string(), t.region_offset, t.region_size});
      any = any || drop;
    }
    if (any) {
      features_.invalidate = std::make_unique<PassInvalidate>(std::move(cached));
      loop_->add_hook(features_.invalidate.get());
    }
  }
  if (job_.sync_file_range && job_.sync_file_range_flags) {
    features_.sync_range = std::make_unique<SyncFileRange>(
        job_.sync_file_range, job_.sync_file_range_flags, files_.size(),
        [this](uint32_t f) { return f < files_.size() ? files_.files()[f].side.get() : -1; }, time_);
    loop_->add_hook(features_.sync_range.get());
  }
  if (MovesNoData(job_.ioengine)) {
    features_.work = MakeWorkEngine(job_, opts_.info, opts_.messages);
    loop_->set_work(features_.work.get(), &sleeps_);
    stats_.set_counts_bytes(false);
    if (job_.cpuio.exit_on_io_done) {
      features_.exit_on_io_done = std::make_unique<ExitOnIoDone>(shared_->io_clones,
                                                                shared_->io_clones_left, errors_);
      loop_->add_hook(features_.exit_on_io_done.get());
    }
  }
  if (IsNet(job_.ioengine) && job_.blockdev.empty()) {
    // Bound (and listening) now, as fio's engine init; connected in run().
    auto net = NetEngine::Create(job_, res_->clone, src.has_dir(Dir::kRead));
    if (!net.ok()) {
      errors_.set(-net.error().code, net.error().message);
      return false;
    }
    features_.net = std::move(net.value());
    loop_->set_net(features_.net.get(), &sleeps_);
  }
  if (TimesFileCalls(job_.ioengine)) {
    std::vector<std::string> paths;
    for (const CloneFiles::File& f : files_.files()) paths.push_back(f.target.filename);
    // fio's engines time their calls as the job's reads, else its writes.
    const Dir d = src.has_dir(Dir::kRead) || !src.has_dir(Dir::kWrite) ? Dir::kRead : Dir::kWrite;
    features_.fs_calls = std::make_unique<FsCalls>(job_.ioengine, job_.stat_type, d,
                                                   std::move(paths), stats_, errors_, time_);
    stats_.set_latency_samples(false);
    loop_->add_hook(features_.fs_calls.get());
  }
  if (job_.thinktime.count() > 0 || features_.work) {
    features_.think = std::make_unique<ThinkTime>(job_, time_, errors_);
    if (features_.work) features_.think->follow(&features_.work->pause());
    loop_->add_hook(features_.think.get());
  }
  if (features_.flow) loop_->add_hook(features_.flow.get());
  if (job_.serialize_overlap && loop_->depth() > 1) {
    features_.overlap = std::make_unique<OverlapGuard>(slots_.size());
    loop_->add_hook(features_.overlap.get());
  }
  // Last: the I/O its before_issue lets through is issued at once.
  if (job_.lockfile != JobOptions::FileLock::kNone) {
    std::vector<FileLock*> locks;
    for (const CloneFiles::File& f : files_.files())
      locks.push_back(shared_->locks.get(f.target.filename.empty() ? f.target.spec
                                                                     : f.target.filename));
    features_.lock = std::make_unique<FileLockHook>(job_.lockfile, std::move(locks), slots_.size());
    loop_->add_hook(features_.lock.get());
  }
  return true;
}

bool Clone::add_verify(bool writes) {
  const IoSource& src = *source_.source;
  if (job_.verify == VerifyMethod::kNone) {
    content_.writes = std::make_unique<WriteContent>(*content_.filler, content_.layout);
    if (content_.writes->per_write()) loop_->set_content(content_.writes.get());
    return true;
  }
  const bool trim = TrimBacklog::Wanted(job_, writes);
  VerifyTracker::Options o;
  o.seed = res_->seed;
  o.has_write = writes;
  o.count_history = job_.verify_backlog || trim;
  o.backlog = o.skip_checked = job_.verify_backlog != 0;
  o.fatal = job_.verify_fatal;
  o.dump = job_.verify_dump;
  o.fake_io = job_.ioengine == IoEngine::kNull;
  // fio keeps its written blocks in issue order when the job has its
  // random map (log_io_piece: file_randommap), else sorted.
  o.issue_order = FioKeepsRandomMap(job_) && !files_.trace();
  if (job_.verify_state_save && writes) {
    features_.state_log = std::make_unique<VerifyStateLog>(job_.iodepth, files_.size());
    o.state_log = features_.state_log.get();
  }
  if (features_.loaded_state) o.loaded_state = &*features_.loaded_state;
  if (job_.verify_async) {
    auto v = VerifyOffload::Start(job_.name, job_.verify_async, job_.verify_async_cpus);
    if (!v.ok()) return failed_setup(v.error());
    features_.verify_async = std::move(*v);
    o.async = features_.verify_async.get();
    o.home = &loop_->ctx();
  }
  features_.verify = std::make_unique<VerifyTracker>(o, content_.layout, files_.keys(),
                                                     files_.names(), slots_, errors_, res_);
  VerifyTracker& t = *features_.verify;
  loop_->add_hook(&t);
  if (job_.verify_only && writes) loop_->set_source(t.record_only(*source_.source));
  // No read-back on net (fio's FIO_UNIDIR): the peer reads what was sent.
  if (job_.do_verify && writes && !IsNet(job_.ioengine)) {
    loop_->set_next_phase([this, &t, &src]() -> IoSource& {
      // fio reads back from the device: the files' caches are dropped
      // first (invalidate=1), once the writes completed.
      if (features_.invalidate) features_.invalidate->drop_all();
      return t.verify_reader(src);
    });
    loop_->set_phase_each_pass([&t](bool ran) { t.close_pass(ran); });
  }
  if (job_.verify_backlog) {
    features_.backlog =
        std::make_unique<VerifyBacklog>(job_.verify_backlog, job_.verify_backlog_batch, t, time_);
    loop_->add_hook(features_.backlog.get());
  }
  if (trim) {
    features_.trim = std::make_unique<TrimBacklog>(job_, res_->seed, t, files_.keys(), time_);
    loop_->add_hook(features_.trim.get());
  }
  return true;
}

// ---- the I/O ----------------------------------------------------------------

void Clone::start_clock() {
  const bool time_limited = job_.runtime.count() > 0;
  const int64_t start = gate_.start && gate_.start->fired() ? gate_.start->fired_ns() : NowNs();
  time_.start_ns = start;
  if (job_.log_epoch()) {
    // fio 3.33's set_epoch_time(): the start on the chosen clock, in ms.
    timespec ts{};
    clock_gettime(clockid_t(job_.log_alternate_epoch_clock_id), &ts);
    res_->log_epoch_ms = uint64_t(ts.tv_sec) * 1000 + uint64_t(ts.tv_nsec) / 1000000;
  }
  if (features_.think) features_.think->start(start);
  if (features_.latency) features_.latency->start(start);
  // Times up to 2^63 us: saturate (an end past int64 ns is never).
  time_.ramp_end_ns = SatAdd(start, SatMul(job_.ramp_time.count(), 1000));
  if (time_limited) time_.end_ns = SatAdd(time_.ramp_end_ns, SatMul(job_.runtime.count(), 1000));
  const int64_t planned_end = time_.end_ns;
  if (life_.ramp_held) {  // end_ramp() says when
    time_.ramp_end_ns = INT64_MAX;
    if (time_limited) time_.end_ns = INT64_MAX;
  }
  if (life_.end_requested) time_.end_ns = start;  // end_now() came before the start
  const IoSource& src = *source_.source;
  live_->start_ns.store(start);
  live_->planned_ns.store(time_limited ? planned_end - start : 0);
  live_->planned_bytes.store(src.io_limit());
  if (!src.has_dir(Dir::kRead) && !src.has_dir(Dir::kWrite) && !src.has_dir(Dir::kTrim))
    live_->planned_bytes.store(0);
}

std::optional<PollParams> Clone::spin(AioContext& ctx) {
  if (!files_.any_spin()) return std::nullopt;
  if (offload_ && offload_->active()) {
    // Completions are reaped on the submitter: it spins (until it ends).
    offload_->spin(kSpinPollMaxNs);
    return std::nullopt;
  }
  const PollParams saved = ctx.poll_params();
  PollParams p = saved;
  p.max_ns = kSpinPollMaxNs;
  ctx.set_poll_params(p);
  return saved;
}

Task<void> Clone::main_phase(AioContext& ctx) {
  // fio counts the thread's CPU from its I/O loop on (not the layout), and
  // again from the end of the ramp (its reset_all_stats): here, and when
  // the measured phase starts.
  getrusage(RUSAGE_THREAD, &begin_.ru);
  loop_->set_on_measuring([this] { getrusage(RUSAGE_THREAD, &begin_.ru); });
  start_clock();
  const std::optional<PollParams> saved_poll = spin(ctx);
  std::function<void(int64_t)> tick;
  if (features_.rate) tick = [r = features_.rate.get()](int64_t now) { r->check(now); };
  sampler_->start(ctx, std::move(tick));
  if (time_.end_ns != INT64_MAX) arm_overdue();
  if (features_.flow) features_.flow->join();
  co_await fill_buffers(ctx);
  // The rate's origin is where the I/O starts, after the buffers are
  // filled: the runtime starts with the first I/O too (fio's rate and
  // runtime share td->start, taken after its buffers are filled).
  pacing_.start(NowNs());
  co_await loop_->run();
  life_.io_finished = true;
  leave_flow();  // its share no longer holds the others
  if (features_.latency) res_->latency_depth = features_.latency->depth();
  if (overdue_) overdue_->cancel();
  const int64_t stop_ns = stats_.last_done_ns() ? stats_.last_done_ns() : NowNs();
  sampler_->finish(stop_ns);
  if (time_.measuring) res_->runtime_ns = stop_ns - time_.measure_start_ns;
  // exec: the program ends with the job (SIGTERM, grace_time, SIGKILL).
  if (features_.work) co_await features_.work->finish(ctx, sleeps_);
  stats_.merge_unsplit(res_);
  stats_.clear_unsplit();
  co_await end_fsync();
  close_records();
  rusage io_end;
  getrusage(RUSAGE_THREAD, &io_end);
  begin_.io_end = io_end;
  if (saved_poll) ctx.set_poll_params(*saved_poll);
}

Task<void> Clone::fill_buffers(AioContext& ctx) {
  // Piece by piece, back to the loop in between: an interrupt() posted
  // meanwhile runs, and the runtime counts the filling (fio fills its
  // write buffers before the I/O too, but outside the runtime).
  while (!fill_stopped() && slots_.fill_piece()) co_await ctx.yield();
  // A stop request seen here, before the coordinator's interrupt() arrived:
  // the same, now (no I/O is issued for it).
  if (opts_.stop && opts_.stop->requested()) interrupt();
}

bool Clone::fill_stopped() const {
  return life_.interrupted || life_.end_requested || (opts_.stop && opts_.stop->requested()) ||
         NowNs() >= time_.end_ns;
}

Task<void> Clone::end_fsync() {
  for (uint32_t f = 0; f < files_.size() && job_.end_fsync && !res_->error && !life_.interrupted;
       f++) {
    IoUnit u;
    u.dir = Dir::kWrite;
    u.file = f;
    u.flush = true;
    int64_t t1;
    const Status st = co_await loop_->perform(0, u, &t1);
    if (!st.ok() && !(life_.cancelling && st.error() == -ECANCELED)) {
      const FailedIo io{Dir::kWrite, /*flush=*/true, files_.display(f), 0, 0};
      errors_.io_error(io, -st.error(),
                       "end_fsync failed on " + QuoteName(files_.display(f)) + ": " +
                           ErrnoString(st.error()));
    }
  }
}

void Clone::close_records() {
  if (recorder_.active()) {
    auto closed = recorder_.close(NowNs());
    if (!closed.ok() && !res_->error) errors_.set(-closed.error().code, closed.error().message);
  }
  if (res_->schedule.kind == ScheduleResult::Kind::kTrace && loop_->last_issue_ns())
    res_->schedule.replay_span_ns = loop_->last_issue_ns() - time_.start_ns;
  if (features_.verify && job_.do_verify && !IsNet(job_.ioengine) &&
      source_.source->has_dir(Dir::kWrite))
    res_->verify_not_verified += features_.verify->not_verified();
  save_verify_state();
  if (res_->error == EILSEQ && res_->verify_errors > 1)
    res_->error_message += " (and " + std::to_string(res_->verify_errors - 1) + " more)";
}

void Clone::save_verify_state() {
  if (!features_.state_log) return;
  const uint64_t index = res_->thread_number - 1;
  const auto saved = SaveVerifyState(VerifyStatePath(opts_.aux_path, job_.name, index),
                                     features_.state_log->snapshot(job_.name, index));
  if (!saved.ok() && opts_.messages)
    std::fprintf(opts_.messages, "%s: %s\n", job_.name.c_str(), saved.error().message.c_str());
}

void Clone::restart_stats(int64_t now) {
  // As at the end of a ramp_time: what was measured so far is dropped and
  // the next I/O starts the measured phase.  Errors stay counted.
  stats_.restart();
  time_.measuring = false;
  time_.ramp_end_ns = now;
}

// ---- ending -----------------------------------------------------------------

void Clone::interrupt() {
  if (life_.finished || life_.interrupted) return;
  life_.interrupted = true;
  errors_.stop();
  // Only a job that had I/O left to do was cut short.
  if (!life_.io_finished) res_->interrupted = true;
  if (features_.net) features_.net->cancel();
  sleeps_.cancel_all();
  cancel_in_flight();
  if (loop_) loop_->kick();
  release(false);  // parked at the gate: no I/O
}

void Clone::end_now() {
  if (life_.finished || life_.interrupted || life_.io_finished) return;
  if (time_.verify_phase && !(loop_ && loop_->between_passes())) {
    // The read-back after the main phase is not time limited, one between
    // passes is; no pass follows either (SubmitLoop::next_phase).
    time_.end_ns = std::min(time_.end_ns, NowNs());
    return;
  }
  if (!ctx_ || time_.start_ns == 0) {
    // Not started yet (run() not entered, start delay, set-up): end as soon
    // as the I/O would start.
    life_.end_requested = true;
    if (features_.net) features_.net->cancel();  // waiting for its peer
    sleeps_.cancel_all();
    return;
  }
  const int64_t now = NowNs();
  if (now >= time_.end_ns) return;
  time_.end_ns = now;
  live_->planned_ns.store(time_.end_ns - time_.start_ns);
  sleeps_.cancel_all();  // a rate or think-time sleep ends now
  arm_overdue();
  loop_->kick();
}

void Clone::arm_overdue() {
  // Requests still in flight a grace period after the runtime ended are
  // waiting on the graph itself (an emulated latency, a throttle): end them.
  // Not during the verify phase, which is not time-limited.
  if (!overdue_)
    overdue_ = std::make_unique<Timer>(*ctx_, [this] {
      if (!time_.verify_phase) cancel_in_flight();
    });
  overdue_->arm_at(SatAdd(time_.end_ns, kEndGraceNs));
}

void Clone::cancel_in_flight() {
  life_.cancelling = true;
  if (loop_) loop_->set_cancelling();
  if (features_.net) features_.net->cancel();  // a send or receive waiting on its socket
  if (offload_ && offload_->active()) {
    offload_->cancel_waits(files_);
    return;
  }
  files_.cancel_waits();
}

// ---- the start gate ---------------------------------------------------------

void Clone::set_gate(std::function<void()> prepared) {
  gate_.prepared = std::move(prepared);
  life_.ramp_held = job_.ramp_time.count() > 0;
}

void Clone::set_start_gate(std::function<void()> prepared, const Broadcast* start) {
  gate_.prepared = std::move(prepared);
  gate_.start = start;
}

void Clone::end_ramp() {
  if (!life_.ramp_held || life_.finished) return;
  life_.ramp_held = false;
  if (time_.start_ns == 0) return;  // not started: start_clock() will not hold it
  const int64_t now = NowNs();
  time_.ramp_end_ns = now;
  if (job_.runtime.count() > 0 && time_.end_ns == INT64_MAX) {  // not ended early meanwhile
    time_.end_ns = SatAdd(now, SatMul(job_.runtime.count(), 1000));
    live_->planned_ns.store(time_.end_ns - time_.start_ns);
    if (!life_.io_finished) arm_overdue();
  }
  // A rate, think-time or trace sleep begun in the ramp was not capped by
  // the runtime: the submitter waits again, capped.
  sleeps_.cancel_all();
}

void Clone::release(bool go) {
  if (gate_.state != Gate::kWaiting) return;
  gate_.state = go ? Gate::kGo : Gate::kNoGo;
  if (gate_.waiter) ctx_->defer(std::exchange(gate_.waiter, {}));
}

// ---- results ----------------------------------------------------------------

void Clone::snapshot(CloneResult* out) const {
  *out = *res_;
  if (life_.finished) return;  // final already
  const int64_t now = NowNs();
  stats_.merge_unsplit(out);
  if (time_.measuring) out->runtime_ns = now - time_.measure_start_ns;
  if (begin_.ns) usage_since_begin(out, now);
}

void Clone::usage_since_begin(CloneResult* out, int64_t now) const {
  rusage ru1;
  if (begin_.io_end) ru1 = *begin_.io_end;
  else getrusage(RUSAGE_THREAD, &ru1);
  out->usr_s = out->sys_s = 0;
  out->ctx = out->majf = out->minf = 0;
  AddUsage(begin_.ru, ru1, out);
  out->elapsed_ns = now - begin_.ns;
  if (offload_) offload_->add_usage(out);
  if (features_.verify_async) features_.verify_async->add_usage(out);
}

}  // namespace blk::bench
