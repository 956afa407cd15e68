#include <blkstack/block/file/file.h>

#include <fcntl.h>
#include <limits.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <utility>

#include <blkstack/block/file/geometry.h>
#include <blkstack/block/file/inline_io.h>
#include <blkstack/block/file/queue_engine.h>
#include <blkstack/block/file/loop_engine.h>
#include <blkstack/util/thread_pool.h>
#include <blkstack/util/quote.h>

namespace blk {
namespace {

struct FileConfig {
  std::string path;
  enum class Engine {
    kThreads, kNative, kIoUring, kSync, kMmap, kFalloc, kFtruncate, kSplice, kE4defrag
  };
  Engine engine = Engine::kThreads;  // aio=
  bool direct = false;  // cache.direct=on (O_DIRECT)
  int sync_flag = 0;    // open-sync: 0, O_SYNC or O_DSYNC
  bool discard_unmap = false;
  int pool_threads = 16;
  EngineSettings engine_settings;  // the loop's engine (every aio= mode)
  bool register_file = false;  // aio-register-file (io_uring)
  bool force_async = false;    // aio-force-async (io_uring)
  bool fixed_buffers = false;  // aio-fixed-buffers (io_uring)
};

// "Not possible here" errors of fallocate/ioctl: the caller turns them into
// -ENOTSUP so the generic layer falls back.
bool Unsupported(int64_t res) {
  return res == -EOPNOTSUPP || res == -ENOTTY || res == -ENOSYS || res == -EINVAL;
}

int64_t NegErrno(long r) { return r < 0 ? -errno : r; }

// The first extent of [offset, offset + bytes) in `fd`: data up to the next
// hole, or a hole (zeros) up to the next data.
BlockStatus FindAllocation(int fd, uint64_t offset, uint64_t bytes) {
  const off_t data = lseek(fd, off_t(offset), SEEK_DATA);
  if (data < 0) {
    // ENXIO: no data at or after offset (a hole up to the end of the file,
    // or past it).  Anything else: the file system cannot say.
    if (errno == ENXIO) return {kBlockZero, bytes};
    return {kBlockData, bytes};
  }
  if (uint64_t(data) > offset) return {kBlockZero, std::min<uint64_t>(uint64_t(data) - offset, bytes)};
  const off_t hole = lseek(fd, off_t(offset), SEEK_HOLE);
  if (hole < 0 || uint64_t(hole) <= offset) return {kBlockData, bytes};
  return {kBlockData, std::min<uint64_t>(uint64_t(hole) - offset, bytes)};
}

class FileDriver final : public BlockDriver {
 public:
  // `engine`: the engine of the loop the node was opened on (with this file
  // registered in it if asked).
  // Read-only opens are enforced above the driver (the node refuses writes).
  // `inline_io`: aio=mmap|falloc|ftruncate|splice (reads, writes and flushes go
  // there instead of the engine), else null.
  FileDriver(int fd, FileConfig cfg, FileGeometry geo, LoopEngineRef engine, int file_index,
             std::unique_ptr<InlineIo> inline_io)
      : fd_(fd),
        cfg_(std::move(cfg)),
        geo_(geo),
        engine_(std::move(engine)),
        file_index_(file_index),
        inline_(std::move(inline_io)) {}
  ~FileDriver() override {
    inline_.reset();  // unmaps before the close
    release_engine();
    pool_.reset();
    close(fd_);
  }

  // The engine of `ctx` for this node's settings, with the file registered
  // in it if asked: a ref, and the index (or -1), or the error.
  static Expected<std::pair<LoopEngineRef, int>> JoinEngine(AioContext& ctx,
                                                            const FileConfig& cfg, int fd) {
    auto e = LoopEngineRef::Acquire(ctx, cfg.engine_settings);
    if (!e.ok()) return e.error();
    int index = -1;
    if (cfg.register_file) {
      index = e.value().engine().queue().register_file(fd);
      if (index < 0) {
        return MakeError(index, "aio-register-file: io_uring_register_files_update: " +
                                    ErrnoString(index));
      }
    }
    return std::make_pair(std::move(e.value()), index);
  }

  std::string_view name() const override { return "file"; }
  uint64_t length() const override { return geo_.length; }
  BlockLimits limits() const override {
    BlockLimits l;
    l.request_alignment = geo_.request_alignment;
    l.memory_alignment = geo_.memory_alignment;
    l.max_transfer = geo_.max_transfer;
    l.max_iov = IOV_MAX;
    return l;
  }
  Capabilities caps() const override {
    Capabilities c;
    c.discard = cfg_.discard_unmap;
    c.write_zeroes = true;
    return c;
  }

  // The node keeps the engine Open joined while it stays on that loop; on
  // another loop it joins that loop's engine at the first call there
  // (queue_engine()), on that loop's thread: move_to() attaches from the old one.
  void attach_aio_context(AioContext& ctx) override {
    ctx_ = &ctx;
    if (engine_ && engine_.ctx() != &ctx) release_engine();
    join_error_ = 0;
  }
  void detach_aio_context() override {
    release_engine();
    ctx_ = nullptr;
  }
  void plug() override {
    if (QueueEngine* qe = queue_engine()) qe->plug();
  }
  void unplug() override {
    if (QueueEngine* qe = queue_engine()) qe->unplug();
  }

  Task<Status> co_preadv(uint64_t offset, uint64_t bytes, const IoVec& qiov,
                         uint32_t flags) override {
    if (inline_) co_return inline_status(inline_->read(offset, qiov));
    QueueEngine* qe = queue_engine();
    if (!qe) co_return Status(no_engine_error());
    // The common case inline: one frame, no extra coroutine.
    IoRequest req = make_req(IoRequest::Read(fd_, qiov.data(), int(qiov.count()), offset));
    req.ioprio = ReqPrio(flags);
    if (flags & kReqNoWait) req.rw_flags = RWF_NOWAIT;
    const int64_t res = co_await qe->submit(req);
    if (res == int64_t(bytes)) co_return Status();
    co_return co_await finish_rw(false, offset, bytes, qiov, res);
  }

  Task<Status> co_pwritev(uint64_t offset, uint64_t bytes, const IoVec& qiov,
                          uint32_t flags) override {
    if (inline_) co_return inline_status(inline_->write(offset, qiov));
    QueueEngine* qe = queue_engine();
    if (!qe) co_return Status(no_engine_error());
    IoRequest req = make_req(IoRequest::Write(fd_, qiov.data(), int(qiov.count()), offset));
    req.ioprio = ReqPrio(flags);
    if (flags & kReqNoWait) req.rw_flags = RWF_NOWAIT;
    const int64_t res = co_await qe->submit(req);
    const bool past_eof = offset + bytes > geo_.length;
    if (res == int64_t(bytes) && !past_eof) co_return Status();
    Status s = res == int64_t(bytes) ? Status() : co_await finish_rw(true, offset, bytes, qiov, res);
    if (past_eof) {
      Status t = co_await restore_length();
      if (s.ok()) s = t;
    }
    co_return s;
  }

  Task<Status> co_flush() override;
  Task<Status> co_pdiscard(uint64_t offset, uint64_t bytes) override;
  // From lseek(SEEK_DATA / SEEK_HOLE) on the open file, as QEMU's
  // file-posix: a hole reads as zeros.  Two lseeks, run on the loop thread
  // (no I/O: the file system answers from its extent map).  Where the file
  // system cannot tell (lseek fails other than with ENXIO) the range is data.
  Task<Result<BlockStatus>> co_block_status(uint64_t offset, uint64_t bytes) override {
    co_return FindAllocation(fd_, offset, bytes);
  }
  Task<Status> co_pwrite_zeroes(uint64_t offset, uint64_t bytes, uint32_t flags) override;

  void counters(std::vector<DriverCounter>* out) const override {
    out->push_back({"file_short_reads", short_reads_});
    out->push_back({"file_eof_zero_fills", eof_zero_fills_});
    out->push_back({"file_short_writes", short_writes_});
    out->push_back({"file_eof_trims", eof_trims_});
    out->push_back({"file_flush_fdsync_aio", flush_aio_});
    out->push_back({"file_flush_fdatasync_pool", flush_pool_});
    out->push_back({"file_fdsync_probe", uint64_t(fdsync_)});  // 0 unknown 1 yes 2 no
    out->push_back({"file_pool_jobs", pool_ ? pool_->jobs_run() : 0});
    if (inline_) inline_->counters(out);
    if (cfg_.engine == FileConfig::Engine::kIoUring) {
      out->push_back({"io_uring_registered_file", file_index_ >= 0 ? 1u : 0u});
      out->push_back({"io_uring_force_async", cfg_.force_async ? 1u : 0u});
      uint64_t fixed = 0;
      for (const Region& g : regions_) fixed += g.index >= 0;
      out->push_back({"io_uring_fixed_buffers", fixed});
    }
    // The loop's engine: shared with the other nodes on it (loop_engine.h).
    out->push_back({"aio_engine_users", uint64_t(engine_.users())});
    if (engine_) engine_.engine().counters(out);
  }

  // aio-fixed-buffers=on: pins the range in the engine's ring.  Ranges must
  // not overlap one registered before.
  int register_buf(void* host, size_t size) override {
    if (!cfg_.fixed_buffers || size == 0) return 0;
    QueueEngine* qe = queue_engine();
    if (!qe) return no_engine_error();
    char* base = static_cast<char*>(host);
    auto it = RegionAfter(base);
    if ((it != regions_.end() && base + size > it->base) ||
        (it != regions_.begin() && std::prev(it)->base + std::prev(it)->len > base)) {
      return -EEXIST;
    }
    const int i = qe->queue().register_buffer(host, size);
    if (i < 0) return i;
    regions_.insert(it, Region{base, size, i});
    return 0;
  }
  void unregister_buf(void* host, size_t size) override {
    for (auto it = regions_.begin(); it != regions_.end(); ++it) {
      if (it->base != host || it->len != size) continue;
      if (engine_ && it->index >= 0) engine_.engine().queue().unregister_buffer(it->index);
      regions_.erase(it);
      return;
    }
  }

 private:
  enum FdsyncState { kUnknown = 0, kYes = 1, kNo = 2 };

  // The engine on the attached loop, joined on first use there; null when
  // joining failed (join_error_ says why, and stderr said it once: requests
  // fail with it, nothing falls back).
  QueueEngine* queue_engine() {
    if (!engine_ && join_error_ == 0 && ctx_) {
      auto j = JoinEngine(*ctx_, cfg_, fd_);
      if (!j.ok()) {
        join_error_ = j.error().code < 0 ? j.error().code : -EIO;
        std::fprintf(stderr, "blkstack: driver 'file': '%s': aio=%s on a new loop: %s\n",
                     cfg_.path.c_str(), cfg_.engine_settings.name(), j.error().message.c_str());
      } else {
        engine_ = std::move(j.value().first);
        file_index_ = j.value().second;
        // The buffers registered on the old loop's ring, in the new one
        // (one that does not fit goes as plain requests).
        for (Region& g : regions_) {
          const int i = engine_.engine().queue().register_buffer(g.base, g.len);
          g.index = i >= 0 ? i : -1;
        }
      }
    }
    return engine_ ? &engine_.engine() : nullptr;
  }

  // What a request fails with when queue_engine() has none: the join's errno,
  // or -EIO on a node attached to no loop (never an error-free no-op).
  int no_engine_error() const { return join_error_ < 0 ? join_error_ : -EIO; }

  // An InlineIo result as a Status (its byte counts are always whole).
  static Status inline_status(int64_t res) { return Status(res < 0 ? int(res) : 0); }

  // A request on this node's file, as the engine wants it.
  IoRequest make_req(IoRequest r) const {
    if (file_index_ >= 0) {
      r.fd = file_index_;
      r.fixed_file = true;
    }
    r.force_async = cfg_.force_async;
    if (!regions_.empty() && r.iovcnt == 1) r.buf_index = BufferIndex(r.iov[0]);
    return r;
  }

  // A register_buf() range, with its index in engine_'s buffer table (-1:
  // not registered there).
  struct Region {
    char* base;
    size_t len;
    int index;
  };
  // The first registered range starting after `p` (regions_ is sorted).
  std::vector<Region>::const_iterator RegionAfter(const char* p) const {
    return std::upper_bound(regions_.begin(), regions_.end(), p,
                            [](const char* x, const Region& g) { return x < g.base; });
  }

  // The registered buffer holding all of `v`, or -1.
  int BufferIndex(const struct iovec& v) const {
    const char* p = static_cast<const char*>(v.iov_base);
    auto it = RegionAfter(p);  // the one before it starts at or before p
    if (it == regions_.begin()) return -1;
    --it;
    return p + v.iov_len <= it->base + it->len ? it->index : -1;
  }

  // Frees the registered indexes (file, buffers) and lets go of the loop's
  // engine.  regions_ stays: the next engine registers them again.
  void release_engine() {
    if (engine_) {
      if (file_index_ >= 0) engine_.engine().queue().unregister_file(file_index_);
      for (Region& g : regions_) {
        if (g.index >= 0) engine_.engine().queue().unregister_buffer(g.index);
        g.index = -1;
      }
    }
    file_index_ = -1;
    engine_.reset();
  }

  ThreadPool& pool() {
    if (!pool_) pool_ = std::make_unique<ThreadPool>(cfg_.pool_threads);
    return *pool_;
  }

  // One read or write of `iov` at `offset`: byte count or negative errno.
  Task<int64_t> rw_once(bool write, uint64_t offset, const IoVec& iov) {
    QueueEngine* qe = queue_engine();
    if (!qe) co_return no_engine_error();
    IoRequest req = make_req(write ? IoRequest::Write(fd_, iov.data(), int(iov.count()), offset)
                                   : IoRequest::Read(fd_, iov.data(), int(iov.count()), offset));
    co_return co_await qe->submit(req);
  }

  // A write reaching past the end: only the generic layer's padding does
  // that (it bounds requests by length()), when O_DIRECT pads a write in the
  // last block of a regular file whose size is not a multiple of the
  // alignment.  The write grew the file with zeros up to the alignment; cut
  // it back so the size stays what it was (as a buffered write would have
  // left it).  Still inside the padded request, which the generic layer
  // serialises against overlapping ones, so no other write sees the longer
  // file.
  Task<Status> restore_length() {
    eof_trims_++;
    int64_t res = co_await pool().run(*ctx_, [fd = fd_, len = geo_.length]() -> int64_t {
      return NegErrno(ftruncate(fd, off_t(len)));
    });
    co_return Status(res < 0 ? int(res) : 0);
  }

  // Turns a result other than `bytes` into a Status: errors pass through, a
  // short read at EOF is zero-filled, another short read is retried for the
  // remainder, a short write is -ENOSPC.
  Task<Status> finish_rw(bool write, uint64_t offset, uint64_t bytes, const IoVec& qiov,
                         int64_t res) {
    uint64_t done = 0;
    for (;;) {
      if (res < 0) co_return Status(int(res));
      done += uint64_t(res);
      if (done >= bytes) co_return Status();
      if (write) {
        short_writes_++;
        co_return Status(-ENOSPC);
      }
      short_reads_++;
      // A character device that gives no data (/dev/null) fails the read,
      // as fio's "full resid": it has no end of file to fill past.
      if (res == 0 && geo_.char_device) co_return Status(-EIO);
      const uint64_t pos = offset + done;
      // At EOF, or at an offset O_DIRECT could not read from: the rest is
      // past the end of the file.
      if (res == 0 || pos >= geo_.length || (pos & (geo_.request_alignment - 1))) {
        eof_zero_fills_++;
        qiov.memset(done, 0, bytes - done);
        co_return Status();
      }
      IoVec rest = qiov.slice(done, bytes - done);
      res = co_await rw_once(false, pos, rest);
    }
  }

  int fd_;
  FileConfig cfg_;
  FileGeometry geo_;
  LoopEngineRef engine_;   // the attached loop's engine, once joined
  int file_index_ = -1;    // in engine_'s file table (aio-register-file), or -1
  std::vector<Region> regions_;  // register_buf() ranges, sorted by base
  int join_error_ = 0;     // joining the attached loop's engine failed: the errno
  std::unique_ptr<ThreadPool> pool_;
  AioContext* ctx_ = nullptr;
  std::unique_ptr<InlineIo> inline_;  // aio=mmap|falloc|ftruncate|splice, else null

  FdsyncState fdsync_ = kUnknown;
  bool zeroes_ok_ = true;
  uint64_t short_reads_ = 0;
  uint64_t eof_zero_fills_ = 0;
  uint64_t short_writes_ = 0;
  uint64_t eof_trims_ = 0;
  uint64_t flush_aio_ = 0;
  uint64_t flush_pool_ = 0;
};

Task<Status> FileDriver::co_flush() {
  if (inline_) co_return Status(inline_->flush());
  if (!queue_engine()) co_return Status(no_engine_error());
  if (fdsync_ != kNo) {
    IoRequest req = make_req(IoRequest::Fdatasync(fd_));
    int64_t res = co_await queue_engine()->submit(req);
    if (res != -EINVAL || fdsync_ == kYes) {
      fdsync_ = kYes;
      flush_aio_++;
      co_return Status(res < 0 ? int(res) : 0);
    }
    fdsync_ = kNo;  // the filesystem has no async fsync: use the pool
  }
  flush_pool_++;
  int64_t res = co_await pool().run(*ctx_, [fd = fd_]() -> int64_t {
    return NegErrno(fdatasync(fd));
  });
  co_return Status(res < 0 ? int(res) : 0);
}

Task<Status> FileDriver::co_pdiscard(uint64_t offset, uint64_t bytes) {
  // fio's ftruncate engine fails anything but a write.
  if (cfg_.engine == FileConfig::Engine::kFtruncate) co_return Status(-EINVAL);
  const bool blk = geo_.block_device;
  int64_t res = co_await pool().run(*ctx_, [fd = fd_, blk, offset, bytes]() -> int64_t {
    if (blk) {
      uint64_t range[2] = {offset, bytes};
      return NegErrno(ioctl(fd, BLKDISCARD, range));
    }
    return NegErrno(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(offset),
                              off_t(bytes)));
  });
  if (Unsupported(res)) co_return Status(-ENOTSUP);
  co_return Status(res < 0 ? int(res) : 0);
}

Task<Status> FileDriver::co_pwrite_zeroes(uint64_t offset, uint64_t bytes, uint32_t flags) {
  if (!zeroes_ok_) co_return Status(-ENOTSUP);
  const bool blk = geo_.block_device;
  const bool unmap = (flags & kReqMayUnmap) && cfg_.discard_unmap;
  int64_t res = co_await pool().run(*ctx_, [fd = fd_, blk, unmap, offset, bytes]() -> int64_t {
    if (blk) {
      uint64_t range[2] = {offset, bytes};
      return NegErrno(ioctl(fd, BLKZEROOUT, range));
    }
    // A punched hole reads as zeros in a file; fall back to ZERO_RANGE.
    if (unmap && fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(offset),
                           off_t(bytes)) == 0) {
      return 0;
    }
    return NegErrno(fallocate(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, off_t(offset),
                              off_t(bytes)));
  });
  if (Unsupported(res)) {
    zeroes_ok_ = false;  // do not ask again: the generic layer writes zeros
    co_return Status(-ENOTSUP);
  }
  co_return Status(res < 0 ? int(res) : 0);
}

const std::vector<OptionSpec>& Schema() {
  using T = OptionSpec::Type;
  static const std::vector<OptionSpec> schema = {
      {.name = "filename", .type = T::kString, .required = true,
       .help = "path of the file, block device or character device"},
      {.name = "size", .type = T::kSize,
       .help = "the length of a character device (/dev/null, /dev/zero, /dev/full), which has "
               "none of its own: required for one, refused for anything else"},
      {.name = "aio", .type = T::kEnum, .default_value = "threads", .has_default = true,
       .enum_values = {"threads", "native", "io_uring", "sync", "mmap", "falloc", "ftruncate",
                       "splice", "e4defrag"},
       .help = "I/O engine: a worker pool (preadv/pwritev), Linux native AIO (needs "
               "cache.direct=on), io_uring, or sync: preadv/pwritev in the loop's own thread, "
               "which waits for each one (fio's synchronous engines; for benchmarks); mmap: "
               "memcpy through a shared mapping of the file, in the loop's thread (fio's mmap; "
               "cache.direct=on writes back each request's pages (msync) instead of "
               "O_DIRECT); falloc, ftruncate: benchmark modes that move no data, as fio's "
               "engines of those names (a read is fallocate KEEP_SIZE, a write fallocate mode "
               "0; a write is ftruncate to its offset, a read fails); splice: through a pipe "
               "with splice(2) and vmsplice(2), in the loop's thread (fio's splice); e4defrag: "
               "a write moves the donor file's blocks into the file's range "
               "(EXT4_IOC_MOVE_EXT, fio's e4defrag; reads fail)"},
      {.name = "e4defrag-donor", .type = T::kString,
       .help = "aio=e4defrag: the donor file (created if missing), on the same ext4"},
      {.name = "e4defrag-inplace", .type = T::kBool, .default_value = "off", .has_default = true,
       .help = "aio=e4defrag: allocate the donor's range at each write and empty the donor "
               "after it (off: allocate e4defrag-donor-length bytes once at open)"},
      {.name = "e4defrag-donor-offset", .type = T::kSize, .default_value = "0",
       .has_default = true, .help = "aio=e4defrag: where the donor's allocation at open starts"},
      {.name = "e4defrag-donor-length", .type = T::kSize, .default_value = "0",
       .has_default = true,
       .help = "aio=e4defrag without e4defrag-inplace: the donor's allocation at open (0 fails "
               "with EINVAL, as fallocate(2))"},
      {.name = "cache.direct", .type = T::kBool, .default_value = "off", .has_default = true,
       .help = "open with O_DIRECT (bypass the host page cache)"},
      {.name = "discard", .type = T::kEnum, .default_value = "ignore", .has_default = true,
       .enum_values = {"ignore", "unmap"},
       .help = "unmap: pass discards down (punch hole / BLKDISCARD); ignore: drop them"},
      {.name = "aio-max-batch", .type = T::kInt, .default_value = "32", .has_default = true,
       .min = 1, .max = 1024, .help = "most requests per io_submit"},
      {.name = "aio-batch-adapt", .type = T::kBool, .default_value = "on", .has_default = true,
       .help = "send at most 4 requests per io_submit while the device completes them after "
               "io_submit returns (an asynchronous device starts on them sooner); aio-max-batch "
               "while it completes them inside io_submit"},
      {.name = "aio-ring-size", .type = T::kInt, .default_value = "128", .has_default = true,
       .min = 1, .max = 65536,
       .help = "io_setup size / io_uring SQ entries: the most requests in the kernel at once"},
      {.name = "aio-max-inflight", .type = T::kInt, .default_value = "0", .has_default = true,
       .min = 0, .max = 1 << 20,
       .help = "requests allowed in the kernel (0: aio-ring-size); larger values exercise -EAGAIN"},
      {.name = "peek-after-submit", .type = T::kBool, .default_value = "on", .has_default = true,
       .help = "read the completion ring right after each io_submit"},
      {.name = "aio-ring-peek", .type = T::kBool, .default_value = "on", .has_default = true,
       .help = "read completions from the ring in user space (off: io_getevents)"},
      {.name = "aio-submit", .type = T::kEnum, .default_value = "immediate", .has_default = true,
       .enum_values = {"immediate", "bh"},
       .help = "unplugged requests: io_submit at once, or at the end of the loop iteration"},
      {.name = "aio-poll", .type = T::kEnum, .default_value = "auto", .has_default = true,
       .enum_values = {"auto", "on", "off"},
       .help = "busy-poll the completion ring from the loop: auto withdraws polling while it "
               "does not find completions (e.g. a loop device, whose kernel worker needs the CPU "
               "we spin on)"},
      {.name = "aio-sqpoll", .type = T::kBool, .default_value = "off", .has_default = true,
       .help = "aio=io_uring: a kernel thread polls the submission ring (IORING_SETUP_SQPOLL)"},
      {.name = "aio-sqpoll-idle-ms", .type = T::kInt, .default_value = "0", .has_default = true,
       .min = 0, .max = 3600000,
       .help = "aio-sqpoll: ms without requests before the kernel thread sleeps "
               "(0: the kernel's 1 s)"},
      {.name = "aio-sqpoll-cpu", .type = T::kInt, .default_value = "-1", .has_default = true,
       .min = -1, .max = 4095, .help = "aio-sqpoll: the CPU of the kernel thread (-1: not pinned)"},
      {.name = "aio-force-async", .type = T::kBool, .default_value = "off", .has_default = true,
       .help = "aio=io_uring: send every request to the kernel's io-wq workers (IOSQE_ASYNC)"},
      {.name = "aio-register-file", .type = T::kBool, .default_value = "off", .has_default = true,
       .help = "aio=io_uring: register the file with the ring (IOSQE_FIXED_FILE)"},
      {.name = "aio-fixed-buffers", .type = T::kBool, .default_value = "off", .has_default = true,
       .help = "aio=io_uring: pin the buffers the user registers (BlockBackend::register_buf) "
               "in the ring; requests inside one go as READ_FIXED/WRITE_FIXED"},
      {.name = "open-sync", .type = T::kEnum, .default_value = "off", .has_default = true,
       .enum_values = {"off", "sync", "dsync"},
       .help = "open with O_SYNC (sync: each write returns once data and metadata are on "
               "stable storage) or O_DSYNC (dsync: once the data is), as fio's sync="},
      {.name = "fadvise", .type = T::kEnum, .default_value = "normal", .has_default = true,
       .enum_values = {"normal", "random", "sequential"},
       .help = "posix_fadvise on the file at open: random turns the page cache's read-ahead "
               "off, sequential doubles it (fio's fadvise_hint)"},
      {.name = "aio-threads-handover", .type = T::kBool, .default_value = "off", .has_default = true,
       .help = "aio=threads: a request's submission ends when it is queued for a worker (a "
               "submission latency, as fio's posixaio and buffered libaio); off: when its "
               "system call returns (none, as fio's synchronous engines)"},
      {.name = "thread-pool-size", .type = T::kInt, .default_value = "16", .has_default = true,
       .min = 1, .max = 256,
       .help = "worker threads (aio=threads I/O; flush/discard/zeroes fallbacks)"},
  };
  return schema;
}

Expected<std::unique_ptr<BlockDriver>> Open(DriverOpenArgs& args) {
  const ParsedOptions& o = args.opts;
  FileConfig cfg;
  cfg.path = o.str("filename");
  cfg.engine = o.choice("aio") == "native"     ? FileConfig::Engine::kNative
               : o.choice("aio") == "io_uring" ? FileConfig::Engine::kIoUring
               : o.choice("aio") == "sync"     ? FileConfig::Engine::kSync
               : o.choice("aio") == "mmap"     ? FileConfig::Engine::kMmap
               : o.choice("aio") == "falloc"   ? FileConfig::Engine::kFalloc
               : o.choice("aio") == "ftruncate" ? FileConfig::Engine::kFtruncate
               : o.choice("aio") == "splice"   ? FileConfig::Engine::kSplice
               : o.choice("aio") == "e4defrag" ? FileConfig::Engine::kE4defrag
                                               : FileConfig::Engine::kThreads;
  cfg.direct = o.flag("cache.direct");
  cfg.sync_flag = o.choice("open-sync") == "sync"    ? O_SYNC
                  : o.choice("open-sync") == "dsync" ? O_DSYNC
                                                     : 0;
  cfg.discard_unmap = o.choice("discard") == "unmap";
  cfg.pool_threads = int(o.integer("thread-pool-size"));
  cfg.engine_settings.threads = cfg.pool_threads;
  EngineSettings& es = cfg.engine_settings;
  es.kind = cfg.engine == FileConfig::Engine::kIoUring ? EngineSettings::Kind::kIoUring
            : cfg.engine == FileConfig::Engine::kNative ? EngineSettings::Kind::kNative
            : cfg.engine == FileConfig::Engine::kThreads ? EngineSettings::Kind::kThreads
                                                         : EngineSettings::Kind::kSync;
  es.policy.max_batch = int(o.integer("aio-max-batch"));
  es.ring_size = int(o.integer("aio-ring-size"));
  es.policy.max_inflight = int(o.integer("aio-max-inflight"));
  es.policy.peek_after_submit = o.flag("peek-after-submit");
  es.policy.adapt_batch = o.flag("aio-batch-adapt");
  es.use_ring = o.flag("aio-ring-peek");
  es.uring.sqpoll = o.flag("aio-sqpoll");
  es.uring.sqpoll_idle_ms = int(o.integer("aio-sqpoll-idle-ms"));
  cfg.register_file = o.flag("aio-register-file");
  es.uring.sqpoll_cpu = int(o.integer("aio-sqpoll-cpu"));
  cfg.force_async = o.flag("aio-force-async");
  cfg.fixed_buffers = o.flag("aio-fixed-buffers");
  es.threads_hand_over = o.flag("aio-threads-handover");
  es.policy.poll_mode = o.choice("aio-poll") == "on"    ? QueueEngine::PollMode::kOn
                        : o.choice("aio-poll") == "off" ? QueueEngine::PollMode::kOff
                                                        : QueueEngine::PollMode::kAuto;
  es.policy.submit_mode = o.choice("aio-submit") == "bh" ? QueueEngine::SubmitMode::kBottomHalf
                                                           : QueueEngine::SubmitMode::kImmediate;
  const std::string where = "driver 'file': " + QuoteName(cfg.path) + ": ";
  if (cfg.path.empty()) return MakeError(-EINVAL, "driver 'file': option 'filename' is empty");
  if (cfg.engine != FileConfig::Engine::kIoUring) {
    for (const char* opt :
         {"aio-sqpoll", "aio-register-file", "aio-force-async", "aio-fixed-buffers"}) {
      if (o.flag(opt)) return MakeError(-EINVAL, where + opt + "=on needs aio=io_uring");
    }
  }
  if (es.threads_hand_over && cfg.engine != FileConfig::Engine::kThreads)
    return MakeError(-EINVAL, where + "aio-threads-handover=on needs aio=threads");
  if (es.uring.sqpoll_cpu >= 0 && !es.uring.sqpoll) {
    return MakeError(-EINVAL, where + "aio-sqpoll-cpu needs aio-sqpoll=on");
  }
  if (cfg.engine == FileConfig::Engine::kNative && !cfg.direct) {
    return MakeError(-EINVAL, where + "aio=native requires cache.direct=on (without O_DIRECT "
                                      "io_submit would block the loop)");
  }

  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
  // writer forever; it is refused below, and cleared for what is accepted.
  // aio=mmap|falloc|ftruncate never open with O_DIRECT: no request of
  // theirs goes through the file's read/write path (mmap's cache.direct=on
  // drops each request's pages instead), so nothing is padded to its
  // alignment.
  // aio=splice honours cache.direct (splice(2) reads and writes through the
  // file's read/write path).
  const bool splice = cfg.engine == FileConfig::Engine::kSplice;
  const bool inline_io = cfg.engine == FileConfig::Engine::kMmap ||
                         cfg.engine == FileConfig::Engine::kFalloc ||
                         cfg.engine == FileConfig::Engine::kFtruncate ||
                         cfg.engine == FileConfig::Engine::kE4defrag || splice;
  const bool o_direct = cfg.direct && (!inline_io || splice);
  const int flags = (args.read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC | O_NONBLOCK |
                    (o_direct ? O_DIRECT : 0) | cfg.sync_flag;
  const int fd = open(cfg.path.c_str(), flags);
  if (fd < 0) {
    const int e = -errno;
    std::string msg = where + "cannot open " +
                      (args.read_only ? "read-only" : "read-write") +
                      (cfg.direct ? " with O_DIRECT" : "") + ": " + ErrnoString(e);
    if (e == -EINVAL && cfg.direct) {
      msg += " (the filesystem does not support O_DIRECT; use cache.direct=off)";
    } else if ((e == -EACCES || e == -EPERM || e == -EROFS) && !args.read_only) {
      msg += " (read-only=on may work)";
    }
    return MakeError(e, msg);
  }
  // Refuses FIFOs and the like.
  auto geo = ProbeGeometry(fd, cfg.path, o_direct, o.has("size") ? o.size("size") : 0);
  if (!geo.ok()) {
    close(fd);
    return MakeError(geo.error().code, "driver 'file': " + geo.error().message);
  }
  if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
    const int e = -errno;
    close(fd);
    return MakeError(e, where + "fcntl: " + ErrnoString(e));
  }
  // Read-ahead advice for this open file (it is per open file, so here).
  if (o.choice("fadvise") != "normal") {
    const int advice =
        o.choice("fadvise") == "random" ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL;
    if (const int e = posix_fadvise(fd, 0, 0, advice); e != 0) {
      close(fd);
      return MakeError(-e, where + "posix_fadvise(" + o.choice("fadvise") + "): " +
                               ErrnoString(-e));
    }
  }
  std::unique_ptr<InlineIo> inline_ops;
  if (inline_io) {
    InlineIo::Options io;
    io.length = geo.value().length;
    io.writable = !args.read_only;
    io.drop_cache = cfg.direct;
    if (splice) {
      io.kind = InlineIo::Kind::kSplice;
      io.drop_cache = false;  // O_DIRECT instead
    } else if (cfg.engine == FileConfig::Engine::kE4defrag) {
      if (geo.value().char_device || geo.value().block_device) {
        close(fd);
        return MakeError(-EINVAL, where + "aio=e4defrag needs a regular file");
      }
      if (!o.has("e4defrag-donor") || o.str("e4defrag-donor").empty()) {
        close(fd);
        return MakeError(-EINVAL, where + "aio=e4defrag needs e4defrag-donor=FILE");
      }
      io.kind = InlineIo::Kind::kE4defrag;
      io.donor = o.str("e4defrag-donor");
      io.inplace = o.flag("e4defrag-inplace");
      io.donor_offset = o.size("e4defrag-donor-offset");
      io.donor_length = o.size("e4defrag-donor-length");
    } else if (cfg.engine == FileConfig::Engine::kMmap) {
      io.kind = InlineIo::Kind::kMmap;
      io.advice = o.choice("fadvise") == "random"       ? POSIX_MADV_RANDOM
                  : o.choice("fadvise") == "sequential" ? POSIX_MADV_SEQUENTIAL
                                                        : 0;
      if (geo.value().char_device) {
        close(fd);
        return MakeError(-EINVAL, where + "aio=mmap needs a regular file or a block device");
      }
    } else {
      io.kind = cfg.engine == FileConfig::Engine::kFalloc ? InlineIo::Kind::kFalloc
                                                          : InlineIo::Kind::kFtruncate;
      if (geo.value().char_device || geo.value().block_device) {
        close(fd);
        return MakeError(-EINVAL, where + "aio=" + o.choice("aio") + " needs a regular file");
      }
    }
    auto made = InlineIo::Create(fd, io);
    if (!made.ok()) {
      close(fd);
      return MakeError(made.error().code, where + "aio=" + o.choice("aio") + ": " +
                                              made.error().message);
    }
    inline_ops = std::move(made.value());
  }
  auto j = FileDriver::JoinEngine(args.ctx, cfg, fd);
  if (!j.ok()) {
    close(fd);
    return MakeError(j.error().code, where + "aio=" + o.choice("aio") + ": " + j.error().message);
  }
  return std::unique_ptr<BlockDriver>(std::make_unique<FileDriver>(
      fd, std::move(cfg), geo.value(), std::move(j.value().first), j.value().second,
      std::move(inline_ops)));
}

}  // namespace

const DriverInfo& FileDriverInfo() {
  static const DriverInfo info{"file", "a file or block device (QEMU file-posix)", &Schema, {},
                               &Open};
  return info;
}

}  // namespace blk
