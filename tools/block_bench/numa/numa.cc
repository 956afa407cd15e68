#include "tools/block_bench/numa/numa.h"

#include <numa.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace blk::bench {
namespace {

constexpr std::array<std::string_view, 5> kModes = {"default", "prefer", "bind", "interleave",
                                                     "local"};

// libnuma's mask of `nodes`, freed with the holder; null when it does not
// parse (libnuma has printed why).
struct NodeMask {
  explicit NodeMask(const std::string& nodes) : mask(numa_parse_nodestring(nodes.c_str())) {}
  ~NodeMask() {
    if (mask) numa_free_nodemask(mask);
  }
  NodeMask(const NodeMask&) = delete;
  NodeMask& operator=(const NodeMask&) = delete;
  bitmask* mask;
};

Error NoNumaApi(std::string_view option) {
  return MakeError(-ENOSYS, std::string(option) + ": the kernel does not support the NUMA API");
}

}  // namespace

Expected<void> CheckNumaNodes(std::string_view nodes) {
  const NodeMask m{std::string(nodes)};
  if (!m.mask) return MakeError(-EINVAL, "numa_parse_nodestring failed");
  return {};
}

Expected<NumaMemPolicy> ParseNumaMemPolicy(std::string_view value) {
  // fio's str_numa_mpol_cb: the mode up to the first ':', the nodes after.
  const size_t colon = value.find(':');
  const std::string_view mode = value.substr(0, colon);
  const bool has_nodes = colon != std::string_view::npos;
  const std::string_view nodes = has_nodes ? value.substr(colon + 1) : std::string_view();
  NumaMemPolicy p;
  size_t m = 0;
  while (m < kModes.size() && kModes[m] != mode) m++;
  if (m == kModes.size())
    return MakeError(-EINVAL, "memory policy should be: default, prefer, bind, interleave, local");
  p.mode = NumaMemMode(m);
  switch (p.mode) {
    case NumaMemMode::kPrefer: {
      if (!has_nodes) return MakeError(-EINVAL, "one node is needed for 'prefer'");
      size_t i = 0;
      while (i < nodes.size() && std::isdigit(static_cast<unsigned char>(nodes[i]))) i++;
      if (i != nodes.size()) return MakeError(-EINVAL, "one node only for 'prefer'");
      // fio's atoi: no digits is node 0; digits past int's range saturate.
      int node = 0;
      for (char c : nodes) {
        if (node > (INT32_MAX - 9) / 10) {
          node = INT32_MAX;
          break;
        }
        node = node * 10 + (c - '0');
      }
      p.prefer_node = node;
      return p;
    }
    case NumaMemMode::kLocal:
    case NumaMemMode::kDefault:
      // fio names 'local' for both.
      if (has_nodes) return MakeError(-EINVAL, "NO nodelist for 'local'");
      return p;
    case NumaMemMode::kBind:
      if (!has_nodes) return MakeError(-EINVAL, "a nodelist is needed for 'bind'");
      break;
    case NumaMemMode::kInterleave:
      break;
  }
  p.nodes = has_nodes ? std::string(nodes) : std::string("all");
  Expected<void> ok = CheckNumaNodes(p.nodes);
  if (!ok.ok()) return ok.error();
  return p;
}

Expected<void> RunOnNumaNodes(const std::string& nodes) {
  if (numa_available() < 0) return NoNumaApi("numa_cpu_nodes");
  const NodeMask m{nodes};
  if (!m.mask) return MakeError(-EINVAL, "numa_cpu_nodes=" + nodes + ": numa_parse_nodestring failed");
  errno = 0;
  if (numa_run_on_node_mask(m.mask) == 0) return {};
  const int e = errno ? errno : EINVAL;
  return MakeError(-e, "numa_cpu_nodes=" + nodes + ": numa_run_on_node_mask on the clone's thread: " +
                           ErrnoString(-e));
}

Expected<void> ApplyNumaMemPolicy(const NumaMemPolicy& policy) {
  if (policy.mode == NumaMemMode::kDefault) return {};
  if (numa_available() < 0) return NoNumaApi("numa_mem_policy");
  switch (policy.mode) {
    case NumaMemMode::kBind:
    case NumaMemMode::kInterleave: {
      const NodeMask m{policy.nodes};
      if (!m.mask)
        return MakeError(-EINVAL, "numa_mem_policy: " + policy.nodes + ": numa_parse_nodestring failed");
      if (policy.mode == NumaMemMode::kBind) numa_set_membind(m.mask);
      else numa_set_interleave_mask(m.mask);
      return {};
    }
    case NumaMemMode::kLocal:
      numa_set_localalloc();
      return {};
    case NumaMemMode::kPrefer:
      numa_set_preferred(policy.prefer_node);
      return {};
    case NumaMemMode::kDefault:
      break;
  }
  return {};
}

}  // namespace blk::bench
