// I/O through driver=rados against the test cluster (CEPH_CONF): one RADOS
// object as a device — round trips (single and vectored), reads past the
// object's end and of a missing object as zeros, discard and write-zeroes,
// many requests in flight, touch=, read-only, and the option errors.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/block/rbd/rbd_test_util.h"

namespace blk::rbdtest {
namespace {

constexpr uint64_t kMiB = 1 << 20;

// A scratch object name, removed (if it was created) when the test ends.
class ScratchObject {
 public:
  explicit ScratchObject(const std::string& base) : name_(UniqueName(base)) {}
  ~ScratchObject() { rados_remove(SharedAdmin().io(), name_.c_str()); }
  const std::string& name() const { return name_; }
  std::string Spec(uint64_t size, const std::string& extra = "") const {
    return "driver=rados,pool=rbd,object=" + name_ + ",size=" + std::to_string(size) + extra;
  }
  // The object's size, or a negative errno (-ENOENT: it does not exist).
  int64_t Stat() const {
    uint64_t size = 0;
    time_t mtime;
    const int r = rados_stat(SharedAdmin().io(), name_.c_str(), &size, &mtime);
    return r < 0 ? r : int64_t(size);
  }

 private:
  std::string name_;
};

class RadosIoTest : public ::testing::Test {
 protected:
  std::unique_ptr<BlockBackend> Open(const std::string& spec, const OpenFlags& flags = {}) {
    auto b = OpenBackend(ctx_, spec, flags);
    EXPECT_TRUE(b.ok()) << spec << ": " << (b.ok() ? "" : b.error().message);
    return b.ok() ? std::move(b.value()) : nullptr;
  }
  std::string OpenError(const std::string& spec) {
    auto b = OpenBackend(ctx_, spec);
    EXPECT_FALSE(b.ok()) << spec;
    return b.ok() ? "" : b.error().message;
  }
  AioContext ctx_;
};

TEST_F(RadosIoTest, RoundTripsAndZerosPastTheObjectsEnd) {
  RBD_REQUIRE_CLUSTER();
  ScratchObject obj("rados-rt");
  auto b = Open(obj.Spec(16 * kMiB));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->length(), 16 * kMiB);
  EXPECT_EQ(obj.Stat(), -ENOENT);  // touch is off by default: nothing yet
  // A missing object reads as zeros.
  std::vector<uint8_t> back;
  ASSERT_EQ(Read(*b, 0, &back, 8192), 0);
  EXPECT_EQ(back, std::vector<uint8_t>(8192, 0));
  auto data = Pattern(65536 + 123, 1);
  ASSERT_EQ(Write(*b, kMiB + 511, data), 0);
  EXPECT_EQ(obj.Stat(), int64_t(kMiB + 511 + data.size()));  // as long as its furthest write
  ASSERT_EQ(Read(*b, kMiB + 511, &back, data.size()), 0);
  EXPECT_TRUE(back == data);
  // A read across the object's end: the data, then zeros.
  ASSERT_EQ(Read(*b, kMiB + 511 + data.size() - 100, &back, 4096), 0);
  EXPECT_TRUE(std::equal(back.begin(), back.begin() + 100, data.end() - 100));
  EXPECT_EQ(std::vector<uint8_t>(back.begin() + 100, back.end()), std::vector<uint8_t>(3996, 0));
  ASSERT_EQ(Sync(ctx_, b->flush()), 0);
}

TEST_F(RadosIoTest, VectoredRequestsGoThroughOneBuffer) {
  RBD_REQUIRE_CLUSTER();
  ScratchObject obj("rados-vec");
  auto b = Open(obj.Spec(4 * kMiB));
  ASSERT_TRUE(b);
  auto a = Pattern(4096, 2), c = Pattern(12288, 3);
  IoVec w;
  w.add(a.data(), a.size());
  w.add(c.data(), c.size());
  ASSERT_EQ(Sync(ctx_, b->write(8192, w)), 0);
  std::vector<uint8_t> x(8192, 0xEE), y(8192, 0xEE);
  IoVec r;
  r.add(x.data(), x.size());
  r.add(y.data(), y.size());
  ASSERT_EQ(Sync(ctx_, b->read(8192, r)), 0);
  std::vector<uint8_t> want = a;
  want.insert(want.end(), c.begin(), c.end());
  std::vector<uint8_t> got = x;
  got.insert(got.end(), y.begin(), y.end());
  EXPECT_TRUE(got == want);
}

TEST_F(RadosIoTest, DiscardAndWriteZeroesReadAsZeros) {
  RBD_REQUIRE_CLUSTER();
  ScratchObject obj("rados-zero");
  auto b = Open(obj.Spec(4 * kMiB));
  ASSERT_TRUE(b);
  auto data = Pattern(kMiB, 4);
  ASSERT_EQ(Write(*b, 0, data), 0);
  ASSERT_EQ(Sync(ctx_, b->discard(4096, 8192)), 0);
  ASSERT_EQ(Sync(ctx_, b->write_zeroes(65536, 4096)), 0);
  std::vector<uint8_t> back;
  ASSERT_EQ(Read(*b, 0, &back, kMiB), 0);
  std::vector<uint8_t> want = data;
  std::fill(want.begin() + 4096, want.begin() + 12288, 0);
  std::fill(want.begin() + 65536, want.begin() + 69632, 0);
  EXPECT_TRUE(back == want);
  // Zeroing a missing object succeeds (it already reads as zeros).
  ScratchObject none("rados-none");
  auto n = Open(none.Spec(kMiB));
  ASSERT_TRUE(n);
  EXPECT_EQ(Sync(ctx_, n->discard(0, 4096)), 0);
}

TEST_F(RadosIoTest, ManyRequestsInFlight) {
  RBD_REQUIRE_CLUSTER();
  ScratchObject obj("rados-qd");
  auto b = Open(obj.Spec(8 * kMiB));
  ASSERT_TRUE(b);
  constexpr int kN = 32;
  std::vector<std::vector<uint8_t>> data(kN), back(kN, std::vector<uint8_t>(65536));
  std::vector<IoVec> w(kN), r(kN);
  for (int i = 0; i < kN; i++) {
    data[i] = Pattern(65536, 10 + i);
    w[i] = IoVec(data[i].data(), 65536);
    r[i] = IoVec(back[i].data(), 65536);
  }
  auto all = [&](std::function<Task<Status>(int)> make) {
    int done = 0, err = 0;
    auto one = [](Task<Status> t, int* d, int* e) -> Task<void> {
      Status s = co_await std::move(t);
      if (!s.ok() && *e == 0) *e = s.error();
      ++*d;
    };
    for (int i = 0; i < kN; ++i) Spawn(ctx_, one(make(i), &done, &err));
    ctx_.run_until([&] { return done == kN; });
    return err;
  };
  ASSERT_EQ(all([&](int i) { return b->write(uint64_t(i) * 65536, w[i]); }), 0);
  ASSERT_EQ(all([&](int i) { return b->read(uint64_t(i) * 65536, r[i]); }), 0);
  for (int i = 0; i < kN; i++) EXPECT_TRUE(back[i] == data[i]) << i;
  EXPECT_EQ(Counter(*b, "rados_submitted"), uint64_t(2 * kN));
}

TEST_F(RadosIoTest, TouchCreatesTheObjectAndReadOnlyRefusesWrites) {
  RBD_REQUIRE_CLUSTER();
  ScratchObject obj("rados-touch");
  {
    auto b = Open(obj.Spec(kMiB, ",touch=on"), OpenFlags{.read_only = true});
    ASSERT_TRUE(b);
    EXPECT_EQ(obj.Stat(), 0);  // created, empty
    EXPECT_EQ(Counter(*b, "rados_touched"), 1u);
    auto data = Pattern(4096, 5);
    EXPECT_EQ(Write(*b, 0, data), -EPERM);
  }
  EXPECT_EQ(obj.Stat(), 0);  // the object stays after close
}

// Devices with the same connection= name share one connection until the
// last closes; another name, or none, connects anew.  Each device's I/O
// still completes on its own.
TEST_F(RadosIoTest, DevicesOfOneConnectionNameShareIt) {
  RBD_REQUIRE_CLUSTER();
  ScratchObject o1("rados-c1"), o2("rados-c2"), o3("rados-c3");
  const std::string group = ",connection=" + UniqueName("g");
  auto a = Open(o1.Spec(kMiB, group));
  auto b = Open(o2.Spec(kMiB, group));
  auto c = Open(o3.Spec(kMiB));
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(Counter(*a, "rados_connection_users"), 2u);
  EXPECT_EQ(Counter(*b, "rados_connection_users"), 2u);
  EXPECT_EQ(Counter(*c, "rados_connection_users"), 1u);
  auto d1 = Pattern(4096, 7), d2 = Pattern(4096, 8);
  ASSERT_EQ(Write(*a, 0, d1), 0);
  ASSERT_EQ(Write(*b, 0, d2), 0);
  std::vector<uint8_t> back;
  ASSERT_EQ(Read(*a, 0, &back, 4096), 0);
  EXPECT_TRUE(back == d1);
  ASSERT_EQ(Read(*b, 0, &back, 4096), 0);
  EXPECT_TRUE(back == d2);
  a.reset();
  EXPECT_EQ(Counter(*b, "rados_connection_users"), 1u);
  ASSERT_EQ(Read(*b, 0, &back, 4096), 0);  // still connected
  EXPECT_TRUE(back == d2);
}

TEST_F(RadosIoTest, OptionErrorsNameWhatIsWrong) {
  RBD_REQUIRE_CLUSTER();
  EXPECT_NE(OpenError("driver=rados,object=o,size=1M").find("missing required option 'pool'"),
            std::string::npos);
  EXPECT_NE(OpenError("driver=rados,pool=rbd,size=1M").find("missing required option 'object'"),
            std::string::npos);
  EXPECT_NE(OpenError("driver=rados,pool=rbd,object=o").find("missing required option 'size'"),
            std::string::npos);
  const std::string pool = UniqueName("nopool");
  const std::string e = OpenError("driver=rados,pool=" + pool + ",object=o,size=1M");
  EXPECT_NE(e.find("driver 'rados': cannot open pool '" + pool + "'"), std::string::npos) << e;
  EXPECT_NE(e.find("(no such pool)"), std::string::npos) << e;
  const std::string c = OpenError("driver=rados,pool=rbd,object=o,size=1M,conf=/nonexistent.conf");
  EXPECT_NE(c.find("cannot read Ceph config 'conf=/nonexistent.conf'"), std::string::npos) << c;
}

}  // namespace
}  // namespace blk::rbdtest
