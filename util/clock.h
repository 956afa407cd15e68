// Monotonic time in nanoseconds.  Thread-safe.
#pragma once

#include <time.h>

#include <cstdint>

namespace blk {

// CLOCK_MONOTONIC in ns (a vDSO call: ~20 ns, no syscall).
inline int64_t NowNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace blk
