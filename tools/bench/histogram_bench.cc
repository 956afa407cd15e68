// Micro-benchmarks for LatencyHistogram: the cost of record() (called once
// per I/O by block-bench), and of the once-per-report operations.
//
// Run: histogram_bench [--benchmark_filter=Record]
// The "ns/record" figure is the per-iteration time of BM_Record*.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <blkstack/util/histogram.h>

namespace blk {
namespace {

// Latency-like inputs: lognormal around 100 us, 1 ns .. seconds.  A power
// of two count so the index wraps with a mask.
std::vector<uint64_t> Samples(double sigma) {
  std::mt19937_64 rng(1);
  std::lognormal_distribution<double> d(std::log(1e5), sigma);
  std::vector<uint64_t> v(1 << 14);
  for (auto& x : v) x = static_cast<uint64_t>(d(rng));
  return v;
}

void BM_RecordLognormal(benchmark::State& state) {
  const std::vector<uint64_t> v = Samples(static_cast<double>(state.range(0)) / 10);
  LatencyHistogram h;
  size_t i = 0;
  for (auto _ : state) {
    h.record(v[i]);
    i = (i + 1) & (v.size() - 1);
  }
  benchmark::DoNotOptimize(h);
  state.SetItemsProcessed(state.iterations());
}
// sigma 0.3 (tight, few buckets hot) and 2.0 (wide, ns..s).
BENCHMARK(BM_RecordLognormal)->Arg(3)->Arg(20);

void BM_RecordConstant(benchmark::State& state) {
  LatencyHistogram h;
  uint64_t v = 123456;
  for (auto _ : state) {
    benchmark::DoNotOptimize(v);
    h.record(v);
  }
  benchmark::DoNotOptimize(h);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RecordConstant);

void BM_RecordN(benchmark::State& state) {
  const std::vector<uint64_t> v = Samples(2.0);
  LatencyHistogram h;
  size_t i = 0;
  for (auto _ : state) {
    h.record_n(v[i], 4);
    i = (i + 1) & (v.size() - 1);
  }
  benchmark::DoNotOptimize(h);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RecordN);

void BM_Merge(benchmark::State& state) {
  LatencyHistogram a, b;
  for (uint64_t x : Samples(2.0)) b.record(x);
  for (auto _ : state) {
    a.merge(b);
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(a);
}
BENCHMARK(BM_Merge);

void BM_Percentiles17(benchmark::State& state) {
  // fio's default list.
  static const double kList[] = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
  LatencyHistogram h;
  for (uint64_t x : Samples(2.0)) h.record(x);
  for (auto _ : state) {
    uint64_t acc = 0;
    for (double p : kList) acc += h.percentile(p);
    benchmark::DoNotOptimize(acc);
  }
}
BENCHMARK(BM_Percentiles17);

void BM_MeanStddev(benchmark::State& state) {
  LatencyHistogram h;
  for (uint64_t x : Samples(2.0)) h.record(x);
  for (auto _ : state) {
    benchmark::DoNotOptimize(h.mean());
    benchmark::DoNotOptimize(h.stddev());
  }
}
BENCHMARK(BM_MeanStddev);

}  // namespace
}  // namespace blk

BENCHMARK_MAIN();
