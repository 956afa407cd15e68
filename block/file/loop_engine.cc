#include <blkstack/block/file/loop_engine.h>

#include <utility>

#include <blkstack/block/file/libaio_queue.h>
#include <blkstack/block/file/sync_queue.h>
#include <blkstack/block/file/thread_queue.h>

namespace blk {

class LoopEngineRef::Engine final : public LoopService {
 public:
  Engine(AioContext& ctx, std::string key, const QueueEngine::Config& cfg,
         std::unique_ptr<KernelQueue> q)
      : ctx_(ctx), key_(std::move(key)), queue_engine_(cfg, std::move(q)) {
    queue_engine_.attach(ctx_);
  }
  ~Engine() override { queue_engine_.detach(); }

  AioContext& ctx_;
  const std::string key_;
  QueueEngine queue_engine_;
  int users_ = 0;
};

std::string EngineSettings::key() const {
  const QueueEngine::Config& p = policy;
  std::string k = std::string("blk.file.engine/") + name() + "/ring=" + std::to_string(ring_size);
  if (kind == Kind::kThreads) {
    k += "/workers=" + std::to_string(threads) + (threads_hand_over ? ",handover" : "");
  } else if (kind == Kind::kSync) {
  } else if (kind == Kind::kNative) {
    k += "/user_ring=" + std::to_string(use_ring);
  } else {
    k += "/sqpoll=" + std::to_string(uring.sqpoll) + "," + std::to_string(uring.sqpoll_idle_ms) +
         "," + std::to_string(uring.sqpoll_cpu);
  }
  k += "/batch=" + std::to_string(p.max_batch) + "," + std::to_string(p.adapt_batch) + "," +
       std::to_string(p.async_batch) + "/inflight=" + std::to_string(p.max_inflight) +
       "/peek=" + std::to_string(p.peek_after_submit) +
       "/submit=" + std::to_string(int(p.submit_mode)) + "/poll=" + std::to_string(int(p.poll_mode));
  return k;
}

Expected<LoopEngineRef> LoopEngineRef::Acquire(AioContext& ctx, const EngineSettings& s) {
  std::string key = s.key();
  auto* e = static_cast<Engine*>(ctx.find_service(key));
  if (!e) {
    Expected<std::unique_ptr<KernelQueue>> q = MakeError(-EINVAL, "");
    QueueEngine::Config policy = s.policy;
    if (s.kind == EngineSettings::Kind::kSync) {
      auto t = SyncQueue::Create(s.ring_size);
      if (!t.ok()) return t.error();
      q = std::unique_ptr<KernelQueue>(std::move(t.value()));
      // The results are ready when submit() returns: the peek right after
      // it is where they are found (SyncQueue writes no eventfd).
      policy.peek_after_submit = true;
    } else if (s.kind == EngineSettings::Kind::kThreads) {
      auto t = ThreadQueue::Create(s.threads, s.ring_size);
      if (!t.ok()) return t.error();
      t.value()->set_hands_over(s.threads_hand_over);
      q = std::unique_ptr<KernelQueue>(std::move(t.value()));
    } else if (s.kind == EngineSettings::Kind::kNative) {
      auto a = LibaioQueue::Create(s.ring_size, s.use_ring);
      if (!a.ok()) return a.error();
      q = std::unique_ptr<KernelQueue>(std::move(a.value()));
    } else {
      UringQueue::Config uc = s.uring;
      uc.entries = s.ring_size;
      auto u = UringQueue::Create(uc);
      if (!u.ok()) return u.error();
      q = std::unique_ptr<KernelQueue>(std::move(u.value()));
    }
    e = static_cast<Engine*>(ctx.add_service(
        key, std::make_unique<Engine>(ctx, key, policy, std::move(q.value()))));
  }
  e->users_++;
  return LoopEngineRef(e);
}

LoopEngineRef::LoopEngineRef(LoopEngineRef&& o) noexcept : engine_(std::exchange(o.engine_, nullptr)) {}

LoopEngineRef& LoopEngineRef::operator=(LoopEngineRef&& o) noexcept {
  if (this != &o) {
    reset();
    engine_ = std::exchange(o.engine_, nullptr);
  }
  return *this;
}

void LoopEngineRef::reset() {
  Engine* e = std::exchange(engine_, nullptr);
  if (e && --e->users_ == 0) e->ctx_.remove_service(e->key_);  // destroys e
}

QueueEngine& LoopEngineRef::engine() const { return engine_->queue_engine_; }
AioContext* LoopEngineRef::ctx() const { return engine_ ? &engine_->ctx_ : nullptr; }
int LoopEngineRef::users() const { return engine_ ? engine_->users_ : 0; }

}  // namespace blk
