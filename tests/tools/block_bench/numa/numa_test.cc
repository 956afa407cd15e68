// NUMA placement on real threads: each case runs on a thread of its own
// (affinity and memory policy are per thread) and reads back what the
// kernel holds.  The machine's node 0 is used, which every Linux has.
#include "tools/block_bench/numa/numa.h"

#include <numa.h>
#include <numaif.h>
#include <sched.h>

#include <functional>
#include <thread>

#include <gtest/gtest.h>

namespace blk::bench {
namespace {

// Runs `f` on a new thread and waits for it.
void OnThread(const std::function<void()>& f) {
  std::thread t(f);
  t.join();
}

// The calling thread's policy and its node mask's first word.
struct Policy {
  int mode = -1;
  unsigned long nodes = 0;
};
Policy ThreadPolicy() {
  Policy p;
  unsigned long mask[16] = {};
  EXPECT_EQ(get_mempolicy(&p.mode, mask, sizeof(mask) * 8, nullptr, 0), 0) << errno;
  p.nodes = mask[0];
  return p;
}

// The CPUs of node 0, as the kernel lists them.
cpu_set_t NodeZeroCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  bitmask* cpus = numa_allocate_cpumask();
  EXPECT_EQ(numa_node_to_cpus(0, cpus), 0);
  for (unsigned i = 0; i < cpus->size && i < CPU_SETSIZE; i++)
    if (numa_bitmask_isbitset(cpus, i)) CPU_SET(i, &set);
  numa_free_cpumask(cpus);
  return set;
}

TEST(Numa, KernelHasTheApi) { ASSERT_GE(numa_available(), 0); }

TEST(Numa, RunOnNodesReplacesTheThreadsCpus) {
  OnThread([] {
    // Narrowed to one CPU first, as cpus_allowed would: the nodes' CPUs
    // replace it (fio's order).
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
    const Expected<void> r = RunOnNumaNodes("0");
    ASSERT_TRUE(r.ok()) << r.error().message;
    cpu_set_t now;
    ASSERT_EQ(sched_getaffinity(0, sizeof(now), &now), 0);
    const cpu_set_t want = NodeZeroCpus();
    EXPECT_TRUE(CPU_EQUAL(&now, &want)) << CPU_COUNT(&now) << " CPUs, node 0 has " << CPU_COUNT(&want);
  });
}

TEST(Numa, RunOnNodesRefusesWhatDoesNotParse) {
  const Expected<void> r = RunOnNumaNodes(std::to_string(numa_max_node() + 1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -EINVAL);
  EXPECT_NE(r.error().message.find("numa_cpu_nodes="), std::string::npos) << r.error().message;
}

TEST(Numa, EachPolicyReachesTheKernel) {
  struct Case {
    const char* value;
    int mode;
    unsigned long nodes;  // node mask the kernel reports (bit 0: node 0)
  };
  const Case cases[] = {
      {"bind:0", MPOL_BIND, 1},
      {"interleave:0", MPOL_INTERLEAVE, 1},
      {"prefer:0", MPOL_PREFERRED, 1},
      {"local", MPOL_LOCAL, 0},
  };
  for (const Case& c : cases) {
    OnThread([&c] {
      ASSERT_EQ(ThreadPolicy().mode, MPOL_DEFAULT);
      const Expected<NumaMemPolicy> p = ParseNumaMemPolicy(c.value);
      ASSERT_TRUE(p.ok()) << c.value << ": " << p.error().message;
      const Expected<void> r = ApplyNumaMemPolicy(p.value());
      ASSERT_TRUE(r.ok()) << c.value << ": " << r.error().message;
      const Policy now = ThreadPolicy();
      EXPECT_EQ(now.mode, c.mode) << c.value;
      EXPECT_EQ(now.nodes, c.nodes) << c.value;
      // Memory the thread takes now comes under it: a page it touches is
      // on node 0 (the only node in every case's mask).
      void* page = numa_alloc(4096);
      ASSERT_NE(page, nullptr);
      static_cast<char*>(page)[0] = 1;
      int node = -1;
      EXPECT_EQ(get_mempolicy(&node, nullptr, 0, page, MPOL_F_NODE | MPOL_F_ADDR), 0) << errno;
      EXPECT_EQ(node, 0) << c.value;
      numa_free(page, 4096);
    });
  }
}

TEST(Numa, DefaultLeavesThePolicyAlone) {
  OnThread([] {
    const Expected<NumaMemPolicy> p = ParseNumaMemPolicy("default");
    ASSERT_TRUE(p.ok());
    EXPECT_TRUE(ApplyNumaMemPolicy(p.value()).ok());
    EXPECT_EQ(ThreadPolicy().mode, MPOL_DEFAULT);
  });
}

TEST(Numa, ParseKeepsFiosShapes) {
  EXPECT_EQ(ParseNumaMemPolicy("interleave").value().nodes, "all");
  EXPECT_EQ(ParseNumaMemPolicy("prefer:3").value().prefer_node, 3);
  EXPECT_EQ(ParseNumaMemPolicy("prefer:99999999999999").value().prefer_node, INT32_MAX);
  EXPECT_FALSE(ParseNumaMemPolicy("").ok());
  EXPECT_FALSE(ParseNumaMemPolicy(":0").ok());
  EXPECT_FALSE(ParseNumaMemPolicy("prefer:-1").ok());
  EXPECT_TRUE(CheckNumaNodes("all").ok());
  EXPECT_FALSE(CheckNumaNodes("zero").ok());
}

}  // namespace
}  // namespace blk::bench
