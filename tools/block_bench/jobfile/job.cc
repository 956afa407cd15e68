#include "tools/block_bench/jobfile/job.h"

#include <arpa/inet.h>
#include <sys/un.h>

#include <algorithm>

namespace blk::bench {

std::string_view Name(IoEngine v) {
  switch (v) {
    case IoEngine::kPsync: return "psync";
    case IoEngine::kSync: return "sync";
    case IoEngine::kPvsync: return "pvsync";
    case IoEngine::kPvsync2: return "pvsync2";
    case IoEngine::kLibaio: return "libaio";
    case IoEngine::kIoUring: return "io_uring";
    case IoEngine::kPosixaio: return "posixaio";
    case IoEngine::kNull: return "null";
    case IoEngine::kRbd: return "rbd";
    case IoEngine::kRados: return "rados";
    case IoEngine::kNbd: return "nbd";
    case IoEngine::kMmap: return "mmap";
    case IoEngine::kFalloc: return "falloc";
    case IoEngine::kFtruncate: return "ftruncate";
    case IoEngine::kCpuio: return "cpuio";
    case IoEngine::kExec: return "exec";
    case IoEngine::kFilecreate: return "filecreate";
    case IoEngine::kFilestat: return "filestat";
    case IoEngine::kFiledelete: return "filedelete";
    case IoEngine::kNet: return "net";
    case IoEngine::kSplice: return "splice";
    case IoEngine::kE4defrag: return "e4defrag";
    case IoEngine::kNetsplice: return "netsplice";
  }
  return "?";
}

std::string_view Name(RwMode v) {
  switch (v) {
    case RwMode::kRead: return "read";
    case RwMode::kWrite: return "write";
    case RwMode::kTrim: return "trim";
    case RwMode::kRandRead: return "randread";
    case RwMode::kRandWrite: return "randwrite";
    case RwMode::kRandTrim: return "randtrim";
    case RwMode::kReadWrite: return "rw";
    case RwMode::kRandReadWrite: return "randrw";
    case RwMode::kTrimWrite: return "trimwrite";
    case RwMode::kRandTrimWrite: return "randtrimwrite";
  }
  return "?";
}

std::string_view Name(Distribution v) {
  switch (v) {
    case Distribution::kRandom: return "random";
    case Distribution::kZipf: return "zipf";
    case Distribution::kPareto: return "pareto";
    case Distribution::kNormal: return "normal";
    case Distribution::kZoned: return "zoned";
    case Distribution::kZonedAbs: return "zoned_abs";
  }
  return "?";
}

std::string_view Name(VerifyMethod v) {
  switch (v) {
    case VerifyMethod::kNone: return "none";
    case VerifyMethod::kCrc32c: return "crc32c";
    case VerifyMethod::kCrc32: return "crc32";
    case VerifyMethod::kMd5: return "md5";
    case VerifyMethod::kSha1: return "sha1";
    case VerifyMethod::kSha256: return "sha256";
    case VerifyMethod::kSha512: return "sha512";
    case VerifyMethod::kXxhash: return "xxhash";
    case VerifyMethod::kPattern: return "pattern";
    case VerifyMethod::kMeta: return "meta";
    case VerifyMethod::kCrc64: return "crc64";
    case VerifyMethod::kCrc16: return "crc16";
    case VerifyMethod::kCrc7: return "crc7";
    case VerifyMethod::kSha3_224: return "sha3-224";
    case VerifyMethod::kSha3_256: return "sha3-256";
    case VerifyMethod::kSha3_384: return "sha3-384";
    case VerifyMethod::kSha3_512: return "sha3-512";
    case VerifyMethod::kNull: return "null";
    case VerifyMethod::kPatternHdr: return "pattern_hdr";
  }
  return "?";
}

bool IsRandom(RwMode v) {
  return v == RwMode::kRandRead || v == RwMode::kRandWrite || v == RwMode::kRandTrim ||
         v == RwMode::kRandReadWrite || v == RwMode::kRandTrimWrite;
}

uint64_t DedupeBlockSize(const JobOptions& job) {
  const int w = int(Dir::kWrite);
  uint64_t m = job.bs[w].min;
  if (!job.bssplit[w].empty()) {
    m = UINT64_MAX;
    for (const auto& e : job.bssplit[w])
      if (e.percent > 0) m = std::min(m, e.block_size);
  }
  return m ? m : 4096;
}

uint64_t DedupeWorkingSetBlocks(const JobOptions& job) {
  if (!job.size || job.size->percent) return 0;
  return uint64_t((unsigned __int128)job.size->value * job.dedupe_working_set_percentage / 100 /
                  DedupeBlockSize(job));
}

uint64_t FioMinBs(const JobOptions& job, int d) {
  if (job.bssplit[d].empty()) return job.bs[d].min;
  uint64_t m = UINT64_MAX;
  for (const BsSplitEntry& e : job.bssplit[d]) m = std::min(m, e.block_size);
  return m;
}

uint64_t FioMaxBs(const JobOptions& job, int d) {
  if (job.bssplit[d].empty()) return job.bs[d].max;
  uint64_t m = 0;
  for (const BsSplitEntry& e : job.bssplit[d]) m = std::max(m, e.block_size);
  return m;
}

uint64_t FioRwMinBs(const JobOptions& job) {
  return std::min({FioMinBs(job, 0), FioMinBs(job, 1), FioMinBs(job, 2)});
}

uint64_t FioStartOffset(const JobOptions& job, uint64_t file_size) {
  uint64_t start = ResolveSize(job.offset, file_size);
  if (!job.offset.percent) return start;
  uint64_t align = job.offset_align;
  if (!align) align = FioRwMinBs(job);
  if (align > 1 && start % align) start += align - start % align;
  return start;
}

bool BlockalignTurnsOffRandomMap(const JobOptions& job) {
  if (!IsRandom(job.rw) || job.norandommap) return false;
  for (int d = 0; d < kNumDirs; d++)
    if (job.blockalign[d] && *job.blockalign[d] != FioMinBs(job, d)) return true;
  return false;
}

bool FioKeepsRandomMap(const JobOptions& job) {
  return IsRandom(job.rw) && !job.norandommap && !job.lfsr && !BlockalignTurnsOffRandomMap(job) &&
         job.random_distribution.kind == Distribution::kRandom;
}

std::vector<std::string> FioWarnings(const JobOptions& job) {
  std::vector<std::string> out;
  if (BlockalignTurnsOffRandomMap(job)) out.push_back("Any use of blockalign= turns off randommap");
  // fio's fixup_options: norandommap and verify without one block size for
  // every direction.
  bool fixed = true;
  for (int d = 0; d < kNumDirs; d++)
    fixed &= FioMinBs(job, d) == FioMaxBs(job, d) && FioMinBs(job, d) == FioMinBs(job, 0);
  if (job.norandommap && job.verify != VerifyMethod::kNone && !fixed)
    out.push_back("norandommap given for variable block sizes, verify limited");
  return out;
}

bool NetMulticast(const std::string& host) {
  in_addr a;
  if (inet_pton(AF_INET, host.c_str(), &a) != 1) return false;
  return (ntohl(a.s_addr) >> 28) == 0xe;
}

std::string NetPeer(const JobOptions& job) {
  std::string s;
  for (size_t i = 0; i < job.filenames.size(); i++) s += (i ? ":" : "") + job.filenames[i];
  return s;
}

bool RwReads(RwMode m) {
  return m == RwMode::kRead || m == RwMode::kRandRead || m == RwMode::kReadWrite ||
         m == RwMode::kRandReadWrite;
}
bool RwWrites(RwMode m) {
  return m == RwMode::kWrite || m == RwMode::kRandWrite || m == RwMode::kReadWrite ||
         m == RwMode::kRandReadWrite || m == RwMode::kTrimWrite || m == RwMode::kRandTrimWrite;
}
bool RwTrims(RwMode m) {
  return m == RwMode::kTrim || m == RwMode::kRandTrim || m == RwMode::kTrimWrite ||
         m == RwMode::kRandTrimWrite;
}

std::string NetDisplay(const JobOptions& job, uint32_t clone) {
  const std::string peer = NetPeer(job);
  if (job.net.protocol == NetOptions::Protocol::kUnix) return peer;
  const std::string port = "port " + std::to_string(job.net.port + clone);
  if (NetListens(job.net, RwReads(job.rw)) && peer.empty()) return port;
  return peer + " " + port;
}

std::string NetJobProblem(const JobOptions& job) {
  using P = NetOptions::Protocol;
  const NetOptions& o = job.net;
  const std::string peer = NetPeer(job);
  const bool reads = RwReads(job.rw);
  const bool tcp = NetTcp(o.protocol);
  const bool udp = NetUdp(o.protocol);
  const bool unix_socket = o.protocol == P::kUnix;
  if (IsRandom(job.rw)) return "network IO can't be random";
  if (RwTrims(job.rw)) return "network IO moves reads and writes, not trims";
  if (unix_socket && o.port) return "network IO port not valid with unix socket";
  if (!unix_socket && !o.port) return "network IO requires port for tcp or udp";
  if (!tcp) {
    if (o.listen) return "listen only valid for TCP proto IO";
    if (reads && RwWrites(job.rw)) return "datagram network connections must be read OR write";
    if (unix_socket && peer.empty()) return "UNIX sockets need host/filename";
  }
  if (NetListens(o, reads) && !unix_socket) {
    if (!peer.empty() && !(udp && NetMulticast(peer)))
      return "hostname not valid for non-multicast inbound network IO";
    if (o.protocol == P::kUdpV6 && NetMulticast(peer))
      return "IPv6 not supported for multicast network IO";
  }
  if (!o.interface.empty()) {
    in_addr a;
    if (inet_pton(AF_INET, o.interface.c_str(), &a) != 1) return "interface not valid interface IP";
  }
  if (!NetListens(o, reads) && !unix_socket && peer.empty())
    return std::string("connect with no host to connect to") +
           (reads ? " (did you forget to set 'listen'?)" : "");
  if (unix_socket && peer.size() >= sizeof(sockaddr_un::sun_path))
    return "the unix socket's path is longer than " +
           std::to_string(sizeof(sockaddr_un::sun_path) - 1) + " bytes";
  return "";
}

}  // namespace blk::bench
