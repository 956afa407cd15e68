// Report units: what one block of a report covers.  As fio, every clone
// is reported on its own, except that the clones of jobs with
// group_reporting are merged per group id (named after the first job of
// the group).  The text, JSON and terse reports and the multi-host merge
// all report these units.
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "tools/block_bench/run/runner.h"

namespace blk::bench {

struct ReportUnit {
  CloneResult r;  // merged
  int jobs = 1;   // clones merged into it
};

// The units of `run`, in clone order (a group where its first clone is);
// clones that did not run, and those of jobs with stats=0, are left out (a
// group is then named after its first job with stats, as fio's).
std::vector<ReportUnit> ReportUnits(const RunResult& run);

// The group ids of the clones that ran, ascending, including those of jobs
// with stats=0: fio prints a "Run status group" line for such a group even
// when none of its units is reported.
std::vector<int> StatusGroups(const RunResult& run);

// The clones a run never started (CloneResult::not_run: it was interrupted
// first), per job in job order: the job, how many of its clones did not
// start and how many it has.
struct NotStarted {
  const JobOptions* job = nullptr;
  uint32_t clones = 0;
  uint32_t of = 0;
};
std::vector<NotStarted> NotStartedClones(const RunResult& run);

}  // namespace blk::bench
