// The cost of rank 0's merge in an MPI run (docs/multi-host.md): the bytes
// one rank sends (EncodeRun of a real null-driver run, randrw, every
// latency histogram populated), and rank 0's work per rank: decoding those
// bytes and merging them into the "All clients" units.  Multiplying by the
// rank count gives the merge cost of a large run.
//
//   bazel run -c opt //tools/bench:merge_bench
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "tools/block_bench/jobfile/cmdline.h"
#include "tools/block_bench/jobfile/parse_env.h"
#include "tools/block_bench/report/report.h"
#include "tools/block_bench/run/result_codec.h"
#include "tools/block_bench/run/runner.h"

namespace blk::bench {
namespace {

struct Fixture {
  std::vector<JobOptions> jobs;
  std::string bytes;
  Fixture() {
    auto cl = ParseCommandLine({"--name=m", "--ioengine=null", "--rw=randrw", "--bs=4k",
                                "--size=1g", "--runtime=1", "--time_based", "--iodepth=8",
                                "--blockdev=driver=null,size=1G,latency-ns=2000"},
                               ParseEnvironment::FromSystem());
    jobs = cl->jobs;
    bytes = EncodeRun(RunJobs(jobs));
  }
};

Fixture& F() {
  static Fixture f;
  return f;
}

void BM_Encode(benchmark::State& state) {
  auto decoded = DecodeRun(F().bytes, F().jobs);
  RunResult run = std::move(*decoded);
  for (auto _ : state) benchmark::DoNotOptimize(EncodeRun(run));
  state.counters["bytes_per_rank"] = double(F().bytes.size());
}
BENCHMARK(BM_Encode);

// Rank 0, per rank: decode, then merge into the All clients units.
void BM_DecodeAndMergePerRank(benchmark::State& state) {
  const int ranks = int(state.range(0));
  std::vector<ClientRun> clients;
  for (auto _ : state) {
    clients.clear();
    for (int r = 0; r < ranks; r++) {
      auto run = DecodeRun(F().bytes, F().jobs);
      clients.push_back(ClientRun{r, "h", std::move(*run)});
    }
    benchmark::DoNotOptimize(AllClientsUnits(clients));
  }
  state.SetItemsProcessed(state.iterations() * ranks);
  state.counters["bytes_per_rank"] = double(F().bytes.size());
}
BENCHMARK(BM_DecodeAndMergePerRank)->Arg(8)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace blk::bench
