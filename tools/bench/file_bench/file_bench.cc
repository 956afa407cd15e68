// file_bench: 4k random or sequential reads and writes through
// BlockBackend -> file driver on one loop (the main thread), at several
// queue depths.
//
// Prints per run: IOPS, CPU per I/O (user and system, getrusage of the whole
// process, so aio=threads workers count), p50/p99 latency, and the driver's
// non-zero counters (io_submit calls, completions per reap, ...).
//
// Usage: file_bench --spec=SPEC [--seconds=S] [--qd=1,32,128]
//                   [--rw=randread,randwrite,read,write] [--size=BYTES]
//                   [--poll-max-ns=N]
//                   [--json]
//   e.g. --spec=driver=file,filename=/dev/zram0,aio=native,cache.direct=on
// read/write step through the device 4 KiB at a time, each new request
// taking the next offset whichever worker issues it (qemu-img bench's
// pattern), wrapping at the end.
// --size limits the region used (default: the whole device).  --poll-max-ns
// sets the loop's adaptive busy-poll ceiling (0: no polling; default 32768).
// The loop_* counters are the loop's: epoll_wait calls, polling phases and
// their successes, window grows/shrinks and the window at the end.
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <blkstack/block/option_values.h>
#include <blkstack/block/registry.h>
#include <blkstack/util/aligned_buffer.h>
#include <blkstack/util/clock.h>
#include <blkstack/util/xorshift.h>

namespace blk {
namespace {

struct Run {
  std::string rw;
  int qd = 0;
  uint64_t ios = 0;
  double seconds = 0, usr_s = 0, sys_s = 0, p50_ns = 0, p99_ns = 0;
  std::vector<DriverCounter> counters;
};

// seq: null for random offsets, else the next sequential block, shared by
// all workers.
Task<void> Worker(BlockBackend& blk, bool write, uint64_t blocks, uint64_t seed,
                  uint64_t* seq, const bool* stop, uint64_t* ios, WaitGroup* wg) {
  AlignedBuffer buf(4096);
  memset(buf.data(), int(seed), 4096);
  IoVec iov = buf.iov();
  XorShift64 rng = XorShift64::ForWorker(seed);
  while (!*stop) {
    const uint64_t x = rng.next();
    const uint64_t off = seq ? ((*seq)++ % blocks) * 4096 : (x % blocks) * 4096;
    Status s = write ? co_await blk.write(off, iov) : co_await blk.read(off, iov);
    if (!s.ok()) {
      std::fprintf(stderr, "file_bench: I/O failed: %s\n", ErrnoString(s.error()).c_str());
      std::exit(1);
    }
    (*ios)++;
  }
  wg->done();
}

Task<void> RunDepth(AioContext& ctx, BlockBackend& blk, bool write, bool sequential, int qd,
                    double seconds, uint64_t blocks, uint64_t* ios) {
  bool stop = false;
  uint64_t next = 0;
  Timer t(ctx, [&] { stop = true; });
  t.arm_in(int64_t(seconds * 1e9));
  WaitGroup wg(ctx);
  wg.add(qd);
  for (int i = 0; i < qd; i++) {
    Spawn(ctx, Worker(blk, write, blocks, uint64_t(i + 1), sequential ? &next : nullptr, &stop,
                      ios, &wg));
  }
  co_await wg.wait();
}

double Seconds(const timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; }

std::vector<int> ParseInts(const char* p) {
  std::vector<int> v;
  while (*p) {
    v.push_back(std::atoi(p));
    const char* c = std::strchr(p, ',');
    if (!c) break;
    p = c + 1;
  }
  return v;
}

int Main(int argc, char** argv) {
  double seconds = 5;
  std::vector<int> depths = {1, 32, 128};
  std::vector<std::string> rws = {"randread", "randwrite"};
  std::string spec;
  uint64_t size = 0;
  bool json = false;
  int64_t poll_max_ns = -1;  // -1: the loop's default
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a.rfind("--seconds=", 0) == 0) {
      seconds = std::atof(a.c_str() + 10);
    } else if (a.rfind("--qd=", 0) == 0) {
      depths = ParseInts(a.c_str() + 5);
    } else if (a.rfind("--rw=", 0) == 0) {
      rws.clear();
      std::string s = a.substr(5);
      for (size_t p = 0; p <= s.size();) {
        size_t c = s.find(',', p);
        if (c == std::string::npos) c = s.size();
        rws.push_back(s.substr(p, c - p));
        p = c + 1;
      }
    } else if (a.rfind("--spec=", 0) == 0) {
      spec = a.substr(7);
    } else if (a.rfind("--size=", 0) == 0) {
      auto s = ParseSize(a.substr(7));
      if (!s.ok()) {
        std::fprintf(stderr, "file_bench: %s\n", s.error().message.c_str());
        return 2;
      }
      size = s.value();
    } else if (a.rfind("--poll-max-ns=", 0) == 0) {
      poll_max_ns = std::atoll(a.c_str() + 14);
    } else if (a == "--json") {
      json = true;
    } else {
      std::fprintf(stderr,
                   "usage: file_bench --spec=SPEC [--seconds=S] [--qd=1,32,128] "
                   "[--rw=randread,randwrite,read,write] [--size=BYTES] [--poll-max-ns=N] "
                   "[--json]\n");
      return 2;
    }
  }
  if (spec.empty() || seconds <= 0 || depths.empty()) {
    std::fprintf(stderr, "file_bench: --spec is required; --seconds > 0; --qd non-empty\n");
    return 2;
  }
  AioContext ctx;
  if (poll_max_ns >= 0) {
    PollParams pp = ctx.poll_params();
    pp.max_ns = poll_max_ns;
    ctx.set_poll_params(pp);
  }
  std::vector<Run> runs;
  for (const std::string& rw : rws) {
    if (rw != "randread" && rw != "randwrite" && rw != "read" && rw != "write") {
      std::fprintf(stderr, "file_bench: --rw takes randread, randwrite, read, write; got '%s'\n",
                   rw.c_str());
      return 2;
    }
    for (int qd : depths) {
      if (qd < 1) {
        std::fprintf(stderr, "file_bench: queue depth must be >= 1\n");
        return 2;
      }
      auto blk = OpenBackend(ctx, spec);
      if (!blk.ok()) {
        std::fprintf(stderr, "file_bench: %s\n", blk.error().message.c_str());
        return 1;
      }
      BlockBackend& b = **blk;
      uint64_t len = size ? std::min(size, b.length()) : b.length();
      uint64_t blocks = len / 4096;
      if (!blocks) {
        std::fprintf(stderr, "file_bench: device smaller than 4k\n");
        return 1;
      }
      Run r;
      r.rw = rw;
      r.qd = qd;
      rusage ru0, ru1;
      getrusage(RUSAGE_SELF, &ru0);
      const LoopStats ls0 = ctx.stats();
      int64_t t0 = NowNs();
      const bool write = rw == "randwrite" || rw == "write";
      RunSync(ctx, RunDepth(ctx, b, write, rw == "read" || rw == "write", qd, seconds, blocks,
                            &r.ios));
      int64_t t1 = NowNs();
      getrusage(RUSAGE_SELF, &ru1);
      const LoopStats ls1 = ctx.stats();
      r.seconds = double(t1 - t0) / 1e9;
      r.usr_s = Seconds(ru1.ru_utime) - Seconds(ru0.ru_utime);
      r.sys_s = Seconds(ru1.ru_stime) - Seconds(ru0.ru_stime);
      const auto& h = b.stats()[write ? IoOp::kWrite : IoOp::kRead].latency_ns;
      r.p50_ns = double(h.percentile(50));
      r.p99_ns = double(h.percentile(99));
      b.root().driver().counters(&r.counters);
      // The loop's side: how often it slept in epoll_wait and how the
      // adaptive busy-poll window behaved.
      r.counters.push_back({"loop_iterations", ls1.iterations - ls0.iterations});
      r.counters.push_back({"loop_epoll_waits", ls1.epoll_waits - ls0.epoll_waits});
      r.counters.push_back({"loop_poll_phases", ls1.poll_phases - ls0.poll_phases});
      r.counters.push_back({"loop_poll_successes", ls1.poll_successes - ls0.poll_successes});
      r.counters.push_back({"loop_poll_declined", ls1.poll_declined - ls0.poll_declined});
      r.counters.push_back({"loop_poll_ns_grows", ls1.poll_ns_grows - ls0.poll_ns_grows});
      r.counters.push_back({"loop_poll_ns_shrinks", ls1.poll_ns_shrinks - ls0.poll_ns_shrinks});
      r.counters.push_back({"loop_poll_ns_end", uint64_t(ctx.poll_ns())});
      runs.push_back(std::move(r));
    }
  }
  if (json) {
    std::printf("{\"spec\": \"%s\", \"runs\": [", spec.c_str());
    for (size_t i = 0; i < runs.size(); i++) {
      const Run& r = runs[i];
      std::printf("%s{\"rw\": \"%s\", \"qd\": %d, \"ios\": %llu, \"seconds\": %.3f, "
                  "\"iops\": %.0f, \"usr_ns_per_io\": %.0f, \"sys_ns_per_io\": %.0f, "
                  "\"p50_ns\": %.0f, \"p99_ns\": %.0f, \"counters\": {",
                  i ? ", " : "", r.rw.c_str(), r.qd, (unsigned long long)r.ios, r.seconds,
                  r.ios / r.seconds, r.usr_s * 1e9 / double(r.ios ? r.ios : 1),
                  r.sys_s * 1e9 / double(r.ios ? r.ios : 1), r.p50_ns, r.p99_ns);
      bool first = true;
      for (const auto& c : r.counters) {
        if (!c.value) continue;
        std::printf("%s\"%s\": %llu", first ? "" : ", ", c.name.c_str(),
                    (unsigned long long)c.value);
        first = false;
      }
      std::printf("}}");
    }
    std::printf("]}\n");
    return 0;
  }
  std::printf("file_bench: 4k random I/O through BlockBackend on '%s', one loop\n", spec.c_str());
  for (const Run& r : runs) {
    const double n = double(r.ios ? r.ios : 1);
    std::printf("%-9s qd=%-4d iops=%9.0f  usr=%6.0f ns/io  sys=%6.0f ns/io  p50=%7.0f ns  "
                "p99=%7.0f ns\n",
                r.rw.c_str(), r.qd, r.ios / r.seconds, r.usr_s * 1e9 / n, r.sys_s * 1e9 / n,
                r.p50_ns, r.p99_ns);
    std::printf("  counters:");
    for (const auto& c : r.counters) {
      if (c.value) std::printf(" %s=%llu", c.name.c_str(), (unsigned long long)c.value);
    }
    std::printf("\n");
  }
  return 0;
}

}  // namespace
}  // namespace blk

int main(int argc, char** argv) { return blk::Main(argc, argv); }
