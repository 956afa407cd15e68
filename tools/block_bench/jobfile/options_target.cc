// Options naming the job and its target: name, description, kb_base,
// ioengine and the rbd engine's options, filename, directory, blockdev,
// direct/buffered, invalidate.
#include <dirent.h>
#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cstring>

#include <blkstack/block/option_values.h>
#include <blkstack/block/registry.h>
#include "tools/block_bench/jobfile/option_helpers.h"
#include <blkstack/util/quote.h>

namespace blk::bench {
namespace {

using internal::ChoiceOption;
using internal::FioChoice;
using internal::FioValueError;

constexpr std::array<IoEngine, 23> kEngines = {
    IoEngine::kPsync, IoEngine::kSync,    IoEngine::kPvsync,   IoEngine::kPvsync2, IoEngine::kLibaio,
    IoEngine::kIoUring, IoEngine::kPosixaio, IoEngine::kNull, IoEngine::kRbd,     IoEngine::kNbd,
    IoEngine::kMmap,  IoEngine::kFalloc,  IoEngine::kFtruncate, IoEngine::kCpuio, IoEngine::kExec,
    IoEngine::kFilecreate, IoEngine::kFilestat, IoEngine::kFiledelete, IoEngine::kNet,
    IoEngine::kSplice, IoEngine::kE4defrag, IoEngine::kNetsplice, IoEngine::kRados};

constexpr FioChoice<uint32_t> kKbBaseChoices[] = {{"1000", 1000}, {"1024", 1024}};

FioOptionSpec KbBase() {
  FioOptionSpec s = ChoiceOption<&JobOptions::kb_base, kKbBaseChoices>(
      "kb_base", "base of size suffixes: 1024 (k=1024, ki=1000) or 1000 (k=1000, ki=1024)");
  s.numeric = true;
  return s;
}

FioOptionSpec Engine() {
  FioOptionSpec s;
  s.name = "ioengine";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    for (IoEngine e : kEngines) {
      if (Name(e) == *v) {
        job.ioengine = e;
        return {};
      }
    }
    if (*v == "dircreate" || *v == "dirstat" || *v == "dirdelete")
      return FioValueError(
          "unsupported ioengine " + QuoteInput(*v) +
          ": fio 3.33 has no such engine (fio 3.34's directory engines)");
    std::string supported;
    for (IoEngine e : kEngines) supported += (supported.empty() ? "" : ", ") + std::string(Name(e));
    return FioValueError("unsupported ioengine " + QuoteInput(*v) + " (block-bench supports " +
                         supported + ")");
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.ioengine != DefaultJob().ioengine) out.push_back({std::string(n), std::string(Name(job.ioengine))});
  };
  s.help =
      "I/O engine: psync (default), sync, pvsync, pvsync2, libaio, io_uring, posixaio, null, rbd, "
      "rados (RADOS objects), "
      "nbd, mmap, falloc, ftruncate, splice, cpuio (burns CPU, no data), exec (runs program= "
      "beside the job, no data), filecreate, filestat, filedelete (time a create, stat or unlink "
      "per file opened), net (a socket), netsplice (net with splice for tcp), e4defrag (ext4 "
      "extent moves)";
  return s;
}

template <std::string RbdOptions::*F>
FioOptionSpec RbdString(std::string_view name, std::string_view help,
                        std::vector<IoEngine> engines = {IoEngine::kRbd, IoEngine::kRados}) {
  FioOptionSpec s;
  s.name = name;
  s.engines = std::move(engines);
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    if (v->empty()) return FioValueError("expected a non-empty value");
    job.rbd.*F = std::string(*v);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.rbd.*F != DefaultJob().rbd.*F) out.push_back({std::string(n), job.rbd.*F});
  };
  s.help = help;
  return s;
}

FioOptionSpec NbdUri() {
  FioOptionSpec s;
  s.name = "uri";
  s.engines = {IoEngine::kNbd};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    if (v->empty()) return FioValueError("expected a non-empty value");
    job.nbd_uri = std::string(*v);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (!job.nbd_uri.empty()) out.push_back({std::string(n), job.nbd_uri});
  };
  s.help = "nbd: the NBD server's export as a libnbd URI (nbd://HOST/EXPORT, nbd+unix:///?socket=PATH)";
  return s;
}

FioOptionSpec RadosTouchObjects() {
  FioOptionSpec s;
  s.name = "touch_objects";
  s.engines = {IoEngine::kRados};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<bool> b = FioParseBool(*v);
    if (!b.ok()) return b.error();
    job.rbd.touch_objects = b.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.rbd.touch_objects != DefaultJob().rbd.touch_objects)
      out.push_back({std::string(n), job.rbd.touch_objects ? "1" : "0"});
  };
  s.help = "rados: create every object (an empty write) when the job starts";
  return s;
}

FioOptionSpec RbdBusyPoll() {
  FioOptionSpec s;
  s.name = "busy_poll";
  s.engines = {IoEngine::kRbd, IoEngine::kRados};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<bool> b = FioParseBool(*v);
    if (!b.ok()) return b.error();
    job.rbd.busy_poll = b.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.rbd.busy_poll != DefaultJob().rbd.busy_poll) {
      out.push_back({std::string(n), job.rbd.busy_poll ? "1" : "0"});
    }
  };
  s.help = "rbd, rados: poll for completions instead of waiting";
  return s;
}

FioOptionSpec UserspaceReap() {
  FioOptionSpec s;
  s.name = "userspace_reap";
  s.engines = {IoEngine::kLibaio};
  s.value_required = false;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    if (!v) {
      job.libaio.userspace_reap = true;
      return {};
    }
    Expected<bool> b = FioParseBool(*v);
    if (!b.ok()) return b.error();
    job.libaio.userspace_reap = b.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.libaio.userspace_reap != DefaultJob().libaio.userspace_reap) {
      out.push_back({std::string(n), job.libaio.userspace_reap ? "1" : "0"});
    }
  };
  s.help = "libaio: reap from the ring in user space; with iodepth_batch_complete_min=0 "
           "spin on it (as fio does)";
  return s;
}

// An io_uring engine option held in IoUringOptions::*F: a 0/1 flag (bool)
// or an integer (int).
template <auto F, int64_t Lo, int64_t Hi>
FioOptionSpec UringOption(std::string_view name, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.engines = {IoEngine::kIoUring};
  s.value_required = !std::is_same_v<std::remove_cvref_t<decltype(IoUringOptions{}.*F)>, bool>;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    using T = std::remove_cvref_t<decltype(job.io_uring.*F)>;
    if constexpr (std::is_same_v<T, bool>) {
      if (!v) {
        job.io_uring.*F = true;
        return {};
      }
      Expected<bool> b = FioParseBool(*v);
      if (!b.ok()) return b.error();
      job.io_uring.*F = b.value();
    } else {
      Expected<int64_t> n = ParseInt(*v);
      if (!n.ok()) return n.error();
      if (n.value() < Lo || n.value() > Hi) {
        return FioValueError("expected an integer from " + std::to_string(Lo) + " to " +
                             std::to_string(Hi));
      }
      job.io_uring.*F = T(n.value());
    }
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.io_uring.*F != DefaultJob().io_uring.*F) {
      out.push_back({std::string(n), std::to_string(int64_t(job.io_uring.*F))});
    }
  };
  s.help = help;
  return s;
}

FioOptionSpec JobName() {
  FioOptionSpec s;
  s.name = "name";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    if (v->empty()) return FioValueError("expected a non-empty job name");
    // "global" would turn the job into a [global] section when rendered.
    if (*v == "global") return FioValueError("'global' is reserved for [global] sections");
    job.name = std::string(*v);
    return {};
  };
  // Rendered first, as --name=..., by RenderJobArgs.
  s.help = "job name (on the command line: starts a new job)";
  return s;
}

// blockdev=: the graph is checked against the driver table here (nothing is
// opened), so that a bad spec is an error at the line that wrote it, in
// every mode including --parse-only.
FioOptionSpec Blockdev() {
  FioOptionSpec s;
  s.name = "blockdev";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    if (v->empty()) return FioValueError("expected a non-empty value");
    Expected<void> valid = ValidateSpec(*v);
    if (!valid.ok()) return valid.error();
    job.blockdev = std::string(*v);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.blockdev != DefaultJob().blockdev) out.push_back({std::string(n), job.blockdev});
  };
  s.help = "block driver graph spec (block-bench)";
  return s;
}

FioOptionSpec Buffered() {
  FioOptionSpec s;
  s.name = "buffered";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<bool> b = FioParseBool(*v);
    if (!b.ok()) return b.error();
    job.direct = !b.value();
    return {};
  };
  // Rendered through direct=.
  s.help = "1: buffered I/O (the opposite of direct)";
  return s;
}

// atomic=1: fio opens the files O_DIRECT | O_ATOMIC, and Linux has no
// O_ATOMIC (fio's value, 040000000, is a flag the kernel ignores: strace
// of fio shows O_DIRECT|0x800000), so it means direct=1.
FioOptionSpec Atomic() {
  FioOptionSpec s;
  s.name = "atomic";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<bool> b = FioParseBool(*v);
    if (!b.ok()) return b.error();
    if (b.value()) job.direct = true;  // atomic=0 leaves direct= as it was, as fio
    return {};
  };
  // Rendered through direct=.
  s.help = "1: direct=1 (fio adds O_ATOMIC, which Linux does not have and ignores)";
  return s;
}

}  // namespace

constexpr FioChoice<Fallocate> kFallocateOptionChoices[] = {
    {"none", Fallocate::kNone}, {"native", Fallocate::kNative},     {"posix", Fallocate::kPosix},
    {"keep", Fallocate::kKeep}, {"truncate", Fallocate::kTruncate}, {"0", Fallocate::kNone},
    {"1", Fallocate::kPosix}};

FioOptionSpec FallocateOption() {
  return ChoiceOption<&JobOptions::fallocate, kFallocateOptionChoices>(
      "fallocate", "preallocation of a writing job's new file: native (default), posix, keep, truncate, none");
}

// sync= (TargetOptions below): fio's values, as fio's open flags.
constexpr FioChoice<JobOptions::SyncIo> kSyncChoices[] = {
    {"none", JobOptions::SyncIo::kNone},  {"0", JobOptions::SyncIo::kNone},
    {"sync", JobOptions::SyncIo::kSync},  {"1", JobOptions::SyncIo::kSync},
    {"dsync", JobOptions::SyncIo::kDsync}};

// lockfile= (TargetOptions below).
constexpr FioChoice<JobOptions::FileLock> kLockfileChoices[] = {
    {"none", JobOptions::FileLock::kNone},
    {"exclusive", JobOptions::FileLock::kExclusive},
    {"readwrite", JobOptions::FileLock::kReadWrite}};

// write_hint= (TargetOptions below): fio's values.
constexpr FioChoice<JobOptions::WriteHint> kWriteHintChoices[] = {
    {"none", JobOptions::WriteHint::kNone},     {"short", JobOptions::WriteHint::kShort},
    {"medium", JobOptions::WriteHint::kMedium}, {"long", JobOptions::WriteHint::kLong},
    {"extreme", JobOptions::WriteHint::kExtreme}};

// fadvise_hint= (TargetOptions below).
constexpr FioChoice<JobOptions::Fadvise> kFadviseChoices[] = {
    {"0", JobOptions::Fadvise::kNone},
    {"1", JobOptions::Fadvise::kPattern},
    {"random", JobOptions::Fadvise::kRandom},
    {"sequential", JobOptions::Fadvise::kSequential}};

// filesize=SIZE or LOW-HIGH (fio's range: each file's size drawn in it).
FioOptionSpec FileSize() {
  FioOptionSpec s;
  s.name = "filesize";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    const auto range = SplitRange(*v);
    const std::string_view lo_text = range ? range->first : *v;
    Expected<uint64_t> lo = FioParseSize(lo_text, job.kb_base, 1);
    if (!lo.ok()) return lo.error();
    uint64_t hi = lo.value();
    if (range) {
      Expected<uint64_t> h = FioParseSize(range->second, job.kb_base, 1);
      if (!h.ok()) return h.error();
      hi = h.value();
    }
    // fio swaps a reversed range.
    job.filesize = std::min(lo.value(), hi);
    job.filesize_max = std::max(lo.value(), hi);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (!job.filesize) return;
    std::string v = std::to_string(job.filesize);
    if (job.filesize_max != job.filesize) v += "-" + std::to_string(job.filesize_max);
    out.push_back({std::string(n), v});
  };
  s.help = "size of each file, or LOW-HIGH: each file's drawn in the range as fio draws it (default: size / nrfiles)";
  return s;
}

// opendir=DIR: every regular file below DIR, depth first in readdir(3)
// order (fio's recurse_dir: symbolic links, FIFOs, sockets and devices are
// left out), appended to `out`.  0 or the failing call's -errno, `bad`
// naming the directory.
static int RegularFilesUnder(const std::string& dir, std::vector<std::string>* out, std::string* bad) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    *bad = dir;
    return -errno;
  }
  int r = 0;
  while (const dirent* e = ::readdir(d)) {
    if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
    const std::string path = dir + "/" + e->d_name;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) continue;  // gone meanwhile
    if (S_ISREG(st.st_mode)) out->push_back(path);
    else if (S_ISDIR(st.st_mode) && (r = RegularFilesUnder(path, out, bad)) < 0) break;
  }
  ::closedir(d);
  return r;
}

// opendir=DIR: the files are added to the job's (after those a filename=
// before it listed; fio's add_file), each as large as it is unless size=/
// filesize= say otherwise.  Rendered through filename=.
static FioOptionSpec OpenDir() {
  FioOptionSpec s;
  s.name = "opendir";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    if (v->empty()) return FioValueError("expected a directory");
    std::string dir(*v);
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    std::vector<std::string> found;
    std::string bad;
    if (const int r = RegularFilesUnder(dir, &found, &bad); r < 0)
      return MakeError(r, "cannot read directory " + QuoteName(bad) + ": " + ErrnoString(r));
    if (found.empty())
      return FioValueError("no regular file below " + QuoteName(dir) +
                           " (fio then fails the job: \"you need to specify size=\")");
    job.filenames.insert(job.filenames.end(), found.begin(), found.end());
    return {};
  };
  s.render = [](const JobOptions&, std::string_view, RenderedOptions&) {};
  s.help = "every regular file below this directory, recursively, is one of the job's files "
           "(as filename=a:b:..., in readdir order; links, FIFOs and devices left out)";
  return s;
}

// file_service_type=roundrobin|sequential|random[:N].
FioOptionSpec FileServiceType() {
  FioOptionSpec s;
  s.name = "file_service_type";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    std::string_view type = *v, count;
    if (size_t colon = type.find(':'); colon != std::string_view::npos) {
      count = type.substr(colon + 1);
      type = type.substr(0, colon);
    }
    if (type == "roundrobin") job.file_service = FileService::kRoundRobin;
    else if (type == "sequential") job.file_service = FileService::kSequential;
    else if (type == "random") job.file_service = FileService::kRandom;
    else if (type == "zipf" || type == "pareto" || type == "normal" || type == "gauss")
      return FioValueError("file_service_type=" + std::string(type) +
                           " (a distribution over the files) is not implemented; roundrobin, "
                           "sequential and random are");
    else
      return FioValueError("expected roundrobin, sequential or random (with an optional :N), got " +
                           QuoteInput(*v));
    uint64_t n = 1;
    if (!count.empty()) {
      Expected<uint64_t> k = ParseInteger(count, job.kb_base, 1, UINT32_MAX);
      if (!k.ok()) return k.error();
      n = k.value();
    }
    job.file_service_ios = uint32_t(n);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.file_service == FileService::kRoundRobin && job.file_service_ios == 1) return;
    static const char* const kNames[] = {"roundrobin", "sequential", "random"};
    std::string v = kNames[int(job.file_service)];
    if (job.file_service_ios != 1) v += ":" + std::to_string(job.file_service_ios);
    out.push_back({std::string(n), v});
  };
  s.help = "which file each I/O goes to: roundrobin (default), sequential, random; :N switches "
           "after N I/Os";
  return s;
}

std::vector<FioOptionSpec> TargetOptions() {
  using namespace internal;
  std::vector<FioOptionSpec> v;
  v.push_back(JobName());
  v.push_back(StringOption<&JobOptions::description>("description", "free-text description"));
  v.push_back(KbBase());
  v.push_back(Engine());
  v.push_back(RbdString<&RbdOptions::pool>("pool", "rbd, rados: Ceph pool holding the image or objects"));
  v.push_back(RbdString<&RbdOptions::rbdname>("rbdname", "rbd: image name", {IoEngine::kRbd}));
  v.push_back(RbdString<&RbdOptions::clientname>(
      "clientname", "rbd, rados: Ceph client name (without client.; a full TYPE.ID with clustername)"));
  v.push_back(RbdString<&RbdOptions::clustername>("clustername", "rbd, rados: Ceph cluster name"));
  v.push_back(RbdString<&RbdOptions::conf>("conf", "rados: ceph.conf path (default: librados' search)",
                                           {IoEngine::kRados}));
  v.push_back(RbdBusyPoll());
  v.push_back(RadosTouchObjects());
  v.push_back(NbdUri());
  v.push_back(UserspaceReap());
  {
    FioOptionSpec s = BoolOption<&JobOptions::nowait>(
        "nowait", "reads and writes with RWF_NOWAIT: what would block fails with EAGAIN "
                  "(pvsync2, libaio, io_uring)");
    s.engines = {IoEngine::kPvsync2, IoEngine::kLibaio, IoEngine::kIoUring};
    v.push_back(std::move(s));
  }
  v.push_back(UringOption<&IoUringOptions::sqthread_poll, 0, 1>(
      "sqthread_poll", "io_uring: a kernel thread polls the submission ring (SQPOLL)"));
  v.push_back(UringOption<&IoUringOptions::sqthread_poll_cpu, 0, 4095>(
      "sqthread_poll_cpu", "io_uring: the CPU of the SQPOLL thread"));
  v.push_back(UringOption<&IoUringOptions::registerfiles, 0, 1>(
      "registerfiles", "io_uring: register the file with the ring (IOSQE_FIXED_FILE)"));
  v.push_back(UringOption<&IoUringOptions::fixedbufs, 0, 1>(
      "fixedbufs", "io_uring: the I/O buffers registered with the ring (READ_FIXED/WRITE_FIXED)"));
  v.push_back(UringOption<&IoUringOptions::force_async, 0, 1>(
      "force_async", "io_uring: every request through the io-wq workers (IOSQE_ASYNC)"));
  v.push_back(UringOption<&IoUringOptions::nonvectored, -1, 1>(
      "nonvectored", "io_uring: READ/WRITE instead of READV/WRITEV (one-buffer requests always "
      "are)"));
  v.push_back(NameList<&JobOptions::filenames>("filename", "target file(s), ':'-separated (\\: escapes)"));
  v.push_back(NameList<&JobOptions::directories>("directory", "directory(ies) for generated file names"));
  {
    FioOptionSpec n = UintOption<&JobOptions::nrfiles, 1, 65535>(
        "nrfiles", "files per job (named JOB.CLONE.N unless filename= names them)");
    n.aliases = {"nr_files"};
    // Not when filename= lists the files (it sets nrfiles again).
    n.render = [](const JobOptions& job, std::string_view name, RenderedOptions& out) {
      if (job.nrfiles != 1 && job.nrfiles != job.filenames.size())
        out.push_back({std::string(name), std::to_string(job.nrfiles)});
    };
    v.push_back(std::move(n));
  }
  v.push_back(OpenDir());
  v.push_back(FileSize());
  v.push_back(StringOption<&JobOptions::filename_format>(
      "filename_format", "generated file names: $jobname, $jobnum (the clone), $filenum, "
                         "$clientuid substituted (default $jobname.$jobnum.$filenum)"));
  v.push_back(FileServiceType());
  v.push_back(Blockdev());
  v.push_back(BoolOption<&JobOptions::direct>("direct", "1: O_DIRECT (non-buffered) I/O"));
  v.push_back(Buffered());
  v.push_back(Atomic());
  v.push_back(BoolOption<&JobOptions::invalidate>("invalidate", "drop the page cache of the files first"));
  v.push_back(ChoiceOption<&JobOptions::fadvise, kFadviseChoices>(
      "fadvise_hint", "read-ahead advice per file (posix_fadvise): 1 (default) random for random "
      "rw=, else sequential; 0 none; random; sequential"));
  v.push_back(BoolOption<&JobOptions::create_on_open>(
      "create_on_open", "1: create a new file empty when it is opened (no layout)"));
  v.push_back(BoolOption<&JobOptions::create_only>("create_only", "1: set up the files, then do no I/O"));
  v.push_back(BoolOption<&JobOptions::unlink>("unlink", "1: delete the job's files when it ends"));
  v.push_back(BoolOption<&JobOptions::unlink_each_loop>(
      "unlink_each_loop", "1: with loops=N, delete each regular file and create it again (as "
                          "long as before, sparse) before every loop after the first; the last "
                          "loop's files stay"));
  v.push_back(UintOption<&JobOptions::openfiles, 0>(
      "openfiles", "most files open at once (0: nrfiles): each I/O's file is fio's pick with at "
      "most this many open (a file opens when first picked, closes when done); "
      "block-bench's targets themselves stay open"));
  v.push_back(BoolOption<&JobOptions::allow_file_create>(
      "allow_file_create", "0: a file that does not exist is an error"));
  v.push_back(BoolOption<&JobOptions::overwrite>(
      "overwrite", "1: a writing job's new file is written out before the job"));
  v.push_back(BoolOption<&JobOptions::pre_read>("pre_read", "1: read the files into the page cache first"));
  v.push_back(BoolOption<&JobOptions::create_fsync>("create_fsync", "0: do not fsync a file after laying it out"));
  v.push_back(BoolOption<&JobOptions::create_serialize>(
      "create_serialize", "set the files up one clone at a time (always so in block-bench: set-up is "
      "not measured, so 0 changes no result)"));
  {
    FioOptionSpec fill = BoolOption<&JobOptions::fill_device>(
        "fill_device", "1: write until the device or file system is full (ENOSPC ends the job)");
    fill.aliases = {"fill_fs"};
    v.push_back(std::move(fill));
  }
  v.push_back(FallocateOption());
  v.push_back(BoolOption<&JobOptions::allow_mounted_write>(
      "allow_mounted_write", "1: allow a job that writes to a block device with a mounted file "
                             "system (0, the default: refused, as fio)"));
  v.push_back(UintOption<&JobOptions::write_barrier, 0>(
      "write_barrier", "every Nth write a barrier: only fio's sg engine issues barriers, so on "
                       "the engines block-bench has (as fio on them) nothing changes"));
  v.push_back(BoolOption<&JobOptions::unique_filename>(
      "unique_filename", "fio's client/server mode: prefix generated file names with the client; "
                         "block-bench has no fio client/server mode, where alone fio applies it, "
                         "so nothing changes"));
  v.push_back(ChoiceOption<&JobOptions::sync_io, kSyncChoices>(
      "sync", "synchronous writes: every file opened with O_SYNC (sync or 1) or O_DSYNC (dsync); "
              "none or 0 (default): neither"));
  v.push_back(BoolOption<&JobOptions::fsync_on_close>(
      "fsync_on_close", "1: fsync(2) each file of a writing job when it is closed (after the "
                        "I/O, outside the measured time)"));
  v.push_back(BoolOption<&JobOptions::file_append>(
      "file_append", "1: a regular file's I/O starts at its current end (its size when the job "
                     "starts; offset= ignored) and the file grows by the job's size; ignored on "
                     "block devices"));
  v.push_back(ChoiceOption<&JobOptions::lockfile, kLockfileChoices>(
      "lockfile", "serialise I/O to a file between the jobs and clones naming it: none "
                  "(default); exclusive (one clone's requests at a time); readwrite (reads "
                  "together, a write alone). Held from issue to completion"));
  v.push_back(ChoiceOption<&JobOptions::write_hint, kWriteHintChoices>(
      "write_hint", "write life time given to each file when it is opened (fcntl(2) "
                    "F_SET_RW_HINT; with direct=1 F_SET_FILE_RW_HINT, as fio, which Linux 5.17+ "
                    "refuses): none, short, medium, long, extreme"));
  return v;
}

}  // namespace blk::bench
