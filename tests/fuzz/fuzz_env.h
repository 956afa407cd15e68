// An in-memory ParseEnvironment for the fuzz targets: a few fixed files
// (includes that nest, one that includes itself, a job file with an error)
// and variables.  Nothing reaches the real file system or environment, so a
// fuzzed include= cannot read host files or block on a FIFO.
//
// Thread-safety: the returned environment refers to static data only.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "tools/block_bench/jobfile/parse_env.h"

namespace blk::bench::fuzz {

inline const std::map<std::string, std::string>& FuzzFiles() {
  static const std::map<std::string, std::string> kFiles = {
      {"inc.fio", "bs=8k\niodepth=4 ; comment\n"},
      {"sub/inc.fio", "include ../inc.fio\nrw=randread\n"},
      {"loop.fio", "include loop.fio\n"},
      {"deep.fio", "include deep2.fio\n"},
      {"deep2.fio", "include deep.fio\n"},
      {"job.fio", "[global]\nbs=4k\n[a]\nrw=read\n[b]\nrw=write\nsize=1m\n"},
      {"bad.fio", "[a]\nbs=big\n"},
      {"/abs/inc.fio", "size=${SIZE}\n"},
  };
  return kFiles;
}

inline ParseEnvironment FuzzEnvironment() {
  ParseEnvironment env;
  env.getenv = [](const std::string& name) -> std::optional<std::string> {
    static const std::map<std::string, std::string> kVars = {
        {"DEV", "/dev/null"}, {"SIZE", "1g"}, {"BS", "(4k*2)"}, {"EMPTY", ""}};
    auto it = kVars.find(name);
    if (it == kVars.end()) return std::nullopt;
    return it->second;
  };
  env.read_file = [](const std::string& path) -> Expected<std::string> {
    const auto& files = FuzzFiles();
    auto it = files.find(std::filesystem::path(path).lexically_normal().string());
    if (it == files.end()) return MakeError(-ENOENT, "No such file or directory");
    return it->second;
  };
  env.pagesize = 4096;
  env.mb_memory = 16384;
  env.ncpus = 8;
  return env;
}

}  // namespace blk::bench::fuzz
