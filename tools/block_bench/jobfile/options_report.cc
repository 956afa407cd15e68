// Options about checking and reporting: verify, continue_on_error,
// percentiles, disk_util, the report's sample windows (bwavgtime,
// iopsavgtime) and the bandwidth/latency/IOPS logs.
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <iterator>

#include "tools/block_bench/jobfile/option_helpers.h"
#include <blkstack/util/quote.h>

namespace blk::bench {
namespace {

using internal::ChoiceOption;
using internal::FioChoice;
using internal::FioValueError;
using internal::ParsePatternPieces;

constexpr size_t kMaxPercentiles = 20;
// fio 3.33 cuts a pattern to 512 bytes (MAX_PATTERN_SIZE) without a word,
// so a longer pattern file is not what it writes; later fios take it whole
// (their t0027), as block-bench does, up to this bound on memory.
constexpr size_t kMaxVerifyPattern = size_t(64) << 20;

FioOptionSpec Verify() {
  FioOptionSpec s;
  s.name = "verify";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    // fio 3.33's list (fio --cmdhelp=verify); crc32c-intel is crc32c.
    static constexpr std::pair<std::string_view, VerifyMethod> kMethods[] = {
        {"0", VerifyMethod::kNone},          {"none", VerifyMethod::kNone},
        {"md5", VerifyMethod::kMd5},         {"crc64", VerifyMethod::kCrc64},
        {"crc32", VerifyMethod::kCrc32},     {"crc32c-intel", VerifyMethod::kCrc32c},
        {"crc32c", VerifyMethod::kCrc32c},   {"crc16", VerifyMethod::kCrc16},
        {"crc7", VerifyMethod::kCrc7},       {"sha1", VerifyMethod::kSha1},
        {"sha256", VerifyMethod::kSha256},   {"sha512", VerifyMethod::kSha512},
        {"sha3-224", VerifyMethod::kSha3_224}, {"sha3-256", VerifyMethod::kSha3_256},
        {"sha3-384", VerifyMethod::kSha3_384}, {"sha3-512", VerifyMethod::kSha3_512},
        {"xxhash", VerifyMethod::kXxhash},   {"meta", VerifyMethod::kMeta},
        {"pattern", VerifyMethod::kPattern}, {"null", VerifyMethod::kNull}};
    for (const auto& [name, m] : kMethods) {
      if (*v == name) {
        job.verify = m;
        return {};
      }
    }
    return FioValueError("unsupported verify method " + QuoteInput(*v) +
                         " (fio 3.33's: 0, md5, crc64, crc32, crc32c-intel, crc32c, crc16, crc7, "
                         "sha1, sha256, sha512, sha3-224, sha3-256, sha3-384, sha3-512, xxhash, "
                         "meta, pattern, null)");
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    // kPatternHdr has no spelling: verify_pattern (rendered) implies it.
    if (job.verify != DefaultJob().verify && job.verify != VerifyMethod::kPatternHdr)
      out.push_back({std::string(n), std::string(Name(job.verify))});
  };
  s.help = "verify written data in fio 3.33's on-disk format: 0/none (default), md5, crc64, "
           "crc32, crc32c (crc32c-intel), crc16, crc7, sha1, sha256, sha512, sha3-224, sha3-256, "
           "sha3-384, sha3-512, xxhash, meta (fio's header only), pattern (verify_pattern only, "
           "no header), null (nothing checked)";
  return s;
}

// fio's verify_pattern: the bytes written blocks carry and reads check; with
// no verify method yet, fio's VERIFY_PATTERN (a header and the pattern).
FioOptionSpec VerifyPattern() {
  FioOptionSpec s;
  s.name = "verify_pattern";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    auto p = ParsePatternPieces("verify_pattern", *v, /*formats=*/true);
    if (!p.ok()) return p.error();
    size_t bytes = 0;
    for (const PatternPiece& piece : *p) bytes += piece.file ? 0 : piece.data.size();
    if (bytes > kMaxVerifyPattern) {
      return FioValueError("verify_pattern " + QuoteInput(*v) + ": " + std::to_string(bytes) +
                           " bytes, at most 64 MiB");
    }
    job.verify_pattern = std::move(*p);
    job.verify_pattern_text = std::string(*v);
    if (job.verify == VerifyMethod::kNone) job.verify = VerifyMethod::kPatternHdr;
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (!job.verify_pattern.empty()) out.push_back({std::string(n), job.verify_pattern_text});
  };
  s.help = "written data: 0xHEX, \"string\", 'file', numbers and %o (the block's offset), "
           "repeated, and checked on read-back (with no verify= method: fio's header and the pattern)";
  return s;
}

// gtod_reduce=1: fio's shorthand for every statistics reduction.  Sets the
// other options (rendered through them); =0 changes nothing, as fio.
FioOptionSpec GtodReduce() {
  FioOptionSpec s;
  s.name = "gtod_reduce";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<bool> b = FioParseBool(*v);
    if (!b.ok()) return b.error();
    if (b.value()) {
      job.disable_lat = job.disable_clat = job.disable_slat = job.disable_bw = true;
      job.clat_percentiles = job.lat_percentiles = job.slat_percentiles = false;
    }
    return {};
  };
  s.render = [](const JobOptions&, std::string_view, RenderedOptions&) {};
  s.help = "keep no latency or bandwidth statistics (sets disable_lat, disable_clat, "
           "disable_slat, disable_bw_measurement; percentiles off)";
  return s;
}

constexpr FioChoice<ContinueOnError> kContinueOnErrorOptionChoices[] = {
    {"none", ContinueOnError::kNone},  {"read", ContinueOnError::kRead},
    {"write", ContinueOnError::kWrite}, {"io", ContinueOnError::kIo},
    {"verify", ContinueOnError::kVerify}, {"all", ContinueOnError::kAll},
    {"0", ContinueOnError::kNone},     {"1", ContinueOnError::kAll}};

FioOptionSpec ContinueOnErrorOption() {
  return ChoiceOption<&JobOptions::continue_on_error, kContinueOnErrorOptionChoices>(
      "continue_on_error", "errors that do not stop the job: none, read, write, io, verify, all");
}

// fio 3.33's str2error: these names (errno 1 to 34, in order) or a
// decimal number (atoi: a sign dropped, anything else 0 and refused).
constexpr const char* kFioErrnoNames[] = {
    "EPERM",  "ENOENT", "ESRCH",   "EINTR",  "EIO",     "ENXIO",  "E2BIG",  "ENOEXEC", "EBADF",
    "ECHILD", "EAGAIN", "ENOMEM",  "EACCES", "EFAULT",  "ENOTBLK", "EBUSY", "EEXIST",  "EXDEV",
    "ENODEV", "ENOTDIR", "EISDIR", "EINVAL", "ENFILE",  "EMFILE", "ENOTTY", "ETXTBSY", "EFBIG",
    "ENOSPC", "ESPIPE", "EROFS",   "EMLINK", "EPIPE",   "EDOM",   "ERANGE"};

Expected<int> FioErrno(std::string_view s) {
  if (!s.empty() && s[0] == 'E') {
    for (size_t i = 0; i < std::size(kFioErrnoNames); i++)
      if (s == kFioErrnoNames[i]) return int(i + 1);
  } else {
    const std::string t(s);
    const int n = std::abs(std::atoi(t.c_str()));
    if (n) return n;
  }
  return FioValueError("unknown error " + QuoteInput(s) +
                       ", give a number or one of fio's names (EPERM ... ERANGE)");
}

FioOptionSpec IgnoreError() {
  FioOptionSpec s;
  s.name = "ignore_error";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    std::array<std::vector<int>, 3> lists;
    std::string_view rest = Trim(*v);
    for (size_t type = 0;; type++) {
      const size_t comma = rest.find(',');
      const std::string_view field = rest.substr(0, comma);
      if (type >= lists.size())
        return FioValueError("at most 3 lists (read, write, verify), got a 4th: " +
                             QuoteInput(field));
      for (size_t at = 0; at < field.size();) {
        const size_t colon = std::min(field.find(':', at), field.size());
        const std::string_view name = field.substr(at, colon - at);
        if (name.empty()) break;  // as fio: an empty name ends the list
        Expected<int> e = FioErrno(name);
        if (!e.ok()) return e.error();
        lists[type].push_back(e.value());
        at = colon + 1;
      }
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
    job.ignore_error = std::move(lists);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.ignore_error == std::array<std::vector<int>, 3>{}) return;
    std::string value;
    size_t last = 0;
    for (size_t t = 0; t < 3; t++)
      if (!job.ignore_error[t].empty()) last = t;
    for (size_t t = 0; t <= last; t++) {
      if (t) value += ',';
      for (size_t i = 0; i < job.ignore_error[t].size(); i++)
        value += (i ? ":" : "") + std::to_string(job.ignore_error[t][i]);
    }
    out.push_back({std::string(n), value});
  };
  s.help = "READ,WRITE,VERIFY lists of ':'-separated errnos (fio's names EPERM ... ERANGE, or "
           "numbers) that do not stop the job; each list turns continue_on_error on for its type";
  return s;
}

FioOptionSpec PercentileList() {
  FioOptionSpec s;
  s.name = "percentile_list";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    const std::vector<std::string_view> items = SplitTopLevel(*v, ':');
    if (items.size() > kMaxPercentiles) {
      return FioValueError("at most " + std::to_string(kMaxPercentiles) + " percentiles, got " +
                           std::to_string(items.size()));
    }
    std::vector<double> list;
    int precision = 0;
    for (std::string_view item : items) {
      item = Trim(item);
      Expected<double> p = ParseDouble(item, 0, 100, /*min_exclusive=*/true);
      if (!p.ok()) return p.error();
      list.push_back(p.value());
      // fio's: the digits right after the point, as written.
      const size_t dot = item.find('.');
      int digits = 0;
      for (size_t i = dot + 1; dot != std::string_view::npos && i < item.size() &&
                               item[i] >= '0' && item[i] <= '9';
           i++)
        digits++;
      precision = std::max(precision, digits);
    }
    job.percentile_list = std::move(list);
    job.percentile_precision = precision;
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.percentile_list == DefaultJob().percentile_list &&
        job.percentile_precision == DefaultJob().percentile_precision)
      return;
    // Each entry with the list's precision: read back, it gives the same.
    std::string value;
    for (double p : job.percentile_list) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*f", job.percentile_precision, p);
      value += (value.empty() ? "" : ":") + std::string(buf);
    }
    out.push_back({std::string(n), value});
  };
  s.help = "':'-separated latency percentiles to report, each in (0,100]";
  return s;
}

// write_bw_log[=prefix]: bare means fio's default file name.
template <std::optional<std::string> JobOptions::*F>
FioOptionSpec LogOption(std::string_view name, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.value_required = false;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    job.*F = v ? std::string(*v) : std::string();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (!(job.*F)) return;
    if ((job.*F)->empty()) {
      out.push_back({std::string(n), std::nullopt});
    } else {
      out.push_back({std::string(n), *(job.*F)});
    }
  };
  s.help = help;
  return s;
}

constexpr FioChoice<UnifiedRw> kUnifiedRwReportingChoices[] = {
    {"none", UnifiedRw::kNone}, {"mixed", UnifiedRw::kMixed}, {"both", UnifiedRw::kBoth},
    {"0", UnifiedRw::kNone},    {"1", UnifiedRw::kMixed},     {"2", UnifiedRw::kBoth}};

FioOptionSpec UnifiedRwReporting() {
  return ChoiceOption<&JobOptions::unified_rw, kUnifiedRwReportingChoices>(
      "unified_rw_reporting", "report read/write/trim summed as 'mixed' (mixed), both, or not (none)");
}

// unit_base: 0 (fio's auto-detection: bits for the net engine, bytes for
// the others), 8 (bytes) or 1 (bits).
constexpr FioChoice<uint32_t> kUnitBaseChoices[] = {
    {"0", 0, "auto"}, {"8", 8, "bytes"}, {"1", 1, "bits"}};

FioOptionSpec UnitBase() {
  FioOptionSpec s = ChoiceOption<&JobOptions::unit_base, kUnitBaseChoices>(
      "unit_base",
      "the text report's bandwidths in bytes (8) or bits (1); 0 (default): bits for "
      "ioengine=net, else bytes, as fio");
  s.numeric = true;
  return s;
}

// log_alternate_epoch_clock_id: a clock_gettime id this system has.
FioOptionSpec LogEpochClockId() {
  FioOptionSpec s = internal::UintOption<&JobOptions::log_alternate_epoch_clock_id, 0, INT32_MAX>(
      "log_alternate_epoch_clock_id",
      "clock_gettime clock id of the log time column with log_unix_epoch or log_alternate_epoch "
      "(0: CLOCK_REALTIME)");
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = ParseInteger(*v, job.kb_base, 0, INT32_MAX);
    if (!n.ok()) return n.error();
    timespec ts;
    if (clock_getres(clockid_t(n.value()), &ts) != 0)
      return FioValueError("clock id " + std::to_string(n.value()) +
                           " is not a clock of this system (clock_getres: " +
                           std::strerror(errno) + ")");
    job.log_alternate_epoch_clock_id = uint32_t(n.value());
    return {};
  };
  return s;
}

// log_compression=SIZE: fio's in-memory chunk size; the log files are the
// same, so it is kept only for rendering (cli/warnings.h warns).
FioOptionSpec LogCompression() {
  FioOptionSpec s;
  s.name = "log_compression";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = ParseInteger(*v, job.kb_base, 1024, 536870912);
    if (!n.ok()) return n.error();
    job.log_compression = n.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.log_compression) out.push_back({std::string(n), std::to_string(job.log_compression)});
  };
  s.help = "accepted: fio's in-memory log compression chunk size (the log files are the same; "
           "block-bench keeps its logs uncompressed)";
  return s;
}

// log_store_compressed=1: the logs in fio's compressed format (<name>.log.fz,
// read back with fio --inflate-log); 0, fio's default, renders only when
// written.
FioOptionSpec LogStoreCompressed() {
  FioOptionSpec s;
  s.name = "log_store_compressed";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<bool> b = FioParseBool(*v);
    if (!b.ok()) return b.error();
    job.log_store_compressed = b.value();
    job.log_store_compressed_zero = !b.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.log_store_compressed) out.push_back({std::string(n), "1"});
    else if (job.log_store_compressed_zero) out.push_back({std::string(n), "0"});
  };
  s.help = "1: the lat/clat/slat/bw/iops logs are written zlib-compressed as fio's <name>.log.fz "
           "(fio --inflate-log and block-bench --inflate-log print them)";
  return s;
}

}  // namespace

std::vector<FioOptionSpec> ReportOptions() {
  using namespace internal;
  std::vector<FioOptionSpec> v;
  v.push_back(Verify());
  v.push_back(VerifyPattern());
  // fio's minimum (twice its header).
  v.push_back(UintOption<&JobOptions::verify_interval, 80>(
      "verify_interval", "a verify header (and checksum) per N bytes of each block"));
  v.push_back(UintOption<&JobOptions::verify_offset, 0>(
      "verify_offset", "the verify header swapped with the data N bytes into the block"));
  v.push_back(FlagOption<&JobOptions::verify_only>(
      "verify_only", "no writes: read back and check what the job would write (an earlier run's file)"));
  v.push_back(BoolOption<&JobOptions::verify_state_save>(
      "verify_state_save", "1 (default): a write job with verify= saves fio's "
                           "local-NAME-INDEX-verify.state (its writes issued, the last completed)"));
  v.push_back(BoolOption<&JobOptions::verify_state_load>(
      "verify_state_load", "1: the verify pass loads that state and stops where its writes stopped"));
  v.push_back(BoolOption<&JobOptions::do_verify>("do_verify", "1: run the verify phase"));
  v.push_back(BoolOption<&JobOptions::verify_fatal>("verify_fatal", "1: stop at the first bad block"));
  v.push_back(BoolOption<&JobOptions::verify_dump>(
      "verify_dump", "1: a bad block's bytes as read and as expected to FILE.OFFSET.received and "
                     ".expected in the working directory (fio's names)"));
  v.push_back(BoolOption<&JobOptions::experimental_verify>(
      "experimental_verify", "accepted: the verify phase reads back the blocks written, the same "
                             "blocks fio's replay finds"));
  v.push_back(UintOption<&JobOptions::verify_backlog, 0>(
      "verify_backlog", "check the written blocks after every N writes, not only at the end"));
  v.push_back(UintOption<&JobOptions::verify_async, 0>(
      "verify_async", "check read-back blocks on N threads of their own while the job keeps "
                      "submitting (a block's buffer held until checked); 0: inline"));
  v.push_back(UintOption<&JobOptions::verify_backlog_batch, 0>(
      "verify_backlog_batch", "blocks checked at each verify_backlog point (0: verify_backlog)"));
  v.push_back(UintOption<&JobOptions::trim_percentage, 0, 100>(
      "trim_percentage", "percentage of the verified written blocks queued for a trim "
                         "(issued at trim_backlog points)"));
  v.push_back(BoolOption<&JobOptions::trim_verify_zero>(
      "trim_verify_zero", "1: the verify phase expects trimmed blocks to read as zeros; 0: "
                          "they are not read back"));
  v.push_back(UintOption<&JobOptions::trim_backlog, 0>(
      "trim_backlog", "trim queued blocks after every N written blocks (0: never)"));
  v.push_back(UintOption<&JobOptions::trim_backlog_batch, 0>(
      "trim_backlog_batch", "blocks trimmed at each trim_backlog point (0: trim_backlog)"));
  v.push_back(ContinueOnErrorOption());
  v.push_back(IgnoreError());
  v.push_back(BoolOption<&JobOptions::error_dump>(
      "error_dump", "1: print each failed request when it fails, as fio's \"io_u error on file F: "
                    "<error>: <dir> offset=O, buflen=L\" line (to stderr); 0 (default, as fio "
                    "3.33's): only the run's summary of errors"));
  v.push_back(PercentileList());
  v.push_back(BoolOption<&JobOptions::stats>(
      "stats", "0: the job runs but is left out of the final report, its group's run status "
               "and its logs (written empty), as fio"));
  v.push_back(UnifiedRwReporting());
  v.push_back(BoolOption<&JobOptions::disk_util>(
      "disk_util", "1: report the utilisation of the block devices under the job's files; 0: not"));
  v.push_back(BoolOption<&JobOptions::clat_percentiles>("clat_percentiles", "report completion latency percentiles"));
  v.push_back(BoolOption<&JobOptions::lat_percentiles>("lat_percentiles", "report total latency percentiles"));
  v.push_back(BoolOption<&JobOptions::slat_percentiles>("slat_percentiles", "report submission latency percentiles"));
  v.push_back(BoolOption<&JobOptions::disable_lat>("disable_lat", "do not keep total latency statistics"));
  v.push_back(BoolOption<&JobOptions::disable_clat>("disable_clat", "do not keep completion latency statistics"));
  v.push_back(BoolOption<&JobOptions::disable_slat>("disable_slat", "do not keep submission latency statistics"));
  {
    FioOptionSpec s = BoolOption<&JobOptions::disable_bw>("disable_bw_measurement", "no per-I/O bandwidth log entries (the report keeps its samples, as fio)");
    s.aliases = {"disable_bw"};
    v.push_back(std::move(s));
  }
  v.push_back(UnitBase());
  v.push_back(UintOption<&JobOptions::sig_figs, 1, 10>(
      "significant_figures", "digits of the text report's IOPS, bandwidth and io= figures (1-10)"));
  v.push_back(GtodReduce());
  v.push_back(LogOption<&JobOptions::write_lat_log>("write_lat_log", "write latency logs [file prefix]"));
  v.push_back(LogOption<&JobOptions::write_bw_log>("write_bw_log", "write a bandwidth log [file prefix]"));
  v.push_back(LogOption<&JobOptions::write_iops_log>("write_iops_log", "write an IOPS log [file prefix]"));
  v.push_back(BoolOption<&JobOptions::log_offset>("log_offset", "logs have the offset of each I/O (column 5)"));
  v.push_back(BoolOption<&JobOptions::log_prio>("log_prio", "logs show the I/O priority value as 0x%04x (not 1 for real-time, else 0)"));
  v.push_back(UintOption<&JobOptions::log_avg_msec, 0>("log_avg_msec", "average log entries over N ms"));
  v.push_back(LogOption<&JobOptions::write_hist_log>(
      "write_hist_log", "write completion latency histogram logs [file prefix] (needs log_hist_msec)"));
  v.push_back(UintOption<&JobOptions::log_hist_msec, 0>(
      "log_hist_msec", "one histogram log entry per N ms (0: no histogram log)"));
  v.push_back(UintOption<&JobOptions::log_hist_coarseness, 0, 6>(
      "log_hist_coarseness", "histogram log bins merged 2^N at a time (0-6)"));
  v.push_back(BoolOption<&JobOptions::log_max_value>(
      "log_max_value", "log_avg_msec log entries hold the window's maximum instead of its mean"));
  v.push_back(BoolOption<&JobOptions::log_unix_epoch>(
      "log_unix_epoch", "log time column in ms since the Unix epoch (of log_alternate_epoch_clock_id)"));
  v.push_back(BoolOption<&JobOptions::log_alternate_epoch>(
      "log_alternate_epoch", "log time column in ms since the epoch of log_alternate_epoch_clock_id"));
  v.push_back(LogEpochClockId());
  v.push_back(BoolOption<&JobOptions::per_job_logs>(
      "per_job_logs", "1: log files named <prefix>_<kind>.<job number>.log; 0: <prefix>_<kind>.log, "
                      "shared by the jobs and appended to"));
  v.push_back(UintOption<&JobOptions::log_entries, 1024, 1048576>(
      "log_entries", "accepted: fio's initial log buffer size (block-bench's logs grow as needed)"));
  v.push_back(LogCompression());
  // bwavgtime / iopsavgtime: a window in ms, at least 1 (fio takes 0 too and
  // then samples whenever its stats thread looks; block-bench's windows are
  // timed, so 0 is refused).
  v.push_back(OptionalUintOption<&JobOptions::bwavgtime, 1>(
      "bwavgtime", "ms over which each bandwidth sample of the report is taken (default 500, or "
                   "log_avg_msec with write_bw_log)"));
  v.push_back(OptionalUintOption<&JobOptions::iopsavgtime, 1>(
      "iopsavgtime", "ms over which each IOPS sample of the report is taken (default 500, or "
                     "log_avg_msec with write_iops_log)"));
  v.push_back(LogStoreCompressed());
  return v;
}

}  // namespace blk::bench
