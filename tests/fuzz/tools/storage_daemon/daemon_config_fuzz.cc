// Fuzzes the storage daemon's command line (ParseCommandLine: --blockdev,
// --iothread, --nbd-server, --export of both types, --pidfile): the input
// is split into arguments at NUL and newline bytes.  Nothing is opened: a
// --blockdev is only validated.  Beyond "no crash, no sanitizer report", it
// traps when an accepted configuration breaks a promise main.cc relies on:
//   * every export names a --blockdev and (if any) an --iothread;
//   * export ids are unique, NBD export names are unique, vhost-user
//     socket paths are unique and non-empty, num-queues is 1..64;
//   * an NBD export comes with an --nbd-server.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "tools/storage_daemon/daemon_config.h"

namespace {
void Require(bool ok) {
  if (!ok) __builtin_trap();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace blk::storage_daemon;
  std::vector<std::string> args(1);
  for (size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0' || c == '\n') {
      args.emplace_back();
    } else {
      args.back() += c;
    }
  }
  if (size == 0) args.clear();
  blk::Expected<Config> c = ParseCommandLine(args);
  if (!c.ok()) {
    Require(!c.error().message.empty());
    return 0;
  }
  if (c->help) return 0;
  std::set<std::string> nodes, threads(c->iothreads.begin(), c->iothreads.end());
  for (const BlockdevConfig& b : c->blockdevs) Require(nodes.insert(b.node_name).second);
  Require(threads.size() == c->iothreads.size());
  std::set<std::string> ids, names, paths;
  for (const ExportConfig& e : c->exports) {
    Require(nodes.count(e.node_name) == 1);
    Require(e.iothread.empty() || threads.count(e.iothread) == 1);
    Require(!e.id.empty() && ids.insert(e.id).second && threads.count(e.id) == 0);
    if (e.type == ExportConfig::Type::kNbd) {
      Require(names.insert(e.name).second);
      Require(!c->nbd_servers.empty());
    } else {
      Require(!e.addr_path.empty() && paths.insert(e.addr_path).second);
      Require(e.num_queues >= 1 && e.num_queues <= 64);
    }
  }
  return 0;
}
