// The storage daemon's command line, in qemu-storage-daemon's conventions:
//   --blockdev SPEC        a graph (block-bench's --blockdev / OpenBackend
//                          syntax: key=value or JSON); node-name= names it
//   --iothread id=ID       a thread with its own loop
//   --nbd-server addr.type=unix,addr.path=PATH
//   --nbd-server addr.type=inet,addr.host=HOST,addr.port=PORT
//   --export type=nbd,id=ID,node-name=NODE[,name=NAME][,writable=on|off]
//            [,iothread=ID][,description=TEXT][,write-iolog=PATH]
//   --export type=vhost-user-blk,id=ID,node-name=NODE,addr.type=unix,
//            addr.path=PATH[,writable=on|off][,iothread=ID][,num-queues=N]
//            [,write-iolog=PATH]
//   --pidfile PATH         written once the sockets listen
//   --help
// Both `--opt VALUE` and `--opt=VALUE` are accepted.  Errors name the
// option, its position and the offending key or value.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <blkstack/util/result.h>

namespace blk::storage_daemon {

struct BlockdevConfig {
  std::string spec;
  std::string node_name;
};

struct NbdServerConfig {
  enum class Type { kUnix, kInet } type = Type::kUnix;
  std::string path;
  std::string host, port;
};

struct ExportConfig {
  enum class Type { kNbd, kVhostUserBlk } type = Type::kNbd;
  std::string id;
  std::string node_name;
  std::string name;  // defaults to node_name
  std::string description;
  bool writable = false;
  std::string iothread;  // "" = the main loop
  std::string write_iolog;  // record every request as fio iolog v3 ("" = no)
  // vhost-user-blk only: the unix socket to listen on, and the queues.
  std::string addr_path;
  uint32_t num_queues = 1;
};

struct Config {
  std::vector<BlockdevConfig> blockdevs;
  std::vector<std::string> iothreads;
  std::vector<NbdServerConfig> nbd_servers;
  std::vector<ExportConfig> exports;
  std::string pidfile;
  bool help = false;
};

// Parses argv[1..].  Checks references: every export names a known
// node-name and iothread, ids, NBD export names and vhost-user socket paths
// are unique, and an NBD export exists only with an --nbd-server.
Expected<Config> ParseCommandLine(const std::vector<std::string>& args);

// The --help text.
std::string HelpText();

}  // namespace blk::storage_daemon
