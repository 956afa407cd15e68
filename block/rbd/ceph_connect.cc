#include <blkstack/block/rbd/ceph_connect.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include <blkstack/util/quote.h>

namespace blk {

void RunBounded(std::function<void()> work, int64_t timeout_s, const std::string& what) {
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
  };
  auto shared = std::make_shared<Shared>();
  std::thread t([work = std::move(work), shared] {
    work();
    std::lock_guard<std::mutex> lock(shared->mu);
    shared->done = true;
    shared->cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(shared->mu);
  if (shared->cv.wait_for(lock, std::chrono::seconds(timeout_s), [&] { return shared->done; })) {
    lock.unlock();
    t.join();
    return;
  }
  lock.unlock();
  std::fprintf(stderr, "%s did not finish in %llds (cluster unreachable?); abandoning its handles\n",
               what.c_str(), static_cast<long long>(timeout_s));
  t.detach();
}

void AppendCephConnectOptions(std::vector<OptionSpec>* schema) {
  using T = OptionSpec::Type;
  const OptionSpec options[] = {
      {.name = "user", .type = T::kString,
       .help = "cephx client id (default: admin); with cluster=, a full TYPE.ID (client. added "
               "to a name without a type)"},
      {.name = "cluster", .type = T::kString, .help = "Ceph cluster name (default: librados', ceph)"},
      {.name = "conf", .type = T::kString,
       .help = "ceph.conf path (default: librados' search, honours CEPH_CONF)"},
      {.name = "osd-op-timeout", .type = T::kInt, .default_value = "0", .has_default = true,
       .min = 0, .max = 86400,
       .help = "seconds before an OSD request fails with -ETIMEDOUT (0: wait forever)"},
      {.name = "connect-timeout", .type = T::kInt, .default_value = "30", .has_default = true,
       .min = 1, .max = 3600,
       .help = "seconds for connecting to the cluster and for monitor requests"},
      {.name = "close-timeout", .type = T::kInt, .default_value = "30", .has_default = true,
       .min = 1, .max = 3600,
       .help = "seconds close waits for librbd/librados before abandoning the handles"},
  };
  schema->insert(schema->end(), std::begin(options), std::end(options));
}

void CloseCeph(const CephConnection& c) {
  if (c.io) c.api->rados_ioctx_destroy(c.io);
  if (c.cluster) c.api->rados_shutdown(c.cluster);
}

Expected<CephConnection> ConnectCeph(const CephConnectArgs& a) {
  auto api = LoadCephApi();
  const std::string prefix = "driver '" + a.driver + "': ";
  if (!api.ok()) return MakeError(api.error().code, prefix + api.error().message);
  CephConnection c;
  c.api = api.value();
  auto fail = [&](int code, std::string msg) -> Error {
    CloseCeph(c);
    return MakeError(code, prefix + msg);
  };
  int r;
  if (!a.cluster.empty()) {
    // With a cluster name librados takes the full TYPE.ID; fio adds
    // "client." to a name without a type.
    std::string name = a.user;
    if (!name.empty() && name.find('.') == std::string::npos) name = "client." + name;
    r = c.api->rados_create2(&c.cluster, a.cluster.c_str(), name.empty() ? nullptr : name.c_str(), 0);
  } else {
    r = c.api->rados_create(&c.cluster, a.user.empty() ? nullptr : a.user.c_str());
  }
  if (r < 0) {
    c.cluster = nullptr;
    return fail(r, "rados_create(user " + QuoteName(a.user) +
                       (a.cluster.empty() ? "" : ", cluster " + QuoteName(a.cluster)) +
                       ") failed: " + ErrnoString(r));
  }
  if (!a.conf.empty()) {
    r = c.api->rados_conf_read_file(c.cluster, a.conf.c_str());
    if (r < 0) return fail(r, "cannot read Ceph config 'conf=" + a.conf + "': " + ErrnoString(r));
  } else {
    r = c.api->rados_conf_read_file(c.cluster, nullptr);
    bool have_mon = false;
    for (const auto& kv : a.rados) have_mon |= kv.first == "mon_host" || kv.first == "mon host";
    if (r < 0 && !have_mon)
      return fail(r, "no Ceph config found (set CEPH_CONF, or give conf=PATH or "
                     "rados.mon_host=...): " + ErrnoString(r));
  }
  const std::string connect_s = std::to_string(a.connect_timeout_s);
  std::vector<std::pair<std::string, std::string>> settings = {
      {"client_mount_timeout", connect_s},
      {"rados_mon_op_timeout", connect_s},
      {"rados_osd_op_timeout", std::to_string(a.osd_op_timeout_s)},
  };
  settings.insert(settings.end(), a.settings.begin(), a.settings.end());
  for (const auto& [k, v] : settings) {
    r = c.api->rados_conf_set(c.cluster, k.c_str(), v.c_str());
    if (r < 0) return fail(r, "rados_conf_set(" + k + ") failed: " + ErrnoString(r));
  }
  for (const auto& [k, v] : a.rados) {
    r = c.api->rados_conf_set(c.cluster, k.c_str(), v.c_str());
    if (r == -EINVAL && (v == "on" || v == "off")) {
      // JSON true/false arrive as on/off; Ceph's booleans want true/false.
      r = c.api->rados_conf_set(c.cluster, k.c_str(), v == "on" ? "true" : "false");
    }
    if (r < 0)
      return fail(r, "librados setting " + QuoteInput(k + "=" + v) + " (option " +
                         QuoteInput("rados." + k) + ") rejected: " + ErrnoString(r) +
                         (r == -ENOENT ? ": unknown setting" : ""));
  }
  r = c.api->rados_connect(c.cluster);
  if (r < 0) {
    const std::string conf = a.conf.empty() ? "librados' default search/CEPH_CONF" : a.conf;
    const std::string why = r == -ETIMEDOUT ? " (no monitor answered within connect-timeout=" +
                                                  connect_s + "s)"
                            : r == -EACCES || r == -EPERM || r == -ENOENT
                                ? " (authentication failed: wrong user or key?)"
                                : "";
    return fail(r, "cannot connect to the Ceph cluster (conf " + conf + ", user '" +
                       CephUserName(a.user) + "'): " + ErrnoString(r) + why);
  }
  r = c.api->rados_ioctx_create(c.cluster, a.pool.c_str(), &c.io);
  if (r < 0) {
    c.io = nullptr;
    return fail(r, "cannot open pool " + QuoteName(a.pool) + ": " + ErrnoString(r) +
                       (r == -ENOENT ? " (no such pool)" : ""));
  }
  c.api->rados_ioctx_set_namespace(c.io, a.ns.empty() ? nullptr : a.ns.c_str());
  return c;
}

namespace {

std::shared_ptr<const CephConnection> Owned(const CephConnection& c, int64_t close_timeout_s,
                                            std::string what) {
  return std::shared_ptr<const CephConnection>(
      new CephConnection(c), [close_timeout_s, what = std::move(what)](const CephConnection* p) {
        const CephConnection copy = *p;
        delete p;
        RunBounded([copy] { CloseCeph(copy); }, close_timeout_s, what);
      });
}

// Every argument, so that a different setting never shares a connection.
std::string SharedKey(const CephConnectArgs& a, const std::string& group) {
  std::string k;
  auto add = [&](const std::string& s) { k += std::to_string(s.size()) + ":" + s; };
  for (const std::string& s : {group, a.driver, a.user, a.cluster, a.conf, a.pool, a.ns,
                               std::to_string(a.connect_timeout_s), std::to_string(a.osd_op_timeout_s)})
    add(s);
  for (const auto* list : {&a.settings, &a.rados})
    for (const auto& [key, value] : *list) add(key), add(value);
  return k;
}

}  // namespace

Expected<std::shared_ptr<const CephConnection>> ConnectCephShared(const CephConnectArgs& a,
                                                                  const std::string& group,
                                                                  int64_t close_timeout_s) {
  const std::string what = a.driver + ": closing the connection to pool '" + a.pool + "'";
  if (group.empty()) {
    auto c = ConnectCeph(a);
    if (!c.ok()) return c.error();
    return Owned(*c, close_timeout_s, what);
  }
  static std::mutex mu;
  static auto* shared = new std::map<std::string, std::weak_ptr<const CephConnection>>();
  std::lock_guard<std::mutex> lock(mu);
  for (auto it = shared->begin(); it != shared->end();)
    it = it->second.expired() ? shared->erase(it) : std::next(it);
  const std::string key = SharedKey(a, group);
  if (auto s = (*shared)[key].lock()) return s;
  auto c = ConnectCeph(a);
  if (!c.ok()) return c.error();
  auto s = Owned(*c, close_timeout_s, what);
  (*shared)[key] = s;
  return s;
}

}  // namespace blk
