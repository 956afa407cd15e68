// emulator: a virtio-blk-like device with N request queues, each fed by a
// guest-like workload, served through blkstack's C++ API on an event loop
// chosen by flag (native AioContext::run, libevent, or Boost.Asio).  It shows
// how a VM I/O emulator embeds the block layer, and measures what each host
// loop costs.
//
//   emulator [--loop=native|libevent|asio] [--queues=N] [--depth=D]
//            [--seconds=S] [--spec=SPEC] [--rwmix=PCT] [--bs=SIZE] [--json]
//            [--write-iolog=FILE] [-h|--help]
//
// kUsage (printed by --help) gives every flag's default and meaning.  Sizes
// are ParseSize's (bytes, or a k/m/g suffix, 1024-based like fio's default
// kb_base); numbers must be whole and in range, or the emulator exits 2 with
// a message naming the flag and the value.
//
// Queue workloads, by queue index modulo 3:
//   0: random bs-sized reads and writes, PCT % reads
//   1: sequential reads: slot s of D reads on from s/D of the way in
//   2: random writes with a flush after every 32 writes
// Per queue it reports the requests completed (reads, writes, flushes), bytes,
// IOPS, bandwidth and request latency (p50/p99/max).  Each slot keeps one
// request in flight, so queues whose requests all take the same time (the
// null driver: same delay for every request type) complete the same number of
// requests whatever their workload; see kUsage.
// --write-iolog records every request the device receives, as it enters the
// block layer, in fio's iolog v3 (block-bench read_iolog= replays it against
// any driver graph: docs/replay.md).
#include <event2/event.h>
#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <blkstack/block/option_values.h>
#include <blkstack/block/registry.h>
#include "tools/block_bench/trace/iolog_writer.h"
#include <blkstack/util/aligned_buffer.h>
#include <blkstack/util/clock.h>
#include <blkstack/util/embed/asio_loop.h>
#include <blkstack/util/embed/libevent_loop.h>
#include <blkstack/util/histogram.h>
#include <blkstack/util/xorshift.h>

namespace blk {
namespace {

// The request layout of virtio-blk: a type, a sector, data, a status byte.
enum : uint32_t { kVirtioBlkTIn = 0, kVirtioBlkTOut = 1, kVirtioBlkTFlush = 4 };
enum : uint8_t { kVirtioBlkSOk = 0, kVirtioBlkSIoErr = 1 };

struct VirtioBlkReq {
  uint32_t type = kVirtioBlkTIn;
  uint64_t sector = 0;  // 512-byte units
  IoVec data;
  uint8_t status = kVirtioBlkSOk;
};

struct Config {
  std::string loop = "native";
  int queues = 4;
  int depth = 16;
  double seconds = 3;
  std::string spec = "driver=null,size=8G";
  int rwmix = 70;
  uint64_t bs = 4096;
  bool json = false;
  std::string write_iolog;
};

// What the device received (--write-iolog): times in us since `t0_ns`.
struct Recorder {
  bench::trace::IologWriter* log = nullptr;
  int64_t t0_ns = 0;
};

// One per queue, shared by the queue's slots (one loop: no locking).
struct QueueStats {
  uint64_t ios = 0, bytes = 0, errors = 0;
  uint64_t reads = 0, writes = 0, flushes = 0;  // ios by type
  LatencyHistogram lat;
};

// The device side: turns a virtio-blk request into a block-layer request.
Task<void> Serve(BlockBackend& blk, VirtioBlkReq* req, const Recorder& rec) {
  if (rec.log) {
    using bench::trace::Op;
    const Op op = req->type == kVirtioBlkTIn    ? Op::kRead
                  : req->type == kVirtioBlkTOut ? Op::kWrite
                                                : Op::kFlush;
    if (req->type <= kVirtioBlkTFlush)
      rec.log->io((NowNs() - rec.t0_ns) / 1000, 0, op, req->sector * 512, req->data.size());
  }
  Status s;
  switch (req->type) {
    case kVirtioBlkTIn: s = co_await blk.read(req->sector * 512, req->data); break;
    case kVirtioBlkTOut: s = co_await blk.write(req->sector * 512, req->data); break;
    case kVirtioBlkTFlush: s = co_await blk.flush(); break;
    default: s = Status(-ENOTSUP);
  }
  req->status = s.ok() ? kVirtioBlkSOk : kVirtioBlkSIoErr;
}

// The guest side of one in-flight slot of a queue.
Task<void> GuestSlot(const Config& cfg, BlockBackend& blk, int queue, int slot, const bool* stop,
                     QueueStats* st, WaitGroup* wg, const Recorder* rec) {
  AlignedBuffer buf(cfg.bs);
  const uint64_t blocks = blk.length() / cfg.bs;
  XorShift64 rng(uint64_t(queue) * 1000003 + uint64_t(slot) * 7919 + 1);
  uint64_t seq = (uint64_t(slot) * blocks) / uint64_t(cfg.depth);
  int writes = 0;
  while (!*stop) {
    VirtioBlkReq req;
    req.data = buf.iov();
    switch (queue % 3) {
      case 0:
        req.type = int(rng.next() % 100) < cfg.rwmix ? kVirtioBlkTIn : kVirtioBlkTOut;
        req.sector = (rng.next() % blocks) * cfg.bs / 512;
        break;
      case 1:
        req.type = kVirtioBlkTIn;
        req.sector = (seq++ % blocks) * cfg.bs / 512;
        break;
      default:
        if (++writes % 33 == 0) {
          req.type = kVirtioBlkTFlush;
          req.data.clear();
        } else {
          req.type = kVirtioBlkTOut;
          req.sector = (rng.next() % blocks) * cfg.bs / 512;
        }
    }
    int64_t t0 = NowNs();
    co_await Serve(blk, &req, *rec);
    st->lat.record(uint64_t(NowNs() - t0));
    st->ios++;
    st->bytes += req.data.size();
    switch (req.type) {
      case kVirtioBlkTIn: st->reads++; break;
      case kVirtioBlkTOut: st->writes++; break;
      default: st->flushes++;
    }
    if (req.status != kVirtioBlkSOk) st->errors++;
  }
  wg->done();
}

Task<void> RunAll(const Config& cfg, AioContext& ctx, BlockBackend& blk,
                  std::vector<QueueStats>* stats, const Recorder* rec, bool* finished) {
  bool stop = false;
  Timer deadline(ctx, [&] { stop = true; });
  deadline.arm_in(int64_t(cfg.seconds * 1e9));
  WaitGroup wg(ctx);
  wg.add(cfg.queues * cfg.depth);
  for (int q = 0; q < cfg.queues; q++) {
    for (int s = 0; s < cfg.depth; s++) {
      Spawn(ctx, GuestSlot(cfg, blk, q, s, &stop, &(*stats)[q], &wg, rec));
    }
  }
  co_await wg.wait();
  *finished = true;
}

const char* WorkloadName(int q) {
  switch (q % 3) {
    case 0: return "random read/write";
    case 1: return "sequential read";
    default: return "random write+flush";
  }
}

// The measurements of a whole run, for the report.
struct RunInfo {
  double secs = 0;  // wall time, start to the last slot's exit
  double cpu = 0;   // process CPU time (user + system) in seconds
};

struct Totals {
  uint64_t ios = 0, bytes = 0, errors = 0, min_ios = UINT64_MAX, max_ios = 0;
};

Totals Sum(const std::vector<QueueStats>& stats) {
  Totals t;
  for (const QueueStats& s : stats) {
    t.ios += s.ios, t.bytes += s.bytes, t.errors += s.errors;
    t.min_ios = std::min(t.min_ios, s.ios), t.max_ios = std::max(t.max_ios, s.ios);
  }
  return t;
}

void PrintJson(const Config& cfg, const RunInfo& run, const std::vector<QueueStats>& stats) {
  const Totals t = Sum(stats);
  std::printf("{\"loop\": \"%s\", \"seconds\": %.3f, \"ios\": %" PRIu64
              ", \"bytes\": %" PRIu64 ", \"iops\": %.0f, \"cpu_ns_per_io\": %.1f"
              ", \"errors\": %" PRIu64 ", \"queues\": [",
              cfg.loop.c_str(), run.secs, t.ios, t.bytes, t.ios / run.secs,
              t.ios ? run.cpu * 1e9 / t.ios : 0.0, t.errors);
  for (int q = 0; q < cfg.queues; q++) {
    const QueueStats& s = stats[q];
    std::printf("%s{\"queue\": %d, \"workload\": \"%s\", \"ios\": %" PRIu64
                ", \"reads\": %" PRIu64 ", \"writes\": %" PRIu64 ", \"flushes\": %" PRIu64
                ", \"bytes\": %" PRIu64 ", \"iops\": %.0f, \"p50_ns\": %" PRIu64
                ", \"p99_ns\": %" PRIu64 ", \"errors\": %" PRIu64 "}",
                q ? ", " : "", q, WorkloadName(q), s.ios, s.reads, s.writes, s.flushes, s.bytes,
                s.ios / run.secs, s.lat.percentile(50), s.lat.percentile(99), s.errors);
  }
  std::printf("]}\n");
}

void PrintText(const Config& cfg, const RunInfo& run, const std::vector<QueueStats>& stats) {
  const Totals t = Sum(stats);
  std::printf("emulator: %d queues x depth %d on '%s', loop=%s, %.1f s\n", cfg.queues, cfg.depth,
              cfg.spec.c_str(), cfg.loop.c_str(), run.secs);
  for (int q = 0; q < cfg.queues; q++) {
    const QueueStats& s = stats[q];
    std::printf("  queue %d (%-18s): %10.0f IOPS %9.1f MiB/s  lat p50 %7.1f us  p99 %7.1f us"
                "  max %8.1f us  errors %" PRIu64 "\n",
                q, WorkloadName(q), s.ios / run.secs, s.bytes / run.secs / 1048576.0,
                s.lat.percentile(50) / 1e3, s.lat.percentile(99) / 1e3, s.lat.max() / 1e3,
                s.errors);
    std::printf("      %" PRIu64 " I/Os: %" PRIu64 " reads, %" PRIu64 " writes, %" PRIu64
                " flushes; %.1f MiB\n",
                s.ios, s.reads, s.writes, s.flushes, s.bytes / 1048576.0);
  }
  std::printf("  total: %" PRIu64 " I/Os, %.0f IOPS, CPU %.1f ns per I/O\n", t.ios,
              t.ios / run.secs, t.ios ? run.cpu * 1e9 / t.ios : 0.0);
  // Equal counts are what one request in flight per slot gives on a device
  // that takes as long for every request (kUsage); say so rather than let
  // them pass for a measurement of the workloads.
  if (cfg.queues > 1 && t.max_ios > 0 && (t.max_ios - t.min_ios) * 100 <= t.max_ios) {
    std::printf("  note: every queue completed about as many requests (within 1 %%): each of\n"
                "  their slots keeps one request in flight and this device took about as\n"
                "  long for each request type (see --help)\n");
  }
}

// Limits of the numeric flags.  virtio-blk's num_queues is 16 bits and a
// virtqueue holds at most 32768 descriptors; the cap on slots (one coroutine
// and one bs buffer each) keeps queues x depth far from int overflow.
constexpr int kMaxQueues = 65535;
constexpr int kMaxDepth = 32768;
constexpr int64_t kMaxSlots = int64_t(1) << 20;
constexpr double kMaxSeconds = 1e6;  // the deadline, in ns, fits in int64

constexpr char kUsage[] = R"(usage: emulator [FLAG]...

A virtio-blk-like device: N request queues, each fed by a guest-like workload,
served through blkstack on the chosen host event loop.  Prints per queue the
requests completed (reads, writes, flushes), bytes, IOPS, bandwidth and
latency, then the total.  Exit status: 0, 1 if any request failed or the
device could not be opened, 2 on a bad argument.

Flags (SIZE: bytes, or with a k/m/g suffix, 1024-based as fio's: 4k = 4096):
  --loop=native|libevent|asio
                     host loop that drives blkstack's loop (default native)
  --queues=N         request queues, 1..65535 (default 4)
  --depth=D          requests in flight per queue (its slots), 1..32768
                     (default 16); queues x depth at most 1048576
  --seconds=S        run time in seconds, > 0, fractions allowed (default 3)
  --spec=SPEC        driver graph to serve (default driver=null,size=8G)
  --rwmix=PCT        % reads on the random read/write queues, 0..100
                     (default 70)
  --bs=SIZE          request size, a multiple of 512 (default 4k)
  --json             print the report as one JSON object (default: text)
  --write-iolog=FILE record every request the device receives, as it enters
                     the block layer, in fio's iolog v3 (default: none);
                     block-bench read_iolog=FILE replays it (docs/replay.md)
  -h, --help         print this help and exit

Queue workloads, by queue index modulo 3:
  0: random reads and writes, --rwmix % reads
  1: sequential reads: slot s of D reads on from s/D of the way in (wrapping)
  2: random writes with a flush after every 32 writes

Why queues with different workloads can show the same IOPS: each slot keeps
one request in flight and issues the next when it completes, and all slots
take turns on one loop.  When every request takes the same time, as on the
null driver (each completes on the next loop turn, or after latency-ns, for
reads, writes and flushes alike), every slot completes one request per turn
and every queue of the same depth the same number: the IOPS measure the
loop, not the workload.  The read/write/flush counts and bytes show what each
queue did.  Queues differ where the device treats requests differently, e.g.
  --spec=driver=throttle,iops-write=2000,file.driver=null,file.size=8G
)";

void PrintBadValue(std::string_view flag, const char* expected, std::string_view value) {
  std::fprintf(stderr, "emulator: %.*s: %s, got '%.*s'\n", int(flag.size()), flag.data(),
               expected, int(value.size()), value.data());
}

// Parses a whole number in [lo, hi] for `flag`; prints why not and returns
// false otherwise.
bool ParseIntFlag(std::string_view flag, std::string_view v, int lo, int hi, int* out) {
  auto n = ParseInt(v);
  if (!n.ok() || *n < lo || *n > hi) {
    char expected[64];
    std::snprintf(expected, sizeof expected, "expected an integer from %d to %d", lo, hi);
    PrintBadValue(flag, expected, v);
    return false;
  }
  *out = int(*n);
  return true;
}

// Parses a size (ParseSize: plain bytes or a k/m/g/... suffix, 1024-based).
bool ParseSizeFlag(std::string_view flag, std::string_view v, uint64_t* out) {
  auto n = ParseSize(v);
  if (!n.ok()) {
    PrintBadValue(flag,
                  n.error().code == -ERANGE
                      ? "expected a size (bytes, or with a k/m/g suffix) below 16 EiB"
                      : "expected a size (bytes, or with a k/m/g suffix)",
                  v);
    return false;
  }
  *out = *n;
  return true;
}

// Parses a finite number of seconds in (0, kMaxSeconds].
bool ParseSecondsFlag(std::string_view flag, std::string_view v, double* out) {
  double d = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size() || !std::isfinite(d) ||
      d <= 0 || d > kMaxSeconds) {
    PrintBadValue(flag, "expected a number of seconds > 0 and at most 1000000", v);
    return false;
  }
  *out = d;
  return true;
}

bool IsHelp(std::string_view a) { return a == "--help" || a == "-h"; }

// Fills `c` from the flags; on a bad one prints one line naming it (and, for
// an unknown one, a pointer to --help) and returns false.
bool ParseArgs(int argc, char** argv, Config* c) {
  static constexpr std::string_view kValueFlags[] = {
      "--loop", "--queues", "--depth", "--seconds", "--spec", "--rwmix", "--bs", "--write-iolog"};
  for (int i = 1; i < argc; i++) {
    const std::string_view a = argv[i];
    const size_t eq = a.find('=');
    const std::string_view flag = a.substr(0, eq);
    const std::string_view v = eq == std::string_view::npos ? "" : a.substr(eq + 1);
    if (a == "--json") {
      c->json = true;
    } else if (eq == std::string_view::npos) {
      if (std::find(std::begin(kValueFlags), std::end(kValueFlags), a) != std::end(kValueFlags)) {
        std::fprintf(stderr, "emulator: %s needs a value: %s=VALUE (see --help)\n", argv[i],
                     argv[i]);
      } else {
        std::fprintf(stderr, "emulator: unknown argument '%s'\nemulator: try --help\n", argv[i]);
      }
      return false;
    } else if (flag == "--loop") {
      c->loop = v;
    } else if (flag == "--queues") {
      if (!ParseIntFlag(flag, v, 1, kMaxQueues, &c->queues)) return false;
    } else if (flag == "--depth") {
      if (!ParseIntFlag(flag, v, 1, kMaxDepth, &c->depth)) return false;
    } else if (flag == "--seconds") {
      if (!ParseSecondsFlag(flag, v, &c->seconds)) return false;
    } else if (flag == "--spec") {
      c->spec = v;
    } else if (flag == "--rwmix") {
      if (!ParseIntFlag(flag, v, 0, 100, &c->rwmix)) return false;
    } else if (flag == "--bs") {
      if (!ParseSizeFlag(flag, v, &c->bs)) return false;
      if (c->bs < 512 || c->bs % 512) {
        PrintBadValue(flag, "expected a multiple of 512 bytes", v);
        return false;
      }
    } else if (flag == "--write-iolog") {
      if (v.empty()) {
        PrintBadValue(flag, "expected a file name", v);
        return false;
      }
      c->write_iolog = v;
    } else {
      std::fprintf(stderr, "emulator: unknown argument '%s'\nemulator: try --help\n", argv[i]);
      return false;
    }
  }
  if (c->loop != "native" && c->loop != "libevent" && c->loop != "asio") {
    PrintBadValue("--loop", "expected native, libevent or asio", c->loop);
    return false;
  }
  if (int64_t(c->queues) * c->depth > kMaxSlots) {
    std::fprintf(stderr,
                 "emulator: --queues x --depth: at most %" PRId64
                 " requests in flight, got %d x %d\n",
                 kMaxSlots, c->queues, c->depth);
    return false;
  }
  return true;
}

int Main(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    if (IsHelp(argv[i])) {
      std::fputs(kUsage, stdout);
      return 0;
    }
  }
  Config cfg;
  if (!ParseArgs(argc, argv, &cfg)) return 2;
  AioContext ctx;
  auto opened = OpenBackend(ctx, cfg.spec);
  if (!opened.ok()) {
    std::fprintf(stderr, "emulator: %s\n", opened.error().message.c_str());
    return 1;
  }
  BlockBackend& blk = **opened;
  if (blk.length() < cfg.bs) {
    std::fprintf(stderr, "emulator: device smaller than one block\n");
    return 1;
  }
  std::vector<QueueStats> stats(cfg.queues);
  std::optional<bench::trace::IologWriter> iolog;
  Recorder rec;
  if (!cfg.write_iolog.empty()) {
    auto w = bench::trace::IologWriter::Open(cfg.write_iolog);
    if (!w.ok()) {
      std::fprintf(stderr, "emulator: %s\n", w.error().message.c_str());
      return 1;
    }
    iolog.emplace(std::move(*w));
    iolog->add_file(0, cfg.spec);
    rec.log = &*iolog;
  }
  bool finished = false;
  rusage ru0, ru1;
  getrusage(RUSAGE_SELF, &ru0);
  int64_t t0 = NowNs();
  rec.t0_ns = t0;
  Spawn(ctx, RunAll(cfg, ctx, blk, &stats, &rec, &finished));
  if (cfg.loop == "native") {
    ctx.run_until([&] { return finished; });
  } else if (cfg.loop == "libevent") {
    struct event_base* base = event_base_new();
    {
      auto att = LibeventAttachment::Attach(ctx, base);
      if (!att.ok()) {
        std::fprintf(stderr, "emulator: %s\n", att.error().message.c_str());
        return 1;
      }
      while (!finished) event_base_loop(base, EVLOOP_ONCE);
    }
    event_base_free(base);
  } else {
    boost::asio::io_context io;
    {
      AsioAttachment att(ctx, io);
      while (!finished) io.run_one();
    }
    io.poll();
  }
  double secs = double(NowNs() - t0) / 1e9;
  getrusage(RUSAGE_SELF, &ru1);
  if (iolog) {
    auto closed = iolog->close((NowNs() - t0) / 1000);
    if (!closed.ok()) {
      std::fprintf(stderr, "emulator: %s\n", closed.error().message.c_str());
      return 1;
    }
  }
  double cpu = double(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec + ru1.ru_stime.tv_sec -
                      ru0.ru_stime.tv_sec) +
               double(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec + ru1.ru_stime.tv_usec -
                      ru0.ru_stime.tv_usec) / 1e6;
  const RunInfo run{secs, cpu};
  if (cfg.json) {
    PrintJson(cfg, run, stats);
  } else {
    PrintText(cfg, run, stats);
  }
  return Sum(stats).errors ? 1 : 0;
}

}  // namespace
}  // namespace blk

int main(int argc, char** argv) { return blk::Main(argc, argv); }
