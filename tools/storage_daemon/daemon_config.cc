#include "tools/storage_daemon/daemon_config.h"

#include <cerrno>
#include <cstdlib>
#include <set>
#include <string_view>

#include <blkstack/block/options.h>
#include <blkstack/block/registry.h>

namespace blk::storage_daemon {

namespace {

Error Bad(const std::string& opt, int pos, const std::string& msg) {
  return MakeError(-EINVAL, opt + " (argument " + std::to_string(pos) + "): " + msg);
}

// Parses `value` as key=value pairs and checks its keys against `known`.
Expected<Options> ParseKv(const std::string& opt, int pos, const std::string& value,
                          const std::set<std::string>& known) {
  Expected<Options> o = Options::Parse(value);
  if (!o.ok()) return Bad(opt, pos, o.error().message);
  for (const auto& [k, v] : o->entries()) {
    if (!known.count(k)) {
      std::string list;
      for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
      return Bad(opt, pos, "unknown key '" + k + "' (known: " + list + ")");
    }
  }
  return o;
}

std::string Get(const Options& o, const char* key) {
  const std::string* v = o.Get(key);
  return v ? *v : std::string();
}

}  // namespace

std::string HelpText() {
  return R"(Usage: blkstack-storage-daemon [options]
Serves blkstack block graphs to unmodified NBD clients (qemu-img, qemu-io,
nbdcopy, nbdinfo, fio --ioengine=nbd, the kernel's nbd-client) and to QEMU
guests as vhost-user-blk devices.

  --blockdev SPEC       open a graph; SPEC as block-bench's --blockdev:
                        driver=file,filename=disk.img,node-name=disk0
                        or JSON {"driver": "null", "size": "1G", "node-name": "n"}
  --iothread id=ID      start an I/O thread (one event loop) named ID
  --nbd-server addr.type=unix,addr.path=PATH
  --nbd-server addr.type=inet,addr.host=HOST,addr.port=PORT
                        listen for NBD clients (several allowed)
  --export type=nbd,id=ID,node-name=NODE[,name=NAME][,writable=on|off]
           [,iothread=ID][,description=TEXT][,write-iolog=PATH]
                        export the graph NODE as NAME (default: NODE);
                        read-only unless writable=on; served on the loop of
                        iothread ID (default: the main loop); write-iolog
                        records every request clients send, as fio iolog
                        v3 (block-bench --read_iolog=PATH replays it)
  --export type=vhost-user-blk,id=ID,node-name=NODE,addr.type=unix,
           addr.path=PATH[,writable=on|off][,iothread=ID][,num-queues=N]
           [,write-iolog=PATH]
                        serve NODE as a vhost-user-blk device on the unix
                        socket PATH (QEMU: -chardev socket,path=PATH and
                        -device vhost-user-blk-pci; guest memory shared:
                        memory-backend-memfd,share=on); N queues (1..64);
                        write-iolog records the guest's requests
  --pidfile PATH        write the daemon's pid to PATH once it listens
  --help                print this text and exit

SIGINT or SIGTERM: stop accepting, finish the requests in flight, send their
replies, close the graphs (flushing them) and exit 0.
)";
}

Expected<Config> ParseCommandLine(const std::vector<std::string>& args) {
  Config c;
  std::set<std::string> node_names, ids, names, paths;
  for (size_t i = 0; i < args.size(); i++) {
    std::string a = args[i], value;
    const int pos = int(i) + 1;
    if (a == "--help" || a == "-h") {
      c.help = true;
      continue;
    }
    if (a.rfind("--", 0) != 0) return Bad(a, pos, "unexpected argument (options start with --)");
    if (auto eq = a.find('='); eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
    } else {
      if (i + 1 >= args.size()) return Bad(a, pos, "needs a value");
      value = args[++i];
    }
    if (a == "--blockdev") {
      Expected<Options> o = Options::Parse(value);
      if (!o.ok()) return Bad(a, pos, o.error().message);
      Expected<void> v = ValidateSpec(value);
      if (!v.ok()) return Bad(a, pos, v.error().message);
      const std::string nn = Get(*o, "node-name");
      if (nn.empty()) return Bad(a, pos, "node-name= is required (exports refer to it)");
      if (!node_names.insert(nn).second) return Bad(a, pos, "duplicate node-name '" + nn + "'");
      c.blockdevs.push_back({value, nn});
    } else if (a == "--iothread") {
      Expected<Options> o = ParseKv(a, pos, value, {"id"});
      if (!o.ok()) return o.error();
      const std::string id = Get(*o, "id");
      if (id.empty()) return Bad(a, pos, "id= is required");
      if (!ids.insert(id).second) return Bad(a, pos, "duplicate id '" + id + "'");
      c.iothreads.push_back(id);
    } else if (a == "--nbd-server") {
      Expected<Options> o = ParseKv(a, pos, value, {"addr.type", "addr.path", "addr.host",
                                                    "addr.port"});
      if (!o.ok()) return o.error();
      NbdServerConfig s;
      const std::string type = Get(*o, "addr.type");
      if (type == "unix") {
        s.type = NbdServerConfig::Type::kUnix;
        s.path = Get(*o, "addr.path");
        if (s.path.empty()) return Bad(a, pos, "addr.type=unix needs addr.path=");
      } else if (type == "inet") {
        s.type = NbdServerConfig::Type::kInet;
        s.host = Get(*o, "addr.host");
        s.port = Get(*o, "addr.port");
        if (s.port.empty()) return Bad(a, pos, "addr.type=inet needs addr.port=");
      } else {
        return Bad(a, pos, "addr.type must be unix or inet, not '" + type + "'");
      }
      c.nbd_servers.push_back(s);
    } else if (a == "--export") {
      Expected<Options> type = Options::Parse(value);
      if (!type.ok()) return Bad(a, pos, type.error().message);
      const std::string t = Get(*type, "type");
      const bool vhost = t == "vhost-user-blk";
      if (t != "nbd" && !vhost) {
        return Bad(a, pos, "type must be nbd or vhost-user-blk, not '" + t + "'");
      }
      Expected<Options> o =
          vhost ? ParseKv(a, pos, value, {"type", "id", "node-name", "writable", "iothread",
                                          "addr.type", "addr.path", "num-queues", "write-iolog"})
                : ParseKv(a, pos, value, {"type", "id", "node-name", "name", "writable",
                                          "iothread", "description", "write-iolog"});
      if (!o.ok()) return o.error();
      ExportConfig e;
      if (vhost) {
        e.type = ExportConfig::Type::kVhostUserBlk;
        if (Get(*o, "addr.type") != "unix") {
          return Bad(a, pos, "type=vhost-user-blk needs addr.type=unix, not '" +
                                 Get(*o, "addr.type") + "'");
        }
        e.addr_path = Get(*o, "addr.path");
        if (e.addr_path.empty()) return Bad(a, pos, "addr.type=unix needs addr.path=");
        if (!paths.insert(e.addr_path).second) {
          return Bad(a, pos, "duplicate addr.path '" + e.addr_path + "'");
        }
        if (o->Has("num-queues")) {
          const std::string n = Get(*o, "num-queues");
          char* end = nullptr;
          errno = 0;
          const unsigned long v = std::strtoul(n.c_str(), &end, 10);
          if (n.empty() || *end || errno || n[0] == '-' || v < 1 || v > 64) {
            return Bad(a, pos, "num-queues must be 1..64, not '" + n + "'");
          }
          e.num_queues = uint32_t(v);
        }
      }
      e.id = Get(*o, "id");
      e.node_name = Get(*o, "node-name");
      e.name = o->Has("name") ? Get(*o, "name") : e.node_name;
      e.description = Get(*o, "description");
      e.iothread = Get(*o, "iothread");
      e.write_iolog = Get(*o, "write-iolog");
      const std::string w = o->Has("writable") ? Get(*o, "writable") : "off";
      if (w == "on" || w == "true") {
        e.writable = true;
      } else if (w != "off" && w != "false") {
        return Bad(a, pos, "writable must be on or off, not '" + w + "'");
      }
      if (e.id.empty()) return Bad(a, pos, "id= is required");
      if (e.node_name.empty()) return Bad(a, pos, "node-name= is required");
      if (!node_names.count(e.node_name)) {
        return Bad(a, pos, "no --blockdev has node-name '" + e.node_name + "'");
      }
      if (!e.iothread.empty() && !ids.count(e.iothread)) {
        return Bad(a, pos, "no --iothread has id '" + e.iothread + "'");
      }
      if (!ids.insert(e.id).second) return Bad(a, pos, "duplicate id '" + e.id + "'");
      if (!vhost && !names.insert(e.name).second) {
        return Bad(a, pos, "duplicate export name '" + e.name + "'");
      }
      for (const ExportConfig& o2 : c.exports) {
        if (o2.node_name == e.node_name && o2.iothread != e.iothread) {
          return Bad(a, pos, "node '" + e.node_name + "' is already exported on another iothread");
        }
      }
      c.exports.push_back(e);
    } else if (a == "--pidfile") {
      c.pidfile = value;
    } else {
      return Bad(a, pos, "unknown option (see --help)");
    }
  }
  bool nbd_export = false;
  for (const ExportConfig& e : c.exports) nbd_export |= e.type == ExportConfig::Type::kNbd;
  if (!c.help && nbd_export && c.nbd_servers.empty()) {
    return MakeError(-EINVAL, "--export: an NBD export needs an --nbd-server to listen on");
  }
  return c;
}

}  // namespace blk::storage_daemon
