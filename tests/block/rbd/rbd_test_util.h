// Helpers for the rbd driver's tests: finding the test cluster (CEPH_CONF,
// started by scripts/ceph/cluster.sh), creating and removing scratch images,
// running I/O synchronously, and data patterns.
//
// Without a reachable cluster the tests skip loudly ("SKIPPED: no Ceph
// cluster: <why>"), unless BLK_RBD_REQUIRE_CLUSTER=1 (scripts/test.sh sets
// it), which turns the skip into a failure.
#pragma once

#include <gtest/gtest.h>
#include <rados/librados.h>
#include <rbd/librbd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <blkstack/block/backend.h>
#include <blkstack/block/registry.h>
#include <blkstack/util/aio_context.h>
#include <blkstack/util/iovec.h>
#include <blkstack/util/result.h>
#include <blkstack/util/task.h>

// Sanitizer suppressions for Ceph's libraries: rbd_test_util.cc.

namespace blk::rbdtest {

inline const char* CephConf() {
  const char* c = std::getenv("CEPH_CONF");
  return (c && *c) ? c : nullptr;
}

// A librados connection for test set-up (creating/removing images).
class Admin {
 public:
  // Connects with a short timeout; ok() false and problem() says why.
  Admin() {
    const char* conf = CephConf();
    if (!conf) {
      problem_ = "CEPH_CONF is not set (start one with scripts/ceph/cluster.sh start)";
      return;
    }
    if (access(conf, R_OK) != 0) {
      problem_ = std::string("CEPH_CONF=") + conf + " is not readable";
      return;
    }
    int r = rados_create(&cluster_, nullptr);
    if (r == 0) r = rados_conf_read_file(cluster_, conf);
    if (r == 0) r = rados_conf_set(cluster_, "client_mount_timeout", "10");
    if (r == 0) r = rados_conf_set(cluster_, "rados_mon_op_timeout", "10");
    if (r == 0) r = rados_conf_set(cluster_, "rados_osd_op_timeout", "60");
    if (r == 0) r = rados_connect(cluster_);
    if (r == 0) r = rados_ioctx_create(cluster_, "rbd", &io_);
    if (r < 0) {
      problem_ = std::string("cannot reach the cluster of CEPH_CONF=") + conf + ": " +
                 ErrnoString(r);
      return;
    }
    ok_ = true;
  }
  ~Admin() {
    if (io_) rados_ioctx_destroy(io_);
    if (cluster_) rados_shutdown(cluster_);
  }
  bool ok() const { return ok_; }
  const std::string& problem() const { return problem_; }
  rados_ioctx_t io() const { return io_; }

  // Creates a layering-only image (no exclusive lock: a killed client does
  // not stall the next writer).
  int Create(const std::string& name, uint64_t size) {
    rbd_image_options_t o;
    rbd_image_options_create(&o);
    rbd_image_options_set_uint64(o, RBD_IMAGE_OPTION_FEATURES, RBD_FEATURE_LAYERING);
    rbd_image_options_set_uint64(o, RBD_IMAGE_OPTION_FORMAT, 2);
    int r = rbd_create4(io_, name.c_str(), size, o);
    rbd_image_options_destroy(o);
    return r;
  }
  int Remove(const std::string& name) {
    // Snapshots first.
    rbd_image_t img;
    if (rbd_open(io_, name.c_str(), &img, nullptr) == 0) {
      rbd_snap_info_t snaps[16];
      int max = 16;
      int n = rbd_snap_list(img, snaps, &max);
      for (int i = 0; i < n; ++i) rbd_snap_remove(img, snaps[i].name);
      if (n > 0) rbd_snap_list_end(snaps);
      rbd_close(img);
    }
    return rbd_remove(io_, name.c_str());
  }
  int Snapshot(const std::string& name, const std::string& snap) {
    rbd_image_t img;
    int r = rbd_open(io_, name.c_str(), &img, nullptr);
    if (r < 0) return r;
    r = rbd_snap_create(img, snap.c_str());
    rbd_close(img);
    return r;
  }

 private:
  rados_t cluster_ = nullptr;
  rados_ioctx_t io_ = nullptr;
  bool ok_ = false;
  std::string problem_;
};

// One connection per test binary.
inline Admin& SharedAdmin() {
  static Admin* admin = new Admin();
  return *admin;
}

inline std::string UniqueName(const std::string& base) {
  static std::atomic<int> n{0};
  return "t-" + base + "-" + std::to_string(getpid()) + "-" + std::to_string(n++);
}

// Skips (or, with BLK_RBD_REQUIRE_CLUSTER=1, fails) the current test when
// there is no cluster.  Use as: if (NoCluster()) return;
#define RBD_REQUIRE_CLUSTER()                                                        \
  do {                                                                               \
    auto& admin_ = ::blk::rbdtest::SharedAdmin();                                    \
    if (!admin_.ok()) {                                                              \
      const char* req_ = std::getenv("BLK_RBD_REQUIRE_CLUSTER");                     \
      if (req_ && std::string(req_) == "1") {                                        \
        FAIL() << "no Ceph cluster although BLK_RBD_REQUIRE_CLUSTER=1: "             \
               << admin_.problem();                                                  \
      }                                                                              \
      GTEST_SKIP() << "SKIPPED: no Ceph cluster: " << admin_.problem();              \
    }                                                                                \
  } while (0)

// A scratch image removed when the test ends.
class ScratchImage {
 public:
  ScratchImage(const std::string& base, uint64_t size) : name_(UniqueName(base)) {
    rc_ = SharedAdmin().Create(name_, size);
  }
  ~ScratchImage() {
    if (rc_ == 0) SharedAdmin().Remove(name_);
  }
  int rc() const { return rc_; }
  const std::string& name() const { return name_; }
  // "driver=rbd,pool=rbd,image=NAME" plus `extra` (",k=v,...").
  std::string Spec(const std::string& extra = "") const {
    return "driver=rbd,pool=rbd,image=" + name_ + extra;
  }

 private:
  std::string name_;
  int rc_;
};

// Deterministic pseudo-random bytes.
inline std::vector<uint8_t> Pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  std::mt19937 g(seed);
  for (size_t i = 0; i < n; i += 4) {
    uint32_t x = g();
    std::memcpy(&v[i], &x, std::min<size_t>(4, n - i));
  }
  return v;
}

inline int Sync(AioContext& ctx, Task<Status> t) { return RunSync(ctx, std::move(t)).error(); }

inline int Write(BlockBackend& b, uint64_t off, std::vector<uint8_t>& data) {
  IoVec v(data.data(), data.size());
  return Sync(b.ctx(), b.write(off, v));
}
inline int Read(BlockBackend& b, uint64_t off, std::vector<uint8_t>* out, size_t n) {
  out->assign(n, 0xEE);
  IoVec v(out->data(), n);
  return Sync(b.ctx(), b.read(off, v));
}

// The driver's counter `name` (rbd_*), or UINT64_MAX if absent.
inline uint64_t Counter(BlockBackend& b, const std::string& name) {
  std::vector<DriverCounter> cs;
  b.root().driver().counters(&cs);
  for (const auto& c : cs) {
    if (c.name == name) return c.value;
  }
  return UINT64_MAX;
}

inline int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace blk::rbdtest
