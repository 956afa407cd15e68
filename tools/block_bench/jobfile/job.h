// JobOptions: one block-bench job, as described by a section of a fio job
// file or by a --name group on the command line.
//
// Every field holds an already-validated, typed value with fio's default, so
// that `JobOptions{}` is exactly what fio would run for an empty job (except
// `name`, which the parser always sets).  Options that fio gives per data
// direction are `PerDir` arrays indexed by `Dir` (read, write, trim).  Values
// fio derives from other options at run time (iodepth_low defaults to iodepth,
// blockalign to bs, ...) are `std::optional`s left empty; the runner resolves
// them.  `numjobs` is kept as a field: the runner clones the job.
//
// Thread-safety: plain values; no shared state.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/block_bench/numa/numa.h"

namespace blk::bench {

// Data directions, in the order fio uses for comma-separated values.
enum class Dir : int { kRead = 0, kWrite = 1, kTrim = 2 };
inline constexpr int kNumDirs = 3;
// "read", "write", "trim": the direction in messages.
inline const char* OpName(Dir d) {
  static constexpr const char* kNames[kNumDirs] = {"read", "write", "trim"};
  return kNames[int(d)];
}
template <class T>
using PerDir = std::array<T, kNumDirs>;

enum class IoEngine {
  kPsync, kSync, kPvsync, kPvsync2, kLibaio, kIoUring, kPosixaio, kNull, kRbd, kNbd,
  kMmap, kFalloc, kFtruncate, kCpuio, kExec, kFilecreate, kFilestat, kFiledelete, kNet, kSplice,
  kE4defrag, kNetsplice, kRados
};

// fio's net and netsplice engines: a socket's I/O (netsplice moves tcp data
// through a pipe with splice(2); udp and unix as net).
inline bool IsNet(IoEngine e) { return e == IoEngine::kNet || e == IoEngine::kNetsplice; }

// fio's engines that move no data (FIO_NOIO): each "I/O" is work done in
// the job's thread (cpuio burns CPU, exec watches a program it started),
// counted as an I/O with its latency but no bytes; the job's size never
// ends it (its runtime does).
inline bool MovesNoData(IoEngine e) { return e == IoEngine::kCpuio || e == IoEngine::kExec; }

// fio's file-system engines (filecreate, filestat, filedelete): each time
// the job opens one of its files, a system call on its name (open(O_CREAT),
// stat/lstat/statx, unlink) is timed as a completion latency; the I/O
// itself completes at once (counted, with its bytes, but no latency).
inline bool TimesFileCalls(IoEngine e) {
  return e == IoEngine::kFilecreate || e == IoEngine::kFilestat || e == IoEngine::kFiledelete;
}
// filestat's stat_type=.
enum class StatType { kStat, kLstat, kStatx };

// rw= / readwrite=.  fio's "rw" and "readwrite" are both kReadWrite.
enum class RwMode {
  kRead,
  kWrite,
  kTrim,
  kRandRead,
  kRandWrite,
  kRandTrim,
  kReadWrite,
  kRandReadWrite,
  // fio's trimwrite / randtrimwrite: each block trimmed, then written (the
  // write right after its trim, at the same offset and length).
  kTrimWrite,
  kRandTrimWrite,
};

enum class Distribution { kRandom, kZipf, kPareto, kNormal, kZoned, kZonedAbs };
enum class RateProcess { kLinear, kPoisson };

// fio's steady state criterion (ss=METRIC[_slope]:LIMIT[%]): the job ends
// once, over the last ss_dur, every interval's value lies within LIMIT of
// the window's mean (or, with _slope, the least-squares slope of the values
// per second is below LIMIT); LIMIT in the metric's unit per interval, or
// with '%' relative to the mean.  lat is the mean completion latency of the
// interval (a block-bench extension).
enum class SteadyMetric { kIops, kBw, kLat };
struct SteadyState {
  SteadyMetric metric = SteadyMetric::kIops;
  bool slope = false;
  double limit = 0.01;
  bool pct = true;
  friend bool operator==(const SteadyState&, const SteadyState&) = default;
};
// kPattern: fio's verify=pattern, verify_pattern's bytes with no header.
// kMeta (fio's verify=meta): the header's own fields only, no data checksum.
// fio 3.33's verify= methods (run/verify.h has their on-disk format).
// kPatternHdr is fio's VERIFY_PATTERN: what verify_pattern= alone sets (a
// header and the pattern); it has no verify= spelling of its own.
enum class VerifyMethod {
  kNone, kCrc32c, kCrc32, kMd5, kSha1, kSha256, kSha512, kXxhash, kPattern, kMeta,
  kCrc64, kCrc16, kCrc7, kSha3_224, kSha3_256, kSha3_384, kSha3_512, kNull, kPatternHdr
};
// fio's unified_rw_reporting: per direction (none), their sum only ("mixed"),
// or both.
enum class UnifiedRw { kNone, kMixed, kBoth };
// fio's fallocate=: how a writing job's new file is preallocated.
enum class Fallocate { kNone, kNative, kPosix, kKeep, kTruncate };
enum class ContinueOnError { kNone, kRead, kWrite, kIo, kVerify, kAll };

struct JobOptions;
// The peer a net job names: filename= as written (":" kept) or hostname=.
std::string NetPeer(const JobOptions& job);
// A net clone's socket in messages: a unix socket's path, "port N" for a
// listener bound to every address, else "PEER port N" (N: port + clone).
std::string NetDisplay(const JobOptions& job, uint32_t clone);
// A net job's options checked as fio's engine init checks them (and trims,
// which a socket has none of): "" or the problem in fio's words.
std::string NetJobProblem(const JobOptions& job);

// Canonical fio spelling of each enum value ("randread", "io_uring", ...).
std::string_view Name(IoEngine v);
std::string_view Name(RwMode v);
std::string_view Name(Distribution v);
std::string_view Name(VerifyMethod v);

// True for randread, randwrite, randtrim, randrw and randtrimwrite.
bool IsRandom(RwMode v);

// Inclusive block size range for one direction; bs=4k is {4096, 4096}.
struct BlockSizeRange {
  uint64_t min = 4096;
  uint64_t max = 4096;
  friend bool operator==(const BlockSizeRange&, const BlockSizeRange&) = default;
};

// One bssplit entry: `percent` of the I/Os use `block_size`.  After parsing
// every entry has its percentage (blank ones are filled in as fio does).
struct BsSplitEntry {
  uint64_t block_size = 0;
  uint32_t percent = 0;
  friend bool operator==(const BsSplitEntry&, const BsSplitEntry&) = default;
};

// One zone of a zoned/zoned_abs random distribution: `access_percent` of the
// I/Os go to the next `size` of the range.  `size` is a percentage of the
// range for Distribution::kZoned and a byte count for kZonedAbs.
struct ZoneSplit {
  uint32_t access_percent = 0;
  uint64_t size = 0;
  friend bool operator==(const ZoneSplit&, const ZoneSplit&) = default;
};

struct RandomDistribution {
  Distribution kind = Distribution::kRandom;
  // zipf: theta (default 1.1, != 1); pareto: h (default 0.2, in (0,1));
  // normal: deviation in percent (default 0, in [0,100)); else 0.
  double parameter = 0.0;
  // zipf/pareto/normal only: where the distribution is centred, in [0,1].
  // Empty means fio's default (random for zipf/pareto, 0.5 for normal).
  std::optional<double> center;
  // zoned/zoned_abs only.  A direction without zones is uniform.
  PerDir<std::vector<ZoneSplit>> zones;
  friend bool operator==(const RandomDistribution&, const RandomDistribution&) = default;
};

// A byte count, or a percentage of the target's size when `percent` is set.
struct SizeSpec {
  uint64_t value = 0;
  bool percent = false;
  friend bool operator==(const SizeSpec&, const SizeSpec&) = default;
};

// `s` in bytes: N % of `base`, else its value.
inline uint64_t ResolveSize(const SizeSpec& s, uint64_t base) {
  if (!s.percent) return s.value;
  return uint64_t((__uint128_t(base) * s.value) / 100);
}

// startdelay: each clone picks a delay in [min, max].
struct TimeRange {
  std::chrono::microseconds min{0};
  std::chrono::microseconds max{0};
  friend bool operator==(const TimeRange&, const TimeRange&) = default;
};

// Options of fio's rbd and rados engines.  Only meaningful (and only
// non-default) when ioengine is kRbd or kRados: like fio, switching engines
// drops them.
struct RbdOptions {
  std::string pool;
  std::string rbdname;
  std::string clientname;
  std::string clustername;
  std::string conf;           // rados: ceph.conf path
  bool busy_poll = false;
  bool touch_objects = true;  // rados: create the objects at the start
  friend bool operator==(const RbdOptions&, const RbdOptions&) = default;
};

// Options of fio's libaio engine.  Only with ioengine=libaio, dropped like
// RbdOptions when a job switches engines.
struct LibaioOptions {
  // fio reaps completions from the ring in user space instead of calling
  // io_getevents; it only matters with iodepth_batch_complete_min=0, where
  // fio then spins on the ring.  block-bench's driver always reads the ring
  // in user space; with iodepth_batch_complete_min=0 this makes its loop
  // spin on the ring too (file driver aio-poll=on, no sleeping while
  // requests are in flight), for like-for-like comparisons.
  bool userspace_reap = false;
  friend bool operator==(const LibaioOptions&, const LibaioOptions&) = default;
};

// Options of fio's cpuio engine (engines/cpu.c).  Only with ioengine=cpuio.
struct CpuioOptions {
  uint32_t load = 0;                    // cpuload=: percent of a CPU, 1..100 (required)
  std::chrono::microseconds chunk{50000};  // cpuchunks=: one burn's length
  enum class Mode { kNoop, kQsort };
  Mode mode = Mode::kNoop;              // cpumode=: spin, or sort 1 MiB of integers
  bool exit_on_io_done = false;         // end once no job that does I/O is left
  friend bool operator==(const CpuioOptions&, const CpuioOptions&) = default;
};

// Options of fio's exec engine (engines/exec.c).  Only with ioengine=exec.
struct ExecOptions {
  std::string program;    // required
  std::string arguments;  // split at spaces; %r: the runtime in s, %n: the job's name
  uint32_t grace_time = 1;  // s between SIGTERM at the runtime's end and the job's end
  bool std_redirect = true;  // the program's stdout/stderr to NAME.stdout/NAME.stderr
  friend bool operator==(const ExecOptions&, const ExecOptions&) = default;
};

// Options of fio's e4defrag engine (engines/e4defrag.c).  Only with
// ioengine=e4defrag.
struct E4defragOptions {
  std::string donorname;  // the donor file (under directory=); required
  bool inplace = false;   // allocate and free the donor's blocks at each write
  friend bool operator==(const E4defragOptions&, const E4defragOptions&) = default;
};

// Options of fio's net engine (engines/net.c).  Only with ioengine=net.
// The peer (a host, or a unix socket's path) is filename= / hostname=.
struct NetOptions {
  enum class Protocol { kTcp, kTcpV6, kUdp, kUdpV6, kUnix };
  Protocol protocol = Protocol::kTcp;
  uint32_t port = 0;         // 1..65535 (tcp, udp); + the clone's index
  bool listen = false;       // tcp: accept the connection (udp, unix: a reader)
  bool pingpong = false;     // each I/O is answered by the peer (a round trip)
  bool nodelay = false;      // TCP_NODELAY
  std::string interface;     // udp multicast: the IPv4 address of the interface
  uint32_t ttl = 1;          // udp multicast: IP_MULTICAST_TTL
  uint32_t window_size = 0;  // SO_RCVBUF / SO_SNDBUF (0: the system's)
  uint32_t mss = 0;          // TCP_MAXSEG (0: the system's)
  friend bool operator==(const NetOptions&, const NetOptions&) = default;
};

// Which directions rw= has: reads, writes, trims.
bool RwReads(RwMode m);
bool RwWrites(RwMode m);
bool RwTrims(RwMode m);

inline bool NetTcp(NetOptions::Protocol p) {
  return p == NetOptions::Protocol::kTcp || p == NetOptions::Protocol::kTcpV6;
}
inline bool NetUdp(NetOptions::Protocol p) {
  return p == NetOptions::Protocol::kUdp || p == NetOptions::Protocol::kUdpV6;
}
// The receiving side of a net job: tcp with listen=1; udp and unix when the
// job reads.
inline bool NetListens(const NetOptions& o, bool reads) { return NetTcp(o.protocol) ? o.listen : reads; }
// An IPv4 multicast group address (224.0.0.0/4), as fio's is_ipaddr_multicast.
bool NetMulticast(const std::string& host);

// I/O priorities (fio 3.33's): `prio`/`prioclass` are the job's own,
// set on its thread with ioprio_set(2) (every request of the job carries it
// unless cmdprio gives it another); the cmdprio_* options of fio's libaio
// and io_uring engines give a share of the requests a priority of their own,
// sent with each request (run/cmdprio.h).  ioprio values are the kernel's:
// class << 13 | level.
struct IoPrioOptions {
  std::optional<uint32_t> prio;       // 0..7
  std::optional<uint32_t> prioclass;  // 0..3 (0 means best-effort, as fio)
  // Per direction ([read, write, trim]; trim is never used).
  PerDir<uint32_t> cmdprio_percentage{};  // 0..100
  PerDir<uint32_t> cmdprio_class{};       // 0: not written (real-time)
  PerDir<uint32_t> cmdprio{};             // 0..7
  // cmdprio_bssplit: bs/percentage[/class/level] entries per direction;
  // without class/level an entry takes cmdprio_class/cmdprio.
  struct BsPrio {
    uint64_t bs = 0;
    uint32_t percentage = 0;
    std::optional<uint32_t> prioclass, level;
    friend bool operator==(const BsPrio&, const BsPrio&) = default;
  };
  PerDir<std::vector<BsPrio>> cmdprio_bssplit;
  std::string cmdprio_bssplit_text;  // as written (rendered back)

  // True when cmdprio_percentage or cmdprio_bssplit give requests their
  // own priority (the report then splits latencies by priority).
  bool per_request() const {
    for (int d = 0; d < 2; d++)
      if (cmdprio_percentage[d] || !cmdprio_bssplit[d].empty()) return true;
    return false;
  }
  // The job's own ioprio value (fio's td->ioprio): 0 when neither prio nor
  // prioclass was written; class 0 counts as best-effort (2), as fio's
  // ioprio_value.
  uint16_t job_ioprio() const {
    if (!prio && !prioclass) return 0;
    const uint32_t c = prioclass.value_or(0) ? *prioclass : 2;
    return uint16_t(c << 13 | prio.value_or(0));
  }
  friend bool operator==(const IoPrioOptions&, const IoPrioOptions&) = default;
};

// Options of fio's io_uring engine (file driver aio=io_uring options).  Only
// with ioengine=io_uring, dropped like RbdOptions when a job switches
// engines.  hipri is refused (option_table.cc says why).
struct IoUringOptions {
  bool sqthread_poll = false;   // aio-sqpoll=on
  int sqthread_poll_cpu = -1;   // aio-sqpoll-cpu=N
  bool registerfiles = false;   // aio-register-file=on
  bool force_async = false;     // aio-force-async=on
  bool fixedbufs = false;       // aio-fixed-buffers=on, and the I/O buffers registered
  // fio's nonvectored: IORING_OP_READ/WRITE instead of READV/WRITEV.  The
  // driver already sends every one-buffer request non-vectored (all of
  // block-bench's are), so the value changes nothing; kept for rendering.
  int nonvectored = -1;
  friend bool operator==(const IoUringOptions&, const IoUringOptions&) = default;
};

// fio's default percentile_list.
inline const std::vector<double>& DefaultPercentileList() {
  static const std::vector<double> kList = {1,  5,  10, 20, 30, 40,   50,   60,    70,
                                            80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
  return kList;
}

// One piece of a buffer_pattern= or verify_pattern= value: bytes, or a
// file to read them from ('name' in fio's syntax, read when the job
// starts), or (verify_pattern's %o) the block's offset, 8 bytes.
struct PatternPiece {
  bool file = false;
  std::string data;
  bool block_offset = false;
  bool operator==(const PatternPiece&) const = default;
};

// fio's file_service_type (distributions over files are not implemented).
enum class FileService : uint8_t { kRoundRobin, kSequential, kRandom };

// What fio echoes in its JSON report, as written (jobfile.cc BuildJobs):
// each name once, where first written, with its last value; options given
// without a value ("thread") are not echoed, as fio.
struct WrittenOptions {
  using List = std::vector<std::pair<std::string, std::string>>;
  // The [global] sections, or the command line's options before the first
  // --name; `global_section`: there was one (fio prints "global options",
  // empty or not, exactly then).
  List global;
  bool global_section = false;
  // The job's own section; "name" first for a command-line job.
  List job;
  // Provenance only: two jobs that mean the same compare equal.
  friend bool operator==(const WrittenOptions&, const WrittenOptions&) { return true; }
};

// fio's process and scheduling options, as fio 3.33 reads them (the
// runner applies them to the clone's thread: run/job_process.h).
struct ProcessOptions {
  // exec_prerun / exec_postrun: a shell command (system(3)) each clone runs
  // before its I/O / after it, its output redirected as fio's into
  // <jobname>.prerun.txt / <jobname>.postrun.txt.  Empty: none.
  std::string exec_prerun;
  std::string exec_postrun;
  // wait_for: the job does not start until every clone of the job of this
  // name (defined before it) ended.  Empty: none.
  std::string wait_for;
  // nice(2) increment of the clone's thread, -20..19 (0: unchanged).
  int32_t nice = 0;
  // clocksource=gettimeofday|clock_gettime|cpu: accepted (fio's values);
  // block-bench times every I/O with clock_gettime(CLOCK_MONOTONIC).
  // Empty: not written.
  std::string clocksource;
  // gtod_cpu: the CPU fio sets aside for its time-keeping thread; the
  // clones' threads do not run there (fio clears it from every job's CPU
  // mask).  block-bench needs no such thread.
  std::optional<uint32_t> gtod_cpu;
  // lockmem: bytes each clone maps and mlock(2)s for its run, as fio's
  // (memory taken from the machine to simulate a smaller one).  0: none.
  uint64_t lockmem = 0;
  // ioscheduler: the I/O scheduler written to queue/scheduler of the disk
  // holding the job's first file, before its I/O, as fio.  Empty: none.
  std::string ioscheduler;
  // numa_cpu_nodes: libnuma's node string; each clone's thread runs on
  // those nodes' CPUs (this replaces cpus_allowed's mask, as in fio).
  // Empty: not set.
  std::string numa_cpu_nodes;
  // numa_mem_policy: as written (rendered back; empty: not set) and as read.
  std::string numa_mem_policy;
  NumaMemPolicy numa_mem;
  // cgroup: the blkio cgroup (a path under the cgroup mount) each clone's
  // thread runs in, made when missing and removed at the end of the run
  // unless cgroup_nodelete; cgroup_weight (100..1000, 0: not written): its
  // blkio.weight.  As fio, the weight applies only with cgroup= set.
  std::string cgroup;
  uint32_t cgroup_weight = 0;
  bool cgroup_nodelete = false;
  friend bool operator==(const ProcessOptions&, const ProcessOptions&) = default;
};

// fio's memory options: where the job's I/O buffers come from (mem=,
// iomem=), the offset of the first buffer past a page boundary (mem_align=,
// iomem_align=) and the huge page size the huge types round up to
// (hugepage-size=).  The runner allocates them: run/io_memory.h.
enum class IoMem : uint8_t { kMalloc, kShm, kShmHuge, kMmap, kMmapHuge, kMmapShared };
struct IoMemoryOptions {
  IoMem type = IoMem::kMalloc;
  // mem=mmap:FILE, mmapshared:FILE, mmaphuge:FILE: the file mapped (empty:
  // anonymous memory; mmaphuge's file must be on a hugetlbfs mount).
  std::string file;
  // Bytes past a page-aligned start of every slot's buffer (fio adds it to
  // the page-aligned start of its buffer area).  0: page-aligned.
  uint32_t align = 0;
  // shmhuge and mmaphuge round the area up to this (a power of two).
  uint64_t hugepage_size = uint64_t(2) << 20;
  friend bool operator==(const IoMemoryOptions&, const IoMemoryOptions&) = default;
};

struct JobOptions {
  // --- identity -----------------------------------------------------------
  std::string name;         // section name, or name= / --name=
  std::string description;  // free text

  // --- target -------------------------------------------------------------
  std::vector<std::string> filenames;    // filename=a:b (":" escaped as "\:")
  std::vector<std::string> directories;  // directory=a:b
  std::string blockdev;                  // driver-graph spec, verbatim
  // Several files per job (fio's nrfiles, or filename=a:b:c): `size` is
  // shared among them (each gets filesize, else size / nrfiles), and
  // file_service_type picks the file of each I/O.  See run/files.h.
  uint32_t nrfiles = 1;
  // filesize=LOW[-HIGH]: each file's size, drawn in [filesize, filesize_max]
  // for a range.  0: size / nrfiles.
  uint64_t filesize = 0;
  uint64_t filesize_max = 0;
  // Names of the files filename= does not name (fio's $jobname, $jobnum,
  // $filenum, $clientuid).
  std::string filename_format = "$jobname.$jobnum.$filenum";
  FileService file_service = FileService::kRoundRobin;
  uint32_t file_service_ios = 1;  // file_service_type=TYPE:N: N I/Os per pick
  IoEngine ioengine = IoEngine::kPsync;
  RbdOptions rbd;
  // fio's nbd engine: the export (libnbd URI).  Only with ioengine=nbd.
  std::string nbd_uri;
  LibaioOptions libaio;
  CpuioOptions cpuio;
  ExecOptions exec;
  NetOptions net;
  E4defragOptions e4defrag;
  StatType stat_type = StatType::kStat;  // ioengine=filestat only
  IoUringOptions io_uring;
  IoPrioOptions ioprio;
  ProcessOptions proc;
  IoMemoryOptions mem;
  bool direct = false;  // buffered=N sets direct=!N
  // fio's nowait (pvsync2, libaio, io_uring): every read and write carries
  // RWF_NOWAIT (block/driver.h kReqNoWait): what would block the submitter
  // fails with EAGAIN (or EOPNOTSUPP where the file system has no
  // non-blocking path) instead, as an I/O error of the job.
  bool nowait = false;
  bool invalidate = true;  // drop the target's cached pages before a buffered job
  // fio's fadvise_hint: advice for the page cache's read-ahead on each file.
  // kPattern (fio's default "1"): random for a random rw=, else sequential.
  enum class Fadvise { kNone, kPattern, kRandom, kSequential };
  Fadvise fadvise = Fadvise::kPattern;
  // --- file set-up (fio's layout; see run/target.h) ------------------------
  bool create_on_open = false;     // 1: no layout, the file is created empty
  bool create_only = false;        // 1: set the files up, do no I/O
  bool unlink = false;             // 1: delete the job's regular files when it ends
  bool unlink_each_loop = false;   // 1: delete and re-create them before each loop after the first
  bool file_append = false;        // 1: a regular file's I/O starts at its size (offset ignored)
  // fio's lockfile=: I/O to a file serialised between the jobs and clones
  // that name it (run/file_locks.h).
  enum class FileLock : uint8_t { kNone, kExclusive, kReadWrite };
  FileLock lockfile = FileLock::kNone;
  uint32_t openfiles = 0;          // fio's open-files cap (run/files.h MultiFileSource); 0: nrfiles
  bool allow_file_create = true;   // 0: a missing file is an error
  bool overwrite = false;          // 1: a writing job's new file is written out too
  bool pre_read = false;           // 1: read the region into the page cache first
  bool create_fsync = true;        // fsync a file after laying it out
  bool create_serialize = true;    // accepted; set-up is always serialised
  bool fill_device = false;        // 1: size = free space; ENOSPC ends the job
  Fallocate fallocate = Fallocate::kNative;
  // fio's sync=: every file opened with O_SYNC (kSync) or O_DSYNC (kDsync).
  enum class SyncIo { kNone, kSync, kDsync };
  SyncIo sync_io = SyncIo::kNone;
  bool fsync_on_close = false;     // 1: fsync(2) each file a writing job closes
  // fio's write_hint: the write life time fcntl(2) gives each file when it
  // is opened (Linux's RWH_WRITE_LIFE_* values); kNotSet: no call.
  enum class WriteHint : uint8_t { kNotSet = 0, kNone = 1, kShort, kMedium, kLong, kExtreme };
  WriteHint write_hint = WriteHint::kNotSet;
  // 0 (fio's default): a job that writes to a block device some file
  // system is mounted from is refused.
  bool allow_mounted_write = false;
  // fio's write_barrier=N: every Nth write a barrier write.  Only fio's sg
  // engine issues barriers; on the engines block-bench has fio ignores it,
  // and so does block-bench (kept for the round trip).
  uint32_t write_barrier = 0;
  // fio's unique_filename: in client/server mode, generated names prefixed
  // by the client.  block-bench has no fio client/server mode, where alone
  // fio applies it: accepted, changes nothing.
  bool unique_filename = true;
  uint32_t kb_base = 1024;  // 1024 or 1000; how size suffixes were read

  // --- I/O pattern --------------------------------------------------------
  RwMode rw = RwMode::kRead;
  // rw=randread:N -> new random offset every N I/Os (random modes only):
  // the job's 1st, (N+1)th, ... I/O draws one, whatever its direction.
  uint64_t rw_sequential_ios = 1;
  // fio's rw_sequencer: what the I/Os in between do.  kSequential: go on
  // right after the direction's last I/O; kIdentical: repeat the
  // direction's last offset (the region's start before its first I/O).
  // Sequential modes are unaffected (their ':N' is a skip).
  enum class RwSequencer { kSequential, kIdentical };
  RwSequencer rw_sequencer = RwSequencer::kSequential;
  // Random modes: the percentage of I/Os at a random offset; the others
  // continue sequentially from the direction's last I/O (100: all random).
  PerDir<uint32_t> percentage_random{100, 100, 100};
  // rw=write:4k -> skip 4k after every I/O (sequential modes only);
  // rw=read:-8k -> go back 8k after every I/O (backwards with bs=4k), as fio.
  int64_t rw_offset_skip = 0;
  uint32_t rwmixread = 50;  // rwmixwrite=N sets rwmixread=100-N
  PerDir<BlockSizeRange> bs;                  // bs= and bsrange=
  // fio's bs_unaligned: a length drawn in bsrange= is any byte count, not a
  // multiple of the range's minimum.
  bool bs_unaligned = false;
  // fio's bs_is_seq_rand: bs=/bsrange=/bssplit='s read value is used for
  // every sequential I/O, the write value for every random one (reads,
  // writes and trims alike).
  bool bs_is_seq_rand = false;
  PerDir<std::vector<BsSplitEntry>> bssplit;  // empty: not used
  PerDir<std::optional<uint64_t>> blockalign;  // empty: same as bs
  SizeSpec offset;
  // fio's zonemode=strided ("disk zone profile"): I/O stays in the zone
  // [zone, zone + zonerange) until zonesize bytes went to it, then moves
  // zonerange + zoneskip further on, back to offset= past the target's end.
  // Random offsets are drawn within the zone.  zonesize 0: zonemode=none.
  // zonerange 0: zonesize.  Bytes.  (zonemode=zbd is refused.)
  uint64_t zonesize = 0;
  uint64_t zonerange = 0;
  uint64_t zoneskip = 0;
  bool zonemode_strided = false;  // zonemode=strided written (needs zonesize)
  // offset_increment: clone c (0-based, numjobs) starts at offset + c * this
  // (fio's disjoint segments of one target).  Bytes.
  uint64_t offset_increment = 0;
  // offset=N%: the offset rounded up to a multiple of this (fio's
  // offset_align; 0: of the smallest block size of any direction).
  uint64_t offset_align = 0;
  std::optional<SizeSpec> size;     // empty: whole device/file
  std::optional<SizeSpec> io_size;  // empty: same as size
  uint64_t number_ios = 0;          // 0: no limit
  uint32_t loops = 1;               // the job's I/O this many times over
  RandomDistribution random_distribution;
  bool randrepeat = true;
  // fio's allrandrepeat: every random generator seeded predictably.  One seed
  // drives all of a clone's, so this fixes it even with randrepeat=0.
  bool allrandrepeat = false;
  std::optional<uint64_t> randseed;
  bool norandommap = false;
  // fio's softrandommap: go on without the random map when it cannot be
  // allocated.  block-bench allocates the map with the job (run/resources.h
  // counts it), so it changes nothing (kept for the round trip).
  bool softrandommap = false;
  // random_generator=lfsr (run/fio_lfsr.h): every block once per pass, also
  // with norandommap.  tausworthe (the default) and tausworthe64 are fio's
  // Tausworthe generators (run/fio_rand.h).  All three are fio's sequences.
  bool lfsr = false;
  bool tausworthe64 = false;
  // Written data: all zeros instead of random bytes (fio's zero_buffers).
  // Verify blocks are filled by verify whatever this says.
  bool zero_buffers = false;
  // fio's other buffer-content options (run/buffer_fill.h).
  bool refill_buffers = false;
  bool scramble_buffers = true;
  std::optional<uint32_t> buffer_compress_percentage;  // 0..100
  uint32_t buffer_compress_chunk = 512;                // bytes, 0: the block
  std::vector<PatternPiece> buffer_pattern;            // empty: none
  std::string buffer_pattern_text;                     // as written
  uint32_t dedupe_percentage = 0;                      // 0..100
  bool dedupe_mode_repeat = false;  // dedupe_mode=repeat written (the default)
  // dedupe_mode=working_set: a dedupe write repeats one of the first
  // unique writes (the working set: dedupe_working_set_percentage of
  // size, in blocks of the smallest write), drawn at random; with
  // dedupe_global the working set is spread over every clone of the run
  // (run/buffer_fill.h).
  bool dedupe_working_set = false;
  uint32_t dedupe_working_set_percentage = 5;  // fio's default
  bool dedupe_global = false;

  // --- queueing -----------------------------------------------------------
  uint32_t iodepth = 1;
  bool iodepth_given = false;  // iodepth= was written (a replay's cap defaults otherwise)
  uint32_t iodepth_batch_submit = 1;        // 0: iodepth
  // iodepth_batch_submit= was written.  Without it block-bench batches
  // submissions adaptively (run/target.h SubmitBatching); with it, or with
  // fio_defaults, at most iodepth_batch_submit requests per io_submit, as fio.
  bool iodepth_batch_submit_given = false;
  // fio_defaults=1 (block-bench's own; --fio_defaults on the command line):
  // where block-bench's default differs from fio's, take fio's.  Today that
  // is submission batching (one request per io_submit unless
  // iodepth_batch_submit= says more) and the loop's busy polling of the
  // completion ring (off: completions are waited for, as fio's io_getevents).
  bool fio_defaults = false;
  uint32_t iodepth_batch_complete_min = 1;
  std::optional<uint32_t> iodepth_batch_complete_max;  // empty: = min
  std::optional<uint32_t> iodepth_low;                 // empty: = iodepth
  uint32_t numjobs = 1;
  bool thread = false;  // fio's thread: block-bench always runs threads
  // fio's io_submit_mode.  inline (the default): the clone's own loop
  // generates, submits and reaps.  offload: the clone's loop generates and
  // paces the I/O (and times it from there, as fio's start_time), while a
  // submitter thread of the clone, holding the graph, submits and reaps; see
  // run/offload.h.  kUnset renders nothing.
  enum class SubmitMode : uint8_t { kUnset, kInline, kOffload };
  SubmitMode io_submit_mode = SubmitMode::kUnset;
  bool offload() const { return io_submit_mode == SubmitMode::kOffload; }
  bool readonly = false;  // --readonly: the graph is opened read-only
  bool exitall = false;           // a clone that ends ends the others running
  // exit_what: which clones exitall / exitall_on_error end (fio's): those
  // of the clone's group (default), every one running (stonewall: the next
  // stonewall segment still runs), or all (no later segment runs either).
  enum class ExitWhat : uint8_t { kGroup, kStonewall, kAll };
  ExitWhat exit_what = ExitWhat::kGroup;
  // serialize_overlap: an I/O overlapping one in flight waits for it.
  bool serialize_overlap = false;
  bool exitall_on_error = false;  // ... when it ends with an error
  // CPUs the clones' threads may run on (cpus_allowed= / cpumask=); empty:
  // any.  split: clone k runs on the k-th of them (modulo), as fio's policy.
  std::vector<uint32_t> cpus_allowed;
  bool cpus_split = false;

  // --- rate and think time ------------------------------------------------
  PerDir<uint64_t> rate{};       // bytes/s, 0: unlimited
  PerDir<uint64_t> rate_iops{};  // IOPS, 0: unlimited
  // rate_min / rate_iops_min: a job slower than this over a rate_cycle
  // (after a 2 s settling period) ends with EIO, as fio's; 0: no minimum.
  PerDir<uint64_t> rate_min{};
  PerDir<uint64_t> rate_iops_min{};
  uint32_t rate_cycle = 1000;  // ms
  RateProcess rate_process = RateProcess::kLinear;
  // fio's thinktime: after an issued I/O, when thinktime_blocks I/Os (0:
  // not set, counts as 1) were issued (thinktime_issue) or completed (the
  // default) since the last pause, or thinktime_iotime passed since it
  // ended, the job lets its I/O in flight complete, spins thinktime_spin,
  // then sleeps the rest of thinktime.  With thinktime_iotime and no
  // thinktime_blocks, only the time counts.  rate_ignore_thinktime: the
  // rate schedule moves by the pause instead of catching up after it.
  std::chrono::microseconds thinktime{0};
  uint32_t thinktime_blocks = 0;
  bool thinktime_issue = false;
  std::chrono::microseconds thinktime_spin{0};
  std::chrono::microseconds thinktime_iotime{0};
  bool rate_ignore_thinktime = false;
  // fio's flow control: the jobs with a flow weight and one flow_id keep
  // their shares of the group's issued I/Os to their weights.
  uint32_t flow = 0;        // weight, 0: not in a flow group
  uint32_t flow_id = 0;
  uint32_t flow_sleep = 0;  // us to wait when ahead of the share (0: yield)
  // fio's latency_target: search the deepest queue whose I/Os keep within
  // the target (run/features/latency_target.h); 0: off.
  std::chrono::microseconds latency_target{0};
  std::chrono::microseconds latency_window{0};
  double latency_percentile = 100;
  bool latency_run = false;  // keep adjusting the depth instead of ending
  // max_latency: an I/O slower than this ends the job with ETIMEDOUT; 0: off.
  PerDir<std::chrono::microseconds> max_latency{};

  // --- syncing ------------------------------------------------------------
  uint32_t fsync = 0;      // fsync every N writes, 0: never
  uint32_t fdatasync = 0;  // fdatasync every N writes, 0: never
  // fio's sync_file_range=FLAGS:N: sync_file_range(2) with these
  // SYNC_FILE_RANGE_* flags every N writes (run/features/sync_file_range.h);
  // N 0: never.
  uint32_t sync_file_range = 0;
  uint32_t sync_file_range_flags = 0;
  bool end_fsync = false;

  // --- timing and grouping ------------------------------------------------
  std::chrono::microseconds runtime{0};  // 0: until size is done
  bool time_based = false;
  std::chrono::microseconds ramp_time{0};
  TimeRange startdelay;
  bool stonewall = false;  // also set on the first job of every job file but the first
  bool new_group = false;
  bool group_reporting = false;

  // --- steady state (fio's ss options) -------------------------------------
  SteadyState ss;                                  // default iops:0.01%
  std::chrono::microseconds ss_dur{0};             // the window; 0: off
  std::chrono::microseconds ss_ramp{0};            // before collecting
  std::chrono::microseconds ss_interval{1000000};  // one value per interval

  // --- verification and errors -------------------------------------------
  VerifyMethod verify = VerifyMethod::kNone;
  // verify_pattern=: the written blocks' data, checked on read-back
  // (run/verify.h); empty: none.  Given while verify is none it sets
  // kPatternHdr (fio's VERIFY_PATTERN: a header and the pattern).
  std::vector<PatternPiece> verify_pattern;
  std::string verify_pattern_text;  // as written
  uint32_t verify_interval = 0;     // a header per N bytes of a block; 0: per block
  uint32_t verify_offset = 0;       // where in the block (interval) the header sits
  // verify_only: no writes; the blocks the job would write are read back
  // and checked (a file laid out by an earlier run of the same job).
  bool verify_only = false;
  // fio's verify_state_save (default 1): a write job with verify= saves
  // how far its writes got, in fio's file (run/features/verify_state.h).
  bool verify_state_save = true;
  // fio's verify_state_load: the verify pass reads that file and stops
  // where the writes it describes stopped.
  bool verify_state_load = false;
  bool do_verify = true;
  bool verify_fatal = false;
  // verify_dump: a bad block's bytes as read and as expected go to files
  // named as fio names them (run/features/verify_tracker.h).
  bool verify_dump = false;
  // experimental_verify: accepted; the verify phase reads back the blocks
  // written, as without it (fio replays the writes' offsets instead of
  // logging them: the same blocks).
  bool experimental_verify = false;
  // verify_backlog=N: after every N writes, read back and check up to
  // verify_backlog_batch (0: N) of the oldest written blocks not yet
  // checked, then go on writing; 0: only the verify phase at the end.
  uint32_t verify_backlog = 0;
  uint32_t verify_backlog_batch = 0;
  // verify_async=N: read-back blocks are checked on N threads of their
  // own while the clone keeps submitting (run/verify_offload.h); 0: on
  // the clone's thread.  verify_async_cpus=: the CPUs those threads may
  // run on (cpus_allowed's list syntax); empty: not bound.
  uint32_t verify_async = 0;
  std::vector<uint32_t> verify_async_cpus;
  // fio's trim options (with verify= on a writing job): trim_percentage of
  // the written blocks are queued for a trim; after every trim_backlog
  // writes, trim_backlog_batch (0: trim_backlog) of them are trimmed, the
  // oldest first.  The verify phase then expects them to read as zeros
  // (trim_verify_zero=1) or does not read them (0).  Both trim_percentage
  // and trim_backlog are needed for a trim to be issued, as in fio.
  uint32_t trim_percentage = 0;
  bool trim_verify_zero = true;
  uint32_t trim_backlog = 0;
  uint32_t trim_backlog_batch = 0;
  ContinueOnError continue_on_error = ContinueOnError::kNone;
  // fio's ignore_error=READ,WRITE,VERIFY: per error type, the errnos
  // (positive) that do not stop the job; a non-empty list also turns
  // continue_on_error on for its type (run/clone_state.h).  Empty: none.
  std::array<std::vector<int>, 3> ignore_error;
  // fio's error_dump=1: every failed request is printed when it fails, in
  // fio's "io_u error on file ..." line (run/clone_state.h).  0, fio 3.33's
  // default (its --cmdhelp and behaviour; its HOWTO says 1): none.
  bool error_dump = false;

  // --- reporting ----------------------------------------------------------
  // fio's stats=0: the job runs, but its clones are left out of the final
  // report (text, JSON, terse) and of its group's run status and figures;
  // its log files are written empty, as fio's.
  bool stats = true;
  std::vector<double> percentile_list = DefaultPercentileList();
  // fio's percentile_precision: the most digits after the point any entry
  // of percentile_list was written with (the default list's 99.95: 2); the
  // text report prints every percentile with that many ("50th" for
  // percentile_list=50:99, "99.5th" for 50:99.5).
  int percentile_precision = 2;
  uint32_t sig_figs = 4;  // significant_figures: digits of the text report's IOPS, BW, io
  // unit_base: 0 (auto: bits for the net engine, fio's FIO_BIT_BASED, else
  // bytes), 8 (bytes) or 1 (bits): the text report's bandwidths.
  uint32_t unit_base = 0;
  // fio's disk_util: the devices under this job's files are in the run's
  // "Disk stats" (text, JSON "disk_util", terse); 0: they are not.
  bool disk_util = true;
  bool clat_percentiles = true;
  bool lat_percentiles = false;
  UnifiedRw unified_rw = UnifiedRw::kNone;  // unified_rw_reporting=
  bool slat_percentiles = false;
  // fio's reductions: these latency statistics are not kept (the report
  // shows N=0 and no text line; the latency logs get no entries).
  // disable_bw (disable_bw_measurement) only drops the per-I/O bw log
  // entries: fio 3.33 keeps the bw/iops samples of the report.
  // gtod_reduce=1 sets all four and turns the percentiles off.  The clock
  // is read as usual.
  bool disable_lat = false, disable_clat = false, disable_slat = false;
  bool disable_bw = false;
  // Every measurement reduced (gtod_reduce, or all four): fio then also
  // drops the per-I/O iops log entries.
  bool stats_reduced() const { return disable_bw && disable_lat && disable_clat && disable_slat; }
  // Empty optional: no log.  Empty string: log under fio's default name.
  std::optional<std::string> write_lat_log;
  std::optional<std::string> write_bw_log;
  std::optional<std::string> write_iops_log;
  uint32_t log_avg_msec = 0;
  // fio's bwavgtime / iopsavgtime (ms, >= 1): the report's bandwidth / IOPS
  // samples (min, max, mean, stdev, samples) are over windows this long,
  // and with log_avg_msec the bw / iops log has one entry per window.
  // Empty: 500, or log_avg_msec when the job writes that log with
  // log_avg_msec set (fio's rule).
  std::optional<uint32_t> bwavgtime, iopsavgtime;
  uint32_t bw_window_ms() const {
    if (bwavgtime) return *bwavgtime;
    return write_bw_log && log_avg_msec ? log_avg_msec : 500;
  }
  uint32_t iops_window_ms() const {
    if (iopsavgtime) return *iopsavgtime;
    return write_iops_log && log_avg_msec ? log_avg_msec : 500;
  }
  // Columns of those logs, as fio's: "msec, value, direction, bs[, offset],
  // priority"; the priority is 1 for the real-time class, else 0; log_prio
  // prints the I/O's ioprio value as 0x%04x instead (prio/prioclass, cmdprio).
  bool log_offset = false;
  bool log_prio = false;
  // fio's completion-latency histogram log (<prefix>_clat_hist.N.log): one
  // line per log_hist_msec with the histogram of the I/Os completed in it;
  // bins merged 2^log_hist_coarseness at a time.
  std::optional<std::string> write_hist_log;
  uint32_t log_hist_msec = 0;
  uint32_t log_hist_coarseness = 0;
  // log_avg_msec windows of the latency logs hold the window's largest
  // value instead of its mean (fio's log_max_value).  The bw and iops logs
  // have one sample per window, so the two agree there.
  bool log_max_value = false;
  // Time column of every log: with log_unix_epoch or log_alternate_epoch,
  // the job's start read on clock log_alternate_epoch_clock_id (a
  // clock_gettime id; 0: CLOCK_REALTIME) in ms is added to the ms since the
  // start, as fio 3.33 does.
  bool log_unix_epoch = false;
  bool log_alternate_epoch = false;
  uint32_t log_alternate_epoch_clock_id = 0;
  bool log_epoch() const { return log_unix_epoch || log_alternate_epoch; }
  // 1 (fio's default): log files are <prefix>_<kind>.<N>.log, N the job's
  // 1-based number over all jobs.  0: <prefix>_<kind>.log, shared by the
  // jobs of one prefix and appended to (an existing file is not truncated).
  bool per_job_logs = true;
  // fio's initial log buffer size (entries): only a memory hint there and
  // here (block-bench's logs grow as needed); kept for rendering.
  uint32_t log_entries = 1024;
  // fio's in-memory log compression chunk size (bytes, 1k..512M; 0: not
  // written).  The files
  // fio writes are the same; block-bench keeps its logs uncompressed.
  uint64_t log_compression = 0;
  // log_store_compressed=0 was written (=1, fio's .log.fz files, is
  // refused); kept for rendering only.
  bool log_store_compressed_zero = false;
  // log_store_compressed=1: the lat/clat/slat/bw/iops logs are written as
  // fio stores them compressed, <name>.log.fz: zlib streams of fio 3.33's
  // binary samples (report/logs.cc), which fio --inflate-log prints.
  bool log_store_compressed = false;
  // fio's log_compression_cpus (cpus_allowed's list syntax): the CPUs its
  // log compression threads run on.  block-bench compresses
  // (log_store_compressed=1) once, at the end, on the main thread: that
  // thread is pinned to these CPUs while it compresses this job's logs,
  // then given back its previous affinity (report/logs.h).  Empty: any.
  std::vector<uint32_t> log_compression_cpus;

  // --- trace replay and recording (docs/replay.md) -------------------------
  // read_iolog=a:b: the trace each clone replays, in turn ("-": stdin).
  // When set, the trace decides the I/O (rw=, bs=, size= ... are not used).
  std::vector<std::string> read_iolog;
  std::string trace_format = "auto";  // a trace::Format name
  std::string trace_device;           // only this device/volume of the trace
  bool trace_skip_bad = false;        // count malformed records, go on
  // The most bytes of trace read (per clone's trace; per-CPU blktrace
  // files together); a larger one is refused, never buffered whole.
  uint64_t trace_max_size = uint64_t(4) << 30;
  bool replay_no_stall = false;       // in order, as fast as the depth allows
  uint32_t replay_time_scale = 100;   // percent of the trace's rate
  std::string replay_redirect;        // target of every record
  uint64_t replay_align = 0;          // power of 2; 0: as recorded
  uint64_t replay_scale = 1;          // offsets divided by this
  uint32_t replay_skip = 0;           // bit (1 << trace::Op) per skipped op
  std::string write_iolog;            // record issued I/O (fio iolog v3)
  // merge_blktrace_file: read_iolog's blktrace files merged by time into
  // this file before the run, which then replays it alone (fio's merge,
  // trace/blktrace_merge.h).  Empty: no merge.
  std::string merge_blktrace_file;
  // Per read_iolog file: percent of its times, passes over it (empty: 100, 1).
  std::vector<uint32_t> merge_blktrace_scalars;
  std::vector<uint32_t> merge_blktrace_iters;
  // fio reads a chunked iolog gradually to bound its memory; block-bench
  // reads every trace whole (24 bytes per record) and replays the same I/O
  // at the same times either way, so the option is accepted with a note.
  bool read_iolog_chunked = false;

  // The options as written, for fio's JSON echo ("global options", "job
  // options"): provenance, not meaning, so no part of JobOptions' equality.
  WrittenOptions written;

  friend bool operator==(const JobOptions&, const JobOptions&) = default;
};

// dedupe_mode=working_set: the block a working-set entry stands for (fio's
// min_bs[DDIR_WRITE]: the smallest write, bs= or bssplit=), and how many
// entries size= holds at dedupe_working_set_percentage (0 without size=
// in bytes).
uint64_t DedupeBlockSize(const JobOptions& job);
uint64_t DedupeWorkingSetBlocks(const JobOptions& job);

// fio's min_bs/max_bs of direction `d` (0..2): bssplit's smallest and
// largest entry (whatever their share), else bs=/bsrange='s.
uint64_t FioMinBs(const JobOptions& job, int d);
uint64_t FioMaxBs(const JobOptions& job, int d);
// fio's td_min_bs (rw_min_bs): the smallest of the three directions'.
uint64_t FioRwMinBs(const JobOptions& job);

// Where fio's I/O region of a file of `file_size` bytes starts
// (get_start_offset): offset=, or offset=N% of the file aligned up to
// offset_align or the smallest block size of any direction.
uint64_t FioStartOffset(const JobOptions& job, uint64_t file_size);

// fio's fixup_options: a random job whose blockalign differs from a
// direction's min_bs runs without the random map, as if norandommap=1
// (fio warns "Any use of blockalign= turns off randommap": FioWarnings).
bool BlockalignTurnsOffRandomMap(const JobOptions& job);

// Whether fio keeps its random map (an axmap) for `job`: uniform random
// offsets from a Tausworthe generator, norandommap not given nor forced by
// blockalign (fio's init_random_map and file_randommap).
bool FioKeepsRandomMap(const JobOptions& job);

// The warnings fio 3.33 prints on standard error for `job` when it reads it
// (without "fio: "): blockalign turning the map off, norandommap with
// verify and variable block sizes; --warnings-fatal makes them fatal, as
// fio's.
std::vector<std::string> FioWarnings(const JobOptions& job);

// Whether the text report gives bandwidths in bits (unit_base above).
inline bool UnitBits(const JobOptions& job) {
  // fio's net is FIO_BIT_BASED; its netsplice is not.
  return job.unit_base == 1 || (job.unit_base == 0 && job.ioengine == IoEngine::kNet);
}

}  // namespace blk::bench
