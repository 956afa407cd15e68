// Options of the engines that move no data: fio's cpuio (cpuload,
// cpuchunks, cpumode, exit_on_io_done) and exec (program, arguments,
// grace_time, std_redirect), of filestat (stat_type), and of net (hostname,
// port, protocol, listen, pingpong, nodelay, interface, ttl, window_size,
// mss), and of e4defrag (donorname, inplace).  Each is valid only with its
// engine.
#include <string>

#include "tools/block_bench/jobfile/option_helpers.h"

namespace blk::bench {
namespace {

using internal::FioValueError;

// An integer field of an engine's options, in [Min, Max].
template <auto Group, auto F, uint64_t Min, uint64_t Max>
FioOptionSpec EngineUint(std::string_view name, IoEngine engine, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.numeric = true;
  s.engines = {engine};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = ParseInteger(*v, job.kb_base, Min, Max);
    if (!n.ok()) return n.error();
    job.*Group.*F = static_cast<uint32_t>(n.value());
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*Group.*F != DefaultJob().*Group.*F)
      out.push_back({std::string(n), std::to_string(job.*Group.*F)});
  };
  s.help = help;
  return s;
}

// A flag of an engine's options; with `bare`, written alone ("listen")
// it means 1 (fio's FIO_OPT_STR_SET).
template <auto Group, auto F>
FioOptionSpec EngineBool(std::string_view name, IoEngine engine, std::string_view help,
                         bool bare = false) {
  FioOptionSpec s;
  s.name = name;
  s.engines = {engine};
  s.value_required = !bare;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<bool> b = ParseFlag(v);
    if (!b.ok()) return b.error();
    job.*Group.*F = b.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*Group.*F != DefaultJob().*Group.*F)
      out.push_back({std::string(n), job.*Group.*F ? "1" : "0"});
  };
  s.help = help;
  return s;
}

template <auto Group, auto F>
FioOptionSpec EngineString(std::string_view name, IoEngine engine, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.engines = {engine};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    job.*Group.*F = std::string(*v);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.*Group.*F != DefaultJob().*Group.*F) out.push_back({std::string(n), job.*Group.*F});
  };
  s.help = help;
  return s;
}

FioOptionSpec CpuChunks() {
  FioOptionSpec s;
  s.name = "cpuchunks";
  s.numeric = true;
  s.engines = {IoEngine::kCpuio};
  // fio's FIO_OPT_INT in microseconds: a bare number, no time suffix.
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = ParseInteger(*v, job.kb_base, 1, UINT32_MAX);
    if (!n.ok()) return n.error();
    job.cpuio.chunk = std::chrono::microseconds(n.value());
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.cpuio.chunk != DefaultJob().cpuio.chunk)
      out.push_back({std::string(n), std::to_string(job.cpuio.chunk.count())});
  };
  s.help = "cpuio: the length of one burn in microseconds (default 50000)";
  return s;
}

FioOptionSpec CpuMode() {
  FioOptionSpec s;
  s.name = "cpumode";
  s.engines = {IoEngine::kCpuio};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    if (*v == "noop") job.cpuio.mode = CpuioOptions::Mode::kNoop;
    else if (*v == "qsort") job.cpuio.mode = CpuioOptions::Mode::kQsort;
    else return FioValueError("expected noop or qsort, got " + QuoteInput(*v));
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.cpuio.mode != DefaultJob().cpuio.mode)
      out.push_back({std::string(n), job.cpuio.mode == CpuioOptions::Mode::kQsort ? "qsort" : "noop"});
  };
  s.help =
      "cpuio: noop (default) spins for cpuchunks; qsort sorts 1 MiB of integers four ways per "
      "burn, the pause after it sized from the burn's own length";
  return s;
}

FioOptionSpec StatTypeOption() {
  FioOptionSpec s;
  s.name = "stat_type";
  s.engines = {IoEngine::kFilestat};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    if (*v == "stat") job.stat_type = StatType::kStat;
    else if (*v == "lstat") job.stat_type = StatType::kLstat;
    else if (*v == "statx") job.stat_type = StatType::kStatx;
    else return FioValueError("expected stat, lstat or statx, got " + QuoteInput(*v));
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.stat_type == StatType::kLstat) out.push_back({std::string(n), "lstat"});
    if (job.stat_type == StatType::kStatx) out.push_back({std::string(n), "statx"});
  };
  s.help = "filestat: the call timed per file: stat (default), lstat or statx";
  return s;
}

// hostname=: the peer, as filename= (fio's callback replaces filename with
// it; whichever comes later wins).  Not split at ':' (an IPv6 address).
FioOptionSpec Hostname() {
  FioOptionSpec s;
  s.name = "hostname";
  s.engines = {IoEngine::kNet};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    job.filenames = {std::string(*v)};
    return {};
  };
  s.render = nullptr;  // rendered as filename=
  s.help = "net: the host to connect to (a udp reader: the multicast group), or the unix "
           "socket's path; the same setting as filename=";
  return s;
}

FioOptionSpec Protocol() {
  FioOptionSpec s;
  s.name = "protocol";
  s.aliases = {"proto"};
  s.engines = {IoEngine::kNet};
  using P = NetOptions::Protocol;
  static constexpr std::pair<std::string_view, P> kNames[] = {
      {"tcp", P::kTcp}, {"tcpv6", P::kTcpV6}, {"udp", P::kUdp}, {"udpv6", P::kUdpV6},
      {"unix", P::kUnix}};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    for (const auto& [n, p] : kNames) {
      if (n == *v) {
        job.net.protocol = p;
        return {};
      }
    }
    return FioValueError("expected tcp, tcpv6, udp, udpv6 or unix, got " + QuoteInput(*v));
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.net.protocol == DefaultJob().net.protocol) return;
    for (const auto& [name, p] : kNames)
      if (p == job.net.protocol) out.push_back({std::string(n), std::string(name)});
  };
  s.help = "net: tcp (default), tcpv6, udp, udpv6 or unix";
  return s;
}

}  // namespace

std::vector<FioOptionSpec> NetEngineOptions() {
  std::vector<FioOptionSpec> v;
  v.push_back(Hostname());
  v.push_back(EngineUint<&JobOptions::net, &NetOptions::port, 1, 65535>(
      "port", IoEngine::kNet,
      "net: the tcp or udp port (each clone of numjobs= adds its index)"));
  v.push_back(Protocol());
  v.push_back(EngineBool<&JobOptions::net, &NetOptions::listen>(
      "listen", IoEngine::kNet, "net: tcp: accept the connection instead of connecting",
      /*bare=*/true));
  v.push_back(EngineBool<&JobOptions::net, &NetOptions::pingpong>(
      "pingpong", IoEngine::kNet,
      "net: each I/O is answered by the peer with the same block; the latency is the round "
      "trip",
      /*bare=*/true));
  v.push_back(EngineBool<&JobOptions::net, &NetOptions::nodelay>(
      "nodelay", IoEngine::kNet, "net: tcp: TCP_NODELAY"));
  v.push_back(EngineString<&JobOptions::net, &NetOptions::interface>(
      "interface", IoEngine::kNet, "net: udp multicast: the IPv4 address of the interface"));
  v.push_back(EngineUint<&JobOptions::net, &NetOptions::ttl, 0, 255>(
      "ttl", IoEngine::kNet, "net: udp multicast: the time to live (default 1)"));
  v.push_back(EngineUint<&JobOptions::net, &NetOptions::window_size, 0, INT32_MAX>(
      "window_size", IoEngine::kNet, "net: the socket's buffer size (SO_RCVBUF/SO_SNDBUF)"));
  v.push_back(EngineUint<&JobOptions::net, &NetOptions::mss, 0, INT32_MAX>(
      "mss", IoEngine::kNet, "net: tcp: the maximum segment size (TCP_MAXSEG)"));
  // fio's netsplice engine takes every option of net's.
  for (FioOptionSpec& s : v) s.engines = {IoEngine::kNet, IoEngine::kNetsplice};
  return v;
}

std::vector<FioOptionSpec> WorkEngineOptions() {
  std::vector<FioOptionSpec> v;
  v.push_back(EngineUint<&JobOptions::cpuio, &CpuioOptions::load, 0, UINT32_MAX>(
      "cpuload", IoEngine::kCpuio,
      "cpuio: the percentage of a CPU to keep busy (required; above 100 is 100)"));
  v.push_back(CpuChunks());
  v.push_back(CpuMode());
  v.push_back(EngineBool<&JobOptions::cpuio, &CpuioOptions::exit_on_io_done>(
      "exit_on_io_done", IoEngine::kCpuio,
      "cpuio: 1: the job ends once every job that does I/O (of any group) is done"));
  v.push_back(EngineString<&JobOptions::exec, &ExecOptions::program>(
      "program", IoEngine::kExec, "exec: the program to run beside the job (required)"));
  v.push_back(EngineString<&JobOptions::exec, &ExecOptions::arguments>(
      "arguments", IoEngine::kExec,
      "exec: the program's arguments, split at spaces; %r is the runtime in seconds, %n the "
      "job's name"));
  v.push_back(EngineUint<&JobOptions::exec, &ExecOptions::grace_time, 0, INT32_MAX>(
      "grace_time", IoEngine::kExec,
      "exec: seconds between SIGTERM at the runtime's end and SIGKILL (default 1)"));
  v.push_back(EngineBool<&JobOptions::exec, &ExecOptions::std_redirect>(
      "std_redirect", IoEngine::kExec,
      "exec: 1 (default): the program's stdout and stderr to JOB.stdout and JOB.stderr"));
  v.push_back(StatTypeOption());
  v.push_back(EngineString<&JobOptions::e4defrag, &E4defragOptions::donorname>(
      "donorname", IoEngine::kE4defrag,
      "e4defrag: the donor file whose blocks each write moves into the job's file (required; "
      "under directory=)"));
  v.push_back(EngineBool<&JobOptions::e4defrag, &E4defragOptions::inplace>(
      "inplace", IoEngine::kE4defrag,
      "e4defrag: 1: allocate the donor's blocks at each write and free them after (0, the "
      "default: allocate the whole donor at the start)"));
  return v;
}

}  // namespace blk::bench
