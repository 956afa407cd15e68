// fio's "Disk stats" of a run: the I/O counters of the block devices under
// the jobs' targets (/sys/dev/block/MAJ:MIN/stat), sampled when the run
// starts and when it ends.
//
// The device of a target: itself when it is a block device, else the device
// of the file system holding the file (or, for a file not created yet, its
// directory).  Targets on no block device (tmpfs, null, rbd, a blockdev=
// graph) have none, as in fio.
//
// Thread-safety: pure functions over sysfs; DiskWatch is used by one thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace blk::bench {

// /sys/block/<dev>/stat, the fields fio reports (Documentation/block/stat).
struct DiskCounters {
  uint64_t read_ios = 0, read_merges = 0, read_ticks = 0;
  uint64_t write_ios = 0, write_merges = 0, write_ticks = 0;
  uint64_t io_ticks = 0;    // ms the device had I/O in flight
  uint64_t in_queue = 0;    // time_in_queue, ms
};

// What fio prints for one device over a run.
struct DiskUtil {
  std::string name;  // sysfs name: "zram0", "loop3", "vda1"
  DiskCounters delta;
  double util = 0;   // io_ticks / run time, percent (at most 100)
};

// The sysfs directory (/sys/dev/block/MAJ:MIN) of the block device holding
// `path`, or nullopt.
std::optional<std::string> DiskOf(const std::string& path);

// Parses a /sys/block/<dev>/stat line; nullopt if it has fewer than 11
// numbers.
std::optional<DiskCounters> ParseDiskStat(const std::string& line);

// Samples the devices of `paths` (each device once) at construction and at
// Finish().
class DiskWatch {
 public:
  explicit DiskWatch(const std::vector<std::string>& paths);
  // The counters' changes since construction, in the order the devices were
  // first seen; devices whose stat file vanished are left out.
  std::vector<DiskUtil> Finish() const;

 private:
  struct Disk {
    std::string sysdir;
    std::string name;
    DiskCounters start;
  };
  std::vector<Disk> disks_;
  int64_t start_ns_ = 0;
};

}  // namespace blk::bench
