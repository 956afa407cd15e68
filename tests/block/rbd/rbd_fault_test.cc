// Fault test: the cluster's only OSD is killed (SIGKILL) while the driver
// writes, then restarted (scripts/ceph/cluster.sh osd-kill / osd-restart).
//  * With osd-op-timeout the stalled requests fail with -ETIMEDOUT, and close
//    does not hang.
//  * Without a timeout the requests wait and complete once the OSD is back.
//  * Every write acknowledged and then flushed reads back intact afterwards.
// The test starts a cluster of its own (cluster.sh start in a fresh
// directory, stopped at the end) whenever Ceph's daemons are installed, so
// it never kills the daemons of a cluster other tests use and runs beside
// them; without ceph-mon it falls back to CEPH_CONF's cluster (and skips
// loudly without one).  Outside the sandbox (tag "local"): it starts and
// signals daemons.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/block/rbd/rbd_test_util.h"

namespace blk::rbdtest {
namespace {

constexpr uint64_t kBlock = 64 * 1024;

std::string ClusterScript() {
  if (const char* s = std::getenv("BLK_CEPH_CLUSTER_SH")) return s;
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  if (srcdir && ws) return std::string(srcdir) + "/" + ws + "/scripts/ceph/cluster.sh";
  return "scripts/ceph/cluster.sh";
}

std::string ClusterDir() {
  std::string conf = CephConf();
  return conf.substr(0, conf.rfind('/'));
}

int Cluster(const std::string& cmd) {
  std::string line = "bash '" + ClusterScript() + "' " + cmd + " '" + ClusterDir() + "'";
  int st = std::system(line.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// A cluster for this test alone: started before the first test, stopped
// after the last; CEPH_CONF points at it in between.
class PrivateCluster : public ::testing::Environment {
 public:
  void SetUp() override {
    if (std::system("command -v ceph-mon >/dev/null 2>&1") != 0) {
      std::printf("no ceph-mon installed: using the cluster of CEPH_CONF, if any\n");
      return;
    }
    char dir[] = "/tmp/blkstack-fault-ceph.XXXXXX";  // short: socket paths
    if (!mkdtemp(dir)) {
      std::perror("mkdtemp");
      return;
    }
    dir_ = dir;
    const std::string line = "bash '" + ClusterScript() + "' start '" + dir_ + "' >/dev/null";
    if (std::system(line.c_str()) != 0) {
      std::printf("cluster.sh start %s failed\n", dir_.c_str());
      return;  // the tests then fail (or skip) through RBD_REQUIRE_CLUSTER
    }
    setenv("CEPH_CONF", (dir_ + "/ceph.conf").c_str(), 1);
  }
  void TearDown() override {
    if (dir_.empty()) return;
    const std::string line = "bash '" + ClusterScript() + "' stop '" + dir_ + "' >/dev/null";
    if (std::system(line.c_str()) != 0) std::printf("cluster.sh stop %s failed\n", dir_.c_str());
    std::filesystem::remove_all(dir_);
  }

 private:
  std::string dir_;
};

::testing::Environment* const kPrivateCluster =
    ::testing::AddGlobalTestEnvironment(new PrivateCluster);

// Restarts the OSD at scope exit if a test left it dead.
struct OsdGuard {
  bool killed = false;
  void Kill() {
    ASSERT_EQ(Cluster("osd-kill"), 0);
    killed = true;
  }
  void Restart() {
    ASSERT_EQ(Cluster("osd-restart"), 0);
    killed = false;
  }
  ~OsdGuard() {
    if (killed) Cluster("osd-restart");
  }
};

// Runs the loop until `done` or `deadline_ms` passes; returns whether done.
template <class Pred>
bool RunFor(AioContext& ctx, int64_t deadline_ms, Pred done) {
  Timer tick(ctx, [] {});
  while (!done()) {
    if (NowMs() >= deadline_ms) return false;
    tick.arm_in(100 * 1000000LL);
    ctx.run_once(true);
  }
  return true;
}

struct Batch {
  int done = 0;
  std::vector<int> results;
  std::vector<int64_t> finished_ms;
};

// Submits writes of block i (for i in `blocks`) from iovs[i]; results land
// in `batch`.
void SubmitWrites(BlockBackend& b, std::vector<IoVec>& iovs, const std::vector<int>& blocks,
                  Batch* batch) {
  batch->results.assign(blocks.size(), 1);
  batch->finished_ms.assign(blocks.size(), 0);
  auto one = [](BlockBackend* b, uint64_t off, const IoVec* iov, int* res, int64_t* when,
                int* done) -> Task<void> {
    Status s = co_await b->write(off, *iov);
    *res = s.error();
    *when = NowMs();
    ++*done;
  };
  for (size_t k = 0; k < blocks.size(); ++k) {
    int i = blocks[k];
    Spawn(b.ctx(), one(&b, i * kBlock, &iovs[i], &batch->results[k], &batch->finished_ms[k],
                       &batch->done));
  }
}

class RbdFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < kBlocks; ++i) {
      data_.push_back(Pattern(kBlock, 1000 + i));
    }
    for (int i = 0; i < kBlocks; ++i) iovs_.emplace_back(data_[i].data(), kBlock);
  }

  // Reads every block through a fresh open and checks those in `flushed`.
  void VerifyFlushed(const std::string& spec, const std::vector<int>& flushed) {
    AioContext ctx;
    auto b = OpenBackend(ctx, spec + ",osd-op-timeout=60");
    ASSERT_TRUE(b.ok()) << b.error().message;
    for (int i : flushed) {
      std::vector<uint8_t> back;
      ASSERT_EQ(Read(*b.value(), i * kBlock, &back, kBlock), 0) << "block " << i;
      EXPECT_TRUE(back == data_[i]) << "acknowledged and flushed block " << i << " differs";
    }
  }

  static constexpr int kBlocks = 64;
  std::vector<std::vector<uint8_t>> data_;
  std::vector<IoVec> iovs_;
};

TEST_F(RbdFaultTest, TimeoutReportsErrorAndFlushedDataSurvives) {
  RBD_REQUIRE_CLUSTER();
  ScratchImage img("fault-to", kBlocks * kBlock);
  ASSERT_EQ(img.rc(), 0);
  OsdGuard osd;
  std::vector<int> flushed;
  {
    AioContext ctx;
    auto r = OpenBackend(ctx, img.Spec(",osd-op-timeout=5,close-timeout=20"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    auto& b = *r.value();
    std::vector<int> first;
    for (int i = 0; i < 16; ++i) first.push_back(i);
    Batch b1;
    SubmitWrites(b, iovs_, first, &b1);
    ASSERT_TRUE(RunFor(ctx, NowMs() + 30000, [&] { return b1.done == 16; }));
    for (int res : b1.results) ASSERT_EQ(res, 0);
    ASSERT_EQ(Sync(ctx, b.flush()), 0);
    flushed = first;

    osd.Kill();
    int64_t t0 = NowMs();
    std::vector<int> second;
    for (int i = 16; i < 32; ++i) second.push_back(i);
    Batch b2;
    SubmitWrites(b, iovs_, second, &b2);
    Status fl;
    bool flush_done = false;
    auto do_flush = [](BlockBackend* b, Status* s, bool* d) -> Task<void> {
      *s = co_await b->flush();
      *d = true;
    };
    Spawn(ctx, do_flush(&b, &fl, &flush_done));
    // Cache on (default): the writes may be acknowledged into the cache, but
    // the flush cannot reach the dead OSD and must time out.
    ASSERT_TRUE(RunFor(ctx, NowMs() + 60000, [&] { return b2.done == 16 && flush_done; }))
        << "requests did not fail within 60 s despite osd-op-timeout=5";
    int64_t ms = NowMs() - t0;
    std::printf("with osd-op-timeout=5: flush -> %d after %lld ms\n", fl.error(), (long long)ms);
    EXPECT_EQ(fl.error(), -ETIMEDOUT);
    EXPECT_GE(ms, 4000);
    int64_t c0 = NowMs();
    r.value().reset();  // close with the OSD still down: bounded, no hang
    std::printf("close with the OSD down took %lld ms\n", (long long)(NowMs() - c0));
    EXPECT_LT(NowMs() - c0, 30000);
  }
  osd.Restart();
  VerifyFlushed(img.Spec(), flushed);
}

TEST_F(RbdFaultTest, NoTimeoutResumesAfterRestart) {
  RBD_REQUIRE_CLUSTER();
  ScratchImage img("fault-resume", kBlocks * kBlock);
  ASSERT_EQ(img.rc(), 0);
  OsdGuard osd;
  std::vector<int> flushed;
  for (const char* cache : {"off", "on"}) {
    SCOPED_TRACE(std::string("write-cache=") + cache);
    AioContext ctx;
    auto r = OpenBackend(ctx, img.Spec(std::string(",write-cache=") + cache));
    ASSERT_TRUE(r.ok()) << r.error().message;
    auto& b = *r.value();
    int base = std::string(cache) == "off" ? 0 : 32;
    std::vector<int> first, second;
    for (int i = base; i < base + 16; ++i) first.push_back(i);
    for (int i = base + 16; i < base + 32; ++i) second.push_back(i);
    Batch b1;
    SubmitWrites(b, iovs_, first, &b1);
    ASSERT_TRUE(RunFor(ctx, NowMs() + 30000, [&] { return b1.done == 16; }));
    for (int res : b1.results) ASSERT_EQ(res, 0);
    ASSERT_EQ(Sync(ctx, b.flush()), 0);
    flushed.insert(flushed.end(), first.begin(), first.end());

    osd.Kill();
    Batch b2;
    SubmitWrites(b, iovs_, second, &b2);
    Status fl;
    bool flush_done = false;
    auto do_flush = [](BlockBackend* b, Batch* w, Status* s, bool* d) -> Task<void> {
      // Flush after the writes were acknowledged (cache on) or while they
      // are still stalled (cache off): either way it covers them.
      *s = co_await b->flush();
      *d = true;
      (void)w;
    };
    Spawn(ctx, do_flush(&b, &b2, &fl, &flush_done));
    // Nothing can become durable while the OSD is dead.
    RunFor(ctx, NowMs() + 3000, [] { return false; });
    EXPECT_FALSE(flush_done) << "flush completed with the only OSD dead";
    if (std::string(cache) == "off") {
      EXPECT_EQ(b2.done, 0) << "a write completed with the only OSD dead and no cache";
    }
    int64_t restart_begin = NowMs();
    std::thread restarter([&] { osd.Restart(); });
    bool ok = RunFor(ctx, NowMs() + 120000, [&] { return b2.done == 16 && flush_done; });
    restarter.join();
    ASSERT_TRUE(ok) << "I/O did not resume within 120 s of the OSD restart";
    for (int res : b2.results) EXPECT_EQ(res, 0);
    EXPECT_EQ(fl.error(), 0);
    std::printf("write-cache=%s: I/O resumed %lld ms after the restart began\n", cache,
                (long long)(NowMs() - restart_begin));
    if (fl.ok()) flushed.insert(flushed.end(), second.begin(), second.end());
  }
  VerifyFlushed(img.Spec(), flushed);
}

}  // namespace
}  // namespace blk::rbdtest
