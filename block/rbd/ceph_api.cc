#include <blkstack/block/rbd/ceph_api.h>

#include <dlfcn.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace blk {
namespace {

constexpr const char* kDefaultLibrbd = "librbd.so.1";

Expected<CephApi> Load() {
  const char* env = std::getenv("BLKSTACK_LIBRBD");
  std::string path = env && *env ? env : kDefaultLibrbd;
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    return MakeError(-ENOENT, "cannot load librbd ('" + path + "'" +
                                  (env && *env ? ", from BLKSTACK_LIBRBD" : "") + "): " +
                                  (why ? why : "unknown dlopen error") +
                                  "; the rbd driver needs Ceph's librbd (Debian: apt install librbd1)");
  }
  CephApi api;
  api.path = path;
  // Never dlclose'd: see the header.
#define BLK_CEPH_RESOLVE(fn)                                               \
  api.fn = reinterpret_cast<decltype(&::fn)>(dlsym(lib, #fn));             \
  if (!api.fn) {                                                           \
    return MakeError(-ENOSYS, "'" + path + "' has no function " #fn        \
                              " (a librbd older than the driver needs; "  \
                              "it is built against Ceph 16.2)");           \
  }
  BLK_CEPH_FUNCTIONS(BLK_CEPH_RESOLVE)
#undef BLK_CEPH_RESOLVE
  return api;
}

}  // namespace

Expected<const CephApi*> LoadCephApi() {
  static const Expected<CephApi> loaded = Load();
  if (!loaded.ok()) return loaded.error();
  return &loaded.value();
}

}  // namespace blk
