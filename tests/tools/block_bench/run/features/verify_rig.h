// VerifyRig: a VerifyTracker driven through the hook's points by hand, for
// the tests of the verify features (test-only).  IssuedIo/DoneIo values are
// built here; a SlotPool with real buffers holds the data; a "device" (a
// byte array, two files of kDisk bytes laid end to end by FileKeys) takes a
// write's buffer when it completes, gives a read's when it completes, and
// zeroes a trimmed range.
//
// Thread-safety: the test's thread.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "tools/block_bench/run/clone_files.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/features/verify_tracker.h"
#include "tools/block_bench/run/hook.h"
#include "tools/block_bench/run/result.h"
#include "tools/block_bench/run/slot_pool.h"
#include "tools/block_bench/run/source.h"
#include "tools/block_bench/run/verify.h"

namespace blk::bench::testing {

inline constexpr uint64_t kDisk = 1 << 20;

// A slot pool of `n` slots of 64 KiB (a SlotPool cannot be copied or moved).
struct Slots : SlotPool {
  explicit Slots(uint32_t n) { EXPECT_TRUE(allocate(n, 65536, nullptr).ok()); }
};

struct VerifyRig {
  explicit VerifyRig(VerifyTracker::Options o = {}, ContinueOnError c = ContinueOnError::kNone,
                     VerifyLayout l = {})
      : slots(8),
        disk(2 * kDisk, 0xee),
        layout(l),
        keys({0, kDisk}),
        errors(&res, c),
        t(o, layout, keys, {"f0", "f1"}, slots, errors, &res) {}

  // Issues `u` from a free slot (the tracker fills a write's buffer).
  uint32_t issue(const IoUnit& u) {
    const uint32_t s = slots.take();
    t.on_issue(IssuedIo{s, u, 0});
    return s;
  }
  // Completes `u` issued from slot s: the device applies it (if `st` is
  // ok and it is not dry), then the hook sees it and the slot is retired.
  void complete(uint32_t s, const IoUnit& u, Status st = Status()) {
    uint8_t* at = disk.data() + keys.key(u);
    if (u.dry) st = Status();  // never sent
    else if (st.ok() && u.dir == Dir::kWrite) std::memcpy(at, slots[s].buf.data(), u.len);
    if (st.ok() && !u.dry && u.dir == Dir::kRead) std::memcpy(slots[s].buf.data(), at, u.len);
    if (st.ok() && !u.dry && u.dir == Dir::kTrim) std::memset(at, 0, u.len);
    t.on_complete(DoneIo{s, u, 1, 1, 1, nullptr, true, st});
    t.on_retire(s);
    slots.give(s);
  }
  void io(const IoUnit& u, Status st = Status()) { complete(issue(u), u, st); }
  // The verify phase's reads, in the order the reader gives them.
  std::vector<IoUnit> drain(IoSource& src) {
    std::vector<IoUnit> out;
    IoUnit u;
    while (src.next(&u)) out.push_back(u);
    return out;
  }

  Slots slots;
  std::vector<uint8_t> disk;  // two files of 1 MiB, keys 0 and kDisk
  VerifyLayout layout;
  FileKeys keys;
  CloneResult res;
  CloneErrors errors;
  VerifyTracker t;
};

}  // namespace blk::bench::testing
