// fio's --debug=CATEGORY[,CATEGORY...] categories, in fio's order (its
// debug.h), and the parse of the flag's value.
//
// block-bench prints its own lines for the categories that map onto what
// it does (run/debug_log.h: parse, file, io, random, job, process); the
// others are accepted and print nothing.
//
// Thread-safety: pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace blk::bench {

enum class DebugCategory : uint32_t {
  kProcess, kFile, kIo, kMem, kBlktrace, kVerify, kRandom, kParse, kDiskutil, kJob, kMutex,
  kProfile, kTime, kNet, kRate, kCompress, kSteadystate, kHelperthread, kZbd,
  kCount
};

// "process", "file", ... "zbd" (fio's names).
std::string_view Name(DebugCategory c);

inline constexpr uint32_t Bit(DebugCategory c) { return 1u << uint32_t(c); }

// fio's list for --debug=?: "process,file,...,zbd,all".
std::string DebugCategoryList();

// The value of --debug: the categories named ("all": every one) as a mask,
// and the names that are none of them, in order (fio says "debug mask X not
// found" for each and goes on).  Empty names (",,") are skipped.
struct DebugMask {
  uint32_t mask = 0;
  std::vector<std::string> unknown;
  friend bool operator==(const DebugMask&, const DebugMask&) = default;
};
DebugMask ParseDebugMask(std::string_view list);

}  // namespace blk::bench
