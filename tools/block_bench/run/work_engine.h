// WorkEngine: the I/O of fio's engines that move no data (ioengine=cpuio
// and exec, fio's FIO_NOIO): work done in the clone's thread in place of a
// request.  The work's time is the request's latency; it moves no bytes
// (CloneStats counts the I/O, not its length); the clone pauses after each
// one for pause() (fio's thinktime, which these engines set: ThinkTime
// follows it).  The clone's target is the null driver, never touched.
//
//  * cpuio (CpuBurn): cpumode=noop spins for cpuchunks; cpumode=qsort sorts
//    256 Ki 32-bit integers four ways (ascending, descending, by their first
//    byte in memory, descending again), as fio's.  The pause is the burn x
//    (100 - cpuload) / cpuload, so the thread is busy cpuload % of the
//    time; qsort measures each burn and sizes the pause after it from that.
//  * exec (ExecProgram): the first I/O starts program= with arguments=
//    (%r: the runtime in whole seconds, %n: the job's name; split at
//    spaces; with std_redirect=1 stdout and stderr to JOB.stdout and
//    JOB.stderr in the working directory) and leaves it to run; each later
//    I/O waits 50 ms, and the job pauses 50 ms between I/Os (fio's engine
//    sets thinktime).  Nothing looks at the program until the job ends
//    (as fio).  finish() at the job's end: SIGTERM to a program still
//    running, up to grace_time seconds for it to exit, then SIGKILL; it is
//    always reaped.  A program that cannot be started is a warning (on
//    `messages`) and the job goes on, as fio's.
// The lines fio prints when the engine starts go to `info` (stdout).
//
// ExitOnIoDone (cpuio's exit_on_io_done=1): before each I/O, ends the job
// (no error) once no clone of a job that does I/O is left to run or
// running, in any group (fio's fio_running_or_pending_io_threads); a run
// without such a job never ends it (fio: "we only had cpuio threads").
//
// Thread-safety: the clone's loop thread.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/clone_state.h"
#include "tools/block_bench/run/hook.h"
#include <blkstack/util/aio_context.h>
#include <blkstack/util/task.h>

namespace blk::bench {

class WorkEngine {
 public:
  virtual ~WorkEngine() = default;
  // One I/O's work; 0 or -errno.  May sleep in `sleeps` (cancelled when the
  // clone is interrupted).
  virtual Task<int> perform(AioContext& ctx, SleepGroup& sleeps) = 0;
  // The pause after each I/O: a reference that stays valid, updated by
  // perform().
  virtual const std::chrono::microseconds& pause() const = 0;
  // The job's I/O ended: stops what the engine left running.
  virtual Task<void> finish(AioContext&, SleepGroup&) { co_return; }
};

// The engine of `job` (ioengine=cpuio or exec), announced on `info`.
// REQUIRES: MovesNoData(job.ioengine).
std::unique_ptr<WorkEngine> MakeWorkEngine(const JobOptions& job, FILE* info, FILE* messages);

class ExitOnIoDone : public SubmitHook {
 public:
  // `io_clones`: the run's clones of jobs that do I/O; `io_clones_left`:
  // those not yet ended.
  ExitOnIoDone(int64_t io_clones, const std::atomic<int64_t>& io_clones_left,
               CloneErrors& errors)
      : total_(io_clones), left_(io_clones_left), errors_(errors) {}
  unsigned points() const override { return kBeforeFetch; }
  bool before_fetch(SubmitLoop&) override {
    return total_ > 0 && left_.load(std::memory_order_acquire) <= 0;
  }
  Task<bool> turn(SubmitLoop&) override;

 private:
  int64_t total_;
  const std::atomic<int64_t>& left_;
  CloneErrors& errors_;
};

class CpuBurn final : public WorkEngine {
 public:
  CpuBurn(const CpuioOptions& o, const std::string& name, FILE* info);
  Task<int> perform(AioContext& ctx, SleepGroup& sleeps) override;
  const std::chrono::microseconds& pause() const override { return pause_; }
  // One burn (no coroutine): for tests.
  void burn();
  // The pause after a burn of `burn_us`.
  static std::chrono::microseconds PauseAfter(uint64_t burn_us, uint32_t load);

 private:
  void sort_round();
  CpuioOptions o_;
  std::chrono::microseconds pause_{0};
  std::vector<int32_t> data_;  // qsort's integers
};

class ExecProgram final : public WorkEngine {
 public:
  ExecProgram(const JobOptions& job, FILE* info, FILE* messages);
  ~ExecProgram() override;
  Task<int> perform(AioContext& ctx, SleepGroup& sleeps) override;
  const std::chrono::microseconds& pause() const override { return pause_; }
  Task<void> finish(AioContext& ctx, SleepGroup& sleeps) override;

  // arguments= with %r and %n replaced.
  static std::string Expand(const std::string& arguments, uint64_t runtime_s,
                            const std::string& name);
  // The program and arguments= (expanded), split at spaces (fio's).
  static std::vector<std::string> Argv(const std::string& program, const std::string& arguments,
                                       uint64_t runtime_s, const std::string& name);
  // The program's process (0: none started, or already reaped).
  pid_t pid() const { return pid_; }
  // Whether it was reaped, and how it ended (waitpid's status).
  bool reaped() const { return reaped_; }
  int wait_status() const { return status_; }

 private:
  void start();
  bool reap(bool block);  // true: the process is gone

  ExecOptions o_;
  std::string name_;
  uint64_t runtime_s_;
  FILE* info_;
  FILE* messages_;
  std::chrono::microseconds pause_{50000};
  bool started_ = false;
  pid_t pid_ = 0;
  bool reaped_ = false;
  int status_ = 0;
};

}  // namespace blk::bench
