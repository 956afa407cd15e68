#include "tools/block_bench/run/features/trim_backlog.h"

#include "tools/block_bench/run/rng.h"
#include "tools/block_bench/run/submit_loop.h"

namespace blk::bench {

bool TrimBacklog::Wanted(const JobOptions& job, bool writes) {
  return job.verify != VerifyMethod::kNone && job.trim_percentage && job.trim_backlog &&
         job.do_verify && !job.verify_only && writes;
}

void TrimBacklog::on_issue(const IssuedIo& io) {
  if (io.u.dir != Dir::kWrite || time_.verify_phase) return;
  // fio's io_u_should_trim: a trim_percentage share of the writes.
  if (Mix64(seed_ ^ 0x7472696d5f706374ULL ^ ++rolls_) % 100 < job_.trim_percentage)
    list_.push_back(Entry{keys_.key(io.u), tracker_.last_gen()});
}

bool TrimBacklog::due(Dir last) {
  while (!list_.empty() && !tracker_.trimmable(list_.front().key, list_.front().gen))
    list_.pop_front();
  if (list_.empty()) return false;
  // fio 3.33's check_get_trim, decision for decision.
  if (batch_) {
    batch_--;
    return true;
  }
  if (tracker_.history() % job_.trim_backlog == 0 && last != Dir::kRead) {
    batch_ = job_.trim_backlog_batch ? job_.trim_backlog_batch : job_.trim_backlog;
    return true;
  }
  return false;
}

bool TrimBacklog::take(IoUnit* u) {
  while (!list_.empty()) {
    const Entry e = list_.front();
    list_.pop_front();
    if (tracker_.trim(e.key, e.gen, job_.trim_verify_zero, u)) return true;
  }
  return false;
}

bool TrimBacklog::before_fetch(SubmitLoop& loop) {
  // Asked once per I/O to fetch, as fio's get_io_u.
  if (time_.verify_phase || loop.has_pending() || !loop.injected_empty()) return false;
  return due(loop.last_dir());
}

Task<bool> TrimBacklog::turn(SubmitLoop& loop) {
  loop.end_batch();
  co_await loop.wait_all();  // the writes to trim are complete (or failed)
  IoUnit u;
  const bool found = take(&u);
  if (!found) co_return false;
  loop.inject(u);
  co_return true;
}

}  // namespace blk::bench
