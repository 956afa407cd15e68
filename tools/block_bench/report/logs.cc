#include "tools/block_bench/report/logs.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include <blkstack/util/cpu_affinity.h>

namespace blk::bench {
namespace {

// fio's log file name: <prefix>_<kind>.<N>.log, or with per_job_logs=0
// <prefix>_<kind>.log; the prefix is the option's value, else the job name.
std::string LogPath(const std::string& option, const JobOptions& job, const std::string& tag,
                    const char* kind, uint32_t thread_number) {
  const std::string prefix = (option.empty() ? job.name : option) + tag;
  if (!job.per_job_logs) return prefix + "_" + kind + ".log";
  return prefix + "_" + kind + "." + std::to_string(thread_number) + ".log";
}

// fio 3.33's in-memory log sample (struct io_sample), as its
// log_store_compressed files hold them: msec, value, the direction with
// flag bits (0x80000000: an offset follows bs; 0x40000000: log_prio), the
// priority, bs, [offset]; little-endian, 32 or 40 bytes.
void AppendSample(std::string* out, const LogEntry& e, uint64_t msec, bool offset, bool prio) {
  auto put = [out](const void* p, size_t n) { out->append(static_cast<const char*>(p), n); };
  const uint64_t value = e.value, bs = e.bs, off = e.offset;
  const uint32_t ddir = uint32_t(e.dir) | (offset ? 0x80000000u : 0) | (prio ? 0x40000000u : 0);
  const uint16_t priority = e.prio, pad = 0;
  put(&msec, 8);
  put(&value, 8);
  put(&ddir, 4);
  put(&priority, 2);
  put(&pad, 2);
  put(&bs, 8);
  if (offset) put(&off, 8);
}

// `entries` as fio writes a log with log_store_compressed=1: one zlib stream
// of the binary samples (fio --inflate-log reads any number of streams one
// after the other); an empty log is an empty file, as fio's.
Expected<void> WriteCompressed(FILE* f, const std::string& path, const std::vector<LogEntry>& entries,
                               const JobOptions& job, uint64_t epoch_ms) {
  if (entries.empty()) return {};
  std::string raw;
  raw.reserve(entries.size() * 40);
  for (const LogEntry& e : entries) AppendSample(&raw, e, e.msec + epoch_ms, job.log_offset, job.log_prio);
  uLongf len = compressBound(uLong(raw.size()));
  std::string z(len, '\0');
  if (compress2(reinterpret_cast<Bytef*>(z.data()), &len, reinterpret_cast<const Bytef*>(raw.data()),
                uLong(raw.size()), Z_DEFAULT_COMPRESSION) != Z_OK)
    return MakeError(-ENOMEM, path + ": zlib could not compress the log");
  if (std::fwrite(z.data(), 1, len, f) != len) return MakeError(-EIO, path + ": short write");
  return {};
}

// One sample as a line of fio 3.33's plain log (flush_samples): msec,
// value, direction, bs, [offset,] priority: the ioprio value as 0x%04x with
// log_prio, else 1 for the real-time class and 0 for the others.
void PrintSample(FILE* f, uint64_t msec, uint64_t value, uint32_t dir, uint64_t bs,
                 const std::optional<uint64_t>& offset, uint16_t prio, bool log_prio) {
  std::fprintf(f, "%llu, %llu, %u, %llu, ", (unsigned long long)msec, (unsigned long long)value,
               dir, (unsigned long long)bs);
  if (offset) std::fprintf(f, "%llu, ", (unsigned long long)*offset);
  if (log_prio) std::fprintf(f, "0x%04x\n", unsigned(prio));
  else std::fprintf(f, "%d\n", (prio >> 13) == 1 ? 1 : 0);
}

// As fio: a per-job log replaces the file, a shared one (per_job_logs=0)
// is appended to, by each job in turn and across runs.
FILE* OpenLog(const std::string& path, const JobOptions& job) {
  return std::fopen(path.c_str(), job.per_job_logs ? "w" : "a");
}

}  // namespace

Expected<void> WithCpuAffinity(const std::vector<uint32_t>& cpus,
                               const std::function<Expected<void>()>& fn) {
  const CpuPinScope pin(cpus);
  if (pin.error())
    return MakeError(pin.error(), PinErrorMessage("log_compression_cpus", cpus,
                                                  "the log compression", pin.error()));
  return fn();
}

Expected<void> WriteLogs(const RunResult& run, const std::string& tag) {
  for (const CloneResult& c : run.clones) {
    if (c.not_run) continue;
    const JobOptions& job = *c.job;
    auto write = [&](const std::optional<std::string>& opt, const char* kind,
                     const std::vector<LogEntry>& entries) -> Expected<void> {
      if (!opt) return {};
      std::string path = LogPath(*opt, job, tag, kind, c.thread_number);
      if (job.log_store_compressed) path += ".fz";
      FILE* f = OpenLog(path, job);
      if (!f) return MakeError(-errno, path + ": " + ErrnoString(-errno));
      if (job.log_store_compressed) {
        Expected<void> w = WithCpuAffinity(job.log_compression_cpus, [&] {
          return WriteCompressed(f, path, entries, job, c.log_epoch_ms);
        });
        if (std::fclose(f) != 0 && w.ok()) return MakeError(-errno, path + ": " + ErrnoString(-errno));
        return w;
      }
      for (const LogEntry& e : entries) {
        PrintSample(f, e.msec + c.log_epoch_ms, e.value, uint32_t(e.dir), e.bs,
                    job.log_offset ? std::optional<uint64_t>(e.offset) : std::nullopt, e.prio,
                    job.log_prio);
      }
      if (std::fclose(f) != 0) return MakeError(-errno, path + ": " + ErrnoString(-errno));
      return {};
    };
    if (job.write_hist_log) {
      const std::string path = LogPath(*job.write_hist_log, job, tag, "clat_hist", c.thread_number);
      FILE* f = OpenLog(path, job);
      if (!f) return MakeError(-errno, path + ": " + ErrnoString(-errno));
      for (const HistLogEntry& e : job.stats ? c.hist_log : std::vector<HistLogEntry>{}) {
        std::fprintf(f, "%llu, %d, %llu", (unsigned long long)(e.msec + c.log_epoch_ms), e.dir,
                     (unsigned long long)e.bs);
        for (uint64_t b : e.bins) std::fprintf(f, ", %llu", (unsigned long long)b);
        std::fputc('\n', f);
      }
      if (std::fclose(f) != 0) return MakeError(-errno, path + ": " + ErrnoString(-errno));
    }
    // stats=0: fio collects no samples, so its log files are created empty.
    static const std::vector<LogEntry> kNoEntries;
    auto entries = [&](const std::vector<LogEntry>& v) -> const std::vector<LogEntry>& {
      return job.stats ? v : kNoEntries;
    };
    for (auto r : {write(job.write_lat_log, "lat", entries(c.lat_log)),
                   write(job.write_lat_log, "clat", entries(c.clat_log)),
                   write(job.write_lat_log, "slat", entries(c.slat_log)),
                   write(job.write_bw_log, "bw", entries(c.bw_log)),
                   write(job.write_iops_log, "iops", entries(c.iops_log))})
      if (!r.ok()) return r;
  }
  return {};
}

Expected<void> WriteAggregateBwLogs(const RunResult& run, const std::string& dir) {
  static const char* const kNames[] = {"read", "write", "trim"};
  for (int d = 0; d < kNumDirs; d++) {
    std::vector<double> sum;  // bytes/s per interval, over the clones
    uint32_t msec = 500;
    for (const CloneResult& c : run.clones) {
      if (c.not_run) continue;
      const auto& v = c.dir[d].bw_samples;
      if (sum.size() < v.size()) sum.resize(v.size());
      for (size_t i = 0; i < v.size(); i++) sum[i] += v[i];
      msec = c.job->bw_window_ms();
    }
    if (sum.empty()) continue;
    const std::string path = dir + "/agg-" + kNames[d] + "_bw.log";
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) return MakeError(-errno, path + ": " + ErrnoString(-errno));
    for (size_t i = 0; i < sum.size(); i++)
      std::fprintf(f, "%llu, %llu, %d, 0, 0\n", (unsigned long long)(msec * (i + 1)),
                   (unsigned long long)(sum[i] / 1024), d);
    if (std::fclose(f) != 0) return MakeError(-errno, path + ": " + ErrnoString(-errno));
  }
  return {};
}

Expected<void> InflateLog(const std::string& path, FILE* out) {
  FILE* in = std::fopen(path.c_str(), "rb");
  if (!in) return MakeError(-errno, path + ": " + ErrnoString(-errno));
  std::string z;
  char chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, in)) > 0) z.append(chunk, n);
  const bool read_error = std::ferror(in);
  std::fclose(in);
  if (read_error) return MakeError(-EIO, path + ": read error");
  if (z.size() > UINT32_MAX) return MakeError(-EFBIG, path + ": larger than 4 GiB");
  // The streams one after the other (fio's inflate_chunk resets the stream
  // at each end).
  std::string raw;
  z_stream st{};
  // 15 + 32: zlib or gzip streams, as fio's inflate_chunk takes them.
  if (inflateInit2(&st, 15 + 32) != Z_OK) return MakeError(-ENOMEM, path + ": zlib could not start");
  st.next_in = reinterpret_cast<Bytef*>(z.data());
  st.avail_in = uInt(z.size());
  // Empty: an empty log (fio writes no stream for one).
  bool ended = z.empty();
  while (!z.empty()) {
    st.next_out = reinterpret_cast<Bytef*>(chunk);
    st.avail_out = sizeof chunk;
    const int rc = inflate(&st, Z_NO_FLUSH);
    raw.append(chunk, sizeof chunk - st.avail_out);
    if (rc == Z_STREAM_END) {
      ended = true;
      if (st.avail_in == 0) break;
      inflateReset(&st);
      continue;
    }
    ended = false;
    // Z_OK with output room left and no input: the stream was cut short.
    if (rc != Z_OK || (st.avail_in == 0 && st.avail_out > 0)) break;
  }
  const std::string why = st.msg ? st.msg : "the stream ends early";
  inflateEnd(&st);
  // The samples: 32 bytes, 40 with an offset (flag 0x80000000).
  size_t at = 0;
  while (at + 32 <= raw.size()) {
    uint64_t msec, value, bs, offset = 0;
    uint32_t ddir;
    uint16_t prio;
    std::memcpy(&msec, raw.data() + at, 8);
    std::memcpy(&value, raw.data() + at + 8, 8);
    std::memcpy(&ddir, raw.data() + at + 16, 4);
    std::memcpy(&prio, raw.data() + at + 20, 2);
    std::memcpy(&bs, raw.data() + at + 24, 8);
    const bool has_offset = ddir & 0x80000000u;
    if (has_offset) {
      if (at + 40 > raw.size()) break;
      std::memcpy(&offset, raw.data() + at + 32, 8);
    }
    PrintSample(out, msec, value, ddir & 0xffffu, bs,
                has_offset ? std::optional<uint64_t>(offset) : std::nullopt, prio,
                ddir & 0x40000000u);
    at += has_offset ? 40 : 32;
  }
  if (!ended)
    return MakeError(-EINVAL, path + ": cut short, or not a log written with log_store_compressed=1 (zlib: " +
                                  why + ")");
  if (at != raw.size())
    return MakeError(-EINVAL, path + ": " + std::to_string(raw.size() - at) +
                                  " bytes after the last whole sample");
  return {};
}

}  // namespace blk::bench
