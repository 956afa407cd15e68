// LoopDevice: a loop block device over a file, for tests that need a real
// block device (BLKGETSIZE64, the block layer's queue) or one that completes
// I/O after io_submit returns.
//
// A loop device hands every request to a kernel worker thread, so unlike a
// file on this machine's virtio disk (whose O_DIRECT reads often complete
// inside io_submit) it completes asynchronously.  With direct_io the worker
// reads the backing file with O_DIRECT too, so a backing file on a disk
// filesystem (TempDir()) gives each request the disk's own latency on top.
//
// Needs root and losetup (Debian's `mount` package, always installed); when
// either is missing dev() is empty and why() says why, for the caller's
// GTEST_SKIP.  The device is detached in the destructor, also when the test
// failed.
//
// Thread-safety: a test's main thread.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace blk::test {

class LoopDevice {
 public:
  // Attaches a free loop device to the existing file `backing`.
  explicit LoopDevice(const std::string& backing, bool direct_io = false) {
    std::string cmd = "losetup -f --show ";
    if (direct_io) cmd += "--direct-io=on ";
    FILE* p = popen((cmd + backing + " 2>&1").c_str(), "r");
    if (!p) {
      why_ = "popen(losetup) failed";
      return;
    }
    char line[256] = {};
    if (!fgets(line, sizeof(line), p)) line[0] = 0;
    const int rc = pclose(p);
    std::string out(line);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    if (rc != 0 || out.rfind("/dev/loop", 0) != 0) {
      why_ = "losetup -f --show " + backing + " failed: " + out;
      return;
    }
    dev_ = out;
  }
  ~LoopDevice() {
    if (!dev_.empty()) (void)!system(("losetup -d " + dev_).c_str());
  }
  LoopDevice(const LoopDevice&) = delete;
  LoopDevice& operator=(const LoopDevice&) = delete;

  // "/dev/loopN", or empty when attaching failed.
  const std::string& dev() const { return dev_; }
  const std::string& why() const { return why_; }

 private:
  std::string dev_, why_;
};

}  // namespace blk::test
