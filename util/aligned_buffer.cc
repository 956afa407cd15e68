#include <blkstack/util/aligned_buffer.h>

#include <cstdlib>
#include <cstring>
#include <utility>

namespace blk {

AlignedBuffer::AlignedBuffer(size_t size, size_t align) {
  if (align == 0 || (align & (align - 1)) != 0) return;
  // posix_memalign wants a multiple of sizeof(void*); a stricter alignment
  // satisfies the weaker one asked for.
  const size_t real_align = align < sizeof(void*) ? sizeof(void*) : align;
  void* p = nullptr;
  // POSIX lets size 0 return nullptr; ask for one byte so that ok() means
  // "allocated" everywhere.
  if (posix_memalign(&p, real_align, size == 0 ? 1 : size) != 0) return;
  data_ = static_cast<uint8_t*>(p);
  size_ = size;
  align_ = align;
}

AlignedBuffer AlignedBuffer::zeroed(size_t size, size_t align) {
  AlignedBuffer b(size, align);
  if (b.ok()) std::memset(b.data_, 0, size);
  return b;
}

AlignedBuffer::AlignedBuffer(AlignedBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      align_(std::exchange(o.align_, 0)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& o) noexcept {
  if (this != &o) {
    std::free(data_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    align_ = std::exchange(o.align_, 0);
  }
  return *this;
}

AlignedBuffer::~AlignedBuffer() { std::free(data_); }

void AlignedBuffer::reset() {
  std::free(data_);
  data_ = nullptr;
  size_ = 0;
  align_ = 0;
}

}  // namespace blk
