// Fuzzes DecodeRun, the reader of the results MPI ranks send to rank 0
// (tools/block_bench/run/result_codec.h), and, on bytes it accepts, the
// merged reports and a second round trip (which must give the same bytes).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tools/block_bench/report/report.h"
#include "tools/block_bench/run/result_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace blk::bench;
  static const std::vector<JobOptions> jobs = [] {
    std::vector<JobOptions> j(2);
    j[0].name = "a";
    j[1].name = "b";
    j[1].group_reporting = true;
    return j;
  }();
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  auto run = DecodeRun(bytes, jobs);
  if (!run.ok()) {
    if (run.error().message.empty()) std::abort();
    return 0;
  }
  for (const CloneResult& c : run->clones)
    if (c.job_index >= jobs.size() || c.job != &jobs[c.job_index]) std::abort();
  const std::string again = EncodeRun(*run);
  auto back = DecodeRun(again, jobs);
  if (!back.ok() || EncodeRun(*back) != again) std::abort();
  std::vector<ClientRun> clients = {ClientRun{0, "h0", *run}, ClientRun{1, "h1", std::move(*back)}};
  (void)ClientsTextReport(clients, true);
  // Non-UTF-8 names are replaced, as block-bench prints them.
  (void)ClientsJsonReport(clients, true).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
