// Fuzzes the job-file parser (ParseJobText) with includes served from
// memory, and checks what render.h promises for every job it accepts:
// ParseCommandLine(RenderJobArgs(job)) gives back exactly that job.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "tests/fuzz/fuzz_env.h"
#include "tools/block_bench/jobfile/cmdline.h"
#include "tools/block_bench/jobfile/jobfile.h"
#include "tools/block_bench/jobfile/render.h"

namespace blk::bench {
namespace {

void CheckRoundTrip(const JobOptions& job, const ParseEnvironment& env) {
  Expected<CommandLine> again = ParseCommandLine(RenderJobArgs(job), env);
  if (!again.ok()) {
    std::fprintf(stderr, "rendered job does not parse: %s\n", again.error().message.c_str());
    std::abort();
  }
  if (again.value().jobs.size() != 1 || !(again.value().jobs[0] == job)) {
    std::fprintf(stderr, "rendered job parses to something else\n");
    std::abort();
  }
}

}  // namespace
}  // namespace blk::bench

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace blk::bench;
  static const ParseEnvironment env = fuzz::FuzzEnvironment();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto jobs = ParseJobText(text, "fuzz.fio", env);
  if (!jobs.ok()) return 0;
  for (const JobOptions& job : jobs.value()) CheckRoundTrip(job, env);
  return 0;
}
