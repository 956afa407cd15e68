#include "tools/block_bench/run/offload.h"
#include "tools/block_bench/run/clone_stats.h"

namespace blk::bench {
Task<Expected<void>> Offload::start(CloneFiles& files, AioContext& home) {
  auto t = IOThread::Create(name_);
  if (!t) {
    co_return Error{t.error().code, "io_submit_mode=offload: cannot start the submitter thread: " +
                                        t.error().message};
  }
  thread_ = std::move(*t);
  thread_->run_sync([this] { getrusage(RUSAGE_THREAD, &ru0_); });
  for (CloneFiles::File& f : files.files()) {
    co_await f.blk->move_to(thread_->ctx());  // continues on the submitter
    co_await home.schedule();
  }
  active_ = true;
  co_return Expected<void>{};
}

Task<void> Offload::home(CloneFiles& files, AioContext& home) {
  for (CloneFiles::File& f : files.files()) {
    co_await thread_->ctx().schedule();
    co_await f.blk->move_to(home);  // continues here
  }
  active_ = false;
  // A cancel_waits() posted before this point has run once this returns.
  thread_->run_sync([] {});
}

void Offload::cancel_waits(CloneFiles& files) {
  // On the submitter, where the graphs are, unless home() took them back
  // meanwhile (then nothing is in flight; it set their loop there, so the
  // check reads no value written elsewhere).
  thread_->ctx().post([&files, sub = &thread_->ctx()] {
    for (CloneFiles::File& f : files.files())
      if (f.blk && &f.blk->ctx() == sub) f.blk->cancel_waits();
  });
}

void Offload::spin(int64_t max_ns) {
  thread_->run_sync([&sub = thread_->ctx(), max_ns] {
    PollParams p = sub.poll_params();
    p.max_ns = max_ns;
    sub.set_poll_params(p);
  });
}

void Offload::add_usage(CloneResult* out) const {
  if (!thread_) return;
  rusage o1{};
  thread_->run_sync([&o1] { getrusage(RUSAGE_THREAD, &o1); });
  // The submitter's share (fio counts its workers' CPU as the job's).
  AddUsage(ru0_, o1, out);
}

}  // namespace blk::bench
