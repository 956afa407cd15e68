// null_bench: the block layer's own cost per I/O, measured through the front
// end (BlockBackend -> BlockNode -> null driver) on one loop on one thread.
//
// For each queue depth it keeps `qd` coroutines issuing 4k random reads for
// the given time and prints IOPS, ns per I/O and CPU per I/O.  Latency
// accounting stays on (two clock reads and a histogram update per I/O), as a
// benchmark tool needs it.  Compare with
//   fio --name=n --ioengine=null --rw=randread --bs=4k --iodepth=32
//       --size=100G --runtime=10 --time_based   (one line)
// (tools/bench/null_compare.sh runs both in the same run).
//
// Usage: null_bench [--seconds=S] [--qd=1,32,128] [--spec=SPEC] [--json]
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <blkstack/block/registry.h>
#include <blkstack/util/aligned_buffer.h>
#include <blkstack/util/clock.h>
#include <blkstack/util/xorshift.h>

namespace blk {
namespace {

struct Run {
  int qd;
  uint64_t ios = 0;
  double seconds = 0;
  double usr_s = 0, sys_s = 0;
  double p50_ns = 0, p99_ns = 0;
};

Task<void> Worker(BlockBackend& blk, uint64_t blocks, uint64_t seed, const bool* stop,
                  uint64_t* ios, WaitGroup* wg) {
  AlignedBuffer buf(4096);
  IoVec iov = buf.iov();
  // A cheap generator: the benchmark measures the layer, not RNG.
  XorShift64 rng = XorShift64::ForWorker(seed);
  while (!*stop) {
    Status s = co_await blk.read((rng.next() % blocks) * 4096, iov);
    if (!s.ok()) {
      std::fprintf(stderr, "null_bench: read failed: %s\n", ErrnoString(s.error()).c_str());
      std::exit(1);
    }
    (*ios)++;
  }
  wg->done();
}

Task<void> RunDepth(AioContext& ctx, BlockBackend& blk, int qd, double seconds, uint64_t* ios) {
  bool stop = false;
  Timer t(ctx, [&] { stop = true; });
  t.arm_in(int64_t(seconds * 1e9));
  WaitGroup wg(ctx);
  wg.add(qd);
  uint64_t blocks = blk.length() / 4096;
  for (int i = 0; i < qd; i++) Spawn(ctx, Worker(blk, blocks, uint64_t(i + 1), &stop, ios, &wg));
  co_await wg.wait();
}

double Seconds(const timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; }

Run Measure(AioContext& ctx, BlockBackend& blk, int qd, double seconds) {
  Run r;
  r.qd = qd;
  rusage ru0, ru1;
  getrusage(RUSAGE_THREAD, &ru0);
  int64_t t0 = NowNs();
  RunSync(ctx, RunDepth(ctx, blk, qd, seconds, &r.ios));
  int64_t t1 = NowNs();
  getrusage(RUSAGE_THREAD, &ru1);
  r.seconds = double(t1 - t0) / 1e9;
  r.usr_s = Seconds(ru1.ru_utime) - Seconds(ru0.ru_utime);
  r.sys_s = Seconds(ru1.ru_stime) - Seconds(ru0.ru_stime);
  // Latency of this run only: the caller opens a fresh backend per run.
  const auto& h = blk.stats()[IoOp::kRead].latency_ns;
  r.p50_ns = double(h.percentile(50));
  r.p99_ns = double(h.percentile(99));
  return r;
}

int Main(int argc, char** argv) {
  double seconds = 5;
  std::vector<int> depths = {1, 32, 128};
  std::string spec = "driver=null,size=100G";
  bool json = false;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a.rfind("--seconds=", 0) == 0) {
      seconds = std::atof(a.c_str() + 10);
    } else if (a.rfind("--qd=", 0) == 0) {
      depths.clear();
      for (const char* p = a.c_str() + 5; *p;) {
        depths.push_back(std::atoi(p));
        const char* c = std::strchr(p, ',');
        if (!c) break;
        p = c + 1;
      }
    } else if (a.rfind("--spec=", 0) == 0) {
      spec = a.substr(7);
    } else if (a == "--json") {
      json = true;
    } else {
      std::fprintf(stderr,
                   "usage: null_bench [--seconds=S] [--qd=1,32,128] [--spec=SPEC] [--json]\n");
      return 2;
    }
  }
  if (seconds <= 0 || depths.empty()) {
    std::fprintf(stderr, "null_bench: --seconds must be > 0 and --qd non-empty\n");
    return 2;
  }
  AioContext ctx;
  std::vector<Run> runs;
  for (int qd : depths) {
    if (qd < 1) {
      std::fprintf(stderr, "null_bench: queue depth must be >= 1, got %d\n", qd);
      return 2;
    }
    auto blk = OpenBackend(ctx, spec);
    if (!blk.ok()) {
      std::fprintf(stderr, "null_bench: %s\n", blk.error().message.c_str());
      return 1;
    }
    runs.push_back(Measure(ctx, **blk, qd, seconds));
  }
  if (json) {
    std::printf("{\"spec\": \"%s\", \"runs\": [", spec.c_str());
    for (size_t i = 0; i < runs.size(); i++) {
      const Run& r = runs[i];
      std::printf("%s{\"qd\": %d, \"ios\": %llu, \"seconds\": %.3f, \"iops\": %.0f, "
                  "\"usr_s\": %.3f, \"sys_s\": %.3f, \"p50_ns\": %.0f, \"p99_ns\": %.0f}",
                  i ? ", " : "", r.qd, (unsigned long long)r.ios, r.seconds, r.ios / r.seconds,
                  r.usr_s, r.sys_s, r.p50_ns, r.p99_ns);
    }
    std::printf("]}\n");
    return 0;
  }
  std::printf("null_bench: 4k random reads through BlockBackend on '%s', one thread\n",
              spec.c_str());
  std::printf("%5s %12s %10s %12s %12s %10s %10s\n", "QD", "IOPS", "ns/IO", "usr ns/IO",
              "sys ns/IO", "p50 ns", "p99 ns");
  for (const Run& r : runs) {
    double iops = r.ios / r.seconds;
    std::printf("%5d %12.0f %10.1f %12.1f %12.1f %10.0f %10.0f\n", r.qd, iops,
                1e9 * r.seconds / double(r.ios), 1e9 * r.usr_s / double(r.ios),
                1e9 * r.sys_s / double(r.ios), r.p50_ns, r.p99_ns);
  }
  return 0;
}

}  // namespace
}  // namespace blk

int main(int argc, char** argv) { return blk::Main(argc, argv); }
