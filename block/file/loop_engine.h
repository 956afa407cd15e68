// LoopEngine: the I/O engine of one loop.  One QueueEngine -- one worker pool,
// libaio context or io_uring, its eventfd handler and its poll handler -- per
// AioContext and engine setting, shared by every file node on that loop
// with the same setting, as QEMU keeps one LinuxAioState / LuringState per
// AioContext (and QEMU one thread pool per AioContext).  The loop owns it (a LoopService); the nodes hold a
// LoopEngineRef, and the last one to let go destroys it.
//
// What sharing means for the nodes on one loop:
//   * their requests leave in the same submissions: a plug by one node holds
//     the others' requests until the outermost unplug, as in QEMU;
//   * they share the ring's capacity (aio-ring-size) and aio-max-inflight;
//   * the aio_* and io_uring_* counters are the engine's: each node reports
//     the whole loop's numbers, not its own share.
// Nodes whose settings differ (another aio=, ring size, batch or poll
// policy, SQPOLL set-up, worker count) get engines of their own on the
// same loop.
//
// Threading: Acquire, the ref's methods and its destructor on the loop's
// thread (or while no thread runs the loop), like everything of QueueEngine.
#pragma once

#include <memory>
#include <string>

#include <blkstack/block/file/queue_engine.h>
#include <blkstack/block/file/uring_queue.h>
#include <blkstack/util/aio_context.h>
#include <blkstack/util/result.h>

namespace blk {

struct EngineSettings {
  enum class Kind { kThreads, kNative, kIoUring, kSync };
  Kind kind = Kind::kNative;
  int ring_size = 128;      // io_setup size / SQ entries / worker slots
  bool use_ring = true;     // native: read completions in user space
  UringQueue::Config uring;  // io_uring: SQPOLL set-up (entries from ring_size)
  int threads = 16;         // threads: workers
  bool threads_hand_over = false;  // threads: queueing ends submission (ThreadQueue::set_hands_over)
  QueueEngine::Config policy;

  // The aio= value: "threads", "native", "io_uring" or "sync".
  const char* name() const {
    switch (kind) {
      case Kind::kThreads: return "threads";
      case Kind::kNative: return "native";
      case Kind::kIoUring: return "io_uring";
      case Kind::kSync: return "sync";
    }
    return "?";
  }
  // The loop service key: equal for settings that can share one engine.
  std::string key() const;
};

class LoopEngineRef {
 public:
  LoopEngineRef() = default;
  // The engine of `ctx` for `s`: the one already there, or a new one
  // (errors name the failing set-up call and errno, e.g.
  // "io_uring_queue_init(128): Operation not permitted (...)").
  static Expected<LoopEngineRef> Acquire(AioContext& ctx, const EngineSettings& s);
  // Lets go; the last ref destroys the engine.  REQUIRES: this holder has
  // no request in flight, and not inside the engine's completion path (see
  // ~QueueEngine).
  ~LoopEngineRef() { reset(); }
  LoopEngineRef(LoopEngineRef&& o) noexcept;
  LoopEngineRef& operator=(LoopEngineRef&& o) noexcept;
  LoopEngineRef(const LoopEngineRef&) = delete;
  LoopEngineRef& operator=(const LoopEngineRef&) = delete;

  void reset();
  explicit operator bool() const { return engine_ != nullptr; }
  QueueEngine& engine() const;
  AioContext* ctx() const;
  // Holders of this engine now (this one included).
  int users() const;

 private:
  class Engine;
  explicit LoopEngineRef(Engine* e) : engine_(e) {}
  Engine* engine_ = nullptr;
};

}  // namespace blk
