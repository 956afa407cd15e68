// The rbd driver's configuration: its option schema, the `rbd:` filename
// syntax, and turning validated options into one RbdConfig.  Pure functions
// without librbd, so they are tested without a cluster.
//
// Thread-safety: plain values, no shared state.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <blkstack/block/option_schema.h>
#include <blkstack/util/result.h>

namespace blk {

enum class RbdCompletion { kEventfd, kBh, kPoll };

// Everything needed to open one image.
struct RbdConfig {
  std::string pool;
  std::string ns;        // namespace; empty = default
  std::string image;
  std::string snapshot;  // empty = the image head
  std::string user;      // cephx id; empty = librados' default
  std::string cluster;   // cluster name; empty = librados' default ("ceph")
  std::string conf;      // ceph.conf path; empty = librados' search
  // librados settings in application order: KEY (without "rados.") -> value.
  std::vector<std::pair<std::string, std::string>> rados;
  RbdCompletion completion = RbdCompletion::kEventfd;
  bool write_cache = true;
  int64_t osd_op_timeout_s = 0;
  int64_t connect_timeout_s = 30;
  int64_t close_timeout_s = 30;
  uint64_t max_transfer = 0;

  // "pool[/namespace]/image[@snapshot]" for messages.
  std::string Name() const;
};

// The schema of driver=rbd.
const std::vector<OptionSpec>& RbdOptionsSchema();

// Parses QEMU's short form `rbd:pool[/namespace]/image[@snap][:key=value...]`
// into `cfg` (pool, ns, image, snapshot; keys id/user and conf; other keys go
// to cfg->rados).  A backslash escapes the next character.  Errors (-EINVAL)
// name the filename and what is wrong.
Expected<void> ParseRbdFilename(std::string_view filename, RbdConfig* cfg);

// Builds the configuration from validated options plus the pass-through
// `rados.*` keys (full names, as in DriverOpenArgs::passthrough).  Checks:
// filename excludes pool/namespace/image/snapshot; pool and image are
// required; a snapshot requires read_only.
Expected<RbdConfig> MakeRbdConfig(const ParsedOptions& opts,
                                  const std::map<std::string, std::string>& passthrough,
                                  bool read_only);

}  // namespace blk
