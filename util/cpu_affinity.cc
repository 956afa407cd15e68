#include <blkstack/util/cpu_affinity.h>

#include <pthread.h>
#include <unistd.h>

#include <blkstack/util/result.h>

namespace blk {
namespace {

cpu_set_t SetOf(const std::vector<uint32_t>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (uint32_t c : cpus)
    if (c < CPU_SETSIZE) CPU_SET(c, &set);
  return set;
}

}  // namespace

int PinThisThread(const std::vector<uint32_t>& cpus) {
  if (cpus.empty()) return 0;
  const cpu_set_t set = SetOf(cpus);
  return -pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

std::string PinErrorMessage(std::string_view option, const std::vector<uint32_t>& cpus,
                            std::string_view whose, int err) {
  std::string list;
  for (uint32_t c : cpus) list += (list.empty() ? "" : ",") + std::to_string(c);
  return std::string(option) + " (" + list + "): cannot run " + std::string(whose) +
         " there: " + ErrnoString(err) + " (this machine has " +
         std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " CPUs online)";
}

CpuPinScope::CpuPinScope(const std::vector<uint32_t>& cpus) {
  if (cpus.empty()) return;
  if (int e = pthread_getaffinity_np(pthread_self(), sizeof before_, &before_); e != 0) {
    err_ = -e;
    return;
  }
  err_ = PinThisThread(cpus);
  pinned_ = err_ == 0;
}

CpuPinScope::~CpuPinScope() {
  if (pinned_) pthread_setaffinity_np(pthread_self(), sizeof before_, &before_);
}

}  // namespace blk
