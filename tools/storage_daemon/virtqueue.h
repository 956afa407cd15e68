// Guest memory and the split virtqueue of virtio 1.1 (2.6), as a
// vhost-user back end sees them.
//
// GuestMemory: the regions SET_MEM_TABLE described, already mapped into
// this process.  Translates guest-physical addresses (what descriptors
// carry) and front-end virtual addresses (what SET_VRING_ADDR carries) to
// pointers here, only when the whole range lies inside one region.
//
// SplitQueue: one ring (descriptor table, available ring, used ring) in
// guest memory.  pop() takes the next available descriptor chain and turns
// it into host segments, following indirect tables; push() returns a chain
// through the used ring.  The guest is untrusted and runs concurrently:
// each descriptor is copied once before it is used, every address is
// bounds-checked, and a malformed ring (an address outside guest memory, a
// loop, a chain longer than the queue or an indirect table longer than
// kMaxIndirect, a nested indirect table, an avail index running more than
// the queue size ahead) is reported, never followed.  EVENT_IDX is not
// offered, so the used ring is always signalled.
//
// Pure code over memory: no loop, no fds; the unit tests put a ring in
// plain memory.  Thread-safety: one thread per queue (the export's loop);
// the guest's side of the ring is read with acquire and written with
// release ordering.
#pragma once

#include <cstdint>
#include <vector>

namespace blk::vhost {

struct MappedRegion {
  uint64_t guest_addr = 0;
  uint64_t size = 0;
  uint64_t user_addr = 0;
  uint8_t* host = nullptr;  // the region's first byte here
};

class GuestMemory {
 public:
  void clear() { regions_.clear(); }
  void add(const MappedRegion& r) { regions_.push_back(r); }
  bool empty() const { return regions_.empty(); }
  const std::vector<MappedRegion>& regions() const { return regions_; }
  // Pointer to [gpa, gpa + len) or null if that range is not wholly inside
  // one region (or wraps).
  uint8_t* guest_to_host(uint64_t gpa, uint64_t len) const;
  // Same for a front-end virtual address.
  uint8_t* user_to_host(uint64_t uva, uint64_t len) const;

 private:
  std::vector<MappedRegion> regions_;
};

// One buffer of a chain: device-readable (out) or device-writable (in).
struct Segment {
  uint8_t* p;
  uint32_t len;
  bool writable;
};

struct Chain {
  uint16_t head = 0;
  std::vector<Segment> segs;  // in chain order
};

inline constexpr uint16_t kDescFNext = 1;
inline constexpr uint16_t kDescFWrite = 2;
inline constexpr uint16_t kDescFIndirect = 4;
inline constexpr uint32_t kMaxQueueSize = 32768;
inline constexpr uint32_t kMaxIndirect = 1024;

// Sizes of the three parts of a ring of `num` entries (without EVENT_IDX's
// trailing fields, which this device never reads or writes).
inline constexpr uint64_t DescTableSize(uint32_t num) { return 16ull * num; }
inline constexpr uint64_t AvailRingSize(uint32_t num) { return 4 + 2ull * num; }
inline constexpr uint64_t UsedRingSize(uint32_t num) { return 4 + 8ull * num; }

class SplitQueue {
 public:
  // Points the queue at its rings.  `mem` must outlive the queue's use (a
  // new SET_MEM_TABLE re-attaches).  False if num is not a power of two in
  // 1..kMaxQueueSize or a ring is not wholly inside one region.  The used
  // index continues from the value the used ring holds now.
  bool attach(const GuestMemory* mem, uint32_t num, uint64_t desc_uva, uint64_t avail_uva,
              uint64_t used_uva);
  void detach() { mem_ = nullptr; }
  bool attached() const { return mem_ != nullptr; }
  uint32_t num() const { return num_; }

  // The next avail entry the device will take (SET/GET_VRING_BASE).
  uint16_t last_avail() const { return last_avail_; }
  void set_last_avail(uint16_t v) { last_avail_ = v; }

  enum class Pop { kChain, kEmpty, kBroken };
  // Takes the next available chain.  kBroken: the ring or the chain is
  // malformed (why() says how); the queue must then stop (the entry is
  // consumed, nothing is returned to the guest).
  Pop pop(Chain* c);
  // Returns chain `head` with `written` bytes written into its writable
  // buffers, and publishes the used index.  The caller then signals the
  // call eventfd.
  void push(uint16_t head, uint32_t written);
  const char* why() const { return why_; }

 private:
  bool add_desc(uint64_t addr, uint32_t len, uint16_t flags, Chain* c);
  bool walk_indirect(uint64_t addr, uint32_t len, Chain* c);

  const GuestMemory* mem_ = nullptr;
  uint32_t num_ = 0;
  uint8_t* desc_ = nullptr;
  uint8_t* avail_ = nullptr;
  uint8_t* used_ = nullptr;
  uint16_t last_avail_ = 0;
  uint16_t used_idx_ = 0;
  const char* why_ = "";
};

}  // namespace blk::vhost
