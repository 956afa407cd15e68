// blkstack-storage-daemon: opens graphs and serves them over NBD and as
// vhost-user-blk devices.
// The command line is described in daemon_config.h and docs/export.md.
#include <signal.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <blkstack/block/backend.h>
#include <blkstack/block/registry.h>
#include "tools/block_bench/trace/iolog_writer.h"
#include "tools/storage_daemon/daemon_config.h"
#include "tools/storage_daemon/nbd_export.h"
#include "tools/storage_daemon/nbd_server.h"
#include "tools/storage_daemon/vhost_blk_export.h"
#include <blkstack/util/aio_context.h>
#include <blkstack/util/clock.h>
#include <blkstack/util/iothread.h>
#include <blkstack/util/task.h>

namespace blk::storage_daemon {
namespace {

constexpr const char* kProg = "blkstack-storage-daemon";
// How long a draining connection may wait for its client to read replies.
constexpr int64_t kDrainForceNs = 5'000'000'000;

int Fail(const std::string& msg, int code = 1) {
  std::fprintf(stderr, "%s: %s\n", kProg, msg.c_str());
  return code;
}

// A graph and the loop it lives on (null thread: the main loop).
struct Graph {
  IOThread* thread = nullptr;
  std::unique_ptr<BlockBackend> blk;
};

// Runs `fn` on the thread of `t` (or here, for the main loop).
void OnLoop(IOThread* t, const std::function<void()>& fn) {
  if (t) t->run_sync(fn); else fn();
}

// Flushes and drains a graph on its own loop, from the main thread.
void FlushAndDrain(AioContext& main, Graph& g) {
  auto work = [](BlockBackend* b, std::promise<void>* p) -> Task<void> {
    if (!b->read_only()) (void)co_await b->flush();
    co_await b->drain();
    if (p) p->set_value();
  };
  if (!g.thread) {
    RunSync(main, work(g.blk.get(), nullptr));
    return;
  }
  std::promise<void> done;
  Spawn(g.thread->ctx(), work(g.blk.get(), &done));
  done.get_future().wait();
}

void RaiseFdLimit() {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  Expected<Config> parsed = ParseCommandLine(args);
  if (!parsed.ok()) return Fail(parsed.error().message, 2);
  const Config& cfg = *parsed;
  if (cfg.help) {
    std::fputs(HelpText().c_str(), stdout);
    return 0;
  }
  if (cfg.blockdevs.empty()) return Fail("nothing to do: no --blockdev (see --help)", 2);

  // Signals arrive through a signalfd on the main loop: blocked here, before
  // any thread starts, so every thread inherits the mask.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  signal(SIGPIPE, SIG_IGN);
  RaiseFdLimit();
  const int sfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
  if (sfd < 0) return Fail("signalfd failed");

  AioContext main;
  std::map<std::string, std::unique_ptr<IOThread>> threads;
  for (const std::string& id : cfg.iothreads) {
    Expected<std::unique_ptr<IOThread>> t = IOThread::Create("iothread-" + id);
    if (!t.ok()) return Fail("--iothread id=" + id + ": " + t.error().message);
    threads[id] = std::move(*t);
  }

  // Each graph opens on the loop of the export that serves it.
  std::map<std::string, Graph> graphs;
  for (const BlockdevConfig& b : cfg.blockdevs) {
    Graph g;
    for (const ExportConfig& e : cfg.exports) {
      if (e.node_name == b.node_name && !e.iothread.empty()) g.thread = threads[e.iothread].get();
    }
    AioContext& ctx = g.thread ? g.thread->ctx() : main;
    std::optional<Expected<std::unique_ptr<BlockBackend>>> opened;
    OnLoop(g.thread, [&] { opened.emplace(OpenBackend(ctx, b.spec)); });
    if (!opened->ok()) {
      return Fail("--blockdev node-name=" + b.node_name + ": " + opened->error().message);
    }
    g.blk = std::move(opened->value());
    graphs[b.node_name] = std::move(g);
  }

  // One iolog per export that asks for one (indexed like cfg.exports),
  // written on the export's loop.
  std::vector<std::unique_ptr<bench::trace::IologWriter>> iologs(cfg.exports.size());
  const int64_t t0_ns = NowNs();
  using bench::trace::Op;
  // Opens export i's iolog; `record` then logs one request (on its loop).
  std::vector<std::function<void(Op, uint64_t, uint64_t)>> records(cfg.exports.size());
  for (size_t i = 0; i < cfg.exports.size(); i++) {
    const ExportConfig& e = cfg.exports[i];
    if (e.write_iolog.empty()) continue;
    Expected<bench::trace::IologWriter> w = bench::trace::IologWriter::Open(e.write_iolog);
    if (!w.ok()) return Fail("--export id=" + e.id + ": write-iolog: " + w.error().message);
    iologs[i] = std::make_unique<bench::trace::IologWriter>(std::move(*w));
    // The graph's spec as the file name: read_iolog opens the same graph.
    const BlockdevConfig* bd = nullptr;
    for (const BlockdevConfig& b : cfg.blockdevs) {
      if (b.node_name == e.node_name) bd = &b;
    }
    const uint16_t file = iologs[i]->add_file(0, bd->spec);
    records[i] = [w = iologs[i].get(), file, t0_ns](Op op, uint64_t off, uint64_t len) {
      const bool flush = op == Op::kFlush;
      w->io((NowNs() - t0_ns) / 1000, file, op, flush ? 0 : off, flush ? 0 : len);
    };
  }

  std::vector<std::unique_ptr<vhost::VhostBlkExport>> vhost_exports;
  std::vector<IOThread*> vhost_threads;
  for (size_t i = 0; i < cfg.exports.size(); i++) {
    const ExportConfig& e = cfg.exports[i];
    if (e.type != ExportConfig::Type::kVhostUserBlk) continue;
    Graph& g = graphs[e.node_name];
    if (e.writable && g.blk->read_only()) {
      return Fail("--export id=" + e.id + ": writable=on but node '" + e.node_name +
                  "' is read-only");
    }
    std::unique_ptr<vhost::VhostBlkExport> x;
    Expected<void> r;
    OnLoop(g.thread, [&] {
      x = std::make_unique<vhost::VhostBlkExport>(e.id, e.addr_path, g.blk.get(), e.writable,
                                                  e.num_queues);
      if (records[i]) {
        x->set_observer([rec = records[i]](const vhost::BlkRequest& q) {
          switch (q.type) {
            case vhost::kBlkTIn: rec(Op::kRead, q.offset, q.length); break;
            case vhost::kBlkTOut: rec(Op::kWrite, q.offset, q.length); break;
            case vhost::kBlkTDiscard: rec(Op::kTrim, q.offset, q.length); break;
            case vhost::kBlkTFlush: rec(Op::kFlush, 0, 0); break;
            default: break;  // no iolog operation for write-zeroes
          }
        });
      }
      r = x->listen();
    });
    if (!r.ok()) return Fail(r.error().message);
    vhost_exports.push_back(std::move(x));
    vhost_threads.push_back(g.thread);
  }

  std::vector<std::unique_ptr<nbd::NbdExport>> exports;
  std::vector<nbd::NbdExport*> export_ptrs;
  std::vector<const ExportConfig*> nbd_cfgs;
  for (size_t i = 0; i < cfg.exports.size(); i++) {
    const ExportConfig& e = cfg.exports[i];
    if (e.type != ExportConfig::Type::kNbd) continue;
    nbd_cfgs.push_back(&e);
    Graph& g = graphs[e.node_name];
    if (e.writable && g.blk->read_only()) {
      return Fail("--export id=" + e.id + ": writable=on but node '" + e.node_name +
                  "' is read-only");
    }
    std::unique_ptr<nbd::NbdExport> x;
    OnLoop(g.thread, [&] {
      x = std::make_unique<nbd::NbdExport>(e.id, e.name, e.description, g.blk.get(), e.writable);
    });
    if (records[i]) {
      x->set_observer([rec = records[i]](const nbd::Request& r) {
        switch (r.type) {
          case nbd::kCmdRead: rec(Op::kRead, r.offset, r.length); break;
          case nbd::kCmdWrite: rec(Op::kWrite, r.offset, r.length); break;
          case nbd::kCmdTrim: rec(Op::kTrim, r.offset, r.length); break;
          case nbd::kCmdFlush: rec(Op::kFlush, 0, 0); break;
          default: break;  // no iolog operation for write-zeroes, block status
        }
      });
    }
    export_ptrs.push_back(x.get());
    exports.push_back(std::move(x));
  }

  nbd::NbdServer server(main, export_ptrs);
  for (const NbdServerConfig& s : cfg.nbd_servers) {
    Expected<void> r = s.type == NbdServerConfig::Type::kUnix ? server.listen_unix(s.path)
                                                              : server.listen_inet(s.host, s.port);
    if (!r.ok()) return Fail(r.error().message);
  }
  if (!cfg.pidfile.empty()) {
    FILE* f = std::fopen(cfg.pidfile.c_str(), "w");
    if (!f) return Fail("--pidfile " + cfg.pidfile + ": cannot write");
    std::fprintf(f, "%d\n", int(getpid()));
    std::fclose(f);
  }

  // SIGINT/SIGTERM: stop accepting, let every export drain its
  // connections, then leave the loop.
  size_t pending = 0;
  bool stopping = false;
  main.set_fd_handler(sfd, [&] {
    struct signalfd_siginfo si;
    while (read(sfd, &si, sizeof si) == sizeof si) {
    }
    if (stopping) return;
    stopping = true;
    server.stop();
    pending = exports.size() + vhost_exports.size() + 1;
    auto one_idle = [&] {
      if (--pending == 0) main.stop();
    };
    for (auto& x : exports) {
      nbd::NbdExport* p = x.get();
      p->ctx().post([p, &main, one_idle] {
        p->shutdown([&main, one_idle] { main.post(one_idle); }, kDrainForceNs);
      });
    }
    for (auto& x : vhost_exports) {
      vhost::VhostBlkExport* p = x.get();
      p->ctx().post([p, &main, one_idle] { p->shutdown([&main, one_idle] { main.post(one_idle); }); });
    }
    one_idle();
  });
  main.run();
  main.remove_fd_handler(sfd);
  close(sfd);
  main.run_until([&] { return server.negotiating() == 0; });

  for (size_t i = 0; i < exports.size(); i++) {
    Graph& g = graphs[nbd_cfgs[i]->node_name];
    OnLoop(g.thread, [&] { exports[i].reset(); });
  }
  for (size_t i = 0; i < vhost_exports.size(); i++) {
    OnLoop(vhost_threads[i], [&] { vhost_exports[i].reset(); });
  }
  for (auto& [name, g] : graphs) {
    FlushAndDrain(main, g);
    OnLoop(g.thread, [&] { g.blk.reset(); });
  }
  int status = 0;
  for (size_t i = 0; i < iologs.size(); i++) {
    if (!iologs[i]) continue;
    Expected<void> c = iologs[i]->close((NowNs() - t0_ns) / 1000);
    if (!c.ok()) status = Fail("--export id=" + cfg.exports[i].id + ": write-iolog: " + c.error().message);
  }
  if (!cfg.pidfile.empty()) unlink(cfg.pidfile.c_str());
  return status;
}

}  // namespace
}  // namespace blk::storage_daemon

int main(int argc, char** argv) { return blk::storage_daemon::Main(argc, argv); }
