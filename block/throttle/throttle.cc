#include <blkstack/block/throttle/throttle.h>

#include <blkstack/block/filter.h>

#include <algorithm>

#include <blkstack/util/clock.h>

namespace blk {
namespace {

// Time a pacer may fall behind and then catch up: requests that arrive late
// (a timer that fired late, a gap in submissions) reuse up to this much
// unused time, so the average rate still reaches the limit.
constexpr int64_t kCatchUpNs = 10000000;

// A pacing bucket: a limit of `rate` units per second, enforced by
// reserving each request's share of time after the previous reservation.
class Pacer {
 public:
  explicit Pacer(uint64_t rate) : rate_(rate) {}
  bool active() const { return rate_ != 0; }
  // Reserves `units` and returns the time at which the request may start.
  int64_t reserve(int64_t now, uint64_t units) {
    if (!rate_) return now;
    if (next_ == 0) next_ = now;  // no credit before the first request
    int64_t base = std::max(next_, now - kCatchUpNs);
    next_ = base + int64_t((units * 1000000000ull) / rate_);
    return std::max(base, now);
  }

 private:
  uint64_t rate_;
  int64_t next_ = 0;
};

struct Limits {
  uint64_t iops_total, iops_read, iops_write, bps_total, bps_read, bps_write;
};

class ThrottleDriver final : public FilterDriver {
 public:
  ThrottleDriver(std::unique_ptr<BlockNode> child, const Limits& l)
      : FilterDriver(std::move(child)),
        iops_total_(l.iops_total), iops_read_(l.iops_read), iops_write_(l.iops_write),
        bps_total_(l.bps_total), bps_read_(l.bps_read), bps_write_(l.bps_write) {}

  std::string_view name() const override { return "throttle"; }
  void cancel_waits() override {
    sleeps_.cancel_all();
    FilterDriver::cancel_waits();
  }
  void own_counters(std::vector<DriverCounter>* out) const override {
    out->push_back({"throttle.throttled", throttled_});
    out->push_back({"throttle.wait_ns", wait_ns_});
  }

  Task<Status> co_preadv(uint64_t offset, uint64_t bytes, const IoVec& qiov,
                         uint32_t flags) override {
    return paced(false, bytes, child().co_preadv(offset, qiov, flags));
  }
  Task<Status> co_pwritev(uint64_t offset, uint64_t bytes, const IoVec& qiov,
                          uint32_t flags) override {
    return paced(true, bytes, child().co_pwritev(offset, qiov, flags));
  }
  Task<Status> co_pdiscard(uint64_t offset, uint64_t bytes) override {
    return paced(true, 0, child().co_pdiscard(offset, bytes));
  }
  Task<Status> co_pwrite_zeroes(uint64_t offset, uint64_t bytes, uint32_t flags) override {
    return paced(true, 0, child().co_pwrite_zeroes(offset, bytes, flags));
  }

 private:
  // Reserves the request's share of every applicable limit, sleeps until the
  // latest of them, then runs the child's request `io` (a lazy task).  A
  // cancelled sleep ends the request with -ECANCELED without running `io`.
  Task<Status> paced(bool write, uint64_t bytes, Task<Status> io) {
    int64_t now = NowNs();
    int64_t start = now;
    start = std::max(start, iops_total_.reserve(now, 1));
    start = std::max(start, bps_total_.reserve(now, bytes));
    Pacer& iops = write ? iops_write_ : iops_read_;
    Pacer& bps = write ? bps_write_ : bps_read_;
    start = std::max(start, iops.reserve(now, 1));
    start = std::max(start, bps.reserve(now, bytes));
    if (start > now) {
      throttled_++;
      wait_ns_ += uint64_t(start - now);
      const bool waited = co_await sleeps_.until(*ctx(), start);
      if (!waited) co_return Status(-ECANCELED);
    }
    co_return co_await std::move(io);
  }

  Pacer iops_total_, iops_read_, iops_write_, bps_total_, bps_read_, bps_write_;
  uint64_t throttled_ = 0;
  uint64_t wait_ns_ = 0;
  SleepGroup sleeps_;  // requests waiting for their start time
};

const std::vector<OptionSpec>& Schema() {
  using T = OptionSpec::Type;
  // Every limit defaults to 0, no limit.
  static const std::vector<OptionSpec> schema = {
      {.name = "iops-total", .type = T::kInt, .default_value = "0", .has_default = true, .min = 0,
       .help = "requests per second, reads and writes together"},
      {.name = "iops-read", .type = T::kInt, .default_value = "0", .has_default = true, .min = 0,
       .help = "reads per second"},
      {.name = "iops-write", .type = T::kInt, .default_value = "0", .has_default = true, .min = 0,
       .help = "writes (and discards, write-zeroes) per second"},
      {.name = "bps-total", .type = T::kSize, .default_value = "0", .has_default = true,
       .help = "bytes per second, reads and writes together"},
      {.name = "bps-read", .type = T::kSize, .default_value = "0", .has_default = true,
       .help = "bytes read per second"},
      {.name = "bps-write", .type = T::kSize, .default_value = "0", .has_default = true,
       .help = "bytes written per second"},
  };
  return schema;
}

Expected<std::unique_ptr<BlockDriver>> Open(DriverOpenArgs& args) {
  auto child = TakeFileChild(args, "throttle");
  if (!child.ok()) return child.error();
  Limits l{uint64_t(args.opts.integer("iops-total")), uint64_t(args.opts.integer("iops-read")),
           uint64_t(args.opts.integer("iops-write")), args.opts.size("bps-total"),
           args.opts.size("bps-read"), args.opts.size("bps-write")};
  return std::unique_ptr<BlockDriver>(std::make_unique<ThrottleDriver>(std::move(child.value()), l));
}

}  // namespace

const DriverInfo& ThrottleDriverInfo() {
  static const DriverInfo info{"throttle", "paces requests of its child to IOPS/bandwidth limits",
                               &Schema, {"file"}, &Open};
  return info;
}

}  // namespace blk
