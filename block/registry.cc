#include <blkstack/block/registry.h>

#include <blkstack/block/file/file.h>
#include <blkstack/block/error_inject/error_inject.h>
#include <blkstack/block/nbd/nbd.h>
#include <blkstack/block/null/null.h>
#include <blkstack/block/option_schema.h>
#include <blkstack/block/option_values.h>
#include <blkstack/block/rbd/rados.h>
#include <blkstack/block/rbd/rbd.h>
#include <blkstack/block/throttle/throttle.h>
#include <blkstack/util/quote.h>

namespace blk {

// The one table of drivers.  Add a driver here and to //block:registry deps.
const std::vector<DriverInfo>& Drivers() {
  static const std::vector<DriverInfo> table = {
      NullDriverInfo(),
      ErrorInjectDriverInfo(),
      ThrottleDriverInfo(),
      FileDriverInfo(),
      RbdDriverInfo(),
      RadosDriverInfo(),
      NbdDriverInfo(),
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
  return path.empty() ? std::string() : "node " + QuoteInput(path) + ": ";
}

std::string ChildPath(const std::string& path, const std::string& child) {
  return path.empty() ? child : path + "." + child;
}

std::string DriverNames() {
  std::string s;
  for (const auto& d : Drivers()) {
    if (!s.empty()) s += ", ";
    s += d.name;
  }
  return s;
}

// One node of a spec taken apart as opening it needs: the driver, the
// generic options, the validated own options, the children's options and
// the pass-through keys.  Opening and validating share this step.
struct NodeParts {
  const DriverInfo* info = nullptr;
  std::string node_name;
  bool read_only = false;
  ParsedOptions parsed;
  std::map<std::string, Options> children;
  std::map<std::string, std::string> passthrough;
};

// Takes `opts` apart for the node at `path`; `read_only` is the parent's
// (or the caller's) setting.  Errors are those OpenNode documents.
Expected<NodeParts> SplitNode(Options opts, bool read_only, const std::string& path) {
  NodeParts parts;
  const std::string* drv_name = opts.Get("driver");
  if (!drv_name) {
    return MakeError(-EINVAL, Where(path) + "missing required option 'driver' (one of: " +
                                  DriverNames() + ")");
  }
  parts.info = FindDriver(*drv_name);
  if (!parts.info) {
    return MakeError(-EINVAL, Where(path) + "unknown driver " + QuoteInput(*drv_name) +
                                  " (option 'driver'); known drivers: " + DriverNames());
  }
  const DriverInfo& info = *parts.info;
  opts.Erase("driver");

  // Generic options.
  parts.node_name = path.empty() ? std::string(info.name) : path;
  if (const std::string* v = opts.Get("node-name")) {
    parts.node_name = *v;
    opts.Erase("node-name");
  }
  parts.read_only = read_only;
  if (const std::string* v = opts.Get("read-only")) {
    auto b = ParseBool(*v);
    if (!b.ok()) {
      return MakeError(-EINVAL, Where(path) + "driver '" + std::string(info.name) +
                                    "': option 'read-only': " + b.error().message);
    }
    parts.read_only = parts.read_only || *b;
    opts.Erase("read-only");
  }

  // Children first: their options are theirs.
  for (const auto& c : info.children) {
    Options sub = opts.TakeSubtree(c);
    if (!sub.empty()) parts.children.emplace(c, std::move(sub));
  }
  // Dynamic pass-through keys (see DriverInfo::passthrough_prefixes).
  for (const auto& prefix : info.passthrough_prefixes) {
    Options sub = opts.TakeSubtree(prefix);
    for (auto& [k, v] : sub.entries()) parts.passthrough.emplace(prefix + "." + k, v);
  }
  auto parsed = ValidateOptions(info.name, info.schema(), info.children, opts);
  if (!parsed.ok()) return MakeError(parsed.error().code, Where(path) + parsed.error().message);
  parts.parsed = std::move(parsed.value());
  return parts;
}

}  // namespace

Expected<std::unique_ptr<BlockNode>> OpenNode(AioContext& ctx, Options opts,
                                              const OpenFlags& flags, const std::string& path) {
  auto parts = SplitNode(std::move(opts), flags.read_only, path);
  if (!parts.ok()) return parts.error();
  NodeParts& p = parts.value();

  OpenFlags child_flags = flags;
  child_flags.read_only = p.read_only;
  DriverOpenArgs args{ctx, p.parsed, p.read_only, p.node_name, {}, std::move(p.passthrough)};
  for (auto& [cname, copts] : p.children) {
    auto child = OpenNode(ctx, std::move(copts), child_flags, ChildPath(path, cname));
    if (!child.ok()) return child.error();
    args.children.emplace(cname, std::move(child.value()));
  }
  auto drv = p.info->open(args);
  if (!drv.ok()) return MakeError(drv.error().code, Where(path) + drv.error().message);
  return std::make_unique<BlockNode>(std::move(drv.value()), p.node_name, p.read_only);
}

Expected<void> ValidateNode(Options opts, const std::string& path) {
  auto parts = SplitNode(std::move(opts), false, path);
  if (!parts.ok()) return parts.error();
  for (auto& [cname, copts] : parts.value().children) {
    Expected<void> child = ValidateNode(std::move(copts), ChildPath(path, cname));
    if (!child.ok()) return child;
  }
  return {};
}

Expected<void> ValidateSpec(std::string_view spec) {
  auto opts = Options::Parse(spec);
  if (!opts.ok()) return opts.error();
  return ValidateNode(std::move(opts.value()), "");
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
