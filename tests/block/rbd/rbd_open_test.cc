// Opening driver=rbd: every connection and resource error comes back quickly
// (bounded by connect-timeout) with a message naming the resource, never as
// a hang.  The first tests need no cluster at all.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/block/rbd/rbd_test_util.h"

namespace blk::rbdtest {
namespace {

std::string TmpDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

// Opens `spec`, expects failure with code `code` (0: any) and a message
// containing every string of `want`, within `max_ms`.
void ExpectOpenError(const std::string& spec, int code, std::initializer_list<std::string> want,
                     int64_t max_ms = 15000) {
  AioContext ctx;
  int64_t t0 = NowMs();
  auto r = OpenBackend(ctx, spec);
  int64_t ms = NowMs() - t0;
  ASSERT_FALSE(r.ok()) << spec;
  if (code) {
    EXPECT_EQ(r.error().code, code) << spec << ": " << r.error().message;
  }
  for (const auto& w : want) {
    EXPECT_NE(r.error().message.find(w), std::string::npos)
        << spec << ": message \"" << r.error().message << "\" lacks \"" << w << "\"";
  }
  EXPECT_LE(ms, max_ms) << spec << " took " << ms << " ms";
  std::printf("%s\n  -> %s (%lld ms)\n", spec.c_str(), r.error().message.c_str(), (long long)ms);
}

// The errors found before connecting come at once: 5 s is the bound for a
// loaded sanitized run (the first open also loads Ceph's libraries), far
// below a connect timeout.
TEST(RbdOpenNoCluster, MissingConfFile) {
  ExpectOpenError("driver=rbd,pool=rbd,image=x,conf=/nonexistent/ceph.conf", -ENOENT,
                  {"conf=/nonexistent/ceph.conf"}, 5000);
}

TEST(RbdOpenNoCluster, NothingListening) {
  // A config whose monitor address has nobody behind it.
  std::string conf = TmpDir() + "/nomon.conf";
  {
    std::ofstream f(conf);
    f << "[global]\nmon host = 127.0.0.1:9\nauth client required = none\n"
         "log file =\nadmin socket =\n";
  }
  ExpectOpenError("driver=rbd,pool=rbd,image=x,connect-timeout=2,conf=" + conf, 0,
                  {"cannot connect to the Ceph cluster", conf}, 10000);
}

TEST(RbdOpenNoCluster, NoConfigAnywhere) {
  for (const char* p : {"/etc/ceph/ceph.conf", "./ceph.conf"}) {
    if (access(p, F_OK) == 0) GTEST_SKIP() << "SKIPPED: " << p << " exists";
  }
  std::string saved = CephConf() ? CephConf() : "";
  unsetenv("CEPH_CONF");
  std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
  setenv("HOME", TmpDir().c_str(), 1);
  ExpectOpenError("driver=rbd,pool=rbd,image=x,connect-timeout=2", 0,
                  {"no Ceph config found", "CEPH_CONF"}, 10000);
  if (!saved.empty()) setenv("CEPH_CONF", saved.c_str(), 1);
  setenv("HOME", home.c_str(), 1);
}

TEST(RbdOpenNoCluster, BadOptionsBeforeConnecting) {
  ExpectOpenError("driver=rbd,image=x", -EINVAL, {"'pool'"}, 5000);
  ExpectOpenError("driver=rbd,pool=rbd,image=x,completion=spin", -EINVAL, {"completion"}, 5000);
  ExpectOpenError("driver=rbd,pool=rbd,image=x,snapshot=s", -EINVAL, {"read-only"}, 5000);
  ExpectOpenError("driver=rbd,filename=rbd:only-a-pool", -EINVAL, {"filename"}, 5000);
  ExpectOpenError("driver=rbd,pool=rbd,image=x,rados.no_such_setting=1,conf=/dev/null", -ENOENT,
                  {"rados.no_such_setting", "unknown setting"}, 5000);
}

class RbdOpenTest : public ::testing::Test {};

TEST_F(RbdOpenTest, MissingPool) {
  RBD_REQUIRE_CLUSTER();
  ExpectOpenError("driver=rbd,pool=no-such-pool,image=x,connect-timeout=5", -ENOENT,
                  {"pool 'no-such-pool'", "no such pool"});
}

TEST_F(RbdOpenTest, MissingImage) {
  RBD_REQUIRE_CLUSTER();
  ExpectOpenError("driver=rbd,pool=rbd,image=no-such-image", -ENOENT,
                  {"image 'rbd/no-such-image'", "no such image"});
  ExpectOpenError("driver=rbd,pool=rbd,namespace=no-such-ns,image=x", 0, {"rbd/no-such-ns/x"});
}

TEST_F(RbdOpenTest, MissingSnapshot) {
  RBD_REQUIRE_CLUSTER();
  ScratchImage img("nosnap", 4 << 20);
  ASSERT_EQ(img.rc(), 0);
  ExpectOpenError(img.Spec(",snapshot=nope,read-only=on"), -ENOENT,
                  {img.name() + "@nope", "no such image or snapshot"});
}

TEST_F(RbdOpenTest, UnknownUser) {
  RBD_REQUIRE_CLUSTER();
  ExpectOpenError("driver=rbd,pool=rbd,image=x,user=nobody,connect-timeout=5", 0,
                  {"cannot connect", "user 'nobody'"});
}

TEST_F(RbdOpenTest, WrongKey) {
  RBD_REQUIRE_CLUSTER();
  ExpectOpenError(
      "driver=rbd,pool=rbd,image=x,connect-timeout=5,"
      "rados.key=AQAx+QxrFKkmMhAAscKBkjPpHCHctVoEa6RNBQ==",
      0, {"cannot connect", "authentication"});
}

TEST_F(RbdOpenTest, OpenCloseRepeatedly) {
  RBD_REQUIRE_CLUSTER();
  ScratchImage img("oc", 4 << 20);
  ASSERT_EQ(img.rc(), 0);
  for (const char* mode : {"eventfd", "bh", "poll"}) {
    AioContext ctx;
    int64_t t0 = NowMs();
    auto b = OpenBackend(ctx, img.Spec(std::string(",completion=") + mode));
    ASSERT_TRUE(b.ok()) << b.error().message;
    b.value().reset();
    EXPECT_LT(NowMs() - t0, 10000);
  }
}

}  // namespace
}  // namespace blk::rbdtest
