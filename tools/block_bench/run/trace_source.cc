#include "tools/block_bench/run/trace_source.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

#include <blkstack/block/options.h>
#include <blkstack/util/quote.h>
#include <blkstack/util/saturating.h>

namespace blk::bench {
namespace {

// Offsets and lengths after replay_scale and replay_align.
void Scale(const trace::Record& r, const JobOptions& job, uint64_t* off, uint64_t* len) {
  *off = r.offset / job.replay_scale;
  *len = r.len;
  if (job.replay_align > 1) {
    *off &= ~(job.replay_align - 1);
    if (*len) *len = std::max<uint64_t>(job.replay_align, *len & ~(job.replay_align - 1));
  }
}

}  // namespace

const std::string& TracePathFor(const JobOptions& job, uint32_t clone) {
  return job.read_iolog[clone % job.read_iolog.size()];
}

bool IsGraphSpec(std::string_view name) {
  auto o = Options::Parse(name);
  return o.ok() && o->Has("driver");
}

Expected<void> TakeTraceTarget(const trace::Trace& t, const std::string& path, JobOptions* tj) {
  constexpr const char* kHow = ": give the target with filename=, blockdev= or replay_redirect=";
  if (t.files.size() != 1) {
    const std::string why = t.files.empty()
                                ? "the trace names no file"
                                : "the trace names " + std::to_string(t.files.size()) +
                                      " files (" + QuoteName(t.files[0]) + ", " +
                                      QuoteName(t.files[1]) + "...)";
    return Error{-EINVAL, "read_iolog " + QuoteName(path) + ": " + why + kHow};
  }
  const std::string& file = t.files[0];
  if (IsGraphSpec(file)) {
    tj->blockdev = file;
    return {};
  }
  struct stat st;
  if (::stat(file.c_str(), &st) != 0) {
    return Error{-EINVAL, "read_iolog " + QuoteName(path) + ": the trace's file " +
                              QuoteName(file) +
                              " does not exist and is not a graph spec" + kHow};
  }
  tj->filenames = {file};
  return {};
}

Expected<std::shared_ptr<const trace::Trace>> TraceCache::get(const std::string& path,
                                                              const JobOptions& job,
                                                              const StopSource* stop) {
  const std::string key = path + '\0' + job.trace_format + '\0' + job.trace_device + '\0' +
                          (job.trace_skip_bad ? "1" : "0") + '\0' +
                          std::to_string(job.trace_max_size) + '\0' +
                          (job.replay_redirect.empty() ? "0" : "1");
  std::lock_guard<std::mutex> lock(mu_);
  auto it = loaded_.find(key);
  if (it != loaded_.end()) return it->second;
  trace::ParseOptions po;
  auto f = trace::ParseFormat(job.trace_format);
  if (!f.ok()) return f.error();
  po.format = *f;
  po.device = job.trace_device;
  po.every_device = !job.replay_redirect.empty();
  po.skip_bad = job.trace_skip_bad;
  po.max_bytes = job.trace_max_size;
  po.how_to_raise = "trace_max_size=";
  if (stop) po.interrupted = [stop] { return stop->requested(); };
  Expected<std::shared_ptr<const trace::Trace>> r = [&]() -> Expected<std::shared_ptr<const trace::Trace>> {
    auto t = trace::LoadTrace(path, po);
    if (!t.ok()) return t.error();
    return std::shared_ptr<const trace::Trace>(std::make_shared<trace::Trace>(std::move(*t)));
  }();
  loaded_.emplace(key, r);
  return r;
}

uint64_t TraceSource::Extent(const trace::Trace& t, const JobOptions& job) {
  uint64_t end = 0;
  for (const trace::Record& r : t.records) {
    uint64_t off, len;
    Scale(r, job, &off, &len);
    if (off + len >= off) end = std::max(end, off + len);
  }
  return end;
}

TraceSource::TraceSource(std::shared_ptr<const trace::Trace> t, const JobOptions& job,
                         uint64_t target_size)
    : trace_(std::move(t)), job_(job), target_size_(target_size) {
  // One pass for what the worker sizes by: buffers, directions, bytes.
  IoUnit u;
  for (const trace::Record& r : trace_->records) {
    if (!convert(r, &u, /*count=*/true)) continue;
    ios_++;
    bytes_ += u.len;
    // A trim carries no data: its length sizes no buffer (fio's t0038).
    if (u.dir != Dir::kTrim) max_bs_ = std::max(max_bs_, u.len);
    has_[int(u.dir)] = true;
    if (u.at_ns > span_ns_) span_ns_ = u.at_ns;
  }
}

bool TraceSource::convert(const trace::Record& r, IoUnit* u, bool count) {
  static constexpr Dir kDirOf[] = {Dir::kRead, Dir::kWrite, Dir::kTrim, Dir::kWrite};
  if (job_.replay_skip & (1u << int(r.op))) {
    if (count) skipped_++;
    return false;
  }
  *u = IoUnit{};
  u->dir = kDirOf[int(r.op)];
  u->flush = r.op == trace::Op::kFlush;
  u->fua = r.fua && r.op == trace::Op::kWrite;
  // Saturates: replay_time_scale=1 makes a time 100 times longer, and
  // one past int64 is never due, not due at once.
  u->at_ns = job_.replay_no_stall ? -1 : SatMulDiv(r.t_ns, 100, int64_t(job_.replay_time_scale));
  if (u->flush) return true;
  uint64_t off, len;
  Scale(r, job_, &off, &len);
  if (len == 0) {
    if (count) skipped_++;
    return false;
  }
  if (len > target_size_) {
    if (count) too_large_++;
    return false;
  }
  if (off > target_size_ - len) {
    const uint64_t unit = job_.replay_align > 1 ? job_.replay_align : 512;
    off = off % (target_size_ - len + 1);
    off -= off % unit;
    if (count) folded_++;
  }
  u->offset = off;
  u->len = len;
  return true;
}

bool TraceSource::next(IoUnit* u) {
  const auto& recs = trace_->records;
  while (next_ < recs.size()) {
    if (convert(recs[next_++], u, /*count=*/false)) return true;
  }
  return false;
}

}  // namespace blk::bench
