#include "tools/block_bench/run/cgroup.h"

#include <fcntl.h>
#include <mntent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>

namespace blk::bench {
namespace {

// Writes `value` to <dir>/<file> with one write(2): 0 or the negative errno
// of the open or the write (cgroup files report a refused value there).
// Opened as fio's fopen(path, "w"), O_CREAT included: a file the kernel
// does not have (blkio.weight without a proportional scheduler) is EACCES,
// as under fio.
int WriteValue(const std::string& dir, const char* file, uint64_t value) {
  const std::string path = dir + "/" + file;
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return -errno;
  const std::string text = std::to_string(value);
  int err = 0;
  if (write(fd, text.data(), text.size()) < 0) err = -errno;
  close(fd);
  return err;
}

// Whether `opts` (a mount's comma-separated options) holds `word`.
bool HasOption(const char* opts, std::string_view word) {
  std::string_view s(opts);
  while (!s.empty()) {
    const size_t comma = s.find(',');
    if (s.substr(0, comma) == word) return true;
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return false;
}

const char* JoinFile(const CgroupMount& m) { return m.v2 ? "cgroup.procs" : "tasks"; }

}  // namespace

Expected<CgroupMount> FindCgroupMount(const std::string& mounts) {
  FILE* f = setmntent(mounts.c_str(), "r");
  if (!f) {
    const int e = errno;
    return MakeError(-e, "cgroup: cannot read " + mounts + ": " + ErrnoString(-e));
  }
  std::optional<CgroupMount> found;
  mntent ent;
  char buf[4096];
  while (!found && getmntent_r(f, &ent, buf, sizeof buf)) {
    if (std::strcmp(ent.mnt_type, "cgroup") == 0 && HasOption(ent.mnt_opts, "blkio"))
      found = CgroupMount{ent.mnt_dir, false};
    else if (std::strcmp(ent.mnt_type, "cgroup2") == 0)
      found = CgroupMount{ent.mnt_dir, true};
  }
  endmntent(f);
  if (!found) return MakeError(-ENOENT, "cgroup: cgroup blkio does not appear to be mounted");
  return *found;
}

CgroupDirs::~CgroupDirs() {
  for (auto it = dirs_.rbegin(); it != dirs_.rend(); ++it)
    if (!it->second) (void)rmdir(it->first.c_str());
}

void CgroupDirs::add(std::string dir, bool keep) {
  std::lock_guard lock(mu_);
  dirs_.emplace_back(std::move(dir), keep);
}

Expected<void> JoinCgroup(const CgroupMount& mount, const std::string& name, uint32_t weight,
                          bool nodelete, CgroupDirs& dirs) {
  const std::string dir = mount.path + "/" + name;
  if (mkdir(dir.c_str(), 0755) == 0) {
    dirs.add(dir, nodelete);
  } else if (errno != EEXIST) {
    const int e = errno;
    return MakeError(-e, "cgroup=" + name + ": mkdir " + dir + ": " + ErrnoString(-e));
  }
  if (weight) {
    if (mount.v2)
      return MakeError(-EINVAL, "cgroup_weight: cgroup weight doesn't work with cgroup2 (" +
                                    mount.path + ")");
    const int e = WriteValue(dir, "blkio.weight", weight);
    if (e < 0)
      return MakeError(e, "cgroup_weight=" + std::to_string(weight) + ": " + dir +
                              "/blkio.weight: " + ErrnoString(e));
  }
  const int e = WriteValue(dir, JoinFile(mount), uint64_t(gettid()));
  if (e < 0)
    return MakeError(e, "cgroup=" + name + ": " + dir + "/" + JoinFile(mount) +
                            ": the clone's thread cannot join: " + ErrnoString(e));
  return {};
}

void LeaveCgroup(const CgroupMount& mount) {
  (void)WriteValue(mount.path, JoinFile(mount), uint64_t(gettid()));
}

}  // namespace blk::bench
