// util/cpu_affinity.h on the test's own threads: the kernel's view of the
// thread's CPUs (sched_getaffinity) after each call.
#include <blkstack/util/cpu_affinity.h>

#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include <gtest/gtest.h>

namespace blk {
namespace {

// The calling thread's CPUs, as the kernel has them.
std::vector<uint32_t> MyCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  std::vector<uint32_t> out;
  for (uint32_t c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

// Each test runs on a thread of its own, so a pin does not outlive it.
template <typename F>
void OnNewThread(F f) {
  std::thread t(f);
  t.join();
}

TEST(PinThisThread, BindsToTheListedCpu) {
  OnNewThread([] {
    const std::vector<uint32_t> all = MyCpus();
    ASSERT_FALSE(all.empty());
    const uint32_t last = all.back();
    EXPECT_EQ(PinThisThread({last}), 0);
    EXPECT_EQ(MyCpus(), std::vector<uint32_t>{last});
  });
}

TEST(PinThisThread, EmptyListChangesNothing) {
  OnNewThread([] {
    const std::vector<uint32_t> all = MyCpus();
    EXPECT_EQ(PinThisThread({}), 0);
    EXPECT_EQ(MyCpus(), all);
  });
}

TEST(PinThisThread, NoSuchCpuIsEinvalAndLeavesTheThreadAlone) {
  OnNewThread([] {
    const std::vector<uint32_t> all = MyCpus();
    // CPU 1000 fits a cpu_set_t but no machine of the CI has it; 5000 is
    // past CPU_SETSIZE and left out: nothing left to run on.
    EXPECT_EQ(PinThisThread({1000}), -EINVAL);
    EXPECT_EQ(PinThisThread({5000}), -EINVAL);
    EXPECT_EQ(MyCpus(), all);
  });
}

TEST(CpuPinScope, RestoresThePreviousCpus) {
  OnNewThread([] {
    const std::vector<uint32_t> all = MyCpus();
    {
      const CpuPinScope pin({all.front()});
      EXPECT_EQ(pin.error(), 0);
      EXPECT_EQ(MyCpus(), std::vector<uint32_t>{all.front()});
    }
    EXPECT_EQ(MyCpus(), all);
  });
}

TEST(CpuPinScope, FailureLeavesTheThreadAlone) {
  OnNewThread([] {
    const std::vector<uint32_t> all = MyCpus();
    {
      const CpuPinScope pin({1000});
      EXPECT_EQ(pin.error(), -EINVAL);
      EXPECT_EQ(MyCpus(), all);
    }
    EXPECT_EQ(MyCpus(), all);
  });
}

TEST(PinErrorMessage, NamesOptionListWhoAndTheError) {
  const std::string m = PinErrorMessage("cpus_allowed", {0, 2, 1000}, "the clone's thread", -EINVAL);
  const std::string online = std::to_string(sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_EQ(m, "cpus_allowed (0,2,1000): cannot run the clone's thread there: -22 (Invalid "
               "argument) (this machine has " + online + " CPUs online)");
}

}  // namespace
}  // namespace blk
