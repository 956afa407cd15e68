#include "tools/block_bench/run/verify_offload.h"

#include <unistd.h>

#include <cerrno>

#include "tools/block_bench/run/clone_stats.h"
#include <blkstack/util/cpu_affinity.h>

namespace blk::bench {
Expected<std::unique_ptr<VerifyOffload>> VerifyOffload::Start(const std::string& name,
                                                              uint32_t threads,
                                                              const std::vector<uint32_t>& cpus) {
  std::unique_ptr<VerifyOffload> v(new VerifyOffload());
  v->workers_.resize(threads);
  for (uint32_t i = 0; i < threads; i++) {
    Worker& w = v->workers_[i];
    auto t = IOThread::Create(name + "-verify" + std::to_string(i));
    if (!t) {
      return Error{t.error().code,
                   "verify_async: cannot start verify thread " + std::to_string(i) + " of " +
                       std::to_string(threads) + ": " + t.error().message};
    }
    w.thread = std::move(*t);
    int e = 0;
    w.thread->run_sync([&] {
      e = PinThisThread(cpus);
      getrusage(RUSAGE_THREAD, &w.ru0);
    });
    if (e != 0)
      return Error{e, PinErrorMessage("verify_async_cpus", cpus, "the verify threads", e)};
  }
  return v;
}

VerifyOffload::~VerifyOffload() = default;

Task<std::string> VerifyOffload::run(AioContext& home, std::function<std::string()> fn) {
  Worker* w = &workers_[0];
  for (Worker& o : workers_)
    if (o.busy < w->busy) w = &o;
  w->busy++;
  w->calls++;
  co_await w->thread->ctx().schedule();
  std::string r = fn();
  co_await home.schedule();
  w->busy--;
  co_return r;
}

void VerifyOffload::add_usage(CloneResult* out) const {
  for (const Worker& w : workers_) {
    rusage now{};
    w.thread->run_sync([&now] { getrusage(RUSAGE_THREAD, &now); });
    AddUsage(w.ru0, now, out);
  }
}

}  // namespace blk::bench
