#include <blkstack/util/frame_pool.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace blk {
namespace {

constexpr size_t kGranule = 64;
constexpr size_t kClasses = 32;                  // frames up to 2 KiB are cached
constexpr uint32_t kMaxCachedPerClass = 4096;

struct FreeBlock {
  FreeBlock* next;
};

// Trivially constructible and destructible, so every access is a plain
// thread-pointer-relative load: no TLS guard, no wrapper call on the hot
// path.  Cleanup at thread exit is done by Cleaner, registered on the slow
// path.
struct FreeLists {
  FreeBlock* head[kClasses];
  uint32_t count[kClasses];
  bool registered;  // a Cleaner exists for this thread
  bool dead;        // the Cleaner ran: cache nothing any more
};
// initial-exec: a thread-pointer-relative access even in -fPIC objects (no
// __tls_get_addr call); fine for a library linked at start-up or dlopen()ed
// early, the static TLS surplus easily holds these few hundred bytes.
__attribute__((tls_model("initial-exec"))) thread_local FreeLists tls_lists;

struct Cleaner {
  ~Cleaner() {
    FreeLists& l = tls_lists;
    for (size_t c = 0; c < kClasses; c++) {
      while (FreeBlock* b = l.head[c]) {
        l.head[c] = b->next;
        std::free(b);
      }
      l.count[c] = 0;
    }
    l.dead = true;
  }
};

void RegisterCleaner() {
  thread_local Cleaner cleaner;
  (void)cleaner;
  tls_lists.registered = true;
}

size_t ClassOf(size_t n) { return (n + kGranule - 1) / kGranule - 1; }

}  // namespace

void* FramePool::Allocate(size_t n) {
  size_t cls = ClassOf(n);
  if (cls < kClasses) {
    FreeLists& l = tls_lists;
    if (FreeBlock* b = l.head[cls]) {
      l.head[cls] = b->next;
      l.count[cls]--;
      return b;
    }
    n = (cls + 1) * kGranule;
  }
  void* p = std::malloc(n);
  if (!p) {
    std::fprintf(stderr, "blkstack: out of memory allocating a coroutine frame\n");
    std::abort();
  }
  return p;
}

void FramePool::Free(void* p, size_t n) noexcept {
  size_t cls = ClassOf(n);
  FreeLists& l = tls_lists;
  if (cls < kClasses && !l.dead && l.count[cls] < kMaxCachedPerClass) {
    if (!l.registered) RegisterCleaner();
    auto* b = static_cast<FreeBlock*>(p);
    b->next = l.head[cls];
    l.head[cls] = b;
    l.count[cls]++;
    return;
  }
  std::free(p);
}

}  // namespace blk
