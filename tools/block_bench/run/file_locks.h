// FileLocks: fio's lockfile= — one lock per file name, shared by every job
// and clone of a run that opens the file under that name (fio's file hash:
// the lock of the first job to open a name is every later job's).
//
// A lock has owners (one per clone: an opaque id) each holding a count of
// its requests in flight:
//   exclusive  one owner at a time, any direction (lockfile=exclusive; and
//              a write under lockfile=readwrite);
//   shared     any number of owners, reads only (a read under
//              lockfile=readwrite).
// An owner never waits for itself: it may add requests to what it holds
// (a shared hold becomes exclusive when it is the only owner and
// writes).  try_acquire() never blocks — a clone's loop must keep reaping
// its own completions, which release what it holds (a blocking wait could
// deadlock two clones holding one file each and wanting the other's).
//
// Thread-safety: every method from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace blk::bench {

class FileLock {
 public:
  // One more request of `owner`; `write`: needs the lock exclusive.  False
  // (nothing changed) when another owner's hold is in the way.
  bool try_acquire(uintptr_t owner, bool write);
  // One request of `owner` ended.  REQUIRES: a matching try_acquire.
  void release(uintptr_t owner);

 private:
  std::mutex mu_;
  bool exclusive_ = false;
  std::map<uintptr_t, uint64_t> holders_;  // owner -> requests held
};

class FileLocks {
 public:
  // The lock of file `name` (made on first use; valid while this lives).
  FileLock* get(const std::string& name);

 private:
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<FileLock>> locks_;
};

}  // namespace blk::bench
