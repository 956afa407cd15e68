#include <blkstack/util/iovec.h>

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <new>

namespace blk {
namespace {

// Calls f(char* p, size_t n) for each piece of bytes [off, off + len) of the
// segments, in order, until f returns false.  Returns false iff f did.
// Stops at the end of the segments if the range is longer (a REQUIRES
// violation; asserted by the callers).
template <class F>
bool for_range(const struct iovec* d, int n, size_t off, size_t len, F&& f) {
  int i = 0;
  while (i < n && off >= d[i].iov_len) {
    off -= d[i].iov_len;
    ++i;
  }
  for (; i < n && len > 0; ++i) {
    const size_t chunk = std::min(d[i].iov_len - off, len);
    if (!f(static_cast<char*>(d[i].iov_base) + off, chunk)) return false;
    len -= chunk;
    off = 0;
  }
  return true;
}

struct iovec* alloc_segments(int cap) {
  // add() has no way to report failure and running out of memory for a
  // few hundred bytes is not recoverable on the I/O path: fail loudly
  // rather than throw through coroutines.
  auto* p = new (std::nothrow) struct iovec[cap];
  if (p == nullptr) {
    std::fprintf(stderr, "blk::IoVec: out of memory for %d segments\n", cap);
    std::abort();
  }
  return p;
}

}  // namespace

IoVec::IoVec(const IoVec& o) : n_(o.n_), size_(o.size_) {
  struct iovec* d = inline_;
  if (o.n_ > kInline) {
    heap_.reset(alloc_segments(o.n_));
    cap_ = o.n_;
    d = heap_.get();
  }
  std::memcpy(d, o.data(), sizeof(struct iovec) * n_);
}

IoVec& IoVec::operator=(const IoVec& o) {
  if (this == &o) return *this;
  if (o.n_ > cap_) {
    heap_.reset(alloc_segments(o.n_));
    cap_ = o.n_;
  }
  // data() is const only because it is public; the storage is ours.
  std::memcpy(const_cast<struct iovec*>(data()), o.data(), sizeof(struct iovec) * o.n_);
  n_ = o.n_;
  size_ = o.size_;
  return *this;
}

IoVec::IoVec(IoVec&& o) noexcept : n_(o.n_), size_(o.size_) {
  if (o.heap_) {
    heap_ = std::move(o.heap_);
    cap_ = o.cap_;
    o.cap_ = kInline;
  } else {
    std::memcpy(inline_, o.inline_, sizeof(struct iovec) * n_);
  }
  o.clear();
}

IoVec& IoVec::operator=(IoVec&& o) noexcept {
  if (this == &o) return *this;
  if (o.heap_) {
    heap_ = std::move(o.heap_);
    cap_ = o.cap_;
    o.cap_ = kInline;
  } else {
    // Our storage (inline or heap) holds at least kInline >= o.n_ entries.
    std::memcpy(const_cast<struct iovec*>(data()), o.inline_, sizeof(struct iovec) * o.n_);
  }
  n_ = o.n_;
  size_ = o.size_;
  o.clear();
  return *this;
}

void IoVec::grow() {
  const int cap = cap_ * 2;
  struct iovec* p = alloc_segments(cap);
  std::memcpy(p, data(), sizeof(struct iovec) * n_);
  heap_.reset(p);
  cap_ = cap;
}

void IoVec::add(void* base, size_t len) {
  if (len == 0) return;
  struct iovec* d = const_cast<struct iovec*>(data());
  size_ += len;
  if (n_ > 0) {
    struct iovec& last = d[n_ - 1];
    if (static_cast<char*>(last.iov_base) + last.iov_len == base) {
      last.iov_len += len;
      return;
    }
  }
  if (n_ == cap_) {
    grow();
    d = heap_.get();
  }
  d[n_].iov_base = base;
  d[n_].iov_len = len;
  ++n_;
}

void IoVec::add_slice(const IoVec& o, size_t off, size_t len) {
  assert(off + len <= o.size());
  if (&o == this) {
    // Appending to ourselves could reallocate the segments being read.
    const IoVec copy(o);
    add_slice(copy, off, len);
    return;
  }
  for_range(o.data(), o.n_, off, len, [this](char* p, size_t n) {
    add(p, n);
    return true;
  });
}

IoVec IoVec::slice(size_t off, size_t len) const {
  IoVec r;
  r.add_slice(*this, off, len);
  return r;
}

void IoVec::copy_from(size_t off, const void* src, size_t n) const {
  assert(off + n <= size_);
  const char* s = static_cast<const char*>(src);
  for_range(data(), n_, off, n, [&s](char* p, size_t len) {
    std::memcpy(p, s, len);
    s += len;
    return true;
  });
}

void IoVec::copy_to(size_t off, void* dst, size_t n) const {
  assert(off + n <= size_);
  char* t = static_cast<char*>(dst);
  for_range(data(), n_, off, n, [&t](char* p, size_t len) {
    std::memcpy(t, p, len);
    t += len;
    return true;
  });
}

void IoVec::memset(size_t off, int c, size_t n) const {
  assert(off + n <= size_);
  for_range(data(), n_, off, n, [c](char* p, size_t len) {
    std::memset(p, c, len);
    return true;
  });
}

bool IoVec::is_zero(size_t off, size_t n) const {
  assert(off + n <= size_);
  return for_range(data(), n_, off, n, [](char* p, size_t len) {
    // p[0] == 0 and every byte equals its successor: all zero, using the
    // library's vectorised memcmp.
    return p[0] == 0 && std::memcmp(p, p + 1, len - 1) == 0;
  });
}

bool IoVec::is_aligned(size_t mem_align, size_t len_align) const {
  const struct iovec* d = data();
  uintptr_t addr_bits = 0;
  size_t len_bits = 0;
  for (int i = 0; i < n_; ++i) {
    addr_bits |= reinterpret_cast<uintptr_t>(d[i].iov_base);
    len_bits |= d[i].iov_len;
  }
  return (addr_bits & (mem_align - 1)) == 0 && (len_bits & (len_align - 1)) == 0;
}

}  // namespace blk
