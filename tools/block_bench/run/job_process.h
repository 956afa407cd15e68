// fio's process options on a clone's thread (ProcessOptions, job.h):
// nice(2), and the exec_prerun / exec_postrun commands.
//
// Thread-safety: each function acts on the calling thread (the clone's) or
// runs a child process; none keeps state.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

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

}  // namespace blk::bench
