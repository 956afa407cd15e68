#include "block/registry.h"

#include "block/file/file.h"
#include "block/error_inject/error_inject.h"
#include "block/null/null.h"
#include "block/rbd/rbd.h"
#include "block/throttle/throttle.h"

namespace blk {

// The one table of drivers.  Add a driver here and to //block:registry deps.
const std::vector<DriverInfo>& Drivers() {
  static const std::vector<DriverInfo> table = {
      NullDriverInfo(),
      ErrorInjectDriverInfo(),
      ThrottleDriverInfo(),
      FileDriverInfo(),
      RbdDriverInfo(),
  };
  return table;
}

const DriverInfo* FindDriver(std::string_view name) {
  for (const auto& d : Drivers()) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

namespace {

std::string Where(const std::string& path) {
  return path.empty() ? std::string() : "node '" + path + "': ";
}

std::string DriverNames() {
  std::string s;
  for (const auto& d : Drivers()) {
    if (!s.empty()) s += ", ";
    s += d.name;
  }
  return s;
}

}  // namespace

Expected<std::unique_ptr<BlockNode>> OpenNode(AioContext& ctx, Options opts,
                                              const OpenFlags& flags, const std::string& path) {
  const std::string* drv_name = opts.Get("driver");
  if (!drv_name) {
    return MakeError(-EINVAL, Where(path) + "missing required option 'driver' (one of: " +
                                  DriverNames() + ")");
  }
  const DriverInfo* info = FindDriver(*drv_name);
  if (!info) {
    return MakeError(-EINVAL, Where(path) + "unknown driver '" + *drv_name +
                                  "' (option 'driver'); known drivers: " + DriverNames());
  }
  std::string name = info->name.empty() ? std::string() : std::string(info->name);
  opts.Erase("driver");

  // Generic options.
  std::string node_name = path.empty() ? std::string(info->name) : path;
  if (const std::string* v = opts.Get("node-name")) {
    node_name = *v;
    opts.Erase("node-name");
  }
  bool read_only = flags.read_only;
  if (const std::string* v = opts.Get("read-only")) {
    auto b = ParseBool(*v);
    if (!b.ok()) {
      return MakeError(-EINVAL, Where(path) + "driver '" + name + "': option 'read-only': " +
                                    b.error().message);
    }
    read_only = read_only || *b;
    opts.Erase("read-only");
  }

  // Children first: their options are theirs.
  std::map<std::string, Options> child_opts;
  for (const auto& c : info->children) {
    Options sub = opts.TakeSubtree(c);
    if (!sub.empty()) child_opts.emplace(c, std::move(sub));
  }
  // Dynamic pass-through keys (see DriverInfo::passthrough_prefixes).
  std::map<std::string, std::string> passthrough;
  for (const auto& prefix : info->passthrough_prefixes) {
    Options sub = opts.TakeSubtree(prefix);
    for (const auto& k : sub.Keys()) passthrough.emplace(prefix + "." + k, *sub.Get(k));
  }
  auto parsed = ValidateOptions(info->name, info->schema(), info->children, opts);
  if (!parsed.ok()) return MakeError(parsed.error().code, Where(path) + parsed.error().message);

  OpenFlags child_flags = flags;
  child_flags.read_only = read_only;
  DriverOpenArgs args{ctx, parsed.value(), read_only, node_name, {}, std::move(passthrough)};
  for (auto& [cname, copts] : child_opts) {
    std::string cpath = path.empty() ? cname : path + "." + cname;
    auto child = OpenNode(ctx, std::move(copts), child_flags, cpath);
    if (!child.ok()) return child.error();
    args.children.emplace(cname, std::move(child.value()));
  }
  auto drv = info->open(args);
  if (!drv.ok()) return MakeError(drv.error().code, Where(path) + drv.error().message);
  return std::make_unique<BlockNode>(std::move(drv.value()), node_name, read_only);
}

Expected<std::unique_ptr<BlockBackend>> OpenBackend(AioContext& ctx, std::string_view spec,
                                                    const OpenFlags& flags) {
  auto opts = Options::Parse(spec);
  if (!opts.ok()) return opts.error();
  auto root = OpenNode(ctx, std::move(opts.value()), flags, "");
  if (!root.ok()) return root.error();
  return std::make_unique<BlockBackend>(ctx, std::move(root.value()));
}

std::string DriversHelp() {
  std::string out;
  for (const auto& d : Drivers()) {
    out += FormatOptionsHelp(d.name, d.schema(), d.children);
    out += "\n";
  }
  return out;
}

}  // namespace blk
