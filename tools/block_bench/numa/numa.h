// NUMA placement of a job's threads, as fio 3.33's numa_cpu_nodes= and
// numa_mem_policy= (libnuma; fio links it too):
//
//   numa_cpu_nodes=0-1             the thread runs on the CPUs of nodes 0-1
//                                  (numa_run_on_node_mask: it replaces
//                                  cpus_allowed's mask, as in fio)
//   numa_mem_policy=bind:0         its memory comes from node 0 only
//   numa_mem_policy=interleave     ... spread over every node (or a list)
//   numa_mem_policy=prefer:1       ... from node 1 first
//   numa_mem_policy=local|default  ... the local node / the process's policy
//
// Node strings are libnuma's (numa_parse_nodestring: "0", "0-3", "0,2",
// "all", "+1" relative to the allowed nodes, "!0" inverted); a node the
// machine does not have is an error when the option is read.  Errors carry
// fio's messages; libnuma prints its own warning on stderr first, as under
// fio.
//
// Thread-safety: the Apply functions act on the calling thread (affinity
// and memory policy are per thread); the parsers keep no state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <blkstack/util/result.h>

namespace blk::bench {

// fio's policy_types, in its order.
enum class NumaMemMode : uint8_t { kDefault, kPrefer, kBind, kInterleave, kLocal };

struct NumaMemPolicy {
  NumaMemMode mode = NumaMemMode::kDefault;
  // bind and interleave: the node string ("all" for interleave without one).
  std::string nodes;
  // prefer: the node (the digits after ':'; none: node 0, as fio's atoi).
  int prefer_node = 0;
  friend bool operator==(const NumaMemPolicy&, const NumaMemPolicy&) = default;
};

// -EINVAL "numa_parse_nodestring failed" unless libnuma reads `nodes` as a
// node mask of this machine.
Expected<void> CheckNumaNodes(std::string_view nodes);

// numa_mem_policy's value, "<mode>[:<nodes>]", with fio's checks and
// messages (prefer takes one node, bind needs a list, local and default
// take none, bind and interleave lists must parse).
Expected<NumaMemPolicy> ParseNumaMemPolicy(std::string_view value);

// Binds the calling thread to the CPUs of `nodes` (numa_run_on_node_mask).
// The negative errno as an Error naming numa_cpu_nodes on failure, or
// -ENOSYS when the kernel has no NUMA API.
Expected<void> RunOnNumaNodes(const std::string& nodes);

// Sets the calling thread's memory policy as fio's thread start does
// (numa_set_membind, numa_set_interleave_mask, numa_set_preferred,
// numa_set_localalloc; default: nothing).  libnuma reports a policy the
// kernel refuses on stderr and the thread keeps its policy, as under fio;
// only a kernel without the NUMA API is an error (-ENOSYS).
Expected<void> ApplyNumaMemPolicy(const NumaMemPolicy& policy);

}  // namespace blk::bench
