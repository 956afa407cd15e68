// AlignedBuffer: an owned block of memory aligned for O_DIRECT I/O.
//
// Owns `size` bytes from posix_memalign() aligned to `align` (a power of
// two, 4096 by default).  Movable, not copyable.  Allocation never throws:
// a failed allocation leaves an empty buffer (ok() false, data() nullptr),
// so callers can turn it into -ENOMEM.  Constness is shallow, as for a
// pointer: a const AlignedBuffer still hands out writable bytes and IoVecs.
//
// Thread-safety: a plain value; not synchronised.  Distinct threads may use
// the bytes as they arrange between themselves.
#pragma once

#include <cstddef>
#include <cstdint>

#include <blkstack/util/iovec.h>

namespace blk {

class AlignedBuffer {
 public:
  static constexpr size_t kDefaultAlign = 4096;

  // An empty buffer: data() == nullptr, size() == 0, ok() false.
  AlignedBuffer() = default;
  // Allocates `size` uninitialised bytes aligned to `align`.  size 0 is
  // allowed and still yields ok() (a unique, aligned pointer).  Alignments
  // smaller than sizeof(void*) are rounded up internally (align() still
  // reports what was asked for).
  // On failure (out of memory, or align not a power of two) the buffer is
  // empty: ok() false, data() nullptr, size() 0.
  explicit AlignedBuffer(size_t size, size_t align = kDefaultAlign);
  // As the constructor, with every byte set to zero.  Failure: an empty
  // buffer, as above.
  static AlignedBuffer zeroed(size_t size, size_t align = kDefaultAlign);

  AlignedBuffer(AlignedBuffer&& o) noexcept;
  // Frees the memory this buffer held, then takes o's.  Leaves o empty.
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer();

  // True when this buffer holds an allocation (false when default-built,
  // moved from, reset, or after a failed allocation).
  bool ok() const { return data_ != nullptr; }
  explicit operator bool() const { return ok(); }

  // The bytes, or nullptr when !ok().
  uint8_t* data() const { return data_; }
  // Bytes owned; 0 when !ok().
  size_t size() const { return size_; }
  // The alignment asked for; 0 when !ok().
  size_t align() const { return align_; }

  // An IoVec of one segment over the whole buffer (no segments when
  // size() == 0).  It must not outlive this buffer's memory.
  IoVec iov() const { return IoVec(data_, size_); }

  // Frees the memory; the buffer becomes empty.
  void reset();

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t align_ = 0;
};

}  // namespace blk
