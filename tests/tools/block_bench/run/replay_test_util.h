// Helpers of the trace-replay tests (replay_test, replay_timing_test):
// iologs written from records, RunJobs with the issued I/O recorded.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "bench_test_util.h"
#include "tools/block_bench/run/runner.h"
#include "tools/block_bench/run/clone.h"
#include <blkstack/util/clock.h>

namespace blk::bench::testing {

inline std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name + "." + std::to_string(getpid());
}

struct Rec {
  char op;  // r w t s
  uint64_t t_us, offset, len;
};

// Writes an iolog v3 naming one file, `file`.
inline std::string WriteIolog(const std::string& name, const std::vector<Rec>& recs,
                              const std::string& file = "dev") {
  const std::string path = TempPath(name);
  std::ofstream f(path);
  f << "fio version 3 iolog\n0 " << file << " add\n0 " << file << " open\n";
  for (const Rec& r : recs) {
    const char* w = r.op == 'r' ? "read" : r.op == 'w' ? "write" : r.op == 't' ? "trim" : "sync";
    f << r.t_us << " " << file << " " << w << " " << r.offset << " " << r.len << "\n";
  }
  f << (recs.empty() ? 0 : recs.back().t_us) << " " << file << " close\n";
  return path;
}

struct Issued {
  std::mutex mu;
  std::vector<IoUnit> ios;
  std::vector<int64_t> when;
};

inline RunResult RunReplay(const std::vector<std::string>& args, Issued* rec = nullptr) {
  std::vector<JobOptions> jobs = ParseJobs(args);
  EXPECT_EQ(jobs.size(), 1u);
  // Results point into the jobs: keep them alive for the test.
  static std::vector<std::vector<JobOptions>> keep;
  keep.push_back(jobs);
  RunOptions o;
  if (rec) {
    o.on_issue = [rec](const CloneResult&, const IoUnit& u) {
      std::lock_guard<std::mutex> l(rec->mu);
      rec->ios.push_back(u);
      rec->when.push_back(NowNs());
    };
  }
  return RunJobs(keep.back(), o);
}

}  // namespace blk::bench::testing
