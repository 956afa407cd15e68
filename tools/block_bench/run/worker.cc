#include "tools/block_bench/run/worker.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "block/registry.h"
#include "tools/block_bench/run/verify.h"
#include "util/clock.h"

namespace blk::bench {
namespace {

double Sec(const timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; }

const char* const kOpName[] = {"read", "write", "trim"};

// fio's continue_on_error: the directions it covers, and only the errors of
// fio's default ignore_error list (EIO; EILSEQ, a verify failure).  Any other
// error (ENOSPC, EBADF, ...) ends the job whatever continue_on_error says.
bool ContinuesPast(ContinueOnError c, Dir d, int err) {
  if (err != EIO && err != EILSEQ) return false;
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

bool ContinuesPastVerify(ContinueOnError c) {
  return c == ContinueOnError::kVerify || c == ContinueOnError::kAll;
}

// The smallest block the job issues in direction d.
uint64_t MinBlockSize(const JobOptions& job, Dir d) {
  const auto& split = job.bssplit[int(d)];
  if (split.empty()) return job.bs[int(d)].min;
  uint64_t m = UINT64_MAX;
  for (const auto& e : split)
    if (e.percent > 0) m = std::min(m, e.block_size);
  return m;
}

// The largest block the job issues in direction d.
uint64_t MaxBlockSize(const JobOptions& job, Dir d) {
  const auto& split = job.bssplit[int(d)];
  if (split.empty()) return job.bs[int(d)].max;
  uint64_t m = 0;
  for (const auto& e : split)
    if (e.percent > 0) m = std::max(m, e.block_size);
  return m ? m : job.bs[int(d)].max;
}

// fio's MAX_PATTERN_SIZE: the longest verify_pattern.
constexpr size_t kMaxVerifyPattern = 512;

}  // namespace

Worker::Worker(const JobOptions& job, CloneResult* res, LiveCounters* live, const RunOptions& opts,
               RunShared* shared)
    : job_(job), res_(res), live_(live), opts_(opts), shared_(shared), pacer_(job, res->seed) {
  // flow=: in the group from the start (the runner makes every worker of a
  // segment before it starts any), so that no clone runs alone first; one
  // with a start delay joins when its I/O starts, not to hold the others
  // back meanwhile.
  if (job_.flow && job_.startdelay.max.count() <= 0) join_flow();
}

void Worker::join_flow() {
  flow_ = &shared_->flow(job_.flow_id);
  flow_->join(job_.flow);
}

void Worker::leave_flow() {
  if (!flow_) return;
  flow_->leave(job_.flow, flow_issued_);
  flow_ = nullptr;
}

void Worker::interrupt() {
  if (finished_ || interrupted_) return;
  interrupted_ = true;
  stop_ = true;
  // Only a job that had I/O left to do was cut short.
  if (!io_finished_) res_->interrupted = true;
  sleeps_.cancel_all();
  cancel_in_flight();
  if (waiter_ && !wait_all_) ctx_->defer(std::exchange(waiter_, {}));
  release(false);  // parked at the gate: no I/O
}

void Worker::arm_overdue() {
  // Requests still in flight a grace period after the runtime ended are
  // waiting on the graph itself (an emulated latency, a throttle): end them.
  // Not during the verify phase, which is not time-limited.
  if (!overdue_)
    overdue_ = std::make_unique<Timer>(*ctx_, [this] {
      if (!verify_phase_) cancel_in_flight();
    });
  overdue_->arm_at(end_ns_ + kEndGraceNs);
}

void Worker::end_now() {
  if (finished_ || interrupted_ || io_finished_ || verify_phase_) return;
  if (!ctx_ || start_ns_ == 0) {
    // Not started yet (run() not entered, start delay, set-up): end as soon
    // as the I/O would start.
    end_requested_ = true;
    sleeps_.cancel_all();
    return;
  }
  const int64_t now = NowNs();
  if (now >= end_ns_) return;
  end_ns_ = now;
  live_->planned_ns.store(end_ns_ - start_ns_);
  sleeps_.cancel_all();  // a rate or think-time sleep ends now
  arm_overdue();
  if (waiter_ && !wait_all_) ctx_->defer(std::exchange(waiter_, {}));
}

void Worker::cancel_in_flight() {
  cancelling_ = true;
  if (offloaded_) {
    // On the submitter, where the graphs are, unless offload_home() took
    // them back meanwhile (then nothing is in flight; it set their loop
    // there, so the check reads no value written elsewhere).
    offload_->ctx().post([this, sub = &offload_->ctx()] {
      for (File& f : files_)
        if (f.blk && &f.blk->ctx() == sub) f.blk->cancel_waits();
    });
    return;
  }
  for (File& f : files_)
    if (f.blk) f.blk->cancel_waits();
}

Task<bool> Worker::offload_start() {
  auto t = IOThread::Create(job_.name + "-submit");
  if (!t) {
    fail(-t.error().code, "io_submit_mode=offload: cannot start the submitter thread: " +
                              t.error().message);
    co_return false;
  }
  offload_ = std::move(*t);
  offload_->run_sync([this] { getrusage(RUSAGE_THREAD, &offload_ru0_); });
  AioContext& home = *ctx_;
  for (File& f : files_) {
    co_await f.blk->move_to(offload_->ctx());  // continues on the submitter
    co_await home.schedule();
  }
  offloaded_ = true;
  co_return true;
}

Task<void> Worker::offload_home() {
  AioContext& home = *ctx_;
  for (File& f : files_) {
    co_await offload_->ctx().schedule();
    co_await f.blk->move_to(home);  // continues here
  }
  offloaded_ = false;
  // A cancel_in_flight() posted before this point has run once this returns.
  offload_->run_sync([] {});
}

rusage Worker::offload_usage() const {
  rusage ru{};
  if (!offload_) return ru;
  offload_->run_sync([&ru] { getrusage(RUSAGE_THREAD, &ru); });
  return ru;
}

void Worker::fail(int err, const std::string& msg) {
  if (!res_->error) {
    res_->error = err;
    res_->error_message = msg;
  }
  stop_ = true;
}

void Worker::io_error(Dir dir, int err, const std::string& msg) {
  res_->total_errors++;
  if (!res_->first_error) {
    res_->first_error = err;
    res_->first_error_message = msg;
  }
  if (!ContinuesPast(job_.continue_on_error, dir, err)) fail(err, msg);
}

IoUnit Worker::VerifyReadOf(std::map<uint64_t, Written>::const_iterator it) const {
  IoUnit u;
  u.dir = Dir::kRead;
  // The key back to (file, offset): the last file starting at or below it.
  uint32_t f = uint32_t(files_.size()) - 1;
  while (f > 0 && files_[f].base > it->first) f--;
  u.file = f;
  u.offset = it->first - files_[f].base;
  u.len = it->second.len;
  return u;
}

bool Worker::setup_verify() {
  verify_ = job_.verify != VerifyMethod::kNone;
  layout_ = VerifyLayout();
  if (verify_) layout_.method = job_.verify;
  const auto fail = [&](std::string msg) {
    res_->error = EINVAL;
    res_->error_message = std::move(msg);
    return false;
  };
  if (!job_.verify_pattern.empty()) {
    auto p = ResolvePattern(job_.verify_pattern, "verify_pattern", &layout_.pattern_offsets);
    if (!p.ok()) {
      res_->error = -p.error().code;
      res_->error_message = p.error().message;
      return false;
    }
    if (p->size() > kMaxVerifyPattern)
      return fail("verify_pattern: " + std::to_string(p->size()) + " bytes, at most " +
                  std::to_string(kMaxVerifyPattern) + " (as fio)");
    layout_.pattern = std::move(*p);
  }
  if (!verify_) return true;
  trim_on_ = job_.trim_percentage && job_.trim_backlog && job_.do_verify && !job_.verify_only &&
             source_->has_dir(Dir::kWrite);
  const uint64_t header = VerifyHeaderSize(job_.verify);
  // The smallest and largest blocks verified: the writes', else the reads'.
  const Dir d = source_->has_dir(Dir::kWrite) ? Dir::kWrite : Dir::kRead;
  const uint64_t min_bs = MinBlockSize(job_, d), max_bs = MaxBlockSize(job_, d);
  if (job_.verify_interval) {
    // fio: at most the smallest block, and a divisor of the smallest and
    // largest, else their gcd.
    uint64_t i = std::min<uint64_t>(job_.verify_interval, min_bs);
    if (min_bs % i || max_bs % i) i = std::gcd(min_bs, max_bs);
    layout_.interval = i;
  }
  const uint64_t chunk = layout_.interval ? layout_.interval : min_bs;
  if (header && job_.verify_offset) {
    if (job_.verify_offset < header)
      return fail("verify_offset=" + std::to_string(job_.verify_offset) + " overlaps verify=" +
                  std::string(Name(job_.verify)) + "'s " + std::to_string(header) +
                  "-byte header: give 0 or at least " + std::to_string(header));
    if (job_.verify_offset + header > chunk)
      return fail("verify_offset=" + std::to_string(job_.verify_offset) + " puts verify=" +
                  std::string(Name(job_.verify)) + "'s " + std::to_string(header) +
                  "-byte header past the end of a " + std::to_string(chunk) + "-byte " +
                  (layout_.interval ? "verify_interval" : "block"));
    layout_.header_offset = job_.verify_offset;
  }
  for (Dir dd : {Dir::kRead, Dir::kWrite}) {
    if (!source_->has_dir(dd) || MinBlockSize(job_, dd) >= header) continue;
    // fio: "Blocksize too small" (EINVAL).  Checking nothing and saying
    // verified=0 would pass a job that verified nothing.
    return fail("verify=" + std::string(Name(job_.verify)) + " needs blocks of at least " +
                std::to_string(header) + " bytes (its header), but this job " +
                (dd == Dir::kRead ? "reads" : "writes") + " blocks of " +
                std::to_string(MinBlockSize(job_, dd)) + " bytes (bs=)");
  }
  if (layout_.interval && layout_.interval < header)
    return fail("verify_interval=" + std::to_string(layout_.interval) + " is smaller than verify=" +
                std::string(Name(job_.verify)) + "'s " + std::to_string(header) + "-byte header");
  return true;
}

void Worker::erase_written(uint64_t k, uint64_t len) {
  auto it = written_.lower_bound(k);
  if (it != written_.begin()) {
    auto p = std::prev(it);
    if (p->first + p->second.len > k) it = p;
  }
  while (it != written_.end() && it->first < k + len) it = written_.erase(it);
}

void Worker::note_unwritten(const IoUnit& u) {
  const uint64_t g = Mix64(res_->seed + ++gen_counter_) | 1;
  const uint64_t k = vkey(u);
  erase_written(k, u.len);
  written_.emplace(k, Written{u.len, g, /*done=*/true, false, false});
}

bool Worker::next_unit(IoUnit* u) {
  if (!backlog_reads_.empty()) {
    *u = backlog_reads_.front();
    backlog_reads_.pop_front();
    return true;
  }
  if (!verify_phase_ && job_.verify_only && source_->has_dir(Dir::kWrite)) {
    // fio's verify_only: the job's I/O is not done; its writes are only
    // recorded, for the verify phase to read back.  (A read-only job
    // checks its reads as always.)
    while (source_->next(u))
      if (u->dir == Dir::kWrite && !u->flush) note_unwritten(*u);
    return false;
  }
  if (!verify_phase_) return source_->next(u);
  // Blocks whose write failed hold no verify data, and an ambiguous one
  // has two candidates: not read back (they count as not verified).  Those
  // a verify_backlog point checked are done.
  while (verify_it_ != written_.end() &&
         (!verify_it_->second.done || verify_it_->second.ambiguous ||
          (job_.verify_backlog && verify_it_->second.checked)))
    ++verify_it_;
  if (verify_it_ == written_.end()) return false;
  *u = VerifyReadOf(verify_it_);
  ++verify_it_;
  return true;
}

void Worker::note_written(uint32_t slot, const IoUnit& u, uint64_t gen) {
  // Drop entries the new write overlaps, then record it (keys: vkey()).
  const uint64_t k = vkey(u);
  erase_written(k, u.len);
  // Another write to an overlapping range still in flight (norandommap,
  // randrw at depth > 1) may land before or after this one.
  bool overlap = false;
  for (const Slot& o : slots_) {
    overlap |= o.writing && o.write_offset < k + u.len && k < o.write_offset + o.write_len;
  }
  written_.emplace(k, Written{u.len, gen, false, overlap, false});
  Slot& s = slots_[slot];
  s.writing = true;
  s.write_offset = k;
  s.write_len = u.len;
  s.write_gen = gen;
}

void Worker::issue(const IoUnit& u, int64_t now, int64_t due, bool held) {
  uint32_t slot = free_.back();
  free_.pop_back();
  inflight_++;
  res_->depth[DepthBucket(inflight_)]++;
  bool measured = now >= ramp_end_ns_;
  if (measured && !measuring_) {
    measuring_ = true;
    measure_start_ = now;
    res_->measure_start_ns = now;
    for (SamplePeriod& p : periods_) {
      p.last_ns = now;
      for (uint64_t& v : p.last) v = 0;
    }
    if (ramp_end_ns_ > start_ns_ && !job_.time_based) source_->reset_budget();
    // Samples cover whole intervals of the measured phase: a tick left over
    // from the ramp would add a short, noisy one.
    if (sampler_) sampler_->arm_at(next_sample_ns(now));
  }
  if (due && measured) {
    ScheduleResult& sc = res_->schedule;
    const int64_t late = std::max<int64_t>(0, now - due);
    sc.lateness.record(uint64_t(late));
    if (late > 100'000) sc.late_100us++;
    if (late > 1'000'000) sc.late_1ms++;
    if (held) sc.held_back++;
  }
  last_dir_ = u.dir;
  if (!last_issue_ns_) res_->first_io_ns = now;
  last_issue_ns_ = now;
  if (iolog_) {
    static constexpr trace::Op kOps[] = {trace::Op::kRead, trace::Op::kWrite, trace::Op::kTrim};
    iolog_->io((now - start_ns_) / 1000, uint16_t(u.file), u.flush ? trace::Op::kFlush : kOps[int(u.dir)], u.offset,
               u.len);
  }
  if (u.flush) {
    SpawnNow(do_io(slot, u, now, due, measured));
    return;
  }
  if (opts_.on_issue) opts_.on_issue(*res_, u);
  think_issued_++;
  if (verify_ && u.dir == Dir::kRead) plan_verify_read(slot, u);
  if (u.dir == Dir::kWrite) {
    if (verify_) {
      uint64_t g = Mix64(res_->seed + ++gen_counter_) | 1;
      FillVerifyBlock(slots_[slot].buf.data(), u.len, u.offset, g, layout_);
      note_written(slot, u, g);
      if ((job_.verify_backlog || trim_on_) && !verify_phase_) hist_len_++;
      // fio's io_u_should_trim: a trim_percentage share of the writes.
      if (trim_on_ && !verify_phase_ &&
          Mix64(res_->seed ^ 0x7472696d5f706374ULL ^ ++trim_rolls_) % 100 < job_.trim_percentage)
        trim_list_.push_back(TrimEntry{vkey(u), g});
    } else if (!layout_.pattern.empty()) {
      // verify=0 after verify_pattern: the pattern is written, unchecked.
      FillPattern(slots_[slot].buf.data(), u.len, u.offset, layout_.pattern,
                  layout_.pattern_offsets);
    } else if (filler_->refill()) {
      filler_->fill(slots_[slot].buf.data(), u.len);
    } else if (filler_->scramble()) {
      BufferFiller::Scramble(slots_[slot].buf.data(), u.len, u.offset, now);
    }
    last_write_file_ = u.file;
    uint32_t every = job_.fsync ? job_.fsync : job_.fdatasync;
    if (every && ++writes_since_sync_ >= every) {
      writes_since_sync_ = 0;
      sync_due_ = true;
    }
  }
  slots_[slot].stamp.ns = 0;
  slots_[slot].cycle = lt_ ? lt_->cycle : 0;
  Task<void> t = do_io(slot, u, now, due, measured);
  t.set_submit_stamp(&slots_[slot].stamp);
  SpawnNow(std::move(t));
}

Task<void> Worker::do_io(uint32_t slot, IoUnit u, int64_t t0, int64_t due, bool measured) {
  int64_t t1 = 0;
  const Status st = co_await perform(slot, u, &t1);
  complete(slot, u, t0, due, measured, st, t1);
}

Task<Status> Worker::perform(uint32_t slot, const IoUnit& u, int64_t* done_ns) {
  // Offloaded: only the slot's buffer and the graph are touched on the
  // submitter; the clone's state waits until the coroutine is back.
  AioContext* home = offloaded_ ? ctx_ : nullptr;
  if (home) co_await offload_->ctx().schedule();
  BlockBackend& b = blk(u.file);
  Status st;
  if (u.flush) {
    st = co_await b.flush();
  } else if (u.dir == Dir::kTrim) {
    st = co_await b.discard(u.offset, u.len);
  } else {
    Slot& s = slots_[slot];
    if (s.iov.size() != u.len) s.iov = IoVec(s.buf.data(), u.len);
    if (u.dir == Dir::kRead) st = co_await b.read(u.offset, s.iov);
    else st = co_await b.write(u.offset, s.iov, u.fua ? uint32_t(kReqFua) : 0u);
  }
  *done_ns = NowNs();
  if (home) co_await home->schedule();
  co_return st;
}

Task<void> Worker::do_flush(uint32_t file, int64_t t0, bool measured) {
  IoUnit u;
  u.dir = Dir::kWrite;
  u.file = file;
  u.flush = true;
  int64_t t1 = 0;
  const Status st = co_await perform(0, u, &t1);
  inflight_--;
  flush_done(file, t0, measured, st, t1);
  wake_if_due();
}

void Worker::flush_done(uint32_t file, int64_t t0, bool measured, Status st, int64_t t1) {
  if (!t1) t1 = NowNs();
  last_done_ns_ = t1;
  if (cancelling_ && st.error() == -ECANCELED) return;  // never reached the device
  if (measured) {
    res_->syncs++;
    res_->sync_lat.record(uint64_t(t1 - t0));
  }
  if (!st.ok()) {
    io_error(Dir::kWrite, -st.error(),
             "flush failed on '" + display(file) + "': " + ErrnoString(st.error()));
  }
}

bool Worker::trim_queued(const TrimEntry& e) const {
  auto it = written_.find(e.key);
  return it != written_.end() && it->second.gen == e.gen && !it->second.checked &&
         !it->second.trimmed;
}

bool Worker::trim_due() {
  while (!trim_list_.empty() && !trim_queued(trim_list_.front())) trim_list_.pop_front();
  if (trim_list_.empty()) return false;
  // fio 3.33's check_get_trim, decision for decision.
  if (trim_batch_) {
    trim_batch_--;
    return true;
  }
  if (hist_len_ % job_.trim_backlog == 0 && last_dir_ != Dir::kRead) {
    trim_batch_ = job_.trim_backlog_batch ? job_.trim_backlog_batch : job_.trim_backlog;
    return true;
  }
  return false;
}

bool Worker::take_trim(IoUnit* u) {
  while (!trim_list_.empty()) {
    const TrimEntry e = trim_list_.front();
    trim_list_.pop_front();
    if (!trim_queued(e)) continue;
    auto it = written_.find(e.key);
    if (!it->second.done || it->second.ambiguous) continue;  // the write failed, or raced
    *u = VerifyReadOf(it);
    u->dir = Dir::kTrim;
    if (job_.trim_verify_zero) {
      it->second.trimmed = true;
    } else {
      // fio drops the block from its verify list: not read back.
      written_.erase(it);
      auto b = std::find(backlog_.begin(), backlog_.end(), e.key);
      if (b != backlog_.end()) backlog_.erase(b);
      if (hist_len_) hist_len_--;
    }
    return true;
  }
  return false;
}

void Worker::plan_verify_read(uint32_t slot, const IoUnit& u) {
  Slot& s = slots_[slot];
  s.check = false;
  s.want_gen = 0;
  s.want_zero = false;
  if (!source_->has_dir(Dir::kWrite)) {
    s.check = true;  // read-only job: check everything, writer unknown
    return;
  }
  auto it = written_.find(vkey(u));
  if (it != written_.end() && it->second.len == u.len && it->second.done &&
      !it->second.ambiguous) {
    s.check = true;
    s.want_gen = it->second.gen;
    s.want_zero = it->second.trimmed;
  }
}

void Worker::check_verify_read(uint32_t slot, const IoUnit& u) {
  const Slot& s = slots_[slot];
  if (!s.check) return;
  const uint64_t want_gen = s.want_gen;
  if (want_gen) {
    // A write to the block issued after this read replaced its entry: the
    // read may have seen the old or the new data, so it proves nothing.
    auto it = written_.find(vkey(u));
    if (it == written_.end() || it->second.gen != want_gen) return;
    it->second.checked = true;
  }
  res_->verified++;
  std::string msg;
  if (s.want_zero) {
    // As fio's verify_trimmed_io_u: the offset of the first non-zero byte.
    const uint8_t* p = slots_[slot].buf.data();
    const uint8_t* nz = std::find_if(p, p + u.len, [](uint8_t b) { return b != 0; });
    if (nz == p + u.len) return;
    msg = "trim verify failed on '" + display(u.file) + "' at offset " +
          std::to_string(u.offset + uint64_t(nz - p)) + " length " + std::to_string(u.len) +
          " (block offset " + std::to_string(nz - p) + "): the trimmed block does not read as zeros";
  } else {
    std::string bad = CheckVerifyBlock(slots_[slot].buf.data(), u.len, u.offset, want_gen, layout_);
    if (bad.empty()) return;
    msg = "verify failed on '" + display(u.file) + "' at offset " + std::to_string(u.offset) +
          " length " + std::to_string(u.len) + ": " + bad;
  }
  res_->verify_errors++;
  res_->total_errors++;
  if (!res_->first_error) {
    res_->first_error = EILSEQ;
    res_->first_error_message = msg;
  }
  // As fio: a bad block does not stop the job (all blocks are checked)
  // unless verify_fatal; it is the job's error unless continue_on_error
  // covers verify.
  if (ContinuesPastVerify(job_.continue_on_error)) return;
  if (!res_->error) {
    res_->error = EILSEQ;
    res_->error_message = msg;
  }
  if (job_.verify_fatal) stop_ = true;
}

void Worker::complete(uint32_t slot, const IoUnit& u, int64_t t0, int64_t due, bool measured,
                      Status st, int64_t t1) {
  const int d = int(u.dir);
  if (u.flush) {
    flush_done(u.file, t0, measured, st, t1);  // a trace's flush: as fsync= flushes
  } else if (job_.fill_device && st.error() == -ENOSPC) {
    // fill_device: the device is full, which ends the job; not an error.
    res_->filled = true;
    stop_ = true;
  } else if (cancelling_ && st.error() == -ECANCELED) {
    // Ended by cancel_in_flight(): the device never finished it.
    res_->dir[d].drop_ios++;
  } else {
    if (!t1) t1 = NowNs();
    think_completed_++;
    const uint64_t lat = uint64_t(t1 - t0);
    last_done_ns_ = t1;
    live_->lat_ns_sum.store(raw_lat_sum_ += lat, std::memory_order_relaxed);
    live_->ios[d].store(++raw_ios_[d], std::memory_order_relaxed);
    if (st.ok()) live_->bytes[d].store(raw_bytes_[d] += u.len, std::memory_order_relaxed);
    if (measured) {
      DirResult& r = res_->dir[d];
      r.ios++;
      // The split at the driver's hand-over, when there was one.
      const int64_t handed = slots_[slot].stamp.ns;
      const bool split = handed != 0;
      const uint64_t slat = split ? uint64_t(std::clamp(handed, t0, t1) - t0) : 0;
      const uint64_t clat = lat - slat;
      if (split) {
        if (!job_.disable_slat) r.slat.record(slat);
        if (!job_.disable_clat) r.clat.record(clat);
        if (!job_.disable_lat) r.lat.record(lat);
      } else if (!job_.disable_clat || !job_.disable_lat) {
        unsplit_[d].record(lat);
      }
      if (due) r.sched_lat.record(uint64_t(std::max<int64_t>(0, t1 - due)));
      const int64_t max_us = job_.max_latency[d].count();
      if (max_us > 0 && lat > uint64_t(max_us) * 1000 && st.ok()) {
        // fio's max_latency: the job ends with ETIMEDOUT.
        res_->total_errors++;
        if (!res_->first_error) {
          res_->first_error = ETIMEDOUT;
          res_->first_error_message = "max_latency exceeded";
        }
        fail(ETIMEDOUT, std::string(kOpName[d]) + " on '" + display(u.file) + "' at offset " +
                            std::to_string(u.offset) + " took " + std::to_string(lat) +
                            " ns, more than max_latency=" + std::to_string(max_us * 1000) + " ns");
      }
      if (lt_ && st.ok() && slots_[slot].cycle == lt_->cycle) latency_target_complete(lat, t1);
      if (rate_min_) check_min_rate(t1);
      if (st.ok()) r.bytes += u.len;
      else r.errors++;
      if (lat_log_) log_latency(d, t1, u, lat, clat, split ? &slat : nullptr);
      if ((bw_log_ || iops_log_) && !job_.log_avg_msec && st.ok()) {
        // As fio without log_avg_msec: one entry per I/O, the bandwidth
        // being bytes over its clat in fio's unit (bytes/ms, "KiB/s").
        const uint64_t msec = uint64_t((t1 - start_ns_) / 1000000);
        // fio: the bw entry unless disable_bw_measurement, the iops entry
        // unless gtod_reduce (every statistic off).
        if (bw_log_ && !job_.disable_bw)
          res_->bw_log.push_back(
              LogEntry{msec, clat ? u.len * 1000000 / clat : 0, d, u.len, u.offset});
        if (iops_log_ && !job_.stats_reduced())
          res_->iops_log.push_back(LogEntry{msec, 1, d, u.len, u.offset});
      }
    }
    if (!st.ok()) {
      if (verify_ && u.dir == Dir::kTrim) {
        // A failed trim leaves the block's content unknown: not checked.
        auto it = written_.find(vkey(u));
        if (it != written_.end() && it->second.trimmed) it->second.ambiguous = true;
      }
      io_error(u.dir, -st.error(),
               std::string(kOpName[d]) + " error on '" + display(u.file) + "' at offset " +
                   std::to_string(u.offset) + " length " + std::to_string(u.len) + ": " +
                   ErrnoString(st.error()));
    } else if (verify_ && u.dir == Dir::kRead) {
      check_verify_read(slot, u);
    } else if (verify_ && u.dir == Dir::kWrite) {
      // Only if the entry is still this write's (a later write replaces it).
      auto it = written_.find(vkey(u));
      if (it != written_.end() && it->second.gen == slots_[slot].write_gen) {
        it->second.done = true;
        if (job_.verify_backlog) backlog_.push_back(it->first);
      }
    }
  }
  slots_[slot].writing = false;
  free_.push_back(slot);
  inflight_--;
  completions_since_wake_++;
  wake_if_due();
}

void Worker::snapshot(CloneResult* out) const {
  *out = *res_;
  if (finished_) return;  // final already
  const int64_t now = NowNs();
  merge_unsplit(out);
  if (measuring_) out->runtime_ns = now - measure_start_;
  if (begin_ns_) usage_since_begin(out, now);
}

void Worker::merge_unsplit(CloneResult* out) const {
  for (int d = 0; d < kNumDirs; d++) {
    if (!job_.disable_clat) out->dir[d].clat.merge(unsplit_[d]);
    if (!job_.disable_lat) out->dir[d].lat.merge(unsplit_[d]);
  }
}

void Worker::usage_since_begin(CloneResult* out, int64_t now) const {
  rusage ru1;
  getrusage(RUSAGE_THREAD, &ru1);
  out->usr_s = Sec(ru1.ru_utime) - Sec(ru0_.ru_utime);
  out->sys_s = Sec(ru1.ru_stime) - Sec(ru0_.ru_stime);
  out->ctx = uint64_t((ru1.ru_nvcsw - ru0_.ru_nvcsw) + (ru1.ru_nivcsw - ru0_.ru_nivcsw));
  out->majf = uint64_t(ru1.ru_majflt - ru0_.ru_majflt);
  out->minf = uint64_t(ru1.ru_minflt - ru0_.ru_minflt);
  out->elapsed_ns = now - begin_ns_;
  if (offload_) {
    // The submitter's share (fio counts its workers' CPU as the job's).
    const rusage o1 = offload_usage(), &o0 = offload_ru0_;
    out->usr_s += Sec(o1.ru_utime) - Sec(o0.ru_utime);
    out->sys_s += Sec(o1.ru_stime) - Sec(o0.ru_stime);
    out->ctx += uint64_t((o1.ru_nvcsw - o0.ru_nvcsw) + (o1.ru_nivcsw - o0.ru_nivcsw));
    out->majf += uint64_t(o1.ru_majflt - o0.ru_majflt);
    out->minf += uint64_t(o1.ru_minflt - o0.ru_minflt);
  }
}

void Worker::check_min_rate(int64_t now) {
  if (now - start_ns_ < 2'000'000'000 || now < ramp_end_ns_ || verify_phase_ || stop_) return;
  for (int d = 0; d < kNumDirs; d++) {
    const uint64_t min_bytes = job_.rate_min[d], min_ios = job_.rate_iops_min[d];
    if (!min_bytes && !min_ios) continue;
    if (!source_->has_dir(Dir(d))) continue;
    RateCheck& c = rate_check_[d];
    if (!c.at) {
      c = RateCheck{now, raw_bytes_[d], raw_ios_[d]};
      continue;
    }
    const int64_t spent = now - c.at;
    if (spent < int64_t(job_.rate_cycle) * 1'000'000) continue;
    const double sec = double(spent) / 1e9;
    const double bytes = double(raw_bytes_[d] - c.bytes) / sec;
    const double ios = double(raw_ios_[d] - c.ios) / sec;
    std::string miss;
    if (min_bytes && bytes < double(min_bytes))
      miss = "rate_min=" + std::to_string(min_bytes) + " B/s not met for " + kOpName[d] +
             "s: " + std::to_string(uint64_t(bytes)) + " B/s";
    else if (min_ios && ios < double(min_ios))
      miss = "rate_iops_min=" + std::to_string(min_ios) + " not met for " + kOpName[d] + "s: " +
             std::to_string(uint64_t(ios)) + " IOPS";
    if (!miss.empty()) {
      fail(EIO, miss + " over the last " + std::to_string(spent / 1'000'000) + " ms on '" +
                    display(0) + "'");
      if (waiter_ && !wait_all_) ctx_->defer(std::exchange(waiter_, {}));
      sleeps_.cancel_all();
      return;
    }
    c = RateCheck{now, raw_bytes_[d], raw_ios_[d]};
  }
}

void Worker::latency_new_cycle(int64_t now) {
  lt_->window_start = now;
  lt_->ios = 0;
  lt_->failed = 0;
  lt_->cycle++;
}

bool Worker::latency_ramp_down(int64_t now) {
  LatencyTarget& t = *lt_;
  if (t.qd == 1) return false;
  t.high = t.qd;
  if (t.qd == t.low) t.low--;
  t.qd = (t.qd + t.low) / 2;
  quiesce_ = true;
  latency_new_cycle(now);
  return true;
}

void Worker::latency_pass(int64_t now) {
  LatencyTarget& t = *lt_;
  const uint32_t was = t.qd;
  t.low = t.qd;
  // Doubling until a window fails, then bisecting below the failed depth.
  t.qd = t.high != depth_ ? (t.qd + t.high) / 2 : t.qd * 2;
  t.qd = std::min(t.qd, depth_);
  if (t.qd == was) {
    if (t.final_run && !job_.latency_run) {
      end_now();  // found, and measured alone: the job ends (fio's "done")
    } else if (!t.final_run) {
      t.final_run = true;
      quiesce_ = true;
      restart_stats_ = true;
    }
  } else {
    quiesce_ = true;
  }
  latency_new_cycle(now);
}

void Worker::latency_target_complete(uint64_t lat, int64_t now) {
  LatencyTarget& t = *lt_;
  const uint64_t target = uint64_t(job_.latency_target.count()) * 1000;
  t.ios++;
  if (lat > target) {
    if (job_.latency_percentile >= 100) {
      if (!latency_ramp_down(now))
        fail(ETIMEDOUT, "an I/O took " + std::to_string(lat) + " ns at depth 1, more than latency_target=" +
                            std::to_string(target) + " ns");
      return;
    }
    t.failed++;
  }
  if (now - t.window_start < int64_t(job_.latency_window.count()) * 1000) return;
  if (100.0 * double(t.ios - t.failed) / double(t.ios) >= job_.latency_percentile) {
    latency_pass(now);
  } else if (!latency_ramp_down(now)) {
    latency_new_cycle(now);  // depth 1 and still failing: measure again
  }
}

void Worker::restart_stats(int64_t now) {
  // As at the end of a ramp_time: what was measured so far is dropped and
  // the next I/O starts the measured phase.  Errors stay counted.
  for (int d = 0; d < kNumDirs; d++) {
    const uint64_t errors = res_->dir[d].errors;
    res_->dir[d] = DirResult{};
    res_->dir[d].errors = errors;
    unsplit_[d].reset();
  }
  for (int i = 0; i < 7; i++) res_->depth[i] = res_->submit[i] = res_->complete[i] = 0;
  res_->syncs = 0;
  res_->sync_lat.reset();
  measuring_ = false;
  ramp_end_ns_ = now;
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

void Worker::log_latency(int d, int64_t t1, const IoUnit& u, uint64_t lat, uint64_t clat,
                         const uint64_t* slat) {
  const uint64_t v[3] = {lat, clat, slat ? *slat : 0};
  // As fio: a statistic it does not keep is not logged either.
  const bool keep[3] = {!job_.disable_lat, !job_.disable_clat, slat && !job_.disable_slat};
  if (job_.log_avg_msec == 0) {
    std::vector<LogEntry>* logs[3] = {&res_->lat_log, &res_->clat_log, &res_->slat_log};
    const uint64_t msec = uint64_t((t1 - start_ns_) / 1000000);
    for (int k = 0; k < 3; k++)
      if (keep[k]) logs[k]->push_back(LogEntry{msec, v[k], d, u.len, u.offset});
    return;
  }
  for (int k = 0; k < 3; k++) {
    if (!keep[k]) continue;
    win_lat_sum_[k][d] += v[k];
    win_lat_max_[k][d] = std::max(win_lat_max_[k][d], v[k]);
    win_lat_n_[k][d]++;
  }
}

void Worker::sample(int64_t now, bool last) {
  if (!measuring_) return;
  const uint64_t msec = uint64_t((now - start_ns_) / 1000000);
  for (int k = 0; k < kSampleKinds; k++) {
    SamplePeriod& p = periods_[k];
    const int64_t span = now - p.last_ns;
    if (!p.every_ns || span <= 0 || span < (last ? p.every_ns / 2 : p.every_ns)) continue;
    const double secs = double(span) / 1e9;
    for (int d = 0; d < kNumDirs; d++) {
      if (!source_->has_dir(Dir(d))) continue;
      DirResult& r = res_->dir[d];
      if (k == kBwSample) {
        // Kept whatever the reductions say, as fio 3.33 does.
        const double bw = double(r.bytes - p.last[d]) / secs;
        r.bw_samples.push_back(bw);
        // Without log_avg_msec the bw log is per I/O (complete()).
        if (bw_log_ && job_.log_avg_msec)
          res_->bw_log.push_back(LogEntry{msec, uint64_t(bw / 1024), d, 0, 0});
        p.last[d] = r.bytes;
      } else if (k == kIopsSample) {
        const double io = double(r.ios - p.last[d]) / secs;
        r.iops_samples.push_back(io);
        if (iops_log_ && job_.log_avg_msec)
          res_->iops_log.push_back(LogEntry{msec, uint64_t(io), d, 0, 0});
        p.last[d] = r.ios;
      } else {
        std::vector<LogEntry>* logs[3] = {&res_->lat_log, &res_->clat_log, &res_->slat_log};
        for (int l = 0; l < 3; l++) {
          if (!win_lat_n_[l][d]) continue;
          const uint64_t value = job_.log_max_value ? win_lat_max_[l][d]
                                                    : win_lat_sum_[l][d] / win_lat_n_[l][d];
          logs[l]->push_back(LogEntry{msec, value, d, 0, 0});
          win_lat_sum_[l][d] = win_lat_max_[l][d] = win_lat_n_[l][d] = 0;
        }
      }
    }
    p.last_ns = now;
  }
}

int64_t Worker::next_sample_ns(int64_t now) const {
  int64_t next = INT64_MAX;
  for (const SamplePeriod& p : periods_) {
    if (!p.every_ns) continue;
    // Before the measured phase (a ramp) the periods have not started.
    next = std::min(next, measuring_ ? std::max(now, p.last_ns + p.every_ns) : now + p.every_ns);
  }
  return next;
}

void Worker::hist_sample(int64_t now) {
  // fio's FIO_IO_U_PLAT_NR: the same layout as LatencyHistogram's first
  // buckets (util/histogram.h); slower completions land in the last one.
  constexpr size_t kFioBins = 1856;
  if (!measuring_) return;
  const uint64_t msec = uint64_t((now - start_ns_) / 1000000);
  const size_t stride = size_t{1} << job_.log_hist_coarseness;
  for (int d = 0; d < kNumDirs; d++) {
    if (!source_->has_dir(Dir(d))) continue;
    std::vector<uint64_t> cur(kFioBins, 0);
    // clat as the report will have it (run/result.h): split and unsplit.
    for (const LatencyHistogram* h : {&res_->dir[d].clat, &unsplit_[d]})
      h->for_each_bucket([&](size_t i, uint64_t hits) { cur[std::min(i, kFioBins - 1)] += hits; });
    std::vector<uint64_t>& last = hist_last_[d];
    if (last.empty()) last.assign(kFioBins, 0);
    HistLogEntry e{msec, d, MinBlockSize(job_, Dir(d)), std::vector<uint64_t>(kFioBins / stride, 0)};
    bool any = false;
    for (size_t i = 0; i < kFioBins; i++) {
      const uint64_t n = cur[i] - last[i];
      e.bins[i / stride] += n;
      any = any || n != 0;
    }
    last = std::move(cur);
    if (any) res_->hist_log.push_back(std::move(e));
  }
}

Task<void> Worker::wait_all() {
  wait_all_ = true;
  if (inflight_ > 0) co_await WaitAwaiter{this};
  wait_all_ = false;
}

int64_t Worker::due_of(const IoUnit& u) {
  if (verify_phase_) return 0;
  if (pacer_.active()) return pacer_.due(u);
  if (u.at_ns >= 0) return start_ns_ + u.at_ns;  // the schedule starts with the clone
  return 0;
}

Task<void> Worker::wait_until(int64_t due) {
  // Never past the end of the runtime, and cut short by interrupt(): a rate
  // or think time longer than the job must not keep it running.
  const int64_t until = verify_phase_ ? due : std::min(due, end_ns_);
  if (!trace_source_) {
    co_await sleeps_.until(*ctx_, until);
    co_return;
  }
  // A trace: sleep until a window before the due time, then yield to the
  // loop (completions are reaped meanwhile) until it is due.
  const int64_t now = NowNs();
  if (until - now <= spin_ns_) {
    co_await YieldAwaiter{ctx_};
    co_return;
  }
  const int64_t wake = until - spin_ns_;
  if (!co_await sleeps_.until(*ctx_, wake)) co_return;  // cancelled
  // The window follows the timer's oversleep: twice the last one, decaying
  // slowly when wake-ups are punctual.
  const int64_t over = NowNs() - wake;
  if (2 * over > spin_ns_) spin_ns_ = std::min(kSpinMaxNs, 2 * over);
  else spin_ns_ = std::max(kSpinMinNs, spin_ns_ - spin_ns_ / 64);
}

Task<void> Worker::submitter() {
  uint32_t issued = 0;  // in the current batch
  bool plugged = false;
  // The next I/O, fetched from the source and not yet issued: when it is
  // due (0: now) and whether it waited for room after that.
  IoUnit pending;
  bool have = false;
  int64_t pending_due = 0;
  bool held = false;
  // Ends the current batch: unplug and count it.
  auto end_batch = [&] {
    if (plugged)
      for (File& f : files_) f.blk->unplug();
    plugged = false;
    if (issued) res_->submit[BatchBucket(issued)]++;
    issued = 0;
  };
  for (;;) {
    if (stop_) break;
    // latency_target changed the depth: the I/Os in flight complete first.
    if (quiesce_) {
      end_batch();
      co_await wait_all();
      quiesce_ = false;
      const int64_t t = NowNs();
      if (restart_stats_) {
        restart_stats_ = false;
        restart_stats(t);
      }
      if (lt_) lt_->window_start = t;
      continue;
    }
    // verify_backlog: read back the oldest written blocks (see worker.h).
    if (job_.verify_backlog && !verify_phase_ && backlog_reads_.empty() && hist_len_ > 0) {
      if (!verify_batch_ && hist_len_ % job_.verify_backlog == 0 && last_dir_ != Dir::kRead)
        verify_batch_ = job_.verify_backlog_batch ? job_.verify_backlog_batch : job_.verify_backlog;
      if (verify_batch_) {
        end_batch();
        co_await wait_all();  // the writes are complete: in backlog_, or failed
        while (verify_batch_ && !backlog_.empty()) {
          auto it = written_.find(backlog_.front());
          backlog_.pop_front();
          if (hist_len_) hist_len_--;
          if (it == written_.end() || !it->second.done || it->second.ambiguous || it->second.checked)
            continue;
          backlog_reads_.push_back(VerifyReadOf(it));
          verify_batch_--;
        }
        if (backlog_.empty()) hist_len_ = 0;  // failed or dropped writes left nothing
        continue;
      }
    }
    // trim_backlog: trim the oldest queued blocks (see worker.h); asked once
    // per I/O to fetch, as fio's get_io_u.
    if (trim_on_ && !verify_phase_ && !have && backlog_reads_.empty() && trim_due()) {
      end_batch();
      co_await wait_all();  // the writes to trim are complete (or failed)
      IoUnit t;
      if (take_trim(&t)) {
        backlog_reads_.push_back(t);
        continue;
      }
    }
    // fsync=/fdatasync=: a flush after every N writes, taking a depth slot;
    // none after the job's last write, as fio (end_fsync is for that).
    if (sync_due_ && !have && !verify_phase_) {
      if (next_unit(&pending)) {
        have = true;
        held = false;
        pending_due = due_of(pending);
      }
      if (!have || NowNs() >= end_ns_) sync_due_ = false;
    }
    if (sync_due_) {
      if (inflight_ >= depth_) {
        end_batch();
        co_await WaitAwaiter{this};
        res_->complete[BatchBucket(completions_since_wake_)]++;
        completions_since_wake_ = 0;
        continue;
      }
      sync_due_ = false;
      inflight_++;
      const int64_t t = NowNs();
      SpawnNow(do_flush(last_write_file_, t, t >= ramp_end_ns_));
      continue;
    }
    bool finished = false;  // the main phase (or the verify phase) is done
    if (!have) {
      if (next_unit(&pending)) {
        have = true;
        held = false;
        pending_due = due_of(pending);
      } else {
        finished = true;
      }
    }
    int64_t now = NowNs();
    if (!finished && now >= end_ns_ && !verify_phase_) finished = true;
    if (finished) {
      end_batch();
      // Finish the main phase; then, with verify, read back what was written.
      if (verify_ && !verify_phase_ && job_.do_verify && source_->has_dir(Dir::kWrite) && !stop_) {
        co_await wait_all();
        if (stop_) break;
        verify_phase_ = true;
        verify_it_ = written_.begin();
        have = false;
        continue;
      }
      break;
    }
    // Not yet due: wait for its time (requests complete meanwhile).
    if (pending_due > now) {
      end_batch();
      co_await wait_until(pending_due);
      continue;
    }
    // Due, but the depth is full: wait for a completion.
    if (inflight_ >= queue_cap() || free_.empty()) {
      if (pending_due) held = true;
      end_batch();
      co_await WaitAwaiter{this};
      res_->complete[BatchBucket(completions_since_wake_)]++;
      completions_since_wake_ = 0;
      continue;
    }
    // flow=: ahead of the job's share of its flow group, let the others
    // catch up: with flow_sleep, after the job's I/Os completed, sleep;
    // else retry after the loop's other work (fio's spin).
    if (flow_ && !verify_phase_) {
      if (flow_->ahead(flow_issued_, job_.flow)) {
        end_batch();
        if (job_.flow_sleep) {
          co_await wait_all();
          co_await wait_until(NowNs() + int64_t(job_.flow_sleep) * 1000);
        } else {
          co_await YieldAwaiter{ctx_};
        }
        continue;
      }
      flow_->issued();
      flow_issued_++;
    }
    // plug/unplug only around real batches: two virtual calls saved per I/O
    // at iodepth_batch_submit=1 (the default), where there is nothing to batch.
    if (!plugged && batch_ > 1 && !offloaded_) {
      for (File& f : files_) f.blk->plug();
      plugged = true;
    }
    issue(pending, now, pending_due, held);
    have = false;
    if (++issued >= batch_) end_batch();
    if (think_due(now)) {
      end_batch();
      co_await think();
    }
  }
  end_batch();
  co_await wait_all();
}

bool Worker::load_trace(JobOptions* tj) {
  const std::string& path = TracePathFor(job_, res_->clone);
  auto t = shared_->traces.get(path, job_);
  if (!t.ok()) {
    res_->error = -t.error().code;
    res_->error_message = t.error().message;
    return false;
  }
  trace_ = *t;
  if (!job_.replay_redirect.empty()) {
    tj->filenames = {job_.replay_redirect};
    tj->blockdev.clear();
  } else if (tj->filenames.empty() && tj->blockdev.empty() && tj->ioengine != IoEngine::kNull &&
             tj->ioengine != IoEngine::kRbd) {
    // As fio: an iolog's I/O goes to the file it names.
    if (trace_->files.size() == 1) {
      tj->filenames = {trace_->files[0]};
    } else {
      std::string why = trace_->files.empty()
                            ? "the trace names no file"
                            : "the trace names " + std::to_string(trace_->files.size()) + " files ('" +
                                  trace_->files[0] + "', '" + trace_->files[1] + "'...)";
      res_->error = EINVAL;
      res_->error_message = "read_iolog '" + path + "': " + why +
                            ": give the target with filename=, blockdev= or replay_redirect=";
      return false;
    }
  }
  // A new file (or a null device) is as large as the trace reaches.
  if (!tj->size) {
    const uint64_t extent = TraceSource::Extent(*trace_, job_);
    tj->size = SizeSpec{std::max<uint64_t>(4096, (extent + 4095) / 4096 * 4096), false};
  }
  return true;
}

bool Worker::open_target(AioContext& ctx) {
  JobOptions tj = CloneJob(job_, res_->clone);
  if (!job_.read_iolog.empty() && !load_trace(&tj)) return false;
  OpenFlags flags;
  flags.read_only = job_.rw == RwMode::kRead || job_.rw == RwMode::kRandRead;
  if (job_.readonly) flags.read_only = true;  // --readonly: writes fail (EROFS/EPERM)
  if (trace_ && !job_.readonly) {
    flags.read_only = true;
    for (const trace::Record& r : trace_->records)
      if (r.op != trace::Op::kRead && !(job_.replay_skip & (1u << int(r.op)))) flags.read_only = false;
  }
  // The job's buffer contents: its writes, and the files laid out for it.
  auto pattern = ResolvePattern(job_.buffer_pattern);
  if (!pattern.ok()) {
    res_->error = -pattern.error().code;
    res_->error_message = pattern.error().message;
    return false;
  }
  filler_ = std::make_unique<BufferFiller>(job_, std::move(*pattern), res_->seed);
  const uint32_t n = std::max<uint32_t>(1, tj.nrfiles);
  files_.resize(n);
  uint64_t laid_bytes = 0, laid_files = 0;
  double laid_seconds = 0;
  for (uint32_t i = 0; i < n; i++) {
    File& file = files_[i];
    auto t = JobTarget(FileJob(tj, res_->clone, i), res_->clone, n);
    if (!t.ok()) {
      res_->error = -t.error().code;
      res_->error_message = t.error().message;
      return false;
    }
    file.target = std::move(*t);
    Expected<Prepared> p = [&] {
      std::lock_guard lock(shared_->setup);
      return PrepareTarget(file.target, filler_.get());
    }();
    if (!p.ok()) {
      res_->error = -p.error().code;
      res_->error_message = p.error().message;
      return false;
    }
    if (i == 0) {
      res_->target = file.target.spec;
      res_->layout = p->action;
    } else if (res_->layout.empty() || res_->layout == "none") {
      res_->layout = p->action;
    }
    res_->layout_bytes += p->bytes;
    res_->layout_seconds += p->seconds;
    res_->invalidated = res_->invalidated || p->invalidated;
    res_->pre_read_bytes += p->pre_read;
    if (p->action == "write") {
      laid_files++;
      laid_bytes += p->bytes;
      laid_seconds += p->seconds;
    }
    if (!p->warning.empty() && opts_.messages)
      std::fprintf(opts_.messages, "%s: %s\n", job_.name.c_str(), p->warning.c_str());
    auto b = OpenBackend(ctx, file.target.spec, flags);
    if (!b.ok()) {
      res_->error = -b.error().code;
      res_->error_message = "cannot open '" + file.target.spec + "': " + b.error().message;
      return false;
    }
    file.blk = std::move(*b);
    file.blk->root().set_latency_accounting(false);
    if (i > 0) {
      // Keys of written_ (vkey): each file after the previous one's end.
      file.base = files_[i - 1].base + files_[i - 1].blk->length() + 4096;
    }
  }
  if (laid_files && opts_.messages) {
    // fio's line, so that a slow start is explained.
    std::fprintf(opts_.messages, "%s: Laid out IO file%s (%llu file%s / %lluMiB) in %.2fs\n",
                 job_.name.c_str(), laid_files > 1 ? "s" : "", (unsigned long long)laid_files,
                 laid_files > 1 ? "s" : "", (unsigned long long)(laid_bytes >> 20), laid_seconds);
  }
  if (n > 1) res_->target += " (+" + std::to_string(n - 1) + " more files)";
  return true;
}

bool Worker::open_iolog() {
  if (job_.write_iolog.empty()) return true;
  // One file per clone: fio's would interleave clones' lines.
  std::string path = job_.write_iolog;
  if (res_->clone > 0) path += "." + std::to_string(res_->clone);
  path += opts_.file_tag;  // MPI ranks: ".rankR"
  auto w = trace::IologWriter::Open(path);
  if (!w.ok()) {
    res_->error = -w.error().code;
    res_->error_message = w.error().message;
    return false;
  }
  iolog_.emplace(std::move(*w));
  for (const File& f : files_)
    iolog_->add_file(0, f.target.filename.empty() ? f.target.display : f.target.filename);
  return true;
}

bool Worker::prepare_io() {
  const bool time_limited = job_.runtime.count() > 0;
  if (trace_) {
    auto src = std::make_unique<TraceSource>(trace_, job_, blk(0).length());
    ScheduleResult& sc = res_->schedule;
    sc.kind = ScheduleResult::Kind::kTrace;
    sc.trace = TracePathFor(job_, res_->clone);
    sc.trace_ios = src->ios();
    sc.skipped = src->skipped();
    sc.folded = src->folded();
    sc.too_large = src->too_large();
    sc.trace_bad = trace_->bad;
    sc.trace_span_ns = src->span_ns();
    sc.no_stall = job_.replay_no_stall;
    if (src->ios() == 0) {
      res_->error = EINVAL;
      res_->error_message = "read_iolog '" + sc.trace + "': nothing to replay (" +
                            std::to_string(trace_->records.size()) + " records, " +
                            std::to_string(sc.skipped) + " skipped, " + std::to_string(sc.too_large) +
                            " longer than the target)";
      return false;
    }
    trace_source_ = src.get();
    source_ = std::move(src);
  } else {
    std::vector<IoGenerator> gens;
    for (uint32_t i = 0; i < files_.size(); i++) {
      auto g = IoGenerator::Create(FileJob(CloneJob(job_, res_->clone), res_->clone, i),
                                   blk(i).length(),
                                   FileSeed(res_->seed, i));
      if (!g.ok()) {
        res_->error = -g.error().code;
        res_->error_message = display(i) + ": " + g.error().message;
        return false;
      }
      g->set_unlimited(job_.time_based && time_limited);
      gens.push_back(std::move(*g));
    }
    if (gens.size() == 1) {
      source_ = std::make_unique<IoGenerator>(std::move(gens[0]));
    } else {
      source_ = std::make_unique<MultiFileSource>(std::move(gens), job_.file_service,
                                                  job_.file_service_ios, res_->seed);
    }
    if (pacer_.active()) res_->schedule.kind = ScheduleResult::Kind::kRate;
  }
  if (!setup_verify()) return false;
  depth_ = std::max<uint32_t>(1, job_.iodepth);
  if (trace_ && !job_.iodepth_given)
    depth_ = std::max<uint32_t>(1, trace_->max_outstanding.value_or(kDefaultReplayDepth));
  if (SyncEngine(job_)) depth_ = 1;  // one I/O at a time, as fio's psync/sync
  res_->schedule.depth = depth_;
  // iodepth_low=L: refill once the depth fell to L; default: after every completion.
  for (int d = 0; d < kNumDirs; d++) rate_min_ |= job_.rate_min[d] || job_.rate_iops_min[d];
  if (job_.latency_target.count() > 0) {
    lt_ = LatencyTarget{};
    lt_->high = depth_;
  }
  if (job_.iodepth_low) low_ = std::min(*job_.iodepth_low, depth_ - 1);
  else low_ = depth_ - 1;
  batch_ = job_.iodepth_batch_submit == 0 ? depth_ : job_.iodepth_batch_submit;
  complete_min_ = std::clamp<uint32_t>(job_.iodepth_batch_complete_min, 1, depth_);
  lat_log_ = job_.write_lat_log.has_value();
  bw_log_ = job_.write_bw_log.has_value();
  iops_log_ = job_.write_iops_log.has_value();
  periods_[kBwSample].every_ns = int64_t(job_.bw_window_ms()) * 1000000;
  periods_[kIopsSample].every_ns = int64_t(job_.iops_window_ms()) * 1000000;
  if (lat_log_) periods_[kLatWindow].every_ns = int64_t(job_.log_avg_msec) * 1000000;

  slots_.resize(depth_);
  for (uint32_t i = 0; i < depth_; i++) {
    slots_[i].buf = AlignedBuffer(source_->max_bs());
    if (!slots_[i].buf.ok()) {
      res_->error = ENOMEM;
      res_->error_message = "out of memory for I/O buffers (iodepth=" + std::to_string(depth_) +
                            " x " + std::to_string(source_->max_bs()) + " bytes)";
      return false;
    }
    // Written data as the job's buffer options say (run/buffer_fill.h).
    filler_->fill(slots_[i].buf.data(), source_->max_bs());
    free_.push_back(depth_ - 1 - i);
  }
  // fixedbufs: every slot's buffer pinned in each file's io_uring, as fio
  // registers its io_u buffers; the nodes take them back when they close.
  if (job_.ioengine == IoEngine::kIoUring && job_.io_uring.fixedbufs) {
    for (File& f : files_) {
      if (!f.blk) continue;
      for (Slot& sl : slots_) {
        const int r = f.blk->register_buf(sl.buf.data(), sl.buf.size());
        if (r == 0) continue;
        res_->error = -r;
        res_->error_message = "fixedbufs: cannot register the I/O buffers (iodepth=" +
                              std::to_string(depth_) + " x " + std::to_string(sl.buf.size()) +
                              " bytes) with '" + f.target.spec + "': " + ErrnoString(r) +
                              (r == -ENOMEM ? " (the locked-memory limit: ulimit -l)" : "");
        return false;
      }
    }
  }

  return open_iolog();
}

bool Worker::think_due(int64_t now) {
  if (job_.thinktime.count() <= 0 || verify_phase_) return false;
  bool stall = false;
  if (job_.thinktime_iotime.count() > 0) {
    const int64_t cycle_ns = (job_.thinktime_iotime.count() + job_.thinktime.count()) * 1000;
    if (now - think_last_ns_ >= cycle_ns) stall = true;
    else if (!job_.thinktime_blocks) return false;  // only the time counts
  }
  const uint64_t b = job_.thinktime_issue ? think_issued_ : think_completed_;
  if (b >= think_last_blocks_ + std::max<uint32_t>(1, job_.thinktime_blocks)) stall = true;
  if (stall) {
    think_last_blocks_ = b;
    think_last_ns_ = now;  // as fio: iotime + thinktime from decision to decision
  }
  return stall;
}

Task<void> Worker::think() {
  co_await wait_all();  // fio's io_u_quiesce
  const int64_t t0 = NowNs();
  // The spin keeps the loop busy: nothing is in flight, and it ends with
  // the runtime.
  const int64_t spin_end = std::min(end_ns_, t0 + int64_t(job_.thinktime_spin.count()) * 1000);
  while (!stop_ && NowNs() < spin_end) {
  }
  const int64_t rest = int64_t(job_.thinktime.count() - job_.thinktime_spin.count()) * 1000;
  if (rest > 0 && !stop_) co_await wait_until(NowNs() + rest);
  if (job_.rate_ignore_thinktime) pacer_.shift(NowNs() - t0);
}

void Worker::start_clock() {
  const bool time_limited = job_.runtime.count() > 0;
  start_ns_ = NowNs();
  if (job_.log_epoch()) {
    // fio 3.33's set_epoch_time(): the start on the chosen clock, in ms.
    timespec ts{};
    clock_gettime(clockid_t(job_.log_alternate_epoch_clock_id), &ts);
    res_->log_epoch_ms = uint64_t(ts.tv_sec) * 1000 + uint64_t(ts.tv_nsec) / 1000000;
  }
  pacer_.start(start_ns_);
  think_last_ns_ = start_ns_;
  if (lt_) lt_->window_start = start_ns_;
  ramp_end_ns_ = start_ns_ + int64_t(job_.ramp_time.count()) * 1000;
  if (time_limited) end_ns_ = ramp_end_ns_ + int64_t(job_.runtime.count()) * 1000;
  const int64_t planned_end = end_ns_;
  if (ramp_held_) {  // end_ramp() says when
    ramp_end_ns_ = INT64_MAX;
    if (time_limited) end_ns_ = INT64_MAX;
  }
  if (end_requested_) end_ns_ = start_ns_;  // end_now() came before the start
  live_->start_ns.store(start_ns_);
  live_->planned_ns.store(time_limited ? planned_end - start_ns_ : 0);
  live_->planned_bytes.store(source_->io_limit());
  if (!source_->has_dir(Dir::kRead) && !source_->has_dir(Dir::kWrite) && !source_->has_dir(Dir::kTrim))
    live_->planned_bytes.store(0);
}

void Worker::set_gate(std::function<void()> prepared) {
  prepared_ = std::move(prepared);
  ramp_held_ = job_.ramp_time.count() > 0;
}

void Worker::end_ramp() {
  if (!ramp_held_ || finished_) return;
  ramp_held_ = false;
  if (start_ns_ == 0) return;  // not started: start_clock() will not hold it
  const int64_t now = NowNs();
  ramp_end_ns_ = now;
  if (job_.runtime.count() > 0 && end_ns_ == INT64_MAX) {  // not ended early meanwhile
    end_ns_ = now + int64_t(job_.runtime.count()) * 1000;
    live_->planned_ns.store(end_ns_ - start_ns_);
    if (!io_finished_) arm_overdue();
  }
  // A rate, think-time or trace sleep begun in the ramp was not capped by
  // the runtime: the submitter waits again, capped.
  sleeps_.cancel_all();
}

void Worker::release(bool go) {
  if (gate_ != Gate::kWaiting) return;
  gate_ = go ? Gate::kGo : Gate::kNoGo;
  if (gate_waiter_) ctx_->defer(std::exchange(gate_waiter_, {}));
}

bool Worker::bind_cpus() {
  const std::vector<uint32_t>& cpus = job_.cpus_allowed;
  if (cpus.empty()) return true;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (job_.cpus_split) CPU_SET(cpus[res_->clone % cpus.size()], &set);
  else for (uint32_t c : cpus) CPU_SET(c, &set);
  const int e = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  if (e == 0) return true;
  std::string list;
  for (uint32_t c : cpus) list += (list.empty() ? "" : ",") + std::to_string(c);
  res_->error = e;
  res_->error_message = "cpus_allowed (" + list + "): cannot run the clone's thread there: " +
                        ErrnoString(-e) + " (this machine has " +
                        std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " CPUs online)";
  return false;
}

Task<void> Worker::start_delay() {
  if (job_.startdelay.max.count() <= 0 || interrupted_) co_return;
  int64_t lo = job_.startdelay.min.count(), hi = job_.startdelay.max.count();
  Rng r(res_->seed ^ 0x7777);
  int64_t us = lo + int64_t(r.below(uint64_t(hi - lo + 1)));
  (void)co_await sleeps_.sleep_for(*ctx_, us * 1000);  // interrupt() cuts it short
}

Task<void> Worker::run(AioContext& ctx) {
  ctx_ = &ctx;
  getrusage(RUSAGE_THREAD, &ru0_);
  begin_ns_ = NowNs();
  const bool bound = bind_cpus();  // else no I/O: the error says why
  const bool gated = static_cast<bool>(prepared_);
  // Gated (RunOptions::sync): open and prepare, report, wait for every
  // process; the start delay counts from the common start.
  if (!gated && bound) co_await start_delay();
  bool ready = bound && !interrupted_ && open_target(ctx) && !job_.create_only && prepare_io();
  if (gated) {
    prepared_();
    if (ready) ready = co_await GateAwaiter{this};
    if (ready) co_await start_delay();
    ready = ready && !interrupted_;
  }
  if (ready && job_.offload()) ready = co_await offload_start();
  std::optional<PollParams> saved_poll;  // while the target spins
  if (ready) {
    start_clock();
    if (std::any_of(files_.begin(), files_.end(), [](const File& f) { return f.target.spin; })) {
      if (offloaded_) {
        // Completions are reaped on the submitter: it spins (until it ends).
        offload_->run_sync([&sub = offload_->ctx()] {
          PollParams p = sub.poll_params();
          p.max_ns = kSpinPollMaxNs;
          sub.set_poll_params(p);
        });
      } else {
        saved_poll = ctx.poll_params();
        PollParams p = *saved_poll;
        p.max_ns = kSpinPollMaxNs;
        ctx.set_poll_params(p);
      }
    }
    sampler_ = std::make_unique<Timer>(ctx, [this] {
      const int64_t now = NowNs();
      sample(now);
      if (rate_min_) check_min_rate(now);
      sampler_->arm_at(next_sample_ns(now));
    });
    sampler_->arm_at(next_sample_ns(NowNs()));
    if (job_.write_hist_log && job_.log_hist_msec) {
      const int64_t every = int64_t(job_.log_hist_msec) * 1000000;
      hist_sampler_ = std::make_unique<Timer>(ctx, [this, every] {
        hist_sample(NowNs());
        hist_sampler_->arm_in(every);
      });
      hist_sampler_->arm_in(every);
    }
    if (end_ns_ != INT64_MAX) arm_overdue();

    if (job_.flow && !flow_) join_flow();
    co_await submitter();
    io_finished_ = true;
    leave_flow();  // its share no longer holds the others
    if (lt_) res_->latency_depth = lt_->qd;

    if (overdue_) overdue_->cancel();
    int64_t stop_ns = last_done_ns_ ? last_done_ns_ : NowNs();
    sampler_->cancel();
    if (hist_sampler_) {
      hist_sampler_->cancel();
      hist_sample(stop_ns);  // the completions since the last entry
    }
    if (measuring_) {
      // A last partial sample, when at least half an interval is left.
      sample(stop_ns, /*last=*/true);
      res_->runtime_ns = stop_ns - measure_start_;
    }
    merge_unsplit(res_);
    for (LatencyHistogram& h : unsplit_) h.reset();
    for (uint32_t f = 0; f < files_.size() && job_.end_fsync && !res_->error && !interrupted_; f++) {
      IoUnit u;
      u.dir = Dir::kWrite;
      u.file = f;
      u.flush = true;
      int64_t t1;
      Status st = co_await perform(0, u, &t1);
      if (!st.ok() && !(cancelling_ && st.error() == -ECANCELED)) {
        io_error(Dir::kWrite, -st.error(),
                 "end_fsync failed on '" + display(f) + "': " + ErrnoString(st.error()));
      }
    }
    if (iolog_) {
      auto closed = iolog_->close((NowNs() - start_ns_) / 1000);
      if (!closed.ok() && !res_->error) {
        res_->error = -closed.error().code;
        res_->error_message = closed.error().message;
      }
      iolog_.reset();
    }
    if (res_->schedule.kind == ScheduleResult::Kind::kTrace && last_issue_ns_)
      res_->schedule.replay_span_ns = last_issue_ns_ - start_ns_;
    if (verify_ && job_.do_verify && source_->has_dir(Dir::kWrite)) {
      for (const auto& [offset, w] : written_)
        if (!w.checked) res_->verify_not_verified++;
    }
    if (res_->error == EILSEQ && res_->verify_errors > 1)
      res_->error_message += " (and " + std::to_string(res_->verify_errors - 1) + " more)";
    if (saved_poll) ctx.set_poll_params(*saved_poll);
  }
  if (offloaded_) co_await offload_home();
  // Counters: the first file's under their names, the others' after a
  // "fileN." prefix.
  for (uint32_t f = 0; f < files_.size(); f++) {
    if (!files_[f].blk) continue;
    const size_t first = res_->counters.size();
    files_[f].blk->root().driver().counters(&res_->counters);
    if (f > 0)
      for (size_t k = first; k < res_->counters.size(); k++)
        res_->counters[k].name = "file" + std::to_string(f) + "." + res_->counters[k].name;
    co_await files_[f].blk->drain();  // returns at the loop's top level: safe to close
    files_[f].blk.reset();
  }
  // unlink=1: the regular files go (never a device); a failure is said, as
  // the data is the user's to clean up.
  for (const File& f : files_) {
    if (!job_.unlink || f.target.filename.empty()) continue;
    struct stat st;
    if (stat(f.target.filename.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (::unlink(f.target.filename.c_str()) != 0 && opts_.messages)
      std::fprintf(opts_.messages, "%s: unlink '%s': %s\n", job_.name.c_str(),
                   f.target.filename.c_str(), ErrnoString(-errno).c_str());
  }
  leave_flow();  // a clone that failed before its I/O
  sampler_.reset();
  hist_sampler_.reset();
  overdue_.reset();
  finished_ = true;
  usage_since_begin(res_, NowNs());
  offload_.reset();  // idle: its graphs came home
  live_->done.store(true);
}

}  // namespace blk::bench
