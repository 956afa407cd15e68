// ZramDevice: a private zram block device for one test.
//
// The constructor hot-adds a device (reading /sys/class/zram-control/hot_add
// creates /dev/zramN and prints N) and sets its disksize; the destructor
// resets and removes it (writing N to hot_remove), so a failed assertion,
// which returns from the test body, still leaves no device behind.  zram0
// (the benchmarks') is never touched: a hot_add that answers 0 is refused.
//
// Needs root and the zram module.  When the device cannot be made, dev() is
// empty and why() says which step failed with errno; the caller skips or
// fails (SkipForbidden(), file_test_util.h).
//
// A test process killed from outside (a bazel timeout) leaves its device
// behind: `echo N > /sys/class/zram-control/hot_remove` removes it.
//
// Threading: one thread; close every fd of the device before destruction
// (an open device cannot be removed: hot_remove says EBUSY, retried for a
// while since udev may briefly probe a new device).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace blk::test {

class ZramDevice {
 public:
  explicit ZramDevice(uint64_t size) {
    // Before hot_add, which works on a read-only /sys (Bazel's sandbox) and
    // would make a device that could then be neither sized nor removed.
    if (access("/sys/class/zram-control/hot_remove", W_OK) != 0) {
      why_ = "/sys/class/zram-control/hot_remove is not writable: " +
             std::string(strerror(errno)) +
             " (zram module not loaded, not root, or a read-only /sys: a sandbox)";
      return;
    }
    std::string n;
    int e = ReadFile("/sys/class/zram-control/hot_add", &n);
    if (e != 0) {
      why_ = "read /sys/class/zram-control/hot_add: " + std::string(strerror(e));
      return;
    }
    while (!n.empty() && (n.back() == '\n' || n.back() == ' ')) n.pop_back();
    char* end = nullptr;
    const long idx = strtol(n.c_str(), &end, 10);
    if (n.empty() || *end != 0 || idx < 0) {
      why_ = "hot_add answered '" + n + "', not a device number";
      return;
    }
    if (idx == 0) {  // cannot happen while zram0 exists; never touch it
      why_ = "hot_add answered 0 (zram0 belongs to the benchmarks)";
      return;
    }
    index_ = int(idx);
    const std::string sys = "/sys/block/zram" + std::to_string(index_);
    e = WriteFile(sys + "/disksize", std::to_string(size));
    if (e != 0) {
      why_ = "write " + sys + "/disksize: " + strerror(e);
      Remove();
      return;
    }
    // devtmpfs makes the node when the disk is added; wait a little anyway.
    const std::string dev = "/dev/zram" + std::to_string(index_);
    struct stat st;
    for (int i = 0; i < 200 && stat(dev.c_str(), &st) != 0; i++) usleep(5000);
    if (stat(dev.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) {
      why_ = dev + " did not appear as a block device";
      Remove();
      return;
    }
    dev_ = dev;
  }
  ~ZramDevice() { Remove(); }
  ZramDevice(const ZramDevice&) = delete;
  ZramDevice& operator=(const ZramDevice&) = delete;

  // "/dev/zramN", or empty when the device could not be made.
  const std::string& dev() const { return dev_; }
  // Why dev() is empty.
  const std::string& why() const { return why_; }
  int index() const { return index_; }

  // Reads a whole small file into *out: 0 or errno.
  static int ReadFile(const std::string& path, std::string* out) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    char buf[256];
    const ssize_t r = read(fd, buf, sizeof(buf) - 1);
    const int e = r < 0 ? errno : 0;
    close(fd);
    if (r >= 0) out->assign(buf, size_t(r));
    return e;
  }
  // Writes `value` to a sysfs attribute in one write(2): 0 or errno.
  static int WriteFile(const std::string& path, const std::string& value) {
    const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    const ssize_t r = write(fd, value.data(), value.size());
    const int e = r < 0 ? errno : r == ssize_t(value.size()) ? 0 : EIO;
    close(fd);
    return e;
  }

 private:
  void Remove() {
    if (index_ <= 0) return;
    int e = 0;
    // EBUSY while something (udev's probe) still has it open: retry ~2 s.
    for (int i = 0; i < 400; i++) {
      e = WriteFile("/sys/class/zram-control/hot_remove", std::to_string(index_));
      if (e != EBUSY) break;
      usleep(5000);
    }
    if (e != 0) {
      ADD_FAILURE() << "zram" << index_ << " left behind: hot_remove: " << strerror(e)
                    << " (remove it: echo " << index_ << " > /sys/class/zram-control/hot_remove)";
    }
    index_ = -1;
    dev_.clear();
  }

  int index_ = -1;
  std::string dev_;
  std::string why_;
};

}  // namespace blk::test
