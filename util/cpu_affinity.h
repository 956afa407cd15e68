// The calling thread's CPU affinity from a list of CPU numbers (what fio's
// cpus_allowed=, verify_async_cpus= and log_compression_cpus= give).
//
//   PinThisThread({0, 2})        binds the calling thread to CPUs 0 and 2
//   CpuPinScope pin({1});        ... until `pin` goes out of scope, then the
//                                thread's previous CPUs again
//   PinErrorMessage(...)         the one error text every option uses
//
// CPU numbers at or above CPU_SETSIZE are left out (the kernel has none
// such); a list with no CPU the kernel lets the thread run on fails with
// -EINVAL.
//
// Thread-safety: each call concerns the calling thread only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <sched.h>

namespace blk {

// Binds the calling thread to `cpus`: 0, or a negative errno (the thread's
// CPUs unchanged).  An empty list changes nothing (0).
int PinThisThread(const std::vector<uint32_t>& cpus);

// "OPTION (0,2,5): cannot run WHOSE there: <strerror> (this machine has N
// CPUs online)", for a negative errno `err` from PinThisThread or
// CpuPinScope.
std::string PinErrorMessage(std::string_view option, const std::vector<uint32_t>& cpus,
                            std::string_view whose, int err);

// The calling thread bound to `cpus` for the scope's lifetime; its previous
// CPUs come back in the destructor, which must run on the same thread.  An
// empty list changes nothing.
class CpuPinScope {
 public:
  explicit CpuPinScope(const std::vector<uint32_t>& cpus);
  ~CpuPinScope();
  CpuPinScope(const CpuPinScope&) = delete;
  CpuPinScope& operator=(const CpuPinScope&) = delete;
  // 0 when the thread runs on `cpus` now (or the list was empty), else the
  // negative errno (nothing to restore then).
  int error() const { return err_; }

 private:
  cpu_set_t before_;
  bool pinned_ = false;
  int err_ = 0;
};

}  // namespace blk
