#include "tools/block_bench/run/submit_loop.h"

#include <cerrno>
#include <string>
#include <utility>

#include <blkstack/util/clock.h>
#include <blkstack/util/quote.h>

namespace blk::bench {
void SubmitLoop::add_hook(SubmitHook* h) {
  const unsigned p = h->points();
  if (p & SubmitHook::kBeforeFetch) hooks_.before_fetch.push_back(h);
  if (p & SubmitHook::kBeforeIssue) hooks_.before_issue.push_back(h);
  if (p & SubmitHook::kOnIssue) hooks_.on_issue.push_back(h);
  if (p & SubmitHook::kAfterIssue) hooks_.after_issue.push_back(h);
  if (p & SubmitHook::kOnComplete) hooks_.on_complete.push_back(h);
  if (p & SubmitHook::kOnRetire) hooks_.on_retire.push_back(h);
  if (p & SubmitHook::kSettle) hooks_.settle.push_back(h);
}

Task<void> SubmitLoop::run() {
  for (;;) {
    if (p_.errors.stopped()) break;
    bool restart = false;
    for (SubmitHook* h : hooks_.before_fetch) {
      if (!h->before_fetch(*this)) continue;
      restart = co_await h->turn(*this);
      if (restart) break;
    }
    if (restart) continue;
    const bool fetched = pending_.have || prefetch();
    const int64_t now = NowNs();
    // The runtime bounds the main phase and the read-backs between its
    // passes (fio's do_verify checks it too), not the last read-back.
    // fio's dry run (verify_only) is not bounded by it either.
    const bool runtime_over = now >= p_.time.end_ns && (!p_.time.verify_phase || between_) &&
                              !(fetched && pending_.u.dry);
    if (fetched && !runtime_over && pass_ended()) {
      end_batch();
      co_await begin_between_passes();
      continue;
    }
    if (!fetched || runtime_over) {
      end_batch();
      const bool next = co_await next_phase(fetched && runtime_over);
      if (next) continue;
      break;
    }
    // Not yet due: wait for its time (requests complete meanwhile).
    if (pending_.due > now) {
      if (!pending_.waited_from) pending_.waited_from = now;
      end_batch();
      co_await p_.pacing.wait_until(ctx_, pending_.due);
      continue;
    }
    // Due, but the depth is full: wait for completions.
    if (inflight_ >= cap() || p_.slots.empty()) {
      if (pending_.due) pending_.held = true;
      end_batch();
      co_await WaitAwaiter{this};
      note_wakeup();
      continue;
    }
    const bool dry = pending_.u.dry;
    for (SubmitHook* h : hooks_.before_issue) {
      if (dry || !h->before_issue(*this)) continue;
      restart = co_await h->turn(*this);
      if (restart) break;
    }
    if (restart) continue;
    // plug/unplug only around real batches: two virtual calls saved per I/O
    // at iodepth_batch_submit=1 (the default), where there is nothing to
    // batch.
    if (!plugged_ && shape_.batch > 1 && !(offload_ && offload_->active())) {
      for (CloneFiles::File& f : p_.files.files()) f.blk->plug();
      plugged_ = true;
    }
    issue(pending_.u, now, pending_.due, pending_.waited_from, pending_.held);
    pending_.have = false;
    if (++batched_ >= shape_.batch) end_batch();
    for (SubmitHook* h : hooks_.after_issue) {
      if (dry || !h->after_issue(*this, now)) continue;
      end_batch();
      (void)co_await h->turn(*this);
    }
  }
  end_batch();
  co_await wait_all();
}

bool SubmitLoop::pass_ended() {
  if (!pass_closed_ || !next_phase_ || p_.time.verify_phase || pending_.injected) return false;
  const uint32_t pass = pending_.u.pass;
  const bool ended = main_pass_ && *main_pass_ != pass;
  main_pass_ = pass;
  return ended;
}

Task<void> SubmitLoop::begin_between_passes() {
  co_await wait_all();
  if (p_.errors.stopped()) co_return;
  main_source_ = source_;
  main_pending_ = pending_;
  pending_.have = false;
  between_ = true;
  p_.time.verify_phase = true;
  source_ = &next_phase_();
}

Task<bool> SubmitLoop::next_phase(bool runtime_over) {
  if (between_) {
    // The phase between passes is done: back to the main one, with the I/O
    // that began the new pass.
    co_await wait_all();
    between_ = false;
    p_.time.verify_phase = false;
    source_ = main_source_;
    pending_ = main_pending_;
    // The runtime ended it: fio's do_verify stops, and the job with it.
    pass_closed_(!runtime_over);
    co_return !runtime_over && !p_.errors.stopped();
  }
  if (p_.time.verify_phase) {
    // The read-back after the main source ran out is done: the source may
    // go on with another pass (fio's keep_running after do_verify, which
    // counts the read-back's bytes).
    co_await wait_all();
    if (p_.errors.stopped() || NowNs() >= p_.time.end_ns || !main_source_->resume())
      co_return false;
    p_.time.verify_phase = false;
    source_ = main_source_;
    if (pass_closed_) pass_closed_(true);
    main_pass_.reset();  // the resumed pass is no pass change
    co_return true;
  }
  // No read-back: the source may still go on (its passes decide after the
  // phase that is not there).
  if (!next_phase_)
    co_return !runtime_over && !p_.errors.stopped() && source_->resume();
  // Finish the main phase; then, with verify, read back what was written.
  if (p_.errors.stopped()) co_return false;
  if (runtime_over && pass_closed_) {
    // fio: the runtime ends the job before its do_verify.
    co_await wait_all();
    pass_closed_(false);
    co_return false;
  }
  co_await wait_all();
  if (p_.errors.stopped()) co_return false;
  p_.time.verify_phase = true;
  main_source_ = source_;
  source_ = &next_phase_();
  pending_.have = false;
  co_return true;
}

void SubmitLoop::end_batch() {
  if (plugged_)
    for (CloneFiles::File& f : p_.files.files()) f.blk->unplug();
  plugged_ = false;
  if (batched_) p_.res->submit[BatchBucket(batched_)]++;
  batched_ = 0;
}

Task<void> SubmitLoop::wait_all() {
  wait_all_ = true;
  if (inflight_ > 0 || held_ > 0) co_await WaitAwaiter{this};
  wait_all_ = false;
}

Task<void> SubmitLoop::wait_completion() {
  end_batch();
  co_await WaitAwaiter{this};
  note_wakeup();
}

void SubmitLoop::kick() {
  if (waiter_ && !wait_all_) ctx_.defer(std::exchange(waiter_, {}));
}

void SubmitLoop::begin_measuring(int64_t now) {
  p_.time.measuring = true;
  p_.time.measure_start_ns = now;
  p_.res->measure_start_ns = now;
  if (p_.time.ramp_end_ns > p_.time.start_ns && !p_.job.time_based)
    (between_ ? main_source_ : source_)->reset_budget();
  p_.sampler.begin_measuring(now);
  if (on_measuring_) on_measuring_();
}

void SubmitLoop::say_io(const IoUnit& u) const {
  // fio's ddir numbers: 0 read, 1 write, 2 trim, 3 sync.
  const int ddir = u.flush ? 3 : u.dir == Dir::kRead ? 0 : u.dir == Dir::kWrite ? 1 : 2;
  const std::vector<std::string> names = p_.files.names();
  const std::string file = u.file < names.size() ? names[u.file] : std::to_string(u.file);
  p_.opts.debug->print(DebugCategory::kIo, "queue: io_u: off=0x%llx,len=0x%llx,ddir=%d,file=%s",
                       (unsigned long long)u.offset, (unsigned long long)u.len, ddir,
                       file.c_str());
}

void SubmitLoop::issue(const IoUnit& u, int64_t now, int64_t due, int64_t waited_from,
                       bool held) {
  const uint32_t slot = p_.slots.take();
  // A write's first use of its slot fills it (SlotPool): set-up, not the
  // request's latency.
  if (u.dir == Dir::kWrite && !u.flush && !u.dry && p_.slots.fill_for_write(slot, u.len))
    now = NowNs();
  if (p_.time.verify_phase) main_source_->note_other_io(u.len);
  inflight_++;
  p_.res->depth[DepthBucket(inflight_)]++;
  const bool measured = p_.time.measured(now);
  if (measured && !p_.time.measuring) {
    // A rate-paced job's runtime starts where its schedule does (fio's rate
    // and runtime share td->start): the first I/O may be issued a little
    // after the origin (a write slot's fill, a sanitizer's start-up), and a
    // runtime counted from it would hold more I/Os than rate x runtime.
    const int64_t origin = p_.pacing.origin_ns();
    const bool from_origin = p_.pacing.rate_active() && origin >= p_.time.ramp_end_ns && origin < now;
    begin_measuring(from_origin ? origin : now);
  }
  if (measured) p_.pacing.record(now, due, waited_from, held);
  last_dir_ = u.dir;
  if (!last_issue_ns_) p_.res->first_io_ns = now;
  last_issue_ns_ = now;
  if (u.dry) {
    // verify_only's dry run: the hooks that see it do (verify records its
    // writes), and it completes at once.
    for (SubmitHook* h : hooks_.on_issue)
      if (h->sees_dry()) h->on_issue(IssuedIo{slot, u, now});
    p_.slots[slot].stamp.ns = 0;
    SpawnNow(do_io(slot, u, now, due, measured));
    return;
  }
  if (recorder_) recorder_->record(now, u);
  if (u.flush) {
    if (p_.opts.debug && p_.opts.debug->on(DebugCategory::kIo)) say_io(u);
    SpawnNow(do_io(slot, u, now, due, measured));
    return;
  }
  if (p_.opts.on_issue) p_.opts.on_issue(*p_.res, u);
  if (p_.opts.debug && p_.opts.debug->on(DebugCategory::kIo)) say_io(u);
  if (content_ && u.dir == Dir::kWrite) content_->fill(p_.slots[slot].buf.data(), u, now);
  for (SubmitHook* h : hooks_.on_issue) h->on_issue(IssuedIo{slot, u, now});
  p_.slots[slot].stamp.ns = 0;
  IoUnit io = u;
  io.ioprio = job_ioprio_;
  if (cmdprio_) {
    const CmdPrio::Pick p = cmdprio_->pick(u.dir, u.len);
    io.ioprio = p.ioprio;
    io.ioprio_sent = p.per_request;
  }
  Task<void> t = do_io(slot, io, now, due, measured);
  t.set_submit_stamp(&p_.slots[slot].stamp);
  SpawnNow(std::move(t));
}

Task<void> SubmitLoop::do_io(uint32_t slot, IoUnit u, int64_t t0, int64_t due, bool measured) {
  int64_t t1 = 0;
  const Status st = co_await perform(slot, u, &t1);
  complete(slot, u, t0, due, measured, st, t1);
}

Task<Status> SubmitLoop::perform(uint32_t slot, const IoUnit& u, int64_t* done_ns) {
  if (work_ && !u.flush && !u.dry) {  // cpuio, exec: the work, on the clone's loop
    const Status st = Status(co_await work_->perform(ctx_, *work_sleeps_));
    *done_ns = NowNs();
    co_return st;
  }
  if (net_ && !u.flush && !u.dry) {  // net: the socket, on the clone's loop
    const int64_t r =
        co_await net_->transfer(u.dir, p_.slots[slot].buf.data(), u.len, *work_sleeps_);
    *done_ns = NowNs();
    if (r == 0) co_return Status(-ESHUTDOWN);  // the peer ended the stream
    co_return r < 0 ? Status(int(r)) : Status();
  }
  // Offloaded: only the slot's buffer and the graph are touched on the
  // submitter; the clone's state waits until the coroutine is back.
  AioContext* home = offload_ && offload_->active() ? &ctx_ : nullptr;
  if (home) co_await offload_->ctx().schedule();
  BlockBackend& b = p_.files.blk(u.file);
  Status st;
  if (u.dry) {
    // Nothing to send: done.
  } else if (u.flush) {
    st = co_await b.flush();
  } else if (u.dir == Dir::kTrim) {
    st = co_await b.discard(u.offset, u.len);
  } else if (u.dir == Dir::kRead) {
    st = co_await b.read(u.offset, p_.slots.iov(slot, u.len),
                         rw_flags_ | (u.ioprio_sent ? ReqPrioFlags(u.ioprio) : 0u));
  } else {
    const uint32_t flags = rw_flags_ | (u.fua ? uint32_t(kReqFua) : 0u) |
                           (u.ioprio_sent ? ReqPrioFlags(u.ioprio) : 0u);
    st = co_await b.write(u.offset, p_.slots.iov(slot, u.len), flags);
  }
  *done_ns = NowNs();
  if (home) co_await home->schedule();
  co_return st;
}

void SubmitLoop::spawn_flush(uint32_t file) {
  inflight_++;
  const int64_t t = NowNs();
  SpawnNow(do_flush(file, t, p_.time.measured(t)));
}

Task<void> SubmitLoop::do_flush(uint32_t file, int64_t t0, bool measured) {
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

void SubmitLoop::sync_done_now(uint32_t file, int64_t t0, int st, const char* what) {
  const int64_t t1 = NowNs();
  p_.stats.note_done(t1);
  p_.stats.sync_range_done(t0, t1, p_.time.measured(t0));
  if (st < 0)
    p_.errors.io_error(Dir::kWrite, -st,
                       std::string(what) + " failed on " + QuoteName(p_.files.display(file)) +
                           ": " + ErrnoString(st));
}

void SubmitLoop::flush_done(uint32_t file, int64_t t0, bool measured, Status st, int64_t t1) {
  p_.stats.note_done(t1);
  if (cancelling_ && st.error() == -ECANCELED) return;  // never reached the device
  p_.stats.sync_done(t0, t1, measured);
  if (!st.ok()) {
    const FailedIo io{Dir::kWrite, /*flush=*/true, p_.files.display(file), 0, 0};
    p_.errors.io_error(io, -st.error(),
                       "flush failed on " + QuoteName(p_.files.display(file)) + ": " +
                           ErrnoString(st.error()));
  }
}

void SubmitLoop::complete(uint32_t slot, const IoUnit& u, int64_t t0, int64_t due, bool measured,
                          Status st, int64_t t1) {
  const int d = int(u.dir);
  if (u.flush) {
    flush_done(u.file, t0, measured, st, t1);  // a trace's flush: as fsync= flushes
  } else if (p_.job.fill_device && st.error() == -ENOSPC) {
    // fill_device: the device is full, which ends the job; not an error.
    p_.res->filled = true;
    p_.errors.stop();
  } else if (net_ && st.error() == -ESHUTDOWN) {
    // net: the peer closed; the job is done (fio's td->done), not in error.
    p_.errors.stop();
  } else if (cancelling_ && st.error() == -ECANCELED) {
    // Cancelled at the end: the device never finished it.
    p_.res->dir[d].drop_ios++;
  } else {
    const CloneStats::Latency l =
        p_.stats.complete(u, t0, t1, p_.slots[slot].stamp.ns, due, measured, st);
    if (!hooks_.on_complete.empty()) {
      const DoneIo io{slot, u, t1, l.lat, l.clat, l.split ? &l.slat : nullptr, measured, st};
      for (SubmitHook* h : hooks_.on_complete)
        if (!u.dry || h->sees_dry()) h->on_complete(io);
    }
    if (!st.ok()) {
      const FailedIo io{u.dir, /*flush=*/false, p_.files.display(u.file), u.offset, u.len};
      p_.errors.io_error(io, -st.error(),
                         std::string(OpName(u.dir)) + " error on " +
                             QuoteName(p_.files.display(u.file)) + " at offset " +
                             std::to_string(u.offset) + " length " +
                             std::to_string(u.len) + ": " + ErrnoString(st.error()));
    }
  }
  inflight_--;
  completions_since_wake_++;
  if (!u.dry && !hooks_.settle.empty() && holding(slot)) {
    held_++;
    SpawnNow(settle(slot));
  } else {
    retire(slot, u.dry);
  }
  wake_if_due();
}

bool SubmitLoop::holding(uint32_t slot) {
  for (SubmitHook* h : hooks_.settle)
    if (h->holds(slot)) return true;
  return false;
}

Task<void> SubmitLoop::settle(uint32_t slot) {
  for (SubmitHook* h : hooks_.settle)
    if (h->holds(slot)) co_await h->settle(slot);
  // Back on the loop: the slot returns; a submitter that waits for one (or
  // for everything) goes on.
  const bool starved = p_.slots.empty();
  retire(slot);
  held_--;
  if (!waiter_) co_return;
  if (wait_all_ ? inflight_ == 0 && held_ == 0 : starved && inflight_ < cap())
    ctx_.defer(std::exchange(waiter_, {}));
}

void SubmitLoop::retire(uint32_t slot, bool dry) {
  for (SubmitHook* h : hooks_.on_retire)
    if (!dry || h->sees_dry()) h->on_retire(slot);
  p_.slots.give(slot);
}

void SubmitLoop::wake_if_due() {
  if (!waiter_) return;
  if (wait_all_) {
    if (inflight_ == 0 && held_ == 0) ctx_.defer(std::exchange(waiter_, {}));
    return;
  }
  // iodepth_batch_complete_min: refill only after that many completions (or
  // when nothing is left in flight).  Completions are reaped one at a time
  // as the driver delivers them, which keeps within any
  // iodepth_batch_complete_max >= 1.
  if ((inflight_ <= shape_.low &&
       (completions_since_wake_ >= shape_.complete_min || inflight_ == 0)) ||
      p_.errors.stopped()) {
    auto h = std::exchange(waiter_, {});
    h.resume();  // the submitter refills, then suspends again; touch nothing after
  }
}

}  // namespace blk::bench
