// emulator: a virtio-blk-like device with N request queues, each fed by a
// guest-like workload, served through blkstack's C++ API on an event loop
// chosen by flag (native AioContext::run, libevent, or Boost.Asio).  It shows
// how a VM I/O emulator embeds the block layer, and measures what each host
// loop costs.
//
//   emulator [--loop=native|libevent|asio] [--queues=N] [--depth=D]
//            [--seconds=S] [--spec=SPEC] [--rwmix=PCT] [--bs=BYTES] [--json]
//            [--write-iolog=FILE]
//
// Queue workloads, by queue index modulo 3:
//   0: random bs-sized reads and writes, PCT % reads
//   1: a sequential read stream of 16 x bs requests
//   2: random writes with a flush after every 32 writes
// Per queue it reports IOPS, bandwidth and request latency (p50/p99/max).
// --write-iolog records every request the device receives, as it enters the
// block layer, in fio's iolog v3 (block-bench read_iolog= replays it against
// any driver graph: docs/replay.md).
#include <event2/event.h>
#include <sys/resource.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "block/registry.h"
#include "tools/block_bench/trace/iolog_writer.h"
#include "util/aligned_buffer.h"
#include "util/clock.h"
#include "util/embed/asio_loop.h"
#include "util/embed/libevent_loop.h"
#include "util/histogram.h"
#include "util/xorshift.h"

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

struct QueueStats {
  uint64_t ios = 0, bytes = 0, errors = 0;
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

bool ParseArgs(int argc, char** argv, Config* c) {
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto val = [&](const char* k) -> const char* {
      size_t n = std::strlen(k);
      return a.compare(0, n, k) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char* v = val("--loop=")) c->loop = v;
    else if (const char* v = val("--queues=")) c->queues = std::atoi(v);
    else if (const char* v = val("--depth=")) c->depth = std::atoi(v);
    else if (const char* v = val("--seconds=")) c->seconds = std::atof(v);
    else if (const char* v = val("--spec=")) c->spec = v;
    else if (const char* v = val("--rwmix=")) c->rwmix = std::atoi(v);
    else if (const char* v = val("--bs=")) c->bs = std::strtoull(v, nullptr, 10);
    else if (const char* v = val("--write-iolog=")) c->write_iolog = v;
    else if (a == "--json") c->json = true;
    else {
      std::fprintf(stderr, "emulator: unknown argument '%s'\n", argv[i]);
      return false;
    }
  }
  if (c->loop != "native" && c->loop != "libevent" && c->loop != "asio") {
    std::fprintf(stderr, "emulator: --loop must be native, libevent or asio, got '%s'\n",
                 c->loop.c_str());
    return false;
  }
  if (c->queues < 1 || c->depth < 1 || c->seconds <= 0 || c->bs < 512 || c->bs % 512 ||
      c->rwmix < 0 || c->rwmix > 100) {
    std::fprintf(stderr, "emulator: need queues>=1, depth>=1, seconds>0, bs a multiple of 512, "
                         "0<=rwmix<=100\n");
    return false;
  }
  return true;
}

int Main(int argc, char** argv) {
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
  uint64_t total = 0, errors = 0;
  for (auto& s : stats) total += s.ios, errors += s.errors;
  if (cfg.json) {
    std::printf("{\"loop\": \"%s\", \"seconds\": %.3f, \"iops\": %.0f, \"cpu_ns_per_io\": %.1f, "
                "\"errors\": %" PRIu64 ", \"queues\": [",
                cfg.loop.c_str(), secs, total / secs, total ? cpu * 1e9 / total : 0.0, errors);
    for (int q = 0; q < cfg.queues; q++) {
      const QueueStats& s = stats[q];
      std::printf("%s{\"queue\": %d, \"workload\": \"%s\", \"iops\": %.0f, \"p50_ns\": %" PRIu64
                  ", \"p99_ns\": %" PRIu64 ", \"errors\": %" PRIu64 "}",
                  q ? ", " : "", q, WorkloadName(q), s.ios / secs, s.lat.percentile(50),
                  s.lat.percentile(99), s.errors);
    }
    std::printf("]}\n");
  } else {
    std::printf("emulator: %d queues x depth %d on '%s', loop=%s, %.1f s\n", cfg.queues,
                cfg.depth, cfg.spec.c_str(), cfg.loop.c_str(), secs);
    for (int q = 0; q < cfg.queues; q++) {
      const QueueStats& s = stats[q];
      std::printf("  queue %d (%-18s): %10.0f IOPS %9.1f MiB/s  lat p50 %7.1f us  p99 %7.1f us"
                  "  max %8.1f us  errors %" PRIu64 "\n",
                  q, WorkloadName(q), s.ios / secs, s.bytes / secs / 1048576.0,
                  s.lat.percentile(50) / 1e3, s.lat.percentile(99) / 1e3, s.lat.max() / 1e3,
                  s.errors);
    }
    std::printf("  total: %.0f IOPS, CPU %.1f ns per I/O\n", total / secs,
                total ? cpu * 1e9 / total : 0.0);
  }
  return errors ? 1 : 0;
}

}  // namespace
}  // namespace blk

int main(int argc, char** argv) { return blk::Main(argc, argv); }
