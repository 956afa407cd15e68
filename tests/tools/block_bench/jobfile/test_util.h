// Helpers for the block-bench parser tests: an in-memory environment (files
// and variables) and one-liners that parse a job or return the error text.
//
// Thread-safety: test-only; each test builds its own FakeEnv.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tools/block_bench/jobfile/cmdline.h"
#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/jobfile/jobfile.h"
#include "tools/block_bench/jobfile/parse_env.h"

namespace blk::bench::testing {

// Files (keyed by normalised path) and environment variables held in memory.  The returned
// ParseEnvironment refers to this object's maps: keep it alive.
struct FakeEnv {
  std::map<std::string, std::string> files;
  std::map<std::string, std::string> vars;
  std::vector<std::string>* reads = nullptr;  // if set, records every read

  ParseEnvironment Env() const {
    ParseEnvironment env;
    env.getenv = [this](const std::string& name) -> std::optional<std::string> {
      auto it = vars.find(name);
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
    env.read_file = [this](const std::string& path) -> Expected<std::string> {
      if (reads != nullptr) reads->push_back(path);
      // Like a real file system, "a/b/../c" is "a/c".
      auto it = files.find(std::filesystem::path(path).lexically_normal().string());
      if (it == files.end()) return MakeError(-ENOENT, "No such file or directory");
      return it->second;
    };
    env.pagesize = 4096;
    env.mb_memory = 16384;
    env.ncpus = 8;
    return env;
  }
};

// Parses `body` as the options of a single job section "[job]" and returns
// the job; fails the test on error.
inline JobOptions ParseOne(const std::string& body, const FakeEnv& fake = FakeEnv{}) {
  auto jobs = ParseJobText("[job]\n" + body + "\n", "job.fio", fake.Env());
  if (!jobs.ok()) {
    ADD_FAILURE() << "unexpected error: " << jobs.error().message;
    return JobOptions{};
  }
  if (jobs.value().size() != 1) {
    ADD_FAILURE() << "expected 1 job, got " << jobs.value().size();
    return JobOptions{};
  }
  return jobs.value()[0];
}

// Parses `text` as a job file named job.fio and returns the error message,
// or "<no error>".
inline std::string FileError(const std::string& text, const FakeEnv& fake = FakeEnv{}) {
  auto jobs = ParseJobText(text, "job.fio", fake.Env());
  return jobs.ok() ? "<no error>" : jobs.error().message;
}

// Error of a single-job file whose section header is line 1, so that the
// first option of `body` is on line 2.
inline std::string OneError(const std::string& body) { return FileError("[job]\n" + body + "\n"); }

// Expects `body` (a job section's options, first one on line 2 of job.fio)
// to fail on line `line` with "job.fio:LINE: option 'OPTION': " followed by
// text containing `detail`.
#define EXPECT_OPTION_ERROR(body, line, option, detail)                                      \
  do {                                                                                       \
    const std::string err_ = ::blk::bench::testing::OneError(body);                          \
    const std::string prefix_ =                                                              \
        "job.fio:" + std::to_string(line) + ": option '" + std::string(option) + "': ";      \
    EXPECT_EQ(err_.substr(0, prefix_.size()), prefix_) << err_;                              \
    EXPECT_NE(err_.find(detail), std::string::npos) << err_;                                 \
  } while (0)

// Parses a command line (without the program name).
inline Expected<CommandLine> Cmd(const std::vector<std::string>& args,
                                 const FakeEnv& fake = FakeEnv{}) {
  return ParseCommandLine(args, fake.Env());
}

inline std::string CmdError(const std::vector<std::string>& args, const FakeEnv& fake = FakeEnv{}) {
  auto r = Cmd(args, fake);
  return r.ok() ? "<no error>" : r.error().message;
}

}  // namespace blk::bench::testing
