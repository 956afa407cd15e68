// One connection to a Ceph cluster and an I/O context on one pool, as the
// rbd and rados drivers open them: the cephx user (and cluster name), the
// ceph.conf, the timeouts and the user's librados settings, with errors that
// name the driver, the resource and the errno.
//
// Thread-safety: ConnectCeph() and CloseCeph() block (bounded by the
// connect timeout) and may run on any thread; a CephConnection is used by
// one driver.
#pragma once

#include <rados/librados.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <blkstack/block/option_schema.h>
#include <blkstack/block/rbd/ceph_api.h>
#include <blkstack/util/result.h>

namespace blk {

struct CephConnectArgs {
  std::string driver;   // for messages: "rbd", "rados"
  std::string user;     // cephx id ("admin"), or a full TYPE.ID with cluster; empty: default
  std::string cluster;  // cluster name (rados_create2); empty: librados' default ("ceph")
  std::string conf;     // ceph.conf path; empty: librados' search (CEPH_CONF)
  std::string pool;
  std::string ns;       // RADOS namespace; empty: none
  int64_t connect_timeout_s = 30;
  int64_t osd_op_timeout_s = 0;  // 0: wait forever
  // Settings applied after the timeouts (the driver's own), then the user's
  // rados.KEY=VALUE settings (KEY without "rados.").
  std::vector<std::pair<std::string, std::string>> settings;
  std::vector<std::pair<std::string, std::string>> rados;
};

struct CephConnection {
  const CephApi* api = nullptr;
  rados_t cluster = nullptr;
  rados_ioctx_t io = nullptr;
};

// The options of a connection both drivers take: user, cluster, conf,
// osd-op-timeout, connect-timeout, close-timeout (appended to `schema`).
void AppendCephConnectOptions(std::vector<OptionSpec>* schema);

// Connects and opens the pool (and namespace).  On failure nothing stays
// open; the error starts with "driver 'DRIVER': " and says what failed.
Expected<CephConnection> ConnectCeph(const CephConnectArgs& a);

// Destroys the I/O context and shuts the connection down (either may be
// null).
void CloseCeph(const CephConnection& c);

// A connection the holders share: every call with the same non-empty
// `group` and the same arguments returns the same connection while any
// holder keeps it (fio's rados engine: one connection for all the objects
// of a job); an empty group always connects anew.  The last holder closes
// it, waiting at most `close_timeout_s` (RunBounded).  Thread-safe; opens
// of shared connections run one at a time.
Expected<std::shared_ptr<const CephConnection>> ConnectCephShared(const CephConnectArgs& a,
                                                                  const std::string& group,
                                                                  int64_t close_timeout_s);

// Runs `work` (closing handles) on a helper thread and waits at most
// `timeout_s`: librbd and librados can wait forever for a dead OSD.  On
// time-out it says so on stderr ("WHAT did not finish in Ns (cluster
// unreachable?); abandoning its handles") and leaves the thread running
// detached, so that a close never hangs.
void RunBounded(std::function<void()> work, int64_t timeout_s, const std::string& what);

// The user's name for messages: USER, or "admin".
inline std::string CephUserName(const std::string& user) { return user.empty() ? "admin" : user; }

}  // namespace blk
