// The driver registry and opening a graph from a spec.
//
// registry.cc holds the one table of drivers (no static registration).  A
// graph spec is QEMU -blockdev style or JSON (see block/options.h):
//   driver=throttle,file.driver=null,file.size=1G
//   {"driver": "file", "filename": "/dev/zram0", "aio": "native"}
// Options every node accepts, whatever its driver:
//   driver      (required) the driver's name
//   node-name   a name for messages and statistics
//   read-only   on/off; a read-only parent makes its children read-only
// A driver's children are the subtrees named in DriverInfo::children
// (`file.driver=...` opens child `file`).
//
// Thread-safety: opening runs on the thread that will own the graph's loop,
// before any I/O; the table itself is immutable.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <blkstack/block/backend.h>
#include <blkstack/block/driver.h>
#include <blkstack/block/driver_info.h>
#include <blkstack/block/node.h>
#include <blkstack/block/options.h>
#include <blkstack/util/aio_context.h>
#include <blkstack/util/result.h>

namespace blk {

// The table, in a stable order.
const std::vector<DriverInfo>& Drivers();
const DriverInfo* FindDriver(std::string_view name);

struct OpenFlags {
  bool read_only = false;  // force every node read-only
};

// Opens the node tree described by `opts` (already split from a spec).
// `path` names the node in error messages ("" for the root).
Expected<std::unique_ptr<BlockNode>> OpenNode(AioContext& ctx, Options opts,
                                              const OpenFlags& flags,
                                              const std::string& path = "");

// Checks the node tree described by `opts` as OpenNode would, without
// opening anything (no file, device or cluster is touched): every node names
// a known driver, its generic options are valid, its own options pass
// ValidateOptions against the driver's schema, its dotted keys belong to a
// declared child or pass-through prefix, and so on down the children.
// Errors are the ones OpenNode reports for the same problem.  What only
// opening can tell (a missing file, a filter without its child, a bad
// pass-through value) is not checked.
Expected<void> ValidateNode(Options opts, const std::string& path = "");

// Parses `spec` and checks it with ValidateNode.  For parsers of
// configuration, so that a bad graph is reported where it was written.
Expected<void> ValidateSpec(std::string_view spec);

// Parses `spec` and opens the graph, returning a front end bound to `ctx`.
Expected<std::unique_ptr<BlockBackend>> OpenBackend(AioContext& ctx, std::string_view spec,
                                                    const OpenFlags& flags = {});

// Help text listing every driver and its options.
std::string DriversHelp();

}  // namespace blk
