#include "util/frame_pool.h"

#include <cstdio>
#include <cstdlib>

namespace blk {
namespace {

constexpr size_t kGranule = 64;
constexpr size_t kClasses = 32;                  // frames up to 2 KiB are cached
constexpr size_t kMaxCachedPerClass = 4096;

struct FreeBlock {
  FreeBlock* next;
};

class ThreadCache {
 public:
  ~ThreadCache() {
    for (auto& l : lists_) {
      while (l.head) {
        FreeBlock* b = l.head;
        l.head = b->next;
        std::free(b);
      }
    }
  }
  void* Allocate(size_t cls) {
    List& l = lists_[cls];
    if (FreeBlock* b = l.head) {
      l.head = b->next;
      l.count--;
      return b;
    }
    return nullptr;
  }
  bool Free(void* p, size_t cls) {
    List& l = lists_[cls];
    if (l.count >= kMaxCachedPerClass) return false;
    auto* b = static_cast<FreeBlock*>(p);
    b->next = l.head;
    l.head = b;
    l.count++;
    return true;
  }

 private:
  struct List {
    FreeBlock* head = nullptr;
    size_t count = 0;
  };
  List lists_[kClasses];
};

ThreadCache& Cache() {
  thread_local ThreadCache cache;
  return cache;
}

size_t ClassOf(size_t n) { return (n + kGranule - 1) / kGranule - 1; }

}  // namespace

void* FramePool::Allocate(size_t n) {
  size_t cls = ClassOf(n);
  if (cls < kClasses) {
    if (void* p = Cache().Allocate(cls)) return p;
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
  if (cls < kClasses && Cache().Free(p, cls)) return;
  std::free(p);
}

}  // namespace blk
