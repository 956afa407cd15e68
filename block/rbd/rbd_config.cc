#include <blkstack/block/rbd/rbd_config.h>

#include <blkstack/block/rbd/ceph_connect.h>

#include <blkstack/util/quote.h>

namespace blk {
namespace {

Error ConfigError(std::string msg) { return MakeError(-EINVAL, "driver 'rbd': " + std::move(msg)); }

// Splits `text` at unescaped `sep` characters, removing the escapes of the
// separators listed in `unescape_all` only when `last` (the final split).
std::vector<std::string> SplitEscaped(std::string_view text, char sep, bool unescape) {
  std::vector<std::string> parts(1);
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      if (!unescape) parts.back() += c;
      parts.back() += text[++i];
    } else if (c == sep) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

std::string Unescape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) ++i;
    out += text[i];
  }
  return out;
}

// Finds the first unescaped `c` in `text`, or npos.
size_t FindUnescaped(std::string_view text, char c) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == c) {
      return i;
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::string RbdConfig::Name() const {
  std::string s = pool + "/";
  if (!ns.empty()) s += ns + "/";
  s += image;
  if (!snapshot.empty()) s += "@" + snapshot;
  return s;
}

const std::vector<OptionSpec>& RbdOptionsSchema() {
  using T = OptionSpec::Type;
  static const std::vector<OptionSpec> schema = [] {
    std::vector<OptionSpec> v = {
        {.name = "filename", .type = T::kString,
         .help = "short form rbd:pool[/namespace]/image[@snap][:key=value...] "
                 "(excludes pool/image/...)"},
        {.name = "pool", .type = T::kString, .help = "pool of the image"},
        {.name = "namespace", .type = T::kString, .help = "RADOS namespace (default: none)"},
        {.name = "image", .type = T::kString, .help = "image name"},
        {.name = "snapshot", .type = T::kString, .help = "snapshot to open (needs read-only=on)"},
        {.name = "completion", .type = T::kEnum, .default_value = "eventfd", .has_default = true,
         .enum_values = {"eventfd", "bh", "poll"},
         .help = "completion delivery: image eventfd + rbd_poll_io_events, librbd callback "
                 "posting to the loop, or busy polling"},
        {.name = "write-cache", .type = T::kBool, .default_value = "on", .has_default = true,
         .help = "librbd cache in write-back mode (on: writes are durable only after a flush)"},
        {.name = "max-transfer", .type = T::kSize, .default_value = "0", .has_default = true,
         .max = int64_t(1) << 30,
         .help = "largest read/write passed to librbd (0: no limit; larger requests are split)"},
    };
    AppendCephConnectOptions(&v);
    return v;
  }();
  return schema;
}

Expected<void> ParseRbdFilename(std::string_view filename, RbdConfig* cfg) {
  const std::string where = "filename " + QuoteName(filename) + ": ";
  constexpr std::string_view kPrefix = "rbd:";
  if (filename.substr(0, kPrefix.size()) != kPrefix) {
    return ConfigError(where + "expected rbd:pool[/namespace]/image[@snap][:key=value...]");
  }
  std::string_view rest = filename.substr(kPrefix.size());
  size_t colon = FindUnescaped(rest, ':');
  std::string_view path = rest.substr(0, colon);
  std::string_view kvs = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);

  size_t at = FindUnescaped(path, '@');
  if (at != std::string_view::npos) {
    cfg->snapshot = Unescape(path.substr(at + 1));
    if (cfg->snapshot.empty()) return ConfigError(where + "empty snapshot name after '@'");
    path = path.substr(0, at);
  }
  std::vector<std::string> comps = SplitEscaped(path, '/', true);
  if (comps.size() == 2) {
    cfg->pool = comps[0];
    cfg->image = comps[1];
  } else if (comps.size() == 3) {
    cfg->pool = comps[0];
    cfg->ns = comps[1];
    cfg->image = comps[2];
  } else {
    return ConfigError(where + "expected pool/image or pool/namespace/image");
  }
  if (cfg->pool.empty() || cfg->image.empty()) {
    return ConfigError(where + "empty pool or image name");
  }
  if (kvs.empty()) return {};
  for (const std::string& kv : SplitEscaped(kvs, ':', false)) {
    size_t eq = FindUnescaped(kv, '=');
    if (eq == std::string::npos || eq == 0) {
      return ConfigError(where + "expected key=value, got " + QuoteInput(kv));
    }
    std::string key = Unescape(std::string_view(kv).substr(0, eq));
    std::string value = Unescape(std::string_view(kv).substr(eq + 1));
    if (key == "id" || key == "user") {
      cfg->user = value;
    } else if (key == "conf") {
      cfg->conf = value;
    } else {
      cfg->rados.emplace_back(key, value);
    }
  }
  return {};
}

Expected<RbdConfig> MakeRbdConfig(const ParsedOptions& opts,
                                  const std::map<std::string, std::string>& passthrough,
                                  bool read_only) {
  RbdConfig cfg;
  auto str = [&](const char* name) { return opts.given(name) ? opts.str(name) : std::string(); };
  if (opts.given("filename")) {
    for (const char* k : {"pool", "namespace", "image", "snapshot"}) {
      if (opts.given(k)) {
        return ConfigError(std::string("option '") + k +
                           "' cannot be combined with option 'filename'");
      }
    }
    auto r = ParseRbdFilename(opts.str("filename"), &cfg);
    if (!r.ok()) return r.error();
  } else {
    cfg.pool = str("pool");
    cfg.ns = str("namespace");
    cfg.image = str("image");
    cfg.snapshot = str("snapshot");
    if (cfg.pool.empty()) return ConfigError("missing required option 'pool' (or 'filename')");
    if (cfg.image.empty()) return ConfigError("missing required option 'image' (or 'filename')");
  }
  // Explicit options override what the filename said.
  if (opts.given("user")) cfg.user = opts.str("user");
  if (opts.given("cluster")) cfg.cluster = opts.str("cluster");
  if (opts.given("conf")) cfg.conf = opts.str("conf");
  for (const auto& [key, value] : passthrough) {
    std::string k = key.substr(key.find('.') + 1);
    cfg.rados.emplace_back(k, value);
  }
  if (!cfg.snapshot.empty() && !read_only) {
    return ConfigError("snapshot " + QuoteName(cfg.snapshot) + " of image " +
                       QuoteName(cfg.pool + "/" + cfg.image) +
                       " can only be opened read-only (add read-only=on)");
  }
  const std::string& mode = opts.choice("completion");
  cfg.completion = mode == "bh"     ? RbdCompletion::kBh
                   : mode == "poll" ? RbdCompletion::kPoll
                                    : RbdCompletion::kEventfd;
  cfg.write_cache = opts.flag("write-cache");
  cfg.osd_op_timeout_s = opts.integer("osd-op-timeout");
  cfg.connect_timeout_s = opts.integer("connect-timeout");
  cfg.close_timeout_s = opts.integer("close-timeout");
  cfg.max_transfer = opts.size("max-transfer");
  return cfg;
}

}  // namespace blk
