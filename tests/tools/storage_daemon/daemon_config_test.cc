// The storage daemon's command line: the qemu-storage-daemon forms it
// accepts, and errors naming the option, its position and the bad key.
#include "tools/storage_daemon/daemon_config.h"

#include <gtest/gtest.h>

namespace blk::storage_daemon {
namespace {

Expected<Config> P(std::vector<std::string> a) { return ParseCommandLine(a); }

TEST(DaemonConfig, QemuStorageDaemonForms) {
  Expected<Config> c = P({"--blockdev", "driver=null,size=1G,node-name=n0",
                          "--blockdev={\"driver\": \"null\", \"size\": \"1M\", \"node-name\": \"n1\"}",
                          "--iothread", "id=io0",
                          "--nbd-server", "addr.type=unix,addr.path=/tmp/x.sock",
                          "--nbd-server=addr.type=inet,addr.host=127.0.0.1,addr.port=10809",
                          "--export", "type=nbd,id=e0,node-name=n0,name=disk,writable=on,iothread=io0",
                          "--export", "type=nbd,id=e1,node-name=n1,write-iolog=/tmp/e1.log"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->blockdevs.size(), 2u);
  EXPECT_EQ(c->blockdevs[1].node_name, "n1");
  ASSERT_EQ(c->nbd_servers.size(), 2u);
  EXPECT_EQ(c->nbd_servers[0].path, "/tmp/x.sock");
  EXPECT_EQ(c->nbd_servers[1].type, NbdServerConfig::Type::kInet);
  EXPECT_EQ(c->nbd_servers[1].port, "10809");
  ASSERT_EQ(c->exports.size(), 2u);
  EXPECT_EQ(c->exports[0].name, "disk");
  EXPECT_TRUE(c->exports[0].writable);
  EXPECT_EQ(c->exports[0].iothread, "io0");
  EXPECT_EQ(c->exports[1].name, "n1");  // name defaults to the node-name
  EXPECT_FALSE(c->exports[1].writable);  // read-only by default
  EXPECT_EQ(c->exports[0].write_iolog, "");
  EXPECT_EQ(c->exports[1].write_iolog, "/tmp/e1.log");
}

void ExpectError(std::vector<std::string> a, const std::string& part) {
  Expected<Config> c = P(a);
  ASSERT_FALSE(c.ok()) << part;
  EXPECT_NE(c.error().message.find(part), std::string::npos) << c.error().message;
}

TEST(DaemonConfig, ErrorsNameOptionAndKey) {
  const std::string bd = "driver=null,size=1M,node-name=n0";
  const std::string srv = "addr.type=unix,addr.path=/tmp/s";
  ExpectError({"--blockdev", "driver=null,size=1M"}, "--blockdev (argument 1): node-name=");
  ExpectError({"--blockdev", "driver=nosuch,node-name=a"}, "nosuch");
  ExpectError({"--blockdev", bd, "--blockdev", bd}, "duplicate node-name 'n0'");
  ExpectError({"--blockdev", bd, "--nbd-server", srv, "--export", "type=nbd,id=e,node-name=zz"},
              "--export (argument 5): no --blockdev has node-name 'zz'");
  ExpectError({"--blockdev", bd, "--nbd-server", srv, "--export",
               "type=nbd,id=e,node-name=n0,colour=red"},
              "unknown key 'colour'");
  ExpectError({"--blockdev", bd, "--nbd-server", srv, "--export",
               "type=nbd,id=e,node-name=n0,writable=maybe"},
              "writable must be on or off, not 'maybe'");
  ExpectError({"--blockdev", bd, "--nbd-server", srv, "--export", "type=vduse-blk,id=e,node-name=n0"},
              "type must be nbd or vhost-user-blk, not 'vduse-blk'");
  ExpectError({"--blockdev", bd, "--nbd-server", srv, "--export",
               "type=nbd,id=e,node-name=n0,iothread=nope"},
              "no --iothread has id 'nope'");
  ExpectError({"--blockdev", bd, "--export", "type=nbd,id=e,node-name=n0"}, "needs an --nbd-server");
  ExpectError({"--nbd-server", "addr.type=vsock"}, "addr.type must be unix or inet");
  ExpectError({"--nbd-server", "addr.type=unix"}, "needs addr.path");
  ExpectError({"--iothread"}, "--iothread (argument 1): needs a value");
  ExpectError({"--frobnicate=1"}, "--frobnicate (argument 1): unknown option");
  ExpectError({"stray"}, "unexpected argument");
}

TEST(DaemonConfig, VhostUserBlkExport) {
  // qemu-storage-daemon's spelling; no --nbd-server needed.
  Expected<Config> c = P({"--blockdev", "driver=null,size=1M,node-name=n0", "--iothread",
                          "id=io0", "--export",
                          "type=vhost-user-blk,id=v0,node-name=n0,addr.type=unix,"
                          "addr.path=/tmp/v.sock,writable=on,iothread=io0,num-queues=4,"
                          "write-iolog=/tmp/g.log"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->exports.size(), 1u);
  const ExportConfig& e = c->exports[0];
  EXPECT_EQ(e.type, ExportConfig::Type::kVhostUserBlk);
  EXPECT_EQ(e.addr_path, "/tmp/v.sock");
  EXPECT_EQ(e.num_queues, 4u);
  EXPECT_TRUE(e.writable);
  EXPECT_EQ(e.iothread, "io0");
  EXPECT_EQ(e.write_iolog, "/tmp/g.log");
  c = P({"--blockdev", "driver=null,size=1M,node-name=n0", "--export",
         "type=vhost-user-blk,id=v0,node-name=n0,addr.type=unix,addr.path=/tmp/v.sock"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->exports[0].num_queues, 1u);
  EXPECT_FALSE(c->exports[0].writable);
}

TEST(DaemonConfig, VhostUserBlkErrors) {
  const std::string bd = "driver=null,size=1M,node-name=n0";
  const std::string v = "type=vhost-user-blk,id=v0,node-name=n0,";
  ExpectError({"--blockdev", bd, "--export", v + "addr.path=/tmp/s"},
              "--export (argument 3): type=vhost-user-blk needs addr.type=unix, not ''");
  ExpectError({"--blockdev", bd, "--export", v + "addr.type=inet,addr.path=/tmp/s"},
              "needs addr.type=unix, not 'inet'");
  ExpectError({"--blockdev", bd, "--export", v + "addr.type=unix"}, "needs addr.path=");
  for (const char* n : {"0", "65", "-1", "x", "", "99999999999999999999"}) {
    ExpectError({"--blockdev", bd, "--export", v + "addr.type=unix,addr.path=/s,num-queues=" + n},
                "num-queues must be 1..64, not '" + std::string(n) + "'");
  }
  // NBD's keys are not vhost-user-blk's.
  ExpectError({"--blockdev", bd, "--export", v + "addr.type=unix,addr.path=/s,name=x"},
              "unknown key 'name'");
  ExpectError({"--blockdev", bd, "--blockdev", "driver=null,size=1M,node-name=n1", "--export",
               v + "addr.type=unix,addr.path=/s", "--export",
               "type=vhost-user-blk,id=v1,node-name=n1,addr.type=unix,addr.path=/s"},
              "duplicate addr.path '/s'");
}

TEST(DaemonConfig, Help) {
  Expected<Config> c = P({"--help"});
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->help);
  EXPECT_NE(HelpText().find("--export type=nbd"), std::string::npos);
  EXPECT_NE(HelpText().find("--export type=vhost-user-blk"), std::string::npos);
}

}  // namespace
}  // namespace blk::storage_daemon
