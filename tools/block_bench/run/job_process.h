// fio's process options on a clone's thread (ProcessOptions, job.h):
// nice(2), the exec_prerun / exec_postrun commands and lockmem's pinned
// memory.
//
// Thread-safety: each function acts on the calling thread (the clone's) or
// runs a child process; none keeps state.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "tools/block_bench/run/resources.h"
#include <blkstack/util/result.h>

namespace blk::bench {

// nice(increment) on the calling thread (Linux's nice value is per
// thread), as fio's nice(o->nice) in its job's process.  0: nothing.
// Returns the errno as an Error (EPERM for a negative increment without
// CAP_SYS_NICE), the message naming the option.
Expected<void> ApplyNice(int increment);

// What fio's exec_string does: prints "<job> : Saving output of <mode> in
// <job>.<mode>.txt" to `info` (when not null), then runs
// "<command> > <job>.<mode>.txt 2>&1" with system(3), in the current
// directory.  The redirection is appended to the command as written, so in
// "a; b" only b's output goes to the file, as in fio.  `mode`: "prerun" or
// "postrun".  Returns system()'s status (-1: the shell could not run).
int RunExecCommand(const std::string& job_name, std::string_view command, std::string_view mode,
                   FILE* info);

// fio's ioscheduler: writes `scheduler` to queue/scheduler of the disk
// holding `path` (the disk itself for a block device or a partition's
// disk; for a regular file the disk of its file system), reads the file
// back and checks that "[scheduler]" is selected.  A path on no block
// device (tmpfs, overlay): nothing, as fio.  A disk without the file (no
// scheduler, e.g. zram): fio's note on `messages`, no error.  Else the
// errno of the open or write, or -EINVAL when another scheduler is
// selected, with the sysfs file in the message.
Expected<void> SwitchIoScheduler(const std::string& path, const std::string& scheduler,
                                 FILE* messages);

// fio's lockmem: an anonymous mapping of that many bytes, mlock(2)ed (so
// the pages are resident and taken from the rest of the machine) until
// unpin() or destruction.  Charged to the run's MemoryBudget.
class PinnedMemory {
 public:
  PinnedMemory() = default;
  ~PinnedMemory() { unpin(); }
  PinnedMemory(const PinnedMemory&) = delete;
  PinnedMemory& operator=(const PinnedMemory&) = delete;
  // Pins `bytes` (0: nothing), capped as fio at the machine's memory less
  // 128 MiB (then saying so on `info`, when not null).  On failure (the
  // budget, mmap, or mlock: EPERM / ENOMEM under RLIMIT_MEMLOCK) nothing is
  // held and the Error names lockmem and the size.  REQUIRES: not pinned.
  Expected<void> pin(uint64_t bytes, MemoryBudget* budget, FILE* info);
  void unpin();
  uint64_t size() const { return size_; }

 private:
  void* addr_ = nullptr;
  uint64_t size_ = 0;
  MemoryBudget* budget_ = nullptr;
};

}  // namespace blk::bench
