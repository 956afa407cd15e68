// IoVec: a scatter-gather list of caller-owned memory segments.
//
// An IoVec never owns the bytes it points at: every async call that takes one
// states how long those bytes must stay alive (normally: until the call
// completes).  Up to kInline segments are stored inside the object, so the
// common one- or two-segment request does not allocate.
//
// Thread-safety: a plain value; not synchronised.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

namespace blk {

class IoVec {
 public:
  static constexpr int kInline = 4;

  // User-provided (not `= default`) so that `const IoVec v;` compiles without
  // zero-filling inline_ on every construction.
  IoVec() noexcept {}
  IoVec(void* base, size_t len) { add(base, len); }
  IoVec(const IoVec& o);
  IoVec& operator=(const IoVec& o);
  IoVec(IoVec&& o) noexcept;
  IoVec& operator=(IoVec&& o) noexcept;
  ~IoVec() = default;

  // Appends a segment.  Zero-length segments are dropped.  Adjacent segments
  // that touch in memory are merged.
  void add(void* base, size_t len);
  // Appends all segments of `o` (bytes [off, off+len) of it).
  void add_slice(const IoVec& o, size_t off, size_t len);
  void clear() { n_ = 0; size_ = 0; }

  // Total bytes.
  size_t size() const { return size_; }
  // Number of segments.
  int count() const { return n_; }
  const struct iovec* data() const { return heap_ ? heap_.get() : inline_; }
  const struct iovec& operator[](int i) const { return data()[i]; }

  // A new IoVec viewing bytes [off, off+len) of this one.
  // REQUIRES: off + len <= size().
  IoVec slice(size_t off, size_t len) const;

  // Copies n bytes from `src` into this IoVec starting at byte `off`.
  // REQUIRES: off + n <= size().
  void copy_from(size_t off, const void* src, size_t n) const;
  // Copies n bytes starting at byte `off` of this IoVec to `dst`.
  // REQUIRES: off + n <= size().
  void copy_to(size_t off, void* dst, size_t n) const;
  // Sets n bytes starting at byte `off` to `c`.
  void memset(size_t off, int c, size_t n) const;
  // True when bytes [off, off+n) are all zero.
  bool is_zero(size_t off, size_t n) const;

  // True when every segment's address is a multiple of mem_align and every
  // segment's length is a multiple of len_align (both powers of two).
  bool is_aligned(size_t mem_align, size_t len_align) const;

 private:
  void grow();

  struct iovec inline_[kInline];
  std::unique_ptr<struct iovec[]> heap_;
  int n_ = 0;
  int cap_ = kInline;
  size_t size_ = 0;
};

}  // namespace blk
