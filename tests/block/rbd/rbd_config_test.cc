// Tests of the rbd driver's configuration (block/rbd/rbd_config.h): the
// `rbd:` filename form, option combinations and the registry's pass-through
// of `rados.*` keys.  No cluster needed.
#include <blkstack/block/rbd/rbd_config.h>

#include <gtest/gtest.h>

#include <blkstack/block/registry.h>

namespace blk {
namespace {

Expected<RbdConfig> Make(const std::string& spec, bool read_only = false,
                         std::map<std::string, std::string> pass = {}) {
  auto o = Options::Parse(spec);
  EXPECT_TRUE(o.ok());
  Options own = o.value();
  Options rados = own.TakeSubtree("rados");
  for (const auto& k : rados.Keys()) pass.emplace("rados." + k, *rados.Get(k));
  auto p = ValidateOptions("rbd", RbdOptionsSchema(), {}, own);
  if (!p.ok()) return p.error();
  return MakeRbdConfig(p.value(), pass, read_only);
}

TEST(RbdFilename, PoolImage) {
  RbdConfig c;
  ASSERT_TRUE(ParseRbdFilename("rbd:rbd/test", &c).ok());
  EXPECT_EQ(c.pool, "rbd");
  EXPECT_EQ(c.image, "test");
  EXPECT_EQ(c.ns, "");
  EXPECT_EQ(c.snapshot, "");
}

TEST(RbdFilename, NamespaceSnapshotAndKeys) {
  RbdConfig c;
  ASSERT_TRUE(ParseRbdFilename("rbd:p/ns/img@s1:id=bob:conf=/etc/x.conf:rbd_cache=false:"
                               "mon_host=127.0.0.1\\:6789",
                               &c)
                  .ok());
  EXPECT_EQ(c.pool, "p");
  EXPECT_EQ(c.ns, "ns");
  EXPECT_EQ(c.image, "img");
  EXPECT_EQ(c.snapshot, "s1");
  EXPECT_EQ(c.user, "bob");
  EXPECT_EQ(c.conf, "/etc/x.conf");
  ASSERT_EQ(c.rados.size(), 2u);
  EXPECT_EQ(c.rados[0], std::make_pair(std::string("rbd_cache"), std::string("false")));
  EXPECT_EQ(c.rados[1], std::make_pair(std::string("mon_host"), std::string("127.0.0.1:6789")));
  EXPECT_EQ(c.Name(), "p/ns/img@s1");
}

TEST(RbdFilename, EscapedSeparators) {
  RbdConfig c;
  ASSERT_TRUE(ParseRbdFilename("rbd:po\\/ol/im\\@g\\:x", &c).ok());
  EXPECT_EQ(c.pool, "po/ol");
  EXPECT_EQ(c.image, "im@g:x");
}

TEST(RbdFilename, Errors) {
  for (const char* bad : {"rbd/test", "rbd:", "rbd:test", "rbd:a/b/c/d", "rbd:/img", "rbd:p/",
                          "rbd:p/i@", "rbd:p/i:novalue", "rbd:p/i:=v"}) {
    RbdConfig c;
    auto r = ParseRbdFilename(bad, &c);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, -EINVAL);
      EXPECT_NE(r.error().message.find(bad), std::string::npos) << r.error().message;
    }
  }
}

TEST(RbdConfig, Defaults) {
  auto c = Make("pool=rbd,image=test");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->completion, RbdCompletion::kEventfd);
  EXPECT_TRUE(c->write_cache);
  EXPECT_EQ(c->osd_op_timeout_s, 0);
  EXPECT_EQ(c->connect_timeout_s, 30);
  EXPECT_EQ(c->max_transfer, 0u);
}

TEST(RbdConfig, AllOptions) {
  auto c = Make("pool=p,namespace=n,image=i,snapshot=s,user=u,conf=/c,completion=poll,"
                "write-cache=off,osd-op-timeout=5,connect-timeout=3,close-timeout=4,"
                "max-transfer=4M,rados.ms_async_op_threads=4",
                true);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->Name(), "p/n/i@s");
  EXPECT_EQ(c->user, "u");
  EXPECT_EQ(c->conf, "/c");
  EXPECT_EQ(c->completion, RbdCompletion::kPoll);
  EXPECT_FALSE(c->write_cache);
  EXPECT_EQ(c->osd_op_timeout_s, 5);
  EXPECT_EQ(c->connect_timeout_s, 3);
  EXPECT_EQ(c->close_timeout_s, 4);
  EXPECT_EQ(c->max_transfer, 4u << 20);
  ASSERT_EQ(c->rados.size(), 1u);
  EXPECT_EQ(c->rados[0].first, "ms_async_op_threads");
}

TEST(RbdConfig, Errors) {
  struct Case {
    std::string spec;
    bool ro;
    std::string want;
  } cases[] = {
      {"image=i", false, "missing required option 'pool'"},
      {"pool=p", false, "missing required option 'image'"},
      {"filename=rbd:p/i,pool=p", false, "'pool' cannot be combined with option 'filename'"},
      {"filename=rbd:p/i,image=i", false, "'image' cannot be combined"},
      {"filename=nope", false, "filename 'nope'"},
      {"pool=p,image=i,snapshot=s", false, "can only be opened read-only"},
      {"filename=rbd:p/i@s", false, "can only be opened read-only"},
      {"pool=p,image=i,completion=epoll", false, "completion"},
      {"pool=p,image=i,write-cache=maybe", false, "write-cache"},
      {"pool=p,image=i,osd-op-timeout=-1", false, "osd-op-timeout"},
      {"pool=p,image=i,connect-timeout=0", false, "connect-timeout"},
      {"pool=p,image=i,bogus=1", false, "unknown option 'bogus'"},
  };
  for (const auto& c : cases) {
    auto r = Make(c.spec, c.ro);
    ASSERT_FALSE(r.ok()) << c.spec;
    EXPECT_EQ(r.error().code, -EINVAL) << c.spec;
    EXPECT_NE(r.error().message.find(c.want), std::string::npos)
        << c.spec << ": " << r.error().message;
  }
}

// Through the registry: rados.* keys are not rejected by the schema
// validator, but a bare `rados` key is; errors come before any connection.
TEST(RbdRegistry, PassThroughAndEarlyErrors) {
  ASSERT_NE(FindDriver("rbd"), nullptr);
  AioContext ctx;
  auto r = OpenBackend(ctx, "driver=rbd,pool=p,image=i,snapshot=s,rados.ms_async_op_threads=4");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("read-only"), std::string::npos) << r.error().message;
  r = OpenBackend(ctx, "driver=rbd,pool=p,image=i,rados=1,read-only=on");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unknown option 'rados'"), std::string::npos)
      << r.error().message;
  EXPECT_NE(DriversHelp().find("osd-op-timeout"), std::string::npos);
}

}  // namespace
}  // namespace blk
