// SlowFile: a file whose every read takes at least `delay_ms`, for tests
// that need a device completing after io_submit returns on any host.
//
// nbdkit's file plugin serves `backing` through its delay filter
// (delay-read=N ms), and nbdfuse (libnbd-bin) mounts that export as the
// FUSE file path().  A loop device over it with direct-io=on (LoopDevice)
// is then a real block device whose reads wait for a userspace server: the
// kernel cannot complete them inside io_submit, however fast the host's
// own disk (a loop device over a disk file completed 40 % of its reads
// inside io_submit on the CI host).  Writes are not delayed.
//
// The constructor starts nbdfuse (which starts nbdkit: `--command`), in a
// private directory under TempDir(), and waits up to 10 s for the file to
// appear with backing's size.  The destructor stops nbdfuse with SIGTERM
// (it unmounts on the way out; nbdkit ends with its connection) and removes
// the directory.  Detach any loop device over path() first (destroy the
// LoopDevice before the SlowFile: declare it after).
//
// Needs root, /dev/fuse, nbdfuse and nbdkit (scripts/packages.txt), and a
// mount namespace where mounting works (outside Bazel's sandbox: tag the
// test "local").  When a step fails path() is empty and why() says which.
//
// Thread-safety: a test's main thread.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "tests/block/file/file_test_util.h"

namespace blk::test {

class SlowFile {
 public:
  SlowFile(const std::string& backing, int delay_ms) {
    struct stat st;
    if (stat(backing.c_str(), &st) != 0) {
      why_ = "stat " + backing + ": " + strerror(errno);
      return;
    }
    if (access("/dev/fuse", R_OK | W_OK) != 0) {
      why_ = std::string("/dev/fuse: ") + strerror(errno);
      return;
    }
    std::string tmpl = TempDir() + "/slowfileXXXXXX";
    if (!mkdtemp(tmpl.data())) {
      why_ = "mkdtemp " + tmpl + ": " + strerror(errno);
      return;
    }
    dir_ = tmpl;
    const std::string file = dir_ + "/disk";
    const std::string delay = "delay-read=" + std::to_string(delay_ms) + "ms";
    const std::string log = dir_ + ".log";
    pid_ = fork();
    if (pid_ == 0) {
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
      }
      execlp("nbdfuse", "nbdfuse", file.c_str(), "--command", "nbdkit", "-s",
             "--filter=delay", "file", backing.c_str(), delay.c_str(), (char*)nullptr);
      _exit(127);
    }
    if (pid_ < 0) {
      why_ = std::string("fork: ") + strerror(errno);
      return;
    }
    for (int i = 0; i < 500; i++) {  // 500 x 20 ms
      struct stat fs;
      if (stat(file.c_str(), &fs) == 0 && fs.st_size == st.st_size) {
        path_ = file;
        return;
      }
      int status;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        why_ = "nbdfuse exited (status " + std::to_string(status) + ", 127: not installed); " +
               "its output is in " + log;
        return;
      }
      struct timespec ts = {0, 20 * 1000 * 1000};
      nanosleep(&ts, nullptr);
    }
    why_ = "nbdfuse did not mount " + file + " within 10 s; its output is in " + log;
  }
  ~SlowFile() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status;
      waitpid(pid_, &status, 0);
    }
    if (!dir_.empty()) {
      umount2(dir_.c_str(), MNT_DETACH);  // only if nbdfuse left it mounted
      rmdir(dir_.c_str());
      unlink((dir_ + ".log").c_str());
    }
  }
  SlowFile(const SlowFile&) = delete;
  SlowFile& operator=(const SlowFile&) = delete;

  // The FUSE file, or empty when it could not be made.
  const std::string& path() const { return path_; }
  const std::string& why() const { return why_; }

 private:
  std::string dir_, path_, why_;
  pid_t pid_ = -1;
};

}  // namespace blk::test
