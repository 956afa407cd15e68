// fio's cgroup=, cgroup_weight= and cgroup_nodelete=: a job's threads run
// in a blkio cgroup of their own, as fio 3.33 puts its jobs' threads.
//
//   * the file system is the first in /proc/mounts that is a cgroup (v1)
//     mount with the blkio controller or a cgroup2 mount (fio's
//     find_cgroup_mnt);
//   * the group is <mount>/<cgroup=>, made with mkdir 0755 when missing (an
//     existing one is used and kept); cgroup_weight= is written to its
//     blkio.weight (v1 only: cgroup2 has no such file, an error as in fio);
//   * the thread joins by writing its thread id to the group's "tasks" (v1,
//     per thread) or "cgroup.procs" (cgroup2: the kernel moves the whole
//     process, as it does for fio's thread=1 jobs);
//   * when the thread ends it goes back to the mount's root group, and at
//     the end of the run the groups the run made are removed (rmdir)
//     unless cgroup_nodelete=1.
//
// Thread-safety: JoinCgroup / LeaveCgroup act on the calling thread;
// CgroupDirs may be added to from any thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <blkstack/util/result.h>

namespace blk::bench {

struct CgroupMount {
  std::string path;
  bool v2 = false;
};

// The mount fio would use, from `mounts` (/proc/mounts' format); -ENOENT
// with fio's message when there is none.
Expected<CgroupMount> FindCgroupMount(const std::string& mounts = "/proc/mounts");

// The groups a run made; the destructor removes them (last made first),
// except those made with keep (cgroup_nodelete=1).
class CgroupDirs {
 public:
  CgroupDirs() = default;
  ~CgroupDirs();
  CgroupDirs(const CgroupDirs&) = delete;
  CgroupDirs& operator=(const CgroupDirs&) = delete;
  void add(std::string dir, bool keep);

 private:
  std::mutex mu_;
  std::vector<std::pair<std::string, bool>> dirs_;
};

// The calling thread joins <mount>/<name> (made when missing and recorded
// in `dirs`), with `weight` in blkio.weight when not 0.  The Error names
// the option, the path and the errno: mkdir's (ENOENT for a/b without a),
// blkio.weight's (EACCES where the kernel has no such file), the join's.
Expected<void> JoinCgroup(const CgroupMount& mount, const std::string& name, uint32_t weight,
                          bool nodelete, CgroupDirs& dirs);

// The calling thread back in the mount's root group (fio's
// cgroup_del_pid); errors are ignored, as fio's.
void LeaveCgroup(const CgroupMount& mount);

}  // namespace blk::bench
