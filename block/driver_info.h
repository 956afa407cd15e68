// DriverInfo: how a driver presents itself to the registry (block/registry.h):
// its name, option schema, child names and open function.  Each driver folder
// exports one `const DriverInfo& XxxDriverInfo()`.
//
// Thread-safety: immutable data.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <blkstack/block/driver.h>
#include <blkstack/block/node.h>
#include <blkstack/block/option_schema.h>
#include <blkstack/block/options.h>
#include <blkstack/util/aio_context.h>
#include <blkstack/util/result.h>

namespace blk {

// What a driver's open function gets.
struct DriverOpenArgs {
  AioContext& ctx;              // the loop the graph will be attached to
  const ParsedOptions& opts;    // the node's own options, validated
  bool read_only;               // the node is opened read-only
  std::string node_name;        // for messages
  // Children opened from the spec, by child name; the driver takes (moves
  // out) those it uses.  A declared child absent from the spec is absent here.
  std::map<std::string, std::unique_ptr<BlockNode>> children;
  // Keys under the driver's DriverInfo::passthrough_prefixes, taken off the
  // options before validation, with their full dotted names
  // ("rados.rbd_cache" -> "false").  Unchecked: the driver validates them.
  std::map<std::string, std::string> passthrough;
};

struct DriverInfo {
  std::string_view name;
  std::string_view summary;
  // Options the driver accepts besides the generic ones.
  const std::vector<OptionSpec>& (*schema)();
  // Child names the driver accepts (e.g. {"file"} for a filter).
  std::vector<std::string> children;
  // Opens an instance.  Errors name the option or the resource (path, pool,
  // image) and the errno.
  Expected<std::unique_ptr<BlockDriver>> (*open)(DriverOpenArgs& args);
  // Prefixes of dynamic keys the schema cannot declare (e.g. {"rados"} for
  // `rados.KEY=VALUE`, passed on to a library).  OpenNode moves every
  // `prefix.*` key into DriverOpenArgs::passthrough before validation.
  std::vector<std::string> passthrough_prefixes = {};
};

}  // namespace blk
