// rbd_bench: driver=rbd through the front end (BlockBackend) on one loop,
// until block-bench can drive it.  Workloads: randread / randwrite (bs 4k by
// default) and read / write (sequential), `qd` coroutines each keeping one
// request in flight for the given time.  Prints one line per run:
//   rbd_bench rw=randread bs=4096 qd=32 completion=eventfd: IOPS 12345 MiB/s 48.2
//     usr 0.52 sys 0.30 cpu_us_per_io 26.6
// (usr/sys: CPU s per s of the whole process, all librbd threads included,
// over the run only; cpu_us_per_io: their sum per I/O).
// Compare with `fio --ioengine=rbd` and `rbd bench` (tools/bench/rbd_compare.sh).
//
// Usage: rbd_bench --spec=SPEC [--rw=randread|randwrite|read|write] [--bs=4k]
//                  [--qd=32] [--seconds=10] [--span=256M]
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <blkstack/block/option_values.h>
#include <blkstack/block/registry.h>
#include <blkstack/util/aligned_buffer.h>
#include <blkstack/util/clock.h>
#include <blkstack/util/xorshift.h>

namespace blk {
namespace {

struct Args {
  std::string spec;
  std::string rw = "randread";
  uint64_t bs = 4096;
  int qd = 32;
  double seconds = 10;
  uint64_t span = 0;  // bytes of the image used; 0 = all
};

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "rbd_bench: %s\nusage: rbd_bench --spec=SPEC [--rw=randread|randwrite|read|write] "
               "[--bs=4k] [--qd=32] [--seconds=10] [--span=SIZE]\n",
               why);
  std::exit(2);
}

Args ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto val = [&](const char* key) -> const char* {
      size_t n = std::strlen(key);
      return s.compare(0, n, key) == 0 ? s.c_str() + n : nullptr;
    };
    if (auto v = val("--spec=")) {
      a.spec = v;
    } else if (auto v = val("--rw=")) {
      a.rw = v;
    } else if (auto v = val("--bs=")) {
      auto r = ParseSize(v);
      if (!r.ok()) Usage(r.error().message.c_str());
      a.bs = r.value();
    } else if (auto v = val("--qd=")) {
      a.qd = std::atoi(v);
    } else if (auto v = val("--seconds=")) {
      a.seconds = std::atof(v);
    } else if (auto v = val("--span=")) {
      auto r = ParseSize(v);
      if (!r.ok()) Usage(r.error().message.c_str());
      a.span = r.value();
    } else {
      Usage(("unknown argument " + s).c_str());
    }
  }
  if (a.spec.empty()) Usage("--spec is required");
  if (a.rw != "randread" && a.rw != "randwrite" && a.rw != "read" && a.rw != "write") {
    Usage("bad --rw");
  }
  if (a.qd < 1 || a.bs == 0) Usage("bad --qd or --bs");
  return a;
}

struct Shared {
  const Args* args;
  uint64_t blocks;
  uint64_t next_seq = 0;  // sequential workloads share one cursor
  bool stop = false;
  uint64_t ios = 0;
};

Task<void> Worker(BlockBackend& blk, Shared* sh, uint64_t seed, WaitGroup* wg) {
  const Args& a = *sh->args;
  AlignedBuffer buf(a.bs);
  std::memset(buf.data(), int(seed), a.bs);
  IoVec iov = buf.iov();
  const bool write = a.rw == "randwrite" || a.rw == "write";
  const bool random = a.rw[0] == 'r' && a.rw[1] == 'a';
  XorShift64 rng = XorShift64::ForWorker(seed);
  while (!sh->stop) {
    const uint64_t block = random ? rng.next() % sh->blocks : sh->next_seq++ % sh->blocks;
    Status s = write ? co_await blk.write(block * a.bs, iov) : co_await blk.read(block * a.bs, iov);
    if (!s.ok()) {
      std::fprintf(stderr, "rbd_bench: %s failed: %s\n", write ? "write" : "read",
                   ErrnoString(s.error()).c_str());
      std::exit(1);
    }
    sh->ios++;
  }
  wg->done();
}

double CpuSeconds(const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; }

int Main(int argc, char** argv) {
  Args a = ParseArgs(argc, argv);
  AioContext ctx;
  auto opened = OpenBackend(ctx, a.spec);
  if (!opened.ok()) {
    std::fprintf(stderr, "rbd_bench: %s\n", opened.error().message.c_str());
    return 1;
  }
  BlockBackend& blk = *opened.value();
  uint64_t span = a.span ? std::min(a.span, blk.length()) : blk.length();
  Shared sh{&a, span / a.bs};
  if (sh.blocks == 0) Usage("image smaller than one block");

  WaitGroup wg(ctx);
  Timer stop_timer(ctx, [&] { sh.stop = true; });
  rusage r0, r1;
  getrusage(RUSAGE_SELF, &r0);
  int64_t t0 = NowNs();
  stop_timer.arm_in(int64_t(a.seconds * 1e9));
  wg.add(a.qd);
  for (int i = 0; i < a.qd; ++i) Spawn(ctx, Worker(blk, &sh, i + 1, &wg));
  ctx.run_until([&] { return wg.count() == 0; });
  double secs = (NowNs() - t0) / 1e9;
  getrusage(RUSAGE_SELF, &r1);
  if (a.rw == "randwrite" || a.rw == "write") {
    Status s = RunSync(ctx, blk.flush());
    if (!s.ok()) std::fprintf(stderr, "rbd_bench: flush failed: %s\n", ErrnoString(s.error()).c_str());
  }
  std::string mode = "eventfd";
  if (auto p = a.spec.find("completion="); p != std::string::npos) {
    mode = a.spec.substr(p + 11, a.spec.find(',', p) - p - 11);
  }
  double usr = (CpuSeconds(r1.ru_utime) - CpuSeconds(r0.ru_utime)) / secs;
  double sys = (CpuSeconds(r1.ru_stime) - CpuSeconds(r0.ru_stime)) / secs;
  // Whole process (all librbd threads), measured over the run only.
  double cpu_us = sh.ios ? (usr + sys) * secs / double(sh.ios) * 1e6 : 0;
  std::printf(
      "rbd_bench rw=%s bs=%llu qd=%d completion=%s: IOPS %.0f MiB/s %.1f usr %.2f sys %.2f "
      "cpu_us_per_io %.1f\n",
      a.rw.c_str(), (unsigned long long)a.bs, a.qd, mode.c_str(), sh.ios / secs,
      sh.ios * double(a.bs) / secs / (1 << 20), usr, sys, cpu_us);
  std::vector<DriverCounter> cs;
  blk.root().driver().counters(&cs);
  std::string line;
  for (const auto& c : cs) line += " " + c.name + "=" + std::to_string(c.value);
  std::fprintf(stderr, "rbd_bench counters:%s\n", line.c_str());
  return 0;
}

}  // namespace
}  // namespace blk

int main(int argc, char** argv) { return blk::Main(argc, argv); }
