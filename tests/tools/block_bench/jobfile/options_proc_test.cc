// Process and scheduling options as fio 3.33 reads them: exec_prerun,
// exec_postrun, wait_for, nice, clocksource, gtod_cpu, numa_cpu_nodes,
// numa_mem_policy.
#include <gtest/gtest.h>
#include <numa.h>

#include "tests/tools/block_bench/jobfile/test_util.h"
#include "tools/block_bench/jobfile/option_table.h"

namespace blk::bench {
namespace {

using testing::FileError;
using testing::OneError;
using testing::ParseOne;

TEST(ProcOptions, ExecCommandsKeptAsWritten) {
  const JobOptions j = ParseOne("exec_prerun=echo a && echo b >&2\nexec_postrun=date +%s");
  EXPECT_EQ(j.proc.exec_prerun, "echo a && echo b >&2");
  EXPECT_EQ(j.proc.exec_postrun, "date +%s");
  EXPECT_TRUE(ParseOne("").proc.exec_prerun.empty());
  // In a job file ';' starts a comment, as in fio's (its exec_prerun=a; b
  // runs a alone); the command line keeps it.
  EXPECT_EQ(ParseOne("exec_prerun=echo a; echo b").proc.exec_prerun, "echo a");
  auto cl = testing::Cmd({"--name=x", "--exec_prerun=echo a; echo b"});
  ASSERT_TRUE(cl.ok()) << cl.error().message;
  EXPECT_EQ(cl.value().jobs[0].proc.exec_prerun, "echo a; echo b");
}

TEST(ProcOptions, NiceInFiosRange) {
  EXPECT_EQ(ParseOne("nice=19").proc.nice, 19);
  EXPECT_EQ(ParseOne("nice=-20").proc.nice, -20);
  EXPECT_EQ(ParseOne("").proc.nice, 0);
  EXPECT_OPTION_ERROR("nice=20", 2, "nice", "20");
  EXPECT_OPTION_ERROR("nice=-21", 2, "nice", "-21");
  EXPECT_OPTION_ERROR("nice=x", 2, "nice", "x");
}

TEST(ProcOptions, ClocksourceTakesFiosValuesOnly) {
  for (const char* c : {"gettimeofday", "clock_gettime", "cpu"})
    EXPECT_EQ(ParseOne(std::string("clocksource=") + c).proc.clocksource, c);
  EXPECT_OPTION_ERROR("clocksource=tsc", 2, "clocksource", "tsc");
}

TEST(ProcOptions, GtodCpu) {
  EXPECT_EQ(*ParseOne("gtod_cpu=1").proc.gtod_cpu, 1u);
  EXPECT_FALSE(ParseOne("").proc.gtod_cpu);
  EXPECT_OPTION_ERROR("gtod_cpu=-1", 2, "gtod_cpu", "-1");
}

TEST(ProcOptions, LockmemIsASize) {
  EXPECT_EQ(ParseOne("lockmem=16m").proc.lockmem, uint64_t(16) << 20);
  EXPECT_EQ(ParseOne("kb_base=1000\nlockmem=1m").proc.lockmem, 1000000u);
  EXPECT_EQ(ParseOne("").proc.lockmem, 0u);
  EXPECT_OPTION_ERROR("lockmem=lots", 2, "lockmem", "lots");
}

TEST(ProcOptions, WaitForItselfIsAnError) {
  EXPECT_EQ(ParseOne("wait_for=other").proc.wait_for, "other");
  const std::string e = OneError("wait_for=job");
  EXPECT_NE(e.find("job.fio:1: wait_for=job: a job cannot wait for itself"), std::string::npos) << e;
}

TEST(ProcOptions, NoLongerRefused) {
  for (const char* n : {"exec_prerun", "exec_postrun", "wait_for", "nice", "clocksource", "gtod_cpu",
                        "lockmem", "ioscheduler"}) {
    EXPECT_TRUE(FindOption(n)) << n;
    EXPECT_FALSE(UnsupportedFioOptionReason(n)) << n;
  }
}

// A node this machine does not have (libnuma refuses it).
std::string MissingNode() { return std::to_string(numa_max_node() + 1); }

TEST(ProcOptions, NumaCpuNodesAreLibnumasNodeStrings) {
  EXPECT_EQ(ParseOne("numa_cpu_nodes=0").proc.numa_cpu_nodes, "0");
  EXPECT_EQ(ParseOne("numa_cpu_nodes=all").proc.numa_cpu_nodes, "all");
  EXPECT_TRUE(ParseOne("").proc.numa_cpu_nodes.empty());
  EXPECT_OPTION_ERROR("numa_cpu_nodes=" + MissingNode(), 2, "numa_cpu_nodes",
                      "numa_parse_nodestring failed");
  EXPECT_OPTION_ERROR("numa_cpu_nodes=0-" + MissingNode(), 2, "numa_cpu_nodes",
                      "numa_parse_nodestring failed");
  EXPECT_OPTION_ERROR("numa_cpu_nodes=x", 2, "numa_cpu_nodes", "numa_parse_nodestring failed");
}

TEST(ProcOptions, NumaMemPolicyModes) {
  const JobOptions bind = ParseOne("numa_mem_policy=bind:0");
  EXPECT_EQ(bind.proc.numa_mem_policy, "bind:0");
  EXPECT_EQ(bind.proc.numa_mem.mode, NumaMemMode::kBind);
  EXPECT_EQ(bind.proc.numa_mem.nodes, "0");
  // interleave without nodes: every node, as fio.
  const JobOptions il = ParseOne("numa_mem_policy=interleave");
  EXPECT_EQ(il.proc.numa_mem.mode, NumaMemMode::kInterleave);
  EXPECT_EQ(il.proc.numa_mem.nodes, "all");
  EXPECT_EQ(ParseOne("numa_mem_policy=interleave:0").proc.numa_mem.nodes, "0");
  const JobOptions pref = ParseOne("numa_mem_policy=prefer:12");
  EXPECT_EQ(pref.proc.numa_mem.mode, NumaMemMode::kPrefer);
  EXPECT_EQ(pref.proc.numa_mem.prefer_node, 12);  // checked by the kernel when applied, as fio
  EXPECT_EQ(ParseOne("numa_mem_policy=prefer:").proc.numa_mem.prefer_node, 0);  // fio's atoi("")
  EXPECT_EQ(ParseOne("numa_mem_policy=local").proc.numa_mem.mode, NumaMemMode::kLocal);
  EXPECT_EQ(ParseOne("numa_mem_policy=default").proc.numa_mem.mode, NumaMemMode::kDefault);
  EXPECT_TRUE(ParseOne("").proc.numa_mem_policy.empty());
}

TEST(ProcOptions, NumaMemPolicyErrorsAreFios) {
  EXPECT_OPTION_ERROR("numa_mem_policy=prefer:0,1", 2, "numa_mem_policy",
                      "one node only for 'prefer'");
  EXPECT_OPTION_ERROR("numa_mem_policy=prefer", 2, "numa_mem_policy",
                      "one node is needed for 'prefer'");
  EXPECT_OPTION_ERROR("numa_mem_policy=local:0", 2, "numa_mem_policy", "NO nodelist for 'local'");
  EXPECT_OPTION_ERROR("numa_mem_policy=default:0", 2, "numa_mem_policy",
                      "NO nodelist for 'local'");
  EXPECT_OPTION_ERROR("numa_mem_policy=bind", 2, "numa_mem_policy",
                      "a nodelist is needed for 'bind'");
  EXPECT_OPTION_ERROR("numa_mem_policy=Bind:0", 2, "numa_mem_policy",
                      "memory policy should be: default, prefer, bind, interleave, local");
  EXPECT_OPTION_ERROR("numa_mem_policy=bind:" + MissingNode(), 2, "numa_mem_policy",
                      "numa_parse_nodestring failed");
  EXPECT_OPTION_ERROR("numa_mem_policy=interleave:0:1", 2, "numa_mem_policy",
                      "numa_parse_nodestring failed");
}

TEST(ProcOptions, CgroupOptions) {
  const JobOptions j = ParseOne("cgroup=bench/a\ncgroup_weight=500\ncgroup_nodelete=1");
  EXPECT_EQ(j.proc.cgroup, "bench/a");
  EXPECT_EQ(j.proc.cgroup_weight, 500u);
  EXPECT_TRUE(j.proc.cgroup_nodelete);
  const JobOptions d = ParseOne("");
  EXPECT_TRUE(d.proc.cgroup.empty());
  EXPECT_EQ(d.proc.cgroup_weight, 0u);
  EXPECT_FALSE(d.proc.cgroup_nodelete);
  EXPECT_OPTION_ERROR("cgroup_weight=99", 2, "cgroup_weight", "99");
  EXPECT_OPTION_ERROR("cgroup_weight=1001", 2, "cgroup_weight", "1001");
  EXPECT_OPTION_ERROR("cgroup_nodelete=maybe", 2, "cgroup_nodelete", "maybe");
}

}  // namespace
}  // namespace blk::bench
