#include <blkstack/block/nbd/nbd_api.h>

#include <dlfcn.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace blk {
namespace {

constexpr const char* kDefaultLibnbd = "libnbd.so.0";

Expected<NbdApi> Load() {
  const char* env = std::getenv("BLKSTACK_LIBNBD");
  const bool from_env = env && *env;
  std::string path = from_env ? env : kDefaultLibnbd;
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    return MakeError(-ENOENT, "cannot load libnbd ('" + path + "'" +
                                  (from_env ? ", from BLKSTACK_LIBNBD" : "") + "): " +
                                  (why ? why : "unknown dlopen error") +
                                  "; the nbd driver needs libnbd (Debian: apt install libnbd0)");
  }
  NbdApi api;
  api.path = path;
#define BLK_NBD_RESOLVE(fn)                                                          \
  api.fn = reinterpret_cast<decltype(&::fn)>(dlsym(lib, #fn));                       \
  if (!api.fn) {                                                                     \
    return MakeError(-ENOSYS, "'" + path + "' has no function " #fn                  \
                              " (a libnbd older than the driver needs: 1.14 or later)"); \
  }
  BLK_NBD_FUNCTIONS(BLK_NBD_RESOLVE)
#undef BLK_NBD_RESOLVE
  return api;
}

}  // namespace

Expected<const NbdApi*> LoadNbdApi() {
  static const Expected<NbdApi> loaded = Load();
  if (!loaded.ok()) return loaded.error();
  return &loaded.value();
}

}  // namespace blk
