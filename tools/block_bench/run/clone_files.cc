#include "tools/block_bench/run/clone_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <mutex>

#include <blkstack/block/registry.h>
#include "tools/block_bench/run/files.h"
#include <blkstack/util/quote.h>

namespace blk::bench {

IoUnit FileKeys::read_at(uint64_t k, uint64_t len) const {
  IoUnit u;
  u.dir = Dir::kRead;
  uint32_t f = uint32_t(bases_.size()) - 1;
  while (f > 0 && bases_[f] > k) f--;
  u.file = f;
  u.offset = k - bases_[f];
  u.len = len;
  return u;
}

Expected<void> CloneFiles::load_trace() {
  target_job_ = CloneJob(job_, res_->clone);
  loaded_ = true;
  if (job_.read_iolog.empty()) return {};
  JobOptions* tj = &target_job_;
  const std::string& path = TracePathFor(job_, res_->clone);
  auto t = traces_->get(path, job_, opts_.stop);
  if (!t.ok()) return t.error();
  trace_ = *t;
  if (!job_.replay_redirect.empty()) {
    tj->filenames = {job_.replay_redirect};
    tj->blockdev.clear();
  } else if (tj->filenames.empty() && tj->blockdev.empty() && tj->ioengine != IoEngine::kNull &&
             tj->ioengine != IoEngine::kRbd && tj->ioengine != IoEngine::kNbd &&
             tj->ioengine != IoEngine::kRados) {
    // The file or graph the trace names (TakeTraceTarget).
    auto taken = TakeTraceTarget(*trace_, path, tj);
    if (!taken.ok()) return taken;
  }
  // A new file (or a null device) is as large as the trace reaches.
  if (!tj->size) {
    const uint64_t extent = TraceSource::Extent(*trace_, job_);
    tj->size = SizeSpec{std::max<uint64_t>(4096, (extent + 4095) / 4096 * 4096), false};
  }
  return {};
}

namespace {

// Whether `path` is a block device that /proc/self/mounts lists as the
// source of a mount (by name, as fio's check, or by device number).
bool MountedDevice(const std::string& path) {
  struct stat st;
  if (path.empty() || ::stat(path.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return false;
  FILE* m = std::fopen("/proc/self/mounts", "re");
  if (!m) return false;
  bool mounted = false;
  char line[4096];
  while (!mounted && std::fgets(line, sizeof(line), m)) {
    char source[4096];
    if (std::sscanf(line, "%4095s", source) != 1) continue;
    struct stat s;
    mounted = path == source ||
              (::stat(source, &s) == 0 && S_ISBLK(s.st_mode) && s.st_rdev == st.st_rdev);
  }
  std::fclose(m);
  return mounted;
}

}  // namespace

OpenFlags CloneFiles::flags() const {
  OpenFlags flags;
  flags.read_only = job_.rw == RwMode::kRead || job_.rw == RwMode::kRandRead;
  // fio's falloc engine opens O_RDWR: its reads are fallocate(KEEP_SIZE).
  if (job_.ioengine == IoEngine::kFalloc && job_.blockdev.empty()) flags.read_only = false;
  if (job_.readonly) flags.read_only = true;  // --readonly: writes fail (EROFS/EPERM)
  if (trace_ && !job_.readonly) {
    flags.read_only = true;
    for (const trace::Record& r : trace_->records)
      if (r.op != trace::Op::kRead && !(job_.replay_skip & (1u << int(r.op)))) flags.read_only = false;
  }
  return flags;
}

Expected<void> CloneFiles::open(AioContext& ctx, BufferFiller* filler) {
  if (!loaded_) {
    auto t = load_trace();
    if (!t.ok()) return t;
  }
  const JobOptions& tj = target_job_;
  const OpenFlags f = flags();
  const uint32_t n = std::max<uint32_t>(1, tj.nrfiles);
  files_.resize(n);
  for (uint32_t i = 0; i < n; i++) {
    auto o = open_file(ctx, tj, i, n, filler, f);
    if (!o.ok()) return o;
  }
  say_laid_out();
  if (n > 1) res_->target += " (+" + std::to_string(n - 1) + " more files)";
  return {};
}

Expected<void> CloneFiles::open_file(AioContext& ctx, const JobOptions& tj, uint32_t i, uint32_t n,
                                     BufferFiller* filler, OpenFlags flags) {
  File& file = files_[i];
  JobOptions fj = FileJob(tj, res_->clone, i, RandThread(*res_), res_->seed);
  auto t = JobTarget(fj, res_->clone, n);
  if (!t.ok()) return t.error();
  if (job_.file_append) {
    file.append_at = AppendOffset(t->filename);
    if (file.append_at) {
      fj.offset = SizeSpec{*file.append_at, false};
      t = JobTarget(fj, res_->clone, n);  // the file is needed up to the new end
      if (!t.ok()) return t.error();
    }
  }
  file.target = std::move(*t);
  Expected<Prepared> p = [&] {
    std::lock_guard lock(*setup_);
    return PrepareTarget(file.target, filler);
  }();
  if (!p.ok()) return p.error();
  if (i == 0) {
    res_->target = file.target.spec;
    res_->layout = p->action;
  } else if (res_->layout.empty() || res_->layout == "none") {
    res_->layout = p->action;
  }
  res_->layout_bytes += p->bytes;
  res_->layout_seconds += p->seconds;
  res_->invalidated = res_->invalidated || p->invalidated;
  res_->pre_read_bytes += p->pre_read;
  // Created or extended, however (fio's need_extend).
  if (!p->action.empty() && p->action != "none") {
    laid_files_++;
    laid_bytes_ += p->bytes;
  }
  if (!p->warning.empty() && opts_.messages)
    std::fprintf(opts_.messages, "%s: %s\n", job_.name.c_str(), p->warning.c_str());
  if (opts_.debug)
    opts_.debug->print(DebugCategory::kFile, "%s: file %u %s: set up (%s, %llu bytes), opening",
                       job_.name.c_str(), i, file.target.display.c_str(),
                       p->action.empty() ? "there" : p->action.c_str(),
                       (unsigned long long)p->bytes);
  if (!flags.read_only && !job_.allow_mounted_write && MountedDevice(file.target.filename))
    return Error{-EBUSY, file.target.filename + " appears mounted, and 'allow_mounted_write' "
                                                "isn't set. Aborting."};
  auto b = OpenBackend(ctx, file.target.spec, flags);
  if (!b.ok())
    return Error{b.error().code,
                 "cannot open " + QuoteName(file.target.spec) + ": " + b.error().message};
  file.blk = std::move(*b);
  file.blk->root().set_latency_accounting(false);
  if (auto c = side_calls(file); !c.ok()) return c;
  // Keys (FileKeys): each file after the previous one's end.
  if (i > 0) keys_.add(keys_.base(i - 1) + files_[i - 1].blk->length() + 4096);
  return {};
}

Expected<void> CloneFiles::side_calls(File& file) {
  const bool hint = job_.write_hint != JobOptions::WriteHint::kNotSet;
  const bool sync_range = job_.sync_file_range && job_.sync_file_range_flags;
  if ((!hint && !sync_range) || file.target.filename.empty()) return {};
  if (const int r = file.side.open(file.target.filename); r < 0)
    return Error{r, "cannot open " + QuoteName(file.target.filename) + ": " + ErrnoString(r)};
  if (!hint) return {};
  if (const int r = SetWriteHint(file.side.get(), job_.write_hint, job_.direct); r < 0)
    return Error{r, "fcntl write hint on " + QuoteName(file.target.filename) + " (" +
                        (job_.direct ? "F_SET_FILE_RW_HINT, direct=1" : "F_SET_RW_HINT") +
                        "): " + ErrnoString(r)};
  return {};
}

void CloneFiles::say_laid_out() const {
  if (!laid_files_ || !opts_.info) return;
  // fio's line (filesetup.c), with the size the files grew by, in whole MiB.
  const bool many = laid_files_ > 1;
  std::fprintf(opts_.info, "%s: Laying out IO file%s (%llu file%s / %s%lluMiB)\n",
               job_.name.c_str(), many ? "s" : "", (unsigned long long)laid_files_,
               many ? "s" : "", many ? "total " : "", (unsigned long long)(laid_bytes_ >> 20));
}

Expected<void> CloneFiles::register_buffers(SlotPool& slots) {
  for (File& f : files_) {
    if (!f.blk) continue;
    for (Slot& sl : slots.slots()) {
      const int r = f.blk->register_buf(sl.buf.data(), sl.buf.size());
      if (r == 0) continue;
      return Error{r, "fixedbufs: cannot register the I/O buffers (iodepth=" +
                          std::to_string(slots.size()) + " x " + std::to_string(sl.buf.size()) +
                          " bytes) with '" + f.target.spec + "': " + ErrnoString(r) +
                          (r == -ENOMEM ? " (the locked-memory limit: ulimit -l)" : "")};
    }
  }
  return {};
}

void CloneFiles::cancel_waits() {
  for (File& f : files_)
    if (f.blk) f.blk->cancel_waits();
}

std::vector<std::string> CloneFiles::names() const {
  std::vector<std::string> n;
  for (const File& f : files_) n.push_back(ShortenName(f.target.display));
  return n;
}

bool CloneFiles::any_spin() const {
  return std::any_of(files_.begin(), files_.end(), [](const File& f) { return f.target.spin; });
}

Task<void> CloneFiles::close() {
  for (uint32_t f = 0; f < files_.size(); f++) {
    if (!files_[f].blk) continue;
    const size_t first = res_->counters.size();
    files_[f].blk->root().driver().counters(&res_->counters);
    if (f > 0)
      for (size_t k = first; k < res_->counters.size(); k++)
        res_->counters[k].name = "file" + std::to_string(f) + "." + res_->counters[k].name;
    co_await files_[f].blk->drain();  // returns at the loop's top level: safe to close
    files_[f].blk.reset();
    fsync_on_close(files_[f].target);
    if (opts_.debug)
      opts_.debug->print(DebugCategory::kFile, "%s: file %u %s: closed", job_.name.c_str(), f,
                         files_[f].target.display.c_str());
  }
}

void CloneFiles::fsync_on_close(const Target& t) {
  // fio: only a job that writes (a trim job's files are not dirty).
  const bool writes = job_.rw != RwMode::kTrim && job_.rw != RwMode::kRandTrim;
  if (!job_.fsync_on_close || t.filename.empty() || flags().read_only || !writes) return;
  // fsync(2) flushes the file's dirty pages and metadata whichever
  // descriptor it is called on: the graph's own is closed by now.
  const int fd = ::open(t.filename.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  int err = fd < 0 ? errno : 0;
  if (fd >= 0) {
    if (::fsync(fd) != 0) err = errno;
    ::close(fd);
  }
  if (err == 0 || res_->error) return;
  res_->error = err;
  res_->error_message = "fsync_on_close failed on " + QuoteName(t.display) + ": " +
                        ErrnoString(-err);
}

Task<Expected<void>> CloneFiles::recreate(AioContext& ctx) {
  for (uint32_t i = 0; i < files_.size(); i++) {
    File& file = files_[i];
    const std::string& path = file.target.filename;
    struct stat st;
    if (!file.blk || path.empty() || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    const uint64_t len = file.blk->length();
    co_await file.blk->drain();  // returns at the loop's top level: safe to close
    file.blk.reset();
    file.side = SideFd();
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      const int e = -errno;
      co_return Error{e, "unlink_each_loop: unlink " + QuoteName(path) + ": " + ErrnoString(e)};
    }
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || ::ftruncate(fd, off_t(len)) != 0) {
      const int e = -errno;
      if (fd >= 0) ::close(fd);
      co_return Error{e, "unlink_each_loop: create " + QuoteName(path) + ": " + ErrnoString(e)};
    }
    ::close(fd);
    auto b = OpenBackend(ctx, file.target.spec, flags());
    if (!b.ok())
      co_return Error{b.error().code,
                      "cannot open " + QuoteName(file.target.spec) + ": " + b.error().message};
    file.blk = std::move(*b);
    file.blk->root().set_latency_accounting(false);
    if (auto c = side_calls(file); !c.ok()) co_return c.error();
    if (opts_.debug)
      opts_.debug->print(DebugCategory::kFile, "%s: file %u %s: unlinked and created again",
                         job_.name.c_str(), i, file.target.display.c_str());
  }
  co_return Expected<void>{};
}

void CloneFiles::unlink() const {
  for (const File& f : files_) {
    if (!job_.unlink || f.target.filename.empty()) continue;
    struct stat st;
    if (stat(f.target.filename.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    // ENOENT: a clone sharing the file removed it first (fio says nothing).
    if (::unlink(f.target.filename.c_str()) != 0 && errno != ENOENT && opts_.messages)
      std::fprintf(opts_.messages, "%s: unlink '%s': %s\n", job_.name.c_str(),
                   f.target.filename.c_str(), ErrnoString(-errno).c_str());
  }
}

}  // namespace blk::bench
