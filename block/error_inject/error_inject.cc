#include <blkstack/block/error_inject/error_inject.h>

#include <blkstack/block/filter.h>

#include <string>

namespace blk {
namespace {

enum class Event { kRead, kWrite, kFlush, kDiscard, kWriteZeroes, kAny };

Event ParseEvent(const std::string& s) {
  if (s == "read") return Event::kRead;
  if (s == "write") return Event::kWrite;
  if (s == "flush") return Event::kFlush;
  if (s == "discard") return Event::kDiscard;
  if (s == "write-zeroes") return Event::kWriteZeroes;
  return Event::kAny;
}

class ErrorInjectDriver final : public FilterDriver {
 public:
  struct Rule {
    Event event;
    int err;  // negative errno
    uint64_t offset, length;  // length 0: whole device
    uint64_t after, count;
    bool immediately;
  };

  ErrorInjectDriver(std::unique_ptr<BlockNode> child, Rule rule)
      : FilterDriver(std::move(child)), rule_(rule) {}

  std::string_view name() const override { return "error-inject"; }
  void own_counters(std::vector<DriverCounter>* out) const override {
    out->push_back({"error_inject.matched", matched_});
    out->push_back({"error_inject.injected", injected_});
  }

  Task<Status> co_preadv(uint64_t offset, uint64_t bytes, const IoVec& qiov,
                         uint32_t flags) override {
    return inject(match(Event::kRead, offset, bytes), child().co_preadv(offset, qiov, flags));
  }
  Task<Status> co_pwritev(uint64_t offset, uint64_t bytes, const IoVec& qiov,
                          uint32_t flags) override {
    return inject(match(Event::kWrite, offset, bytes), child().co_pwritev(offset, qiov, flags));
  }
  Task<Status> co_flush() override {
    return inject(match(Event::kFlush, 0, 0), child().co_flush());
  }
  Task<Status> co_pdiscard(uint64_t offset, uint64_t bytes) override {
    return inject(match(Event::kDiscard, offset, bytes), child().co_pdiscard(offset, bytes));
  }
  Task<Status> co_pwrite_zeroes(uint64_t offset, uint64_t bytes, uint32_t flags) override {
    return inject(match(Event::kWriteZeroes, offset, bytes),
                  child().co_pwrite_zeroes(offset, bytes, flags));
  }

 private:
  // Runs the child's request `io` (a lazy task: it never starts when the
  // request fails immediately) and applies the rule's verdict `fail`.
  Task<Status> inject(bool fail, Task<Status> io) {
    if (fail && rule_.immediately) co_return Status(rule_.err);
    Status s = co_await std::move(io);
    co_return fail ? Status(rule_.err) : s;
  }

  // True when this request is to fail.  Flush has no range: it matches any
  // range rule.
  bool match(Event ev, uint64_t offset, uint64_t bytes) {
    if (rule_.event != Event::kAny && rule_.event != ev) return false;
    if (ev != Event::kFlush && rule_.length) {
      if (offset + bytes <= rule_.offset || offset >= rule_.offset + rule_.length) return false;
    }
    matched_++;
    if (matched_ <= rule_.after) return false;
    if (rule_.count && injected_ >= rule_.count) return false;
    injected_++;
    return true;
  }

  Rule rule_;
  uint64_t matched_ = 0;
  uint64_t injected_ = 0;
};

const std::vector<OptionSpec>& Schema() {
  using T = OptionSpec::Type;
  static const std::vector<OptionSpec> schema = {
      {.name = "event", .type = T::kEnum, .default_value = "any", .has_default = true,
       .enum_values = {"read", "write", "flush", "discard", "write-zeroes", "any"},
       .help = "which requests may fail"},
      {.name = "errno", .type = T::kInt, .default_value = "5", .has_default = true,
       .min = 1, .max = 4095, .help = "errno to fail with (positive)"},
      {.name = "offset", .type = T::kSize, .default_value = "0", .has_default = true,
       .help = "start of the failing range"},
      {.name = "length", .type = T::kSize, .default_value = "0", .has_default = true,
       .help = "length of the failing range (0: whole device)"},
      {.name = "after", .type = T::kInt, .default_value = "0", .has_default = true, .min = 0,
       .help = "matching requests let through first"},
      {.name = "count", .type = T::kInt, .default_value = "0", .has_default = true, .min = 0,
       .help = "most errors to inject (0: no limit)"},
      {.name = "immediately", .type = T::kBool, .default_value = "on", .has_default = true,
       .help = "fail without calling the child (off: after it completed)"},
  };
  return schema;
}

Expected<std::unique_ptr<BlockDriver>> Open(DriverOpenArgs& args) {
  auto child = TakeFileChild(args, "error-inject");
  if (!child.ok()) return child.error();
  ErrorInjectDriver::Rule r;
  r.event = ParseEvent(args.opts.choice("event"));
  r.err = -int(args.opts.integer("errno"));
  r.offset = args.opts.size("offset");
  r.length = args.opts.size("length");
  r.after = uint64_t(args.opts.integer("after"));
  r.count = uint64_t(args.opts.integer("count"));
  r.immediately = args.opts.flag("immediately");
  return std::unique_ptr<BlockDriver>(
      std::make_unique<ErrorInjectDriver>(std::move(child.value()), r));
}

}  // namespace

const DriverInfo& ErrorInjectDriverInfo() {
  static const DriverInfo info{"error-inject", "fails chosen requests of its child (blkdebug)",
                               &Schema, {"file"}, &Open};
  return info;
}

}  // namespace blk
