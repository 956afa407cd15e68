#include "tools/block_bench/run/disk_stats.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <blkstack/util/clock.h>

namespace blk::bench {
namespace {

std::optional<DiskCounters> ReadStat(const std::string& sysdir) {
  std::ifstream f(sysdir + "/stat");
  std::string line;
  if (!std::getline(f, line)) return std::nullopt;
  return ParseDiskStat(line);
}

std::string NameOf(const std::string& sysdir) {
  char buf[4096];
  const ssize_t n = readlink(sysdir.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return sysdir;
  std::string target(buf, size_t(n));
  return target.substr(target.find_last_of('/') + 1);
}

}  // namespace

std::optional<std::string> DiskOf(const std::string& path) {
  struct stat st;
  std::string p = path;
  // A file not created yet: its directory's file system.
  while (::stat(p.c_str(), &st) != 0) {
    const size_t slash = p.find_last_of('/');
    if (slash == std::string::npos) {
      p = ".";
      if (::stat(p.c_str(), &st) != 0) return std::nullopt;
      break;
    }
    p = slash == 0 ? "/" : p.substr(0, slash);
  }
  const dev_t dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
  const std::string sysdir =
      "/sys/dev/block/" + std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
  if (access((sysdir + "/stat").c_str(), R_OK) != 0) return std::nullopt;  // tmpfs, overlay...
  return sysdir;
}

std::optional<DiskCounters> ParseDiskStat(const std::string& line) {
  std::istringstream in(line);
  uint64_t v[11];
  for (uint64_t& x : v) {
    if (!(in >> x)) return std::nullopt;
  }
  DiskCounters c;
  c.read_ios = v[0];
  c.read_merges = v[1];
  c.read_ticks = v[3];
  c.write_ios = v[4];
  c.write_merges = v[5];
  c.write_ticks = v[7];
  c.io_ticks = v[9];
  c.in_queue = v[10];
  return c;
}

DiskWatch::DiskWatch(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    std::optional<std::string> sysdir = DiskOf(path);
    if (!sysdir) continue;
    if (std::any_of(disks_.begin(), disks_.end(), [&](const Disk& d) { return d.sysdir == *sysdir; }))
      continue;
    std::optional<DiskCounters> c = ReadStat(*sysdir);
    if (!c) continue;
    disks_.push_back({*sysdir, NameOf(*sysdir), *c});
  }
  start_ns_ = NowNs();
}

std::vector<DiskUtil> DiskWatch::Finish() const {
  const double elapsed_ms = double(NowNs() - start_ns_) / 1e6;
  std::vector<DiskUtil> out;
  for (const Disk& d : disks_) {
    std::optional<DiskCounters> end = ReadStat(d.sysdir);
    if (!end) continue;
    auto delta = [](uint64_t a, uint64_t b) { return b >= a ? b - a : 0; };
    DiskUtil u;
    u.name = d.name;
    u.delta.read_ios = delta(d.start.read_ios, end->read_ios);
    u.delta.read_merges = delta(d.start.read_merges, end->read_merges);
    u.delta.read_ticks = delta(d.start.read_ticks, end->read_ticks);
    u.delta.write_ios = delta(d.start.write_ios, end->write_ios);
    u.delta.write_merges = delta(d.start.write_merges, end->write_merges);
    u.delta.write_ticks = delta(d.start.write_ticks, end->write_ticks);
    u.delta.io_ticks = delta(d.start.io_ticks, end->io_ticks);
    u.delta.in_queue = delta(d.start.in_queue, end->in_queue);
    u.util = elapsed_ms > 0 ? std::min(100.0, double(u.delta.io_ticks) * 100.0 / elapsed_ms) : 0;
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace blk::bench
