#include "tools/block_bench/jobfile/apply.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "tools/block_bench/jobfile/option_table.h"
#include "tools/block_bench/jobfile/units.h"
#include <blkstack/util/quote.h>

namespace blk::bench {
namespace {

Error OptionError(const RawOption& opt, const std::string& detail) {
  return MakeError(-EINVAL, opt.where.ToString() + ": option " +
                                QuoteInput(DisplayName(opt.name, opt.where)) + ": " + detail);
}

Error UnknownOption(const RawOption& opt) {
  const std::string shown = QuoteInput(DisplayName(opt.name, opt.where));
  if (std::optional<std::string_view> why = UnsupportedFioOptionReason(opt.name)) {
    return MakeError(-ENOTSUP, opt.where.ToString() + ": option " + shown +
                                   " is not supported by block-bench (" + std::string(*why) + ")");
  }
  std::string msg = opt.where.ToString() + ": unknown option " + shown;
  if (std::optional<std::string> close = SuggestOption(opt.name)) {
    msg += " (did you mean '" + DisplayName(*close, opt.where) + "'?)";
  }
  return MakeError(-EINVAL, msg);
}

Expected<void> ApplyOne(JobOptions& job, const RawOption& opt) {
  const FioOptionSpec* spec = FindOption(opt.name);
  if (spec == nullptr) return UnknownOption(opt);
  if (spec->value_required && !opt.value) return OptionError(opt, "requires a value");
  std::optional<std::string> value = opt.value;
  // fio evaluates keyword arithmetic such as "8*$mb_memory".
  if (value && opt.wants_arithmetic && spec->numeric && !value->empty() && value->front() != '(') {
    value = "(" + *value + ")";
  }
  Expected<void> r = spec->apply(job, value ? std::optional<std::string_view>(*value) : std::nullopt);
  if (!r.ok()) return OptionError(opt, r.error().message);
  return {};
}

// offset= and size= in bytes must end within the largest target there can
// be (an off_t); a null target's size is their sum, which must not wrap.
Expected<void> ValidateRange(const JobOptions& job, const SourceLocation& where) {
  constexpr uint64_t kMaxTargetBytes = INT64_MAX;
  if (job.offset.percent) return {};
  const std::string head = where.ToString() + ": job " + QuoteInput(job.name) + ": offset (" +
                           std::to_string(job.offset.value) + ")";
  const std::string tail =
      " is beyond the largest possible target (" + std::to_string(kMaxTargetBytes) + " bytes)";
  if (job.offset.value > kMaxTargetBytes) return MakeError(-EINVAL, head + tail);
  if (job.size && !job.size->percent && job.size->value > kMaxTargetBytes - job.offset.value) {
    return MakeError(-EINVAL, head + " + size (" + std::to_string(job.size->value) + ")" + tail);
  }
  return {};
}

}  // namespace

Expected<void> ApplyOptions(JobOptions& job, const std::vector<RawOption>& options) {
  // Stable: kb_base first, the rest in written order.
  std::vector<const RawOption*> ordered;
  for (const RawOption& o : options) {
    if (o.name == "kb_base") ordered.push_back(&o);
  }
  for (const RawOption& o : options) {
    if (o.name != "kb_base") ordered.push_back(&o);
  }
  for (const RawOption* o : ordered) {
    Expected<void> r = ApplyOne(job, *o);
    if (!r.ok()) return r;
  }
  for (const RawOption& o : options) {
    const FioOptionSpec* spec = FindOption(o.name);
    if (spec == nullptr || spec->engines.empty() ||
        std::find(spec->engines.begin(), spec->engines.end(), job.ioengine) != spec->engines.end())
      continue;
    // "ioengine=a", "ioengine=a or b", "ioengine=a, b or c".
    std::string valid;
    for (size_t i = 0; i < spec->engines.size(); i++) {
      if (i) valid += i + 1 == spec->engines.size() ? " or " : ", ";
      valid += Name(spec->engines[i]);
    }
    return MakeError(-EINVAL, o.where.ToString() + ": option " +
                                  QuoteInput(DisplayName(o.name, o.where)) +
                                  " is only valid with ioengine=" + valid + " (ioengine is " +
                                  std::string(Name(job.ioengine)) + ")");
  }
  // filename=a:b:c is three files and filename=a one, whatever nrfiles=
  // says (fio's nrfiles follows the list), unless blockdev= or the rbd
  // engine, which open no file, make it moot.
  if (!job.filenames.empty()) {
    const bool moot = !job.blockdev.empty() || job.ioengine == IoEngine::kRbd ||
                      job.ioengine == IoEngine::kNbd;
    if (!moot) job.nrfiles = uint32_t(job.filenames.size());
    else if (job.nrfiles == job.filenames.size()) job.nrfiles = 1;
  }
  // fio's cpuio and exec engines open no file (nr_files = open_files = 1).
  if (MovesNoData(job.ioengine)) {
    job.nrfiles = 1;
    job.openfiles = 0;
    job.filenames.clear();
  }
  if (job.ioengine != IoEngine::kRbd && job.ioengine != IoEngine::kRados) job.rbd = RbdOptions{};
  if (job.ioengine != IoEngine::kNbd) job.nbd_uri.clear();
  if (job.ioengine != IoEngine::kLibaio) job.libaio = LibaioOptions{};
  if (job.ioengine != IoEngine::kCpuio) job.cpuio = CpuioOptions{};
  if (job.ioengine != IoEngine::kExec) job.exec = ExecOptions{};
  if (!IsNet(job.ioengine)) job.net = NetOptions{};
  if (job.ioengine != IoEngine::kE4defrag) job.e4defrag = E4defragOptions{};
  // fio's net engine: one socket, named by the whole of filename= (a unix
  // socket's path, or a host; ':' in it is no list).
  if (IsNet(job.ioengine)) {
    job.nrfiles = 1;
    job.openfiles = 0;
  }
  if (job.ioengine != IoEngine::kFilestat) job.stat_type = StatType::kStat;
  if (job.ioengine != IoEngine::kIoUring) job.io_uring = IoUringOptions{};
  // Whether iodepth was written only matters to a replay's depth cap.
  if (job.read_iolog.empty()) job.iodepth_given = false;
  return {};
}

Expected<void> ValidateJob(const JobOptions& job, const SourceLocation& where) {
  Expected<void> range = ValidateRange(job, where);
  if (!range.ok()) return range;
  if (job.ss_dur.count() > 0) {
    const auto fail = [&](const std::string& why) {
      return MakeError(-EINVAL, where.ToString() + ": job " + QuoteInput(job.name) + ": " + why);
    };
    if (job.ss_interval.count() <= 0) return fail("steadystate_check_interval must be above 0");
    if (job.ss_dur.count() % job.ss_interval.count() != 0)
      return fail("steadystate_duration (" + FormatTime(job.ss_dur) +
                  ") is not a multiple of steadystate_check_interval (" +
                  FormatTime(job.ss_interval) + ")");
    if (job.ss_dur.count() / job.ss_interval.count() < 2)
      return fail("steadystate_duration (" + FormatTime(job.ss_dur) +
                  ") must span at least two steadystate_check_intervals (" +
                  FormatTime(job.ss_interval) + ")");
    if (job.ss_dur.count() / job.ss_interval.count() > 100000)
      return fail("steadystate_duration spans more than 100000 intervals");
  }
  {
    bool perc = false, split = false;
    for (int d = 0; d < 2; d++) {
      perc = perc || job.ioprio.cmdprio_percentage[d] != 0;
      split = split || !job.ioprio.cmdprio_bssplit[d].empty();
    }
    if (perc && split)  // fio's engine init refuses the pair as well
      return MakeError(-EINVAL, where.ToString() + ": job " + QuoteInput(job.name) +
                                    ": cmdprio_percentage and cmdprio_bssplit are mutually exclusive");
  }
  if (job.iodepth_batch_complete_max &&
      *job.iodepth_batch_complete_max < job.iodepth_batch_complete_min) {
    return MakeError(-EINVAL, where.ToString() + ": job " + QuoteInput(job.name) +
                                  ": iodepth_batch_complete_max (" +
                                  std::to_string(*job.iodepth_batch_complete_max) +
                                  ") is less than iodepth_batch_complete_min (" +
                                  std::to_string(job.iodepth_batch_complete_min) + ")");
  }
  if (job.ioengine == IoEngine::kMmap && job.blockdev.empty() &&
      (job.direct || job.fsync || job.fdatasync)) {
    // fio's mmap engine init: msync works on whole pages.
    const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
    const uint64_t min_bs = FioRwMinBs(job);
    if (min_bs % page != 0)
      return MakeError(-EINVAL, where.ToString() + ": job " + QuoteInput(job.name) +
                                    ": ioengine=mmap with direct=1, fsync= or fdatasync= needs a "
                                    "block size of at least " + std::to_string(page) +
                                    " bytes (a multiple of the page size; fio's \"mmap options "
                                    "dictate a minimum block size\")");
  }
  if (job.ioengine == IoEngine::kCpuio && job.cpuio.load == 0)  // fio's engine init
    return MakeError(-EINVAL, where.ToString() + ": job " + QuoteInput(job.name) +
                                  ": ioengine=cpuio needs cpuload= (fio: \"cpu thread needs rate "
                                  "(cpuload=)\")");
  if (job.ioengine == IoEngine::kExec && job.exec.program.empty())
    return MakeError(-EINVAL, where.ToString() + ": job " + QuoteInput(job.name) +
                                  ": ioengine=exec needs program= (fio: \"no program is defined, "
                                  "it is mandatory to define one\")");
  if (IsNet(job.ioengine) && job.blockdev.empty()) {
    const std::string problem = NetJobProblem(job);
    if (!problem.empty())
      return MakeError(-EINVAL, where.ToString() + ": job " + QuoteInput(job.name) +
                                    ": ioengine=" + std::string(Name(job.ioengine)) + ": " + problem);
    // fio: "you need to specify size=" (its byte budget: a socket has none).
    if (!job.size || job.size->percent)
      return MakeError(-EINVAL, where.ToString() + ": job " + QuoteInput(job.name) +
                                    ": ioengine=" + std::string(Name(job.ioengine)) +
                                    " needs size= in bytes (fio: \"you need to "
                                    "specify size=\")");
  }
  if (job.offset_increment && job.offset.percent) {
    return MakeError(-EINVAL, where.ToString() + ": job " + QuoteInput(job.name) +
                                  ": offset_increment with a percentage offset is not supported "
                                  "(give offset= in bytes)");
  }
  if (job.nrfiles > 1) {
    const auto fail = [&](const std::string& why) {
      return MakeError(-EINVAL, where.ToString() + ": job " + QuoteInput(job.name) + ": nrfiles=" +
                                    std::to_string(job.nrfiles) + ": " + why);
    };
    if (!job.blockdev.empty()) return fail("blockdev= opens one graph; several files need filename= or generated names");
    if (job.ioengine == IoEngine::kRbd) return fail("ioengine=rbd opens one image (use one job per image)");
    if (job.ioengine == IoEngine::kNbd) return fail("ioengine=nbd opens one export (use one job per export)");
    if (!job.read_iolog.empty()) return fail("read_iolog replays onto one target");
    // Each file of a real target stays open for the job; a null target
    // (null, and the file-system engines, which open no file) holds none.
    const bool holds_fds = job.ioengine != IoEngine::kNull && !TimesFileCalls(job.ioengine);
    if (job.nrfiles > 4096 && holds_fds) return fail("at most 4096 files per job");
  }
  if (job.verify == VerifyMethod::kPattern && job.verify_pattern.empty()) {
    return MakeError(-EINVAL, where.ToString() + ": job " + QuoteInput(job.name) +
                                  ": verify=pattern needs verify_pattern= (the bytes to write "
                                  "and check)");
  }
  if (job.verify_only) {
    const auto fail = [&](const std::string& why) {
      return MakeError(-EINVAL, where.ToString() + ": job " + QuoteInput(job.name) +
                                    ": verify_only " + why);
    };
    if (job.verify == VerifyMethod::kNone)
      return fail("needs verify= or verify_pattern= (how the blocks were written)");
    // As fio: the verify pass replays the writes of a run that ended by
    // its size.
    if (job.time_based) return fail("does not support time_based (as fio)");
  }
  if (job.zonesize > 0 || job.zonemode_strided) {
    const auto fail = [&](const std::string& why) {
      return MakeError(-EINVAL, where.ToString() + ": job " + QuoteInput(job.name) + ": " + why);
    };
    if (!job.zonemode_strided)
      return fail("zonesize needs zonemode=strided (fio: zonemode=none and zonesize are not compatible)");
    if (job.zonesize == 0) return fail("zonemode=strided needs zonesize (the bytes of I/O per zone)");
    if (job.rw_offset_skip < 0)
      return fail("zonemode=strided with a backwards rw= (':-N') is not implemented");
    if (job.random_distribution.kind != Distribution::kRandom)
      return fail("zonemode=strided with random_distribution=" +
                  std::string(Name(job.random_distribution.kind)) + " is not implemented (random is)");
    if (job.nrfiles > 1) return fail("zonemode=strided with several files per job is not implemented");
  }
  if (job.dedupe_percentage && job.dedupe_working_set) {
    // fio's checks (fixup_options), and a working set of at least a block.
    const auto fail = [&](const std::string& why) {
      return MakeError(-EINVAL, where.ToString() + ": job " + QuoteInput(job.name) +
                                    ": dedupe_mode=working_set " + why);
    };
    if (!job.size || job.size->percent)
      return fail("needs size= in bytes (the working set is a share of it)");
    if (job.nrfiles != 1 || job.filenames.size() > 1)
      return fail("supports one file per job (as fio)");
    if (job.dedupe_working_set_percentage + job.dedupe_percentage > 100)
      return fail("cannot reach dedupe_percentage=" + std::to_string(job.dedupe_percentage) +
                  ": dedupe_working_set_percentage=" +
                  std::to_string(job.dedupe_working_set_percentage) +
                  " of size is unique blocks (the two add up to more than 100, as fio refuses)");
    const uint64_t bs = DedupeBlockSize(job);
    if (DedupeWorkingSetBlocks(job) == 0)
      return fail("has an empty working set: dedupe_working_set_percentage=" +
                  std::to_string(job.dedupe_working_set_percentage) + " of size=" +
                  std::to_string(job.size->value) + " is less than one " + std::to_string(bs) +
                  "-byte block");
  }
  if (job.write_hist_log && job.log_hist_msec == 0) {
    // fio would write nothing: say so instead of an empty file.
    return MakeError(-EINVAL, where.ToString() + ": job " + QuoteInput(job.name) +
                                  ": write_hist_log needs log_hist_msec (the interval of its "
                                  "entries, ms; 0 means no histogram log)");
  }
  return {};
}

}  // namespace blk::bench
