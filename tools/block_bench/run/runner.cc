#include "tools/block_bench/run/runner.h"

#include <sys/resource.h>
#include <sys/time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "block/registry.h"
#include "tools/block_bench/run/target.h"
#include "tools/block_bench/run/verify.h"
#include "util/aligned_buffer.h"
#include "util/clock.h"
#include "util/iothread.h"
#include "util/task.h"

namespace blk::bench {
namespace {

std::atomic<bool> g_stop{false};

// Live counters a clone publishes for the progress line (single writer).
struct Live {
  std::atomic<uint64_t> ios[kNumDirs] = {};
  std::atomic<uint64_t> bytes[kNumDirs] = {};
  std::atomic<int64_t> start_ns{0};
  std::atomic<int64_t> planned_ns{0};   // ramp+runtime, 0: size based
  std::atomic<uint64_t> planned_bytes{0};
  std::atomic<bool> done{false};
};

double Sec(const timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; }

bool CoeAllows(ContinueOnError c, Dir d) {
  switch (c) {
    case ContinueOnError::kNone: return false;
    case ContinueOnError::kRead: return d == Dir::kRead;
    case ContinueOnError::kWrite: return d == Dir::kWrite;
    case ContinueOnError::kIo: return true;
    case ContinueOnError::kVerify: return false;
    case ContinueOnError::kAll: return true;
  }
  return false;
}

class Worker {
 public:
  Worker(const JobOptions& job, CloneResult* res, Live* live, const RunOptions& opts)
      : job_(job), res_(res), live_(live), opts_(opts) {}

  Task<void> run(AioContext& ctx);

 private:
  struct Slot {
    AlignedBuffer buf;
    IoVec iov;
  };
  struct Written {
    uint64_t len;
    uint64_t gen;
    bool done;
  };
  struct WaitAwaiter {
    Worker* w;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) noexcept { w->waiter_ = h; }
    void await_resume() const noexcept {}
  };

  Task<void> submitter();
  Task<void> do_io(uint32_t slot, IoUnit u, int64_t t0, bool measured);
  Task<void> do_flush(int64_t t0, bool measured);
  void issue(const IoUnit& u, int64_t now);
  void complete(uint32_t slot, const IoUnit& u, int64_t t0, bool measured, Status st);
  void wake_if_due();
  bool next_unit(IoUnit* u);
  int64_t rate_time(const IoUnit& u);
  void fail(int err, const std::string& msg);
  void sample(int64_t now);
  void note_written(const IoUnit& u, uint64_t gen);

  const JobOptions& job_;
  CloneResult* res_;
  Live* live_;
  const RunOptions& opts_;
  AioContext* ctx_ = nullptr;
  std::unique_ptr<BlockBackend> blk_;
  Target target_;
  std::optional<IoGenerator> gen_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
  uint32_t depth_ = 1, low_ = 1, batch_ = 1, complete_min_ = 1;
  uint32_t inflight_ = 0;
  std::coroutine_handle<> waiter_;
  bool wait_all_ = false;
  bool stop_ = false;
  uint32_t completions_since_wake_ = 0;

  int64_t start_ns_ = 0, ramp_end_ns_ = 0, end_ns_ = INT64_MAX;
  bool measuring_ = false;
  int64_t measure_start_ = 0, last_done_ns_ = 0;
  uint64_t raw_ios_[kNumDirs] = {}, raw_bytes_[kNumDirs] = {};

  // rate
  bool rated_ = false;
  int64_t rate_next_[kNumDirs] = {};
  uint64_t rate_bytes_[kNumDirs] = {}, rate_ios_[kNumDirs] = {};
  Rng rate_rng_{1};
  // think time, syncs
  uint32_t since_think_ = 0;
  uint32_t writes_since_sync_ = 0;
  bool sync_due_ = false;

  // verify
  bool verify_ = false, verify_phase_ = false;
  std::map<uint64_t, Written> written_;
  std::map<uint64_t, Written>::iterator verify_it_;
  uint64_t gen_counter_ = 0;

  // samples and logs
  std::unique_ptr<Timer> sampler_;
  int64_t sample_ns_ = 500'000'000;
  int64_t last_sample_ns_ = 0;
  uint64_t last_bytes_[kNumDirs] = {}, last_ios_[kNumDirs] = {};
  uint64_t win_lat_sum_[kNumDirs] = {}, win_lat_n_[kNumDirs] = {};
  bool lat_log_ = false, bw_log_ = false, iops_log_ = false;
};

int64_t Worker::rate_time(const IoUnit& u) {
  const int d = int(u.dir);
  const uint64_t rb = job_.rate[d], ri = job_.rate_iops[d];
  if (!rb && !ri) return 0;
  int64_t when;
  if (job_.rate_process == RateProcess::kPoisson) {
    double mean_ns = 0;
    if (ri) mean_ns = 1e9 / double(ri);
    if (rb) mean_ns = std::max(mean_ns, 1e9 * double(u.len) / double(rb));
    when = rate_next_[d];
    double x = rate_rng_.uniform();
    rate_next_[d] += int64_t(-std::log(1.0 - x) * mean_ns);
  } else {
    int64_t a = 0, b = 0;
    if (rb) a = int64_t(double(rate_bytes_[d]) * 1e9 / double(rb));
    if (ri) b = int64_t(double(rate_ios_[d]) * 1e9 / double(ri));
    when = start_ns_ + std::max(a, b);
  }
  rate_bytes_[d] += u.len;
  rate_ios_[d]++;
  return when;
}

bool Worker::next_unit(IoUnit* u) {
  if (!verify_phase_) return gen_->next(u);
  if (verify_it_ == written_.end()) return false;
  u->dir = Dir::kRead;
  u->offset = verify_it_->first;
  u->len = verify_it_->second.len;
  ++verify_it_;
  return true;
}

void Worker::note_written(const IoUnit& u, uint64_t gen) {
  // Drop entries the new write overlaps, then record it.
  auto it = written_.lower_bound(u.offset);
  if (it != written_.begin()) {
    auto p = std::prev(it);
    if (p->first + p->second.len > u.offset) it = p;
  }
  while (it != written_.end() && it->first < u.offset + u.len) it = written_.erase(it);
  written_.emplace(u.offset, Written{u.len, gen, false});
}

void Worker::issue(const IoUnit& u, int64_t now) {
  uint32_t slot = free_.back();
  free_.pop_back();
  inflight_++;
  res_->depth[DepthBucket(inflight_)]++;
  bool measured = now >= ramp_end_ns_;
  if (measured && !measuring_) {
    measuring_ = true;
    measure_start_ = now;
    last_sample_ns_ = now;
    for (int d = 0; d < kNumDirs; d++) {
      last_bytes_[d] = 0;
      last_ios_[d] = 0;
    }
    if (ramp_end_ns_ > start_ns_ && !job_.time_based) gen_->reset_budget();
  }
  if (opts_.on_issue) opts_.on_issue(*res_, u);
  if (u.dir == Dir::kWrite) {
    if (verify_) {
      uint64_t g = Mix64(res_->seed + ++gen_counter_) | 1;
      FillVerifyBlock(slots_[slot].buf.data(), u.len, u.offset, g);
      note_written(u, g);
    }
    uint32_t every = job_.fsync ? job_.fsync : job_.fdatasync;
    if (every && ++writes_since_sync_ >= every) {
      writes_since_sync_ = 0;
      sync_due_ = true;
    }
  }
  SpawnNow(do_io(slot, u, now, measured));
}

Task<void> Worker::do_io(uint32_t slot, IoUnit u, int64_t t0, bool measured) {
  Slot& s = slots_[slot];
  Status st;
  if (u.dir == Dir::kTrim) {
    st = co_await blk_->discard(u.offset, u.len);
  } else {
    if (s.iov.size() != u.len) s.iov = IoVec(s.buf.data(), u.len);
    if (u.dir == Dir::kRead) st = co_await blk_->read(u.offset, s.iov);
    else st = co_await blk_->write(u.offset, s.iov);
  }
  complete(slot, u, t0, measured, st);
}

Task<void> Worker::do_flush(int64_t t0, bool measured) {
  Status st = co_await blk_->flush();
  int64_t t1 = NowNs();
  inflight_--;
  if (measured) {
    res_->syncs++;
    res_->sync_lat.record(uint64_t(t1 - t0));
  }
  if (!st.ok() && !CoeAllows(job_.continue_on_error, Dir::kWrite))
    fail(-st.error(), "flush failed on '" + target_.display + "': " + ErrnoString(st.error()));
  wake_if_due();
}

void Worker::fail(int err, const std::string& msg) {
  if (!res_->error) {
    res_->error = err;
    res_->error_message = msg;
  }
  stop_ = true;
}

void Worker::complete(uint32_t slot, const IoUnit& u, int64_t t0, bool measured, Status st) {
  const int64_t t1 = NowNs();
  const int d = int(u.dir);
  const uint64_t lat = uint64_t(t1 - t0);
  last_done_ns_ = t1;
  live_->ios[d].store(++raw_ios_[d], std::memory_order_relaxed);
  if (st.ok()) live_->bytes[d].store(raw_bytes_[d] += u.len, std::memory_order_relaxed);
  if (measured) {
    DirResult& r = res_->dir[d];
    r.ios++;
    r.clat.record(lat);
    if (st.ok()) r.bytes += u.len;
    else r.errors++;
    if (lat_log_) {
      if (job_.log_avg_msec == 0) {
        res_->lat_log.push_back(
            LogEntry{uint64_t((t1 - start_ns_) / 1000000), lat, d, u.len, u.offset});
      } else {
        win_lat_sum_[d] += lat;
        win_lat_n_[d]++;
      }
    }
  }
  if (!st.ok()) {
    if (!CoeAllows(job_.continue_on_error, u.dir)) {
      static const char* kOp[] = {"read", "write", "trim"};
      fail(-st.error(), std::string(kOp[d]) + " error on '" + target_.display + "' at offset " +
                            std::to_string(u.offset) + " length " + std::to_string(u.len) +
                            ": " + ErrnoString(st.error()));
    }
  } else if (verify_ && u.dir == Dir::kRead) {
    uint64_t want_gen = 0;
    bool check = !gen_->has_dir(Dir::kWrite);  // read-only job: check everything
    auto it = written_.find(u.offset);
    if (it != written_.end() && it->second.len == u.len && it->second.done) {
      want_gen = it->second.gen;
      check = true;
    }
    if (check) {
      res_->verified++;
      std::string bad = CheckVerifyBlock(slots_[slot].buf.data(), u.len, u.offset, want_gen);
      if (!bad.empty()) {
        res_->verify_errors++;
        std::string msg = "verify failed on '" + target_.display + "' at offset " +
                          std::to_string(u.offset) + " length " + std::to_string(u.len) + ": " +
                          bad;
        bool cont = job_.continue_on_error == ContinueOnError::kVerify ||
                    job_.continue_on_error == ContinueOnError::kAll;
        if (!cont) {
          if (!res_->error) {
            res_->error = EILSEQ;
            res_->error_message = msg;
          }
          if (job_.verify_fatal) stop_ = true;
        }
      }
    }
  } else if (verify_ && u.dir == Dir::kWrite) {
    auto it = written_.find(u.offset);
    if (it != written_.end()) it->second.done = true;
  }
  free_.push_back(slot);
  inflight_--;
  completions_since_wake_++;
  wake_if_due();
}

void Worker::wake_if_due() {
  if (!waiter_) return;
  if (wait_all_) {
    if (inflight_ == 0) ctx_->defer(std::exchange(waiter_, {}));
    return;
  }
  // iodepth_batch_complete_min: refill only after that many completions (or
  // when nothing is left in flight).  Completions are reaped one at a time as
  // the driver delivers them, which keeps within any
  // iodepth_batch_complete_max >= 1.
  if ((inflight_ <= low_ && (completions_since_wake_ >= complete_min_ || inflight_ == 0)) ||
      stop_) {
    auto h = std::exchange(waiter_, {});
    h.resume();  // the submitter refills, then suspends again; touch nothing after
  }
}

void Worker::sample(int64_t now) {
  if (!measuring_) return;
  double secs = double(now - last_sample_ns_) / 1e9;
  if (secs <= 0) return;
  uint64_t msec = uint64_t((now - start_ns_) / 1000000);
  for (int d = 0; d < kNumDirs; d++) {
    DirResult& r = res_->dir[d];
    if (!gen_->has_dir(Dir(d))) continue;
    double bw = double(r.bytes - last_bytes_[d]) / secs;
    double io = double(r.ios - last_ios_[d]) / secs;
    r.bw_samples.push_back(bw);
    r.iops_samples.push_back(io);
    if (bw_log_) res_->bw_log.push_back(LogEntry{msec, uint64_t(bw / 1024), d, 0, 0});
    if (iops_log_) res_->iops_log.push_back(LogEntry{msec, uint64_t(io), d, 0, 0});
    if (lat_log_ && job_.log_avg_msec && win_lat_n_[d]) {
      res_->lat_log.push_back(LogEntry{msec, win_lat_sum_[d] / win_lat_n_[d], d, 0, 0});
      win_lat_sum_[d] = win_lat_n_[d] = 0;
    }
    last_bytes_[d] = r.bytes;
    last_ios_[d] = r.ios;
  }
  last_sample_ns_ = now;
}

Task<void> Worker::submitter() {
  IoUnit pending;
  bool have = false;
  for (;;) {
    if (stop_ || g_stop.load(std::memory_order_relaxed)) break;
    if (inflight_ >= depth_ || free_.empty()) {
      co_await WaitAwaiter{this};
      res_->complete[BatchBucket(completions_since_wake_)]++;
      completions_since_wake_ = 0;
      continue;
    }
    uint32_t room = std::min<uint32_t>(depth_ - inflight_, uint32_t(free_.size()));
    uint32_t n = std::min(room, batch_);
    int64_t sleep_until = 0;
    uint32_t issued = 0;
    bool done = false;
    // plug/unplug only around real batches: two virtual calls saved per I/O
    // at iodepth_batch_submit=1 (the default), where there is nothing to batch.
    const bool plug = n > 1;
    if (plug) blk_->plug();
    for (uint32_t i = 0; i < n; i++) {
      if (sync_due_) {
        sync_due_ = false;
        inflight_++;
        int64_t t = NowNs();
        SpawnNow(do_flush(t, t >= ramp_end_ns_));
        if (inflight_ >= depth_) break;
        continue;
      }
      if (!have) {
        if (!next_unit(&pending)) {
          done = true;
          break;
        }
        have = true;
        if (rated_) {
          int64_t when = rate_time(pending);
          int64_t now = NowNs();
          if (when > now) {
            sleep_until = when;
            break;
          }
        }
      }
      int64_t now = NowNs();
      if (now >= end_ns_ && !verify_phase_) {
        done = true;
        break;
      }
      issue(pending, now);
      have = false;
      issued++;
      if (job_.thinktime.count() > 0 && ++since_think_ >= job_.thinktime_blocks) {
        since_think_ = 0;
        sleep_until = now + int64_t(job_.thinktime.count()) * 1000;
        break;
      }
      if (stop_) break;
    }
    if (plug) blk_->unplug();
    if (issued) res_->submit[BatchBucket(issued)]++;
    if (done) {
      // Finish the main phase; then, with verify, read back what was written.
      if (verify_ && !verify_phase_ && job_.do_verify && gen_->has_dir(Dir::kWrite) &&
          !stop_ && !g_stop.load()) {
        wait_all_ = true;
        if (inflight_ > 0) co_await WaitAwaiter{this};
        wait_all_ = false;
        verify_phase_ = true;
        verify_it_ = written_.begin();
        have = false;
        continue;
      }
      break;
    }
    if (sleep_until) co_await SleepUntil(*ctx_, sleep_until);
  }
  wait_all_ = true;
  if (inflight_ > 0) co_await WaitAwaiter{this};
  wait_all_ = false;
}

Task<void> Worker::run(AioContext& ctx) {
  ctx_ = &ctx;
  rusage ru0, ru1;
  getrusage(RUSAGE_THREAD, &ru0);
  const int64_t t_begin = NowNs();
  if (job_.startdelay.max.count() > 0) {
    int64_t lo = job_.startdelay.min.count(), hi = job_.startdelay.max.count();
    Rng r(res_->seed ^ 0x7777);
    int64_t us = lo + int64_t(r.below(uint64_t(hi - lo + 1)));
    co_await SleepFor(ctx, us * 1000);
  }
  std::optional<PollParams> saved_poll;  // while the target spins
  auto fin = [&] {
    if (saved_poll) ctx.set_poll_params(*saved_poll);
    getrusage(RUSAGE_THREAD, &ru1);
    res_->usr_s = Sec(ru1.ru_utime) - Sec(ru0.ru_utime);
    res_->sys_s = Sec(ru1.ru_stime) - Sec(ru0.ru_stime);
    res_->ctx = uint64_t((ru1.ru_nvcsw - ru0.ru_nvcsw) + (ru1.ru_nivcsw - ru0.ru_nivcsw));
    res_->majf = uint64_t(ru1.ru_majflt - ru0.ru_majflt);
    res_->minf = uint64_t(ru1.ru_minflt - ru0.ru_minflt);
    res_->elapsed_ns = NowNs() - t_begin;
    live_->done.store(true);
  };
  auto t = JobTarget(job_, res_->clone);
  if (!t.ok()) {
    res_->error = -t.error().code;
    res_->error_message = t.error().message;
    fin();
    co_return;
  }
  target_ = std::move(*t);
  res_->target = target_.spec;
  if (auto p = PrepareTarget(target_); !p.ok()) {
    res_->error = -p.error().code;
    res_->error_message = p.error().message;
    fin();
    co_return;
  }
  if (target_.spin) {
    saved_poll = ctx.poll_params();
    PollParams p = *saved_poll;
    p.max_ns = kSpinPollMaxNs;
    ctx.set_poll_params(p);
  }
  {
    OpenFlags flags;
    flags.read_only = job_.rw == RwMode::kRead || job_.rw == RwMode::kRandRead;
    auto b = OpenBackend(ctx, target_.spec, flags);
    if (!b.ok()) {
      res_->error = -b.error().code;
      res_->error_message = "cannot open '" + target_.spec + "': " + b.error().message;
      fin();
      co_return;
    }
    blk_ = std::move(*b);
  }
  blk_->root().set_latency_accounting(false);
  {
    auto g = IoGenerator::Create(job_, blk_->length(), res_->seed);
    if (!g.ok()) {
      res_->error = -g.error().code;
      res_->error_message = target_.display + ": " + g.error().message;
      blk_.reset();
      fin();
      co_return;
    }
    gen_.emplace(std::move(*g));
  }
  const bool time_limited = job_.runtime.count() > 0;
  gen_->set_unlimited(job_.time_based && time_limited);
  depth_ = std::max<uint32_t>(1, job_.iodepth);
  // iodepth_low=L: refill once the depth fell to L; default: after every completion.
  if (job_.iodepth_low) low_ = std::min(*job_.iodepth_low, depth_ - 1);
  else low_ = depth_ - 1;
  batch_ = job_.iodepth_batch_submit == 0 ? depth_ : job_.iodepth_batch_submit;
  complete_min_ = std::clamp<uint32_t>(job_.iodepth_batch_complete_min, 1, depth_);
  verify_ = job_.verify != VerifyMethod::kNone;
  if (verify_ && gen_->max_bs() < kVerifyHeaderSize) verify_ = false;
  rated_ = false;
  for (int d = 0; d < kNumDirs; d++) rated_ |= job_.rate[d] || job_.rate_iops[d];
  lat_log_ = job_.write_lat_log.has_value();
  bw_log_ = job_.write_bw_log.has_value();
  iops_log_ = job_.write_iops_log.has_value();
  if (job_.log_avg_msec) sample_ns_ = int64_t(job_.log_avg_msec) * 1000000;

  slots_.resize(depth_);
  for (uint32_t i = 0; i < depth_; i++) {
    slots_[i].buf = AlignedBuffer(gen_->max_bs());
    if (!slots_[i].buf.ok()) {
      res_->error = ENOMEM;
      res_->error_message = "out of memory for I/O buffers";
      blk_.reset();
      fin();
      co_return;
    }
    // Written data: random bytes (fio's default buffer contents), or zeros.
    Rng r(res_->seed + i);
    for (uint64_t o = 0; o + 8 <= gen_->max_bs(); o += 8) {
      uint64_t v = job_.zero_buffers ? 0 : r.next();
      std::memcpy(slots_[i].buf.data() + o, &v, 8);
    }
    free_.push_back(depth_ - 1 - i);
  }

  start_ns_ = NowNs();
  for (int d = 0; d < kNumDirs; d++) rate_next_[d] = start_ns_;
  rate_rng_ = Rng(res_->seed ^ 0x8888);
  ramp_end_ns_ = start_ns_ + int64_t(job_.ramp_time.count()) * 1000;
  if (time_limited) end_ns_ = ramp_end_ns_ + int64_t(job_.runtime.count()) * 1000;
  live_->start_ns.store(start_ns_);
  live_->planned_ns.store(time_limited ? end_ns_ - start_ns_ : 0);
  live_->planned_bytes.store(gen_->io_limit());
  if (!gen_->has_dir(Dir::kRead) && !gen_->has_dir(Dir::kWrite) && !gen_->has_dir(Dir::kTrim))
    live_->planned_bytes.store(0);

  sampler_ = std::make_unique<Timer>(ctx, [this] {
    int64_t now = NowNs();
    sample(now);
    sampler_->arm_in(sample_ns_);
  });
  sampler_->arm_in(sample_ns_);

  co_await submitter();

  int64_t stop_ns = last_done_ns_ ? last_done_ns_ : NowNs();
  sampler_->cancel();
  if (measuring_) {
    // A last partial sample, when at least half an interval is left.
    if (stop_ns - last_sample_ns_ >= sample_ns_ / 2) sample(stop_ns);
    res_->runtime_ns = stop_ns - measure_start_;
  }
  if (job_.end_fsync && !res_->error) {
    Status st = co_await blk_->flush();
    if (!st.ok())
      fail(-st.error(), "end_fsync failed on '" + target_.display + "': " + ErrnoString(st.error()));
  }
  if (res_->error == EILSEQ && res_->verify_errors > 1)
    res_->error_message += " (and " + std::to_string(res_->verify_errors - 1) + " more)";
  blk_->root().driver().counters(&res_->counters);
  co_await blk_->drain();
  blk_.reset();
  sampler_.reset();
  fin();
}

}  // namespace

void RequestStop() { g_stop.store(true); }

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
  g_stop.store(false);
  RunResult rr;
  rr.start_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  std::vector<int> groups = GroupIds(jobs);
  size_t total = 0;
  for (auto& j : jobs) total += std::max<uint32_t>(1, j.numjobs);
  rr.clones.resize(total);
  std::vector<Live> live(total);
  std::vector<size_t> first_clone(jobs.size());
  {
    size_t k = 0;
    for (size_t i = 0; i < jobs.size(); i++) {
      first_clone[i] = k;
      for (uint32_t c = 0; c < std::max<uint32_t>(1, jobs[i].numjobs); c++, k++) {
        CloneResult& r = rr.clones[k];
        r.job = &jobs[i];
        r.job_index = uint32_t(i);
        r.clone = c;
        r.thread_number = uint32_t(k + 1);
        r.groupid = groups[i];
        r.seed = JobSeed(jobs[i], uint32_t(i), c);
      }
    }
  }
  size_t i = 0;
  while (i < jobs.size() && !g_stop.load()) {
    size_t j = i + 1;
    while (j < jobs.size() && !jobs[j].stonewall) j++;
    // Segment [i, j): all clones at once.
    size_t c0 = first_clone[i], c1 = j < jobs.size() ? first_clone[j] : total;
    std::mutex mu;
    std::condition_variable cv;
    size_t remaining = c1 - c0;
    std::vector<std::unique_ptr<IOThread>> threads;
    std::vector<std::unique_ptr<Worker>> workers;
    for (size_t k = c0; k < c1; k++) {
      CloneResult& r = rr.clones[k];
      std::string tname = "bb-" + r.job->name.substr(0, 8) + "." + std::to_string(r.clone);
      threads.push_back(std::make_unique<IOThread>(tname));
      workers.push_back(std::make_unique<Worker>(*r.job, &r, &live[k], opts));
    }
    for (size_t k = c0; k < c1; k++) {
      Worker* w = workers[k - c0].get();
      AioContext& ctx = threads[k - c0]->ctx();
      auto wrap = [](Worker* w, AioContext& ctx, std::mutex* mu, std::condition_variable* cv,
                     size_t* remaining) -> Task<void> {
        co_await w->run(ctx);
        std::lock_guard<std::mutex> l(*mu);
        if (--*remaining == 0) cv->notify_all();
      };
      Spawn(ctx, wrap(w, ctx, &mu, &cv, &remaining));
    }
    // Wait, reporting progress about once a second.
    uint64_t prev_bytes[kNumDirs] = {}, prev_ios[kNumDirs] = {};
    int64_t prev_t = NowNs();
    for (;;) {
      std::unique_lock<std::mutex> l(mu);
      if (cv.wait_for(l, std::chrono::seconds(1), [&] { return remaining == 0; })) break;
      l.unlock();
      if (!opts.on_progress) continue;
      ProgressSnapshot ps;
      ps.total = int(total);
      int64_t now = NowNs();
      double frac_min = 1.0, eta = 0;
      uint64_t bytes[kNumDirs] = {}, ios[kNumDirs] = {};
      for (size_t k = c0; k < c1; k++) {
        Live& lv = live[k];
        bool done = lv.done.load();
        if (!done) ps.running++;
        uint64_t b = 0;
        for (int d = 0; d < kNumDirs; d++) {
          bytes[d] += lv.bytes[d].load(std::memory_order_relaxed);
          ios[d] += lv.ios[d].load(std::memory_order_relaxed);
          b += lv.bytes[d].load(std::memory_order_relaxed);
        }
        double frac = 1.0;
        int64_t st = lv.start_ns.load();
        if (!done && st) {
          int64_t planned = lv.planned_ns.load();
          uint64_t pb = lv.planned_bytes.load();
          if (planned > 0) frac = std::min(1.0, double(now - st) / double(planned));
          else if (pb > 0) frac = std::min(1.0, double(b) / double(pb));
          else frac = 0;
          double el = double(now - st) / 1e9;
          if (frac > 0) eta = std::max(eta, el * (1 - frac) / frac);
        } else if (!done) {
          frac = 0;
        }
        frac_min = std::min(frac_min, frac);
      }
      double dt = double(now - prev_t) / 1e9;
      for (int d = 0; d < kNumDirs; d++) {
        ps.bw_bytes[d] = dt > 0 ? double(bytes[d] - prev_bytes[d]) / dt : 0;
        ps.iops[d] = dt > 0 ? double(ios[d] - prev_ios[d]) / dt : 0;
        prev_bytes[d] = bytes[d];
        prev_ios[d] = ios[d];
      }
      prev_t = now;
      ps.percent = frac_min * 100;
      ps.eta_s = eta;
      // fio-like mode letters: r/w/R/W/m/M for the running clones.
      std::map<char, int> letters;
      for (size_t k = c0; k < c1; k++) {
        if (live[k].done.load()) continue;
        static const char kL[] = {'R', 'W', 'D', 'r', 'w', 'd', 'M', 'm'};
        letters[kL[int(rr.clones[k].job->rw)]]++;
      }
      for (auto& [ch, n] : letters) ps.modes += std::string(1, ch) + "(" + std::to_string(n) + ")";
      opts.on_progress(ps);
    }
    threads.clear();  // joins
    workers.clear();
    i = j;
  }
  return rr;
}

}  // namespace blk::bench
