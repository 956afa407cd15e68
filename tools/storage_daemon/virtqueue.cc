#include "tools/storage_daemon/virtqueue.h"

#include <cstring>

namespace blk::vhost {

namespace {

struct Desc {
  uint64_t addr;
  uint32_t len;
  uint16_t flags;
  uint16_t next;
};
static_assert(sizeof(Desc) == 16);

// One copy of a descriptor the guest may be rewriting: read once, use the
// copy.
Desc LoadDesc(const uint8_t* table, uint32_t i) {
  Desc d;
  std::memcpy(&d, table + 16ull * i, sizeof d);
  return d;
}

uint16_t LoadAcquire16(const uint8_t* p) {
  return __atomic_load_n(reinterpret_cast<const uint16_t*>(p), __ATOMIC_ACQUIRE);
}

}  // namespace

uint8_t* GuestMemory::guest_to_host(uint64_t gpa, uint64_t len) const {
  for (const MappedRegion& r : regions_) {
    if (gpa >= r.guest_addr && gpa - r.guest_addr <= r.size &&
        len <= r.size - (gpa - r.guest_addr)) {
      return r.host + (gpa - r.guest_addr);
    }
  }
  return nullptr;
}

uint8_t* GuestMemory::user_to_host(uint64_t uva, uint64_t len) const {
  for (const MappedRegion& r : regions_) {
    if (uva >= r.user_addr && uva - r.user_addr <= r.size &&
        len <= r.size - (uva - r.user_addr)) {
      return r.host + (uva - r.user_addr);
    }
  }
  return nullptr;
}

bool SplitQueue::attach(const GuestMemory* mem, uint32_t num, uint64_t desc_uva,
                        uint64_t avail_uva, uint64_t used_uva) {
  mem_ = nullptr;
  if (num == 0 || num > kMaxQueueSize || (num & (num - 1)) != 0) return false;
  uint8_t* d = mem->user_to_host(desc_uva, DescTableSize(num));
  uint8_t* a = mem->user_to_host(avail_uva, AvailRingSize(num));
  uint8_t* u = mem->user_to_host(used_uva, UsedRingSize(num));
  // The rings' fields are read as aligned 16/32-bit words.
  if (!d || !a || !u || (used_uva & 3) || (avail_uva & 1) || (desc_uva & 15)) return false;
  mem_ = mem;
  num_ = num;
  desc_ = d;
  avail_ = a;
  used_ = u;
  used_idx_ = LoadAcquire16(used_ + 2);
  return true;
}

bool SplitQueue::add_desc(uint64_t addr, uint32_t len, uint16_t flags, Chain* c) {
  if (len == 0) return true;
  uint8_t* p = mem_->guest_to_host(addr, len);
  if (!p) {
    why_ = "a descriptor's buffer is outside guest memory";
    return false;
  }
  c->segs.push_back({p, len, (flags & kDescFWrite) != 0});
  return true;
}

bool SplitQueue::walk_indirect(uint64_t addr, uint32_t len, Chain* c) {
  if (len == 0 || len % 16 != 0 || len / 16 > kMaxIndirect) {
    why_ = "an indirect table's length is not a non-zero multiple of 16 up to 1024 entries";
    return false;
  }
  const uint32_t n = len / 16;
  const uint8_t* table = mem_->guest_to_host(addr, len);
  if (!table) {
    why_ = "an indirect table is outside guest memory";
    return false;
  }
  uint32_t i = 0;
  for (uint32_t steps = 0;; steps++) {
    if (steps >= n) {
      why_ = "an indirect chain loops";
      return false;
    }
    const Desc d = LoadDesc(table, i);
    if (d.flags & kDescFIndirect) {
      why_ = "an indirect table holds an indirect descriptor";
      return false;
    }
    if (!add_desc(d.addr, d.len, d.flags, c)) return false;
    if (!(d.flags & kDescFNext)) return true;
    if (d.next >= n) {
      why_ = "an indirect descriptor's next is past its table";
      return false;
    }
    i = d.next;
  }
}

SplitQueue::Pop SplitQueue::pop(Chain* c) {
  if (!mem_) return Pop::kEmpty;
  const uint16_t avail_idx = LoadAcquire16(avail_ + 2);
  if (avail_idx == last_avail_) return Pop::kEmpty;
  if (uint16_t(avail_idx - last_avail_) > num_) {
    why_ = "the avail index ran more than the queue size ahead";
    return Pop::kBroken;
  }
  uint16_t head;
  std::memcpy(&head, avail_ + 4 + 2 * (last_avail_ % num_), 2);
  last_avail_++;
  c->head = head;
  c->segs.clear();
  if (head >= num_) {
    why_ = "an avail entry names a descriptor past the table";
    return Pop::kBroken;
  }
  uint32_t i = head;
  for (uint32_t steps = 0;; steps++) {
    if (steps >= num_) {
      why_ = "a descriptor chain loops or is longer than the queue";
      return Pop::kBroken;
    }
    const Desc d = LoadDesc(desc_, i);
    if (d.flags & kDescFIndirect) {
      if (steps != 0 || (d.flags & kDescFNext)) {
        why_ = "an indirect descriptor is not alone in its chain";
        return Pop::kBroken;
      }
      return walk_indirect(d.addr, d.len, c) ? Pop::kChain : Pop::kBroken;
    }
    if (!add_desc(d.addr, d.len, d.flags, c)) return Pop::kBroken;
    if (!(d.flags & kDescFNext)) return Pop::kChain;
    if (d.next >= num_) {
      why_ = "a descriptor's next is past the table";
      return Pop::kBroken;
    }
    i = d.next;
  }
}

void SplitQueue::push(uint16_t head, uint32_t written) {
  if (!mem_) return;
  uint8_t* elem = used_ + 4 + 8ull * (used_idx_ % num_);
  const uint32_t id = head;
  std::memcpy(elem, &id, 4);
  std::memcpy(elem + 4, &written, 4);
  used_idx_++;
  // The element is visible before the index that publishes it.
  __atomic_store_n(reinterpret_cast<uint16_t*>(used_ + 2), used_idx_, __ATOMIC_RELEASE);
}

}  // namespace blk::vhost
