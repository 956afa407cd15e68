#include "tools/block_bench/run/features/verify_tracker.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <cerrno>
#include <cstring>
#include <numeric>

#include "tools/block_bench/run/buffer_fill.h"
#include "tools/block_bench/run/clone_source.h"

namespace blk::bench {
namespace {

Error LayoutError(std::string msg) { return Error{-EINVAL, std::move(msg)}; }

// verify_interval and verify_offset against the header, as fio checks them.
Expected<void> PlaceHeaders(const JobOptions& job, const IoSource& dirs, VerifyLayout* layout) {
  const uint64_t header = VerifyHeaderSize(job.verify);
  const std::string method = std::string(Name(job.verify));
  // The smallest and largest blocks verified: the writes', else the reads'.
  const Dir d = dirs.has_dir(Dir::kWrite) ? Dir::kWrite : Dir::kRead;
  const uint64_t min_bs = MinBlockSize(job, d), max_bs = MaxBlockSize(job, d);
  if (job.verify_interval) {
    // fio: at most the smallest block, and a divisor of the smallest and
    // largest, else their gcd.
    uint64_t i = std::min<uint64_t>(job.verify_interval, min_bs);
    if (min_bs % i || max_bs % i) i = std::gcd(min_bs, max_bs);
    layout->interval = i;
  }
  const uint64_t chunk = layout->interval ? layout->interval : min_bs;
  if (header && job.verify_offset) {
    if (job.verify_offset < header)
      return LayoutError("verify_offset=" + std::to_string(job.verify_offset) + " overlaps verify=" +
                         method + "'s " + std::to_string(header) +
                         "-byte header: give 0 or at least " + std::to_string(header));
    if (job.verify_offset + header > chunk)
      return LayoutError("verify_offset=" + std::to_string(job.verify_offset) + " puts verify=" +
                         method + "'s " + std::to_string(header) +
                         "-byte header past the end of a " + std::to_string(chunk) + "-byte " +
                         (layout->interval ? "verify_interval" : "block"));
    layout->header_offset = job.verify_offset;
  }
  for (Dir dd : {Dir::kRead, Dir::kWrite}) {
    if (!dirs.has_dir(dd) || MinBlockSize(job, dd) >= header) continue;
    // fio: "Blocksize too small" (EINVAL).  Checking nothing and saying
    // verified=0 would pass a job that verified nothing.
    return LayoutError("verify=" + method + " needs blocks of at least " + std::to_string(header) +
                       " bytes (its header), but this job " +
                       (dd == Dir::kRead ? "reads" : "writes") + " blocks of " +
                       std::to_string(MinBlockSize(job, dd)) + " bytes (bs=)");
  }
  if (layout->interval && layout->interval < header)
    return LayoutError("verify_interval=" + std::to_string(layout->interval) +
                       " is smaller than verify=" + method + "'s " + std::to_string(header) +
                       "-byte header");
  return {};
}

}  // namespace

Expected<VerifyLayout> MakeVerifyLayout(const JobOptions& job, const IoSource& dirs) {
  VerifyLayout layout;
  const bool verify = job.verify != VerifyMethod::kNone;
  if (verify) layout.method = job.verify;
  if (!job.verify_pattern.empty()) {
    auto p = ResolvePattern(job.verify_pattern, "verify_pattern", &layout.pattern_offsets);
    if (!p.ok()) return p.error();
    if (p->size() > kMaxVerifyPattern)
      return LayoutError("verify_pattern: " + std::to_string(p->size()) + " bytes, at most " +
                         "64 MiB");
    layout.pattern = std::move(*p);
  }
  if (!verify) return layout;
  auto placed = PlaceHeaders(job, dirs, &layout);
  if (!placed.ok()) return placed.error();
  return layout;
}

// The verify phase: a read of every block still to check, in key order.
class VerifyTracker::Reader : public IoSource {
 public:
  Reader(VerifyTracker& t, const IoSource& dirs) : t_(t), dirs_(dirs) {
    order_.reserve(t.written_.size());
    for (const auto& [key, w] : t.written_) order_.push_back(key);
    if (t.o_.issue_order) {
      std::sort(order_.begin(), order_.end(), [&](uint64_t a, uint64_t b) {
        return t.written_.at(a).seq < t.written_.at(b).seq;
      });
    }
  }
  bool next(IoUnit* u) override {
    // Blocks whose write failed hold no verify data, and an ambiguous one
    // may hold a mix: not read back (they count as not verified).  Those a
    // verify_backlog point checked are done.
    const Written* w = nullptr;
    for (; i_ < order_.size(); i_++) {
      w = &t_.written_.at(order_[i_]);
      if (w->readable() && !(t_.o_.skip_checked && w->checked)) break;
    }
    if (i_ == order_.size()) return false;
    *u = t_.keys_.read_at(order_[i_], w->len);
    const VerifyState* state = t_.o_.loaded_state;
    if (state && VerifyStateShouldStop(*state, reads_, u->file, u->offset)) {
      // The state says the write job stopped before these: nothing to check.
      for (; i_ < order_.size(); i_++) {
        t_.alt_gens_.erase(order_[i_]);
        t_.written_.erase(order_[i_]);
      }
      return false;
    }
    reads_++;
    i_++;
    return true;
  }
  bool has_dir(Dir d) const override { return dirs_.has_dir(d); }
  uint64_t max_bs() const override { return dirs_.max_bs(); }
  uint64_t io_limit() const override { return 0; }

 private:
  VerifyTracker& t_;
  const IoSource& dirs_;
  std::vector<uint64_t> order_;  // the keys to read, in the phase's order
  size_t i_ = 0;                 // the next of them
  uint64_t reads_ = 0;           // verify reads issued
};

// verify_only: the job's I/O dry (its writes recorded as done by on_issue).
class VerifyTracker::RecordOnly : public IoSource {
 public:
  explicit RecordOnly(IoSource& inner) : inner_(inner) {}
  bool next(IoUnit* u) override {
    if (!inner_.next(u)) return false;
    u->dry = true;
    return true;
  }
  bool has_dir(Dir d) const override { return inner_.has_dir(d); }
  uint64_t max_bs() const override { return inner_.max_bs(); }
  uint64_t io_limit() const override { return inner_.io_limit(); }
  void reset_budget() override { inner_.reset_budget(); }
  void note_other_io(uint64_t len) override { inner_.note_other_io(len); }
  bool resume() override { return inner_.resume(); }
  void set_dir_chooser(DirChooser* c) override { inner_.set_dir_chooser(c); }

 private:
  IoSource& inner_;
};

VerifyTracker::VerifyTracker(const Options& o, const VerifyLayout& layout, const FileKeys& keys,
                             std::vector<std::string> names, SlotPool& slots, CloneErrors& errors,
                             CloneResult* res)
    : o_(o),
      layout_(layout),
      keys_(keys),
      names_(std::move(names)),
      slots_(slots),
      errors_(errors),
      res_(res),
      slot_(slots.size()) {}

VerifyTracker::~VerifyTracker() = default;

IoSource& VerifyTracker::verify_reader(const IoSource& job_source) {
  verify_phase_ = true;
  reader_ = std::make_unique<Reader>(*this, job_source);
  return *reader_;
}

IoSource& VerifyTracker::record_only(IoSource& job_source) {
  record_only_ = std::make_unique<RecordOnly>(job_source);
  return *record_only_;
}

void VerifyTracker::on_issue(const IssuedIo& io) {
  const IoUnit& u = io.u;
  if (u.dry) {
    if (u.dir == Dir::kWrite && !u.flush) note_unwritten(u);
    return;
  }
  if (u.dir == Dir::kRead) plan_read(io.slot, u);
  if (u.dir != Dir::kWrite) return;
  const uint64_t g = next_gen();
  // numberio: fio's count of writes issued, in its 16 bits.
  FillVerifyBlock(slots_[io.slot].buf.data(), u.len, u.offset, g, layout_, uint16_t(gen_counter_));
  note_written(io.slot, u, g);
  if (o_.state_log && !u.flush) o_.state_log->issued();
  if (o_.count_history && !verify_phase_) hist_len_++;
}

void VerifyTracker::on_complete(const DoneIo& io) {
  const IoUnit& u = io.u;
  if (u.dry) return;
  if (!io.st.ok()) {
    if (u.dir == Dir::kTrim) {
      // A failed trim leaves the block's content unknown: not checked.
      auto it = written_.find(keys_.key(u));
      if (it != written_.end() && it->second.trimmed) it->second.ambiguous = true;
    }
  } else if (u.dir == Dir::kRead) {
    check_read(io.slot, u);
  }
  if (u.dir != Dir::kWrite) return;
  if (io.st.ok() && o_.state_log && !u.flush) o_.state_log->completed(u.file, u.offset);
  // Only if the entry is still this write's (a later write replaces it), or
  // this write is the entry's alternative.
  auto it = written_.find(keys_.key(u));
  if (it == written_.end()) return;
  Written& w = it->second;
  const uint64_t gen = slot_[io.slot].write_gen;
  const bool was_readable = w.readable();
  if (w.gen == gen) {
    w.done = io.st.ok();
  } else if (w.alts_pending > 0) {
    const std::vector<uint64_t>& alts = alt_gens_[it->first];
    if (std::find(alts.begin(), alts.end(), gen) != alts.end()) {
      w.alts_pending--;
      if (!io.st.ok()) w.ambiguous = true;  // the block may hold a part of it
    }
  }
  if (o_.backlog && !was_readable && w.readable()) backlog_.push_back(it->first);
}

void VerifyTracker::plan_read(uint32_t slot, const IoUnit& u) {
  SlotState& s = slot_[slot];
  s.check = false;
  s.want_gen = 0;
  s.want_zero = false;
  if (!o_.has_write) {
    s.check = true;  // read-only job: check everything, writer unknown
    return;
  }
  s.want_alts.clear();
  auto it = written_.find(keys_.key(u));
  if (it != written_.end() && it->second.len == u.len && it->second.readable()) {
    s.check = true;
    s.want_gen = it->second.gen;
    if (auto a = alt_gens_.find(it->first); a != alt_gens_.end()) s.want_alts = a->second;
    s.want_zero = it->second.trimmed;
  }
}

void VerifyTracker::check_read(uint32_t slot, const IoUnit& u) {
  SlotState& s = slot_[slot];
  if (!s.check) return;
  if (s.want_gen) {
    // A write to the block issued after this read replaced its entry: the
    // read may have seen the old or the new data, so it proves nothing.
    auto it = written_.find(keys_.key(u));
    if (it == written_.end() || it->second.gen != s.want_gen) return;
    it->second.checked = true;
  }
  if (o_.fake_io) return;
  res_->verified++;
  // verify_only: the blocks may be another run's (or fio's): as fio, the
  // header's rand_seed is taken as it is.
  const uint64_t gen = record_only_ ? 0 : s.want_gen;
  if (record_only_) s.want_alts.clear();
  if (o_.async) {
    s.settling = true;
    s.read = u;
    s.check_gen = gen;
    s.check_alts = s.want_alts;
    return;
  }
  const std::string msg = verdict(slots_[slot].buf.data(), u, s.want_zero, gen, s.want_alts);
  if (!msg.empty()) errors_.verify_error(msg, o_.fatal);
}

Task<void> VerifyTracker::settle(uint32_t slot) {
  SlotState& s = slot_[slot];
  // The slot stays taken until this returns: its buffer is the read's.
  const uint8_t* p = slots_[slot].buf.data();
  const IoUnit u = s.read;
  const bool zero = s.want_zero;
  const uint64_t gen = s.check_gen;
  // A named function: GCC 12 destroys a temporary with non-trivial captures
  // twice when it is built inside the co_await expression.
  std::function<std::string()> check = [this, p, u, zero, gen, alts = s.check_alts] {
    return verdict(p, u, zero, gen, alts);
  };
  const std::string msg = co_await o_.async->run(*o_.home, std::move(check));
  s.settling = false;
  if (!msg.empty()) errors_.verify_error(msg, o_.fatal);
}

std::string VerifyTracker::verdict(const uint8_t* p, const IoUnit& u, bool want_zero,
                                   uint64_t gen, const std::vector<uint64_t>& alts) const {
  const std::string& name = names_[u.file];
  if (want_zero) {
    // As fio's verify_trimmed_io_u: the offset of the first non-zero byte.
    const uint8_t* nz = std::find_if(p, p + u.len, [](uint8_t b) { return b != 0; });
    if (nz == p + u.len) return "";
    return "trim verify failed on '" + name + "' at offset " +
           std::to_string(u.offset + uint64_t(nz - p)) + " length " + std::to_string(u.len) +
           " (block offset " + std::to_string(nz - p) +
           "): the trimmed block does not read as zeros";
  }
  uint64_t bad_at = 0, bad_len = u.len;
  const std::string bad = CheckVerifyBlock(p, u.len, u.offset, gen, layout_, &bad_at, &bad_len);
  if (bad.empty()) return "";
  for (uint64_t alt : alts) {
    // A write in flight beside gen's may have landed last.
    uint64_t at = 0, len = u.len;
    if (CheckVerifyBlock(p, u.len, u.offset, alt, layout_, &at, &len).empty()) return "";
  }
  std::string msg = "verify failed on '" + name + "' at offset " + std::to_string(u.offset) +
                    " length " + std::to_string(u.len) + ": " + bad;
  if (o_.dump) msg += dump(p, u, bad_at, bad_len);
  return msg;
}

namespace {

// Writes buf[0, len) to `path`; "" or why not.
std::string WriteDump(const std::string& path, const uint8_t* buf, uint64_t len) {
  const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot create '" + path + "': " + std::strerror(errno);
  uint64_t done = 0;
  while (done < len) {
    const ssize_t n = ::write(fd, buf + done, size_t(len - done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = n < 0 ? std::strerror(errno) : "no progress";
      ::close(fd);
      return "cannot write '" + path + "': " + why;
    }
    done += uint64_t(n);
  }
  ::close(fd);
  return "";
}

}  // namespace

std::string VerifyTracker::dump(const uint8_t* p, const IoUnit& u, uint64_t bad_at,
                                uint64_t bad_len) const {
  const std::string& name = names_[u.file];
  const size_t slash = name.find_last_of('/');
  const std::string base =
      (slash == std::string::npos ? name : name.substr(slash + 1)) + "." +
      std::to_string(u.offset + bad_at);
  std::string out;
  const auto one = [&](const std::string& kind, const uint8_t* b, uint64_t n) {
    const std::string path = base + "." + kind;
    const std::string err = WriteDump(path, b, n);
    out += err.empty() ? "; " + kind + " data dumped as " + path : "; verify_dump: " + err;
  };
  one("received", p + bad_at, bad_len);
  const std::vector<uint8_t> exp = ExpectedVerifyBlock(p, u.len, u.offset, layout_);
  if (exp.size() == u.len) one("expected", exp.data() + bad_at, bad_len);
  return out;
}

void VerifyTracker::erase_written(uint64_t k, uint64_t len) {
  auto it = written_.lower_bound(k);
  if (it != written_.begin()) {
    auto p = std::prev(it);
    if (p->first + p->second.len > k) it = p;
  }
  while (it != written_.end() && it->first < k + len) {
    alt_gens_.erase(it->first);
    it = written_.erase(it);
  }
}

void VerifyTracker::note_written(uint32_t slot, const IoUnit& u, uint64_t gen) {
  const uint64_t k = keys_.key(u);
  erase_written(k, u.len);
  // Other writes to an overlapping range still in flight (norandommap,
  // randrw at depth > 1) may land before or after this one: those of
  // exactly this range are the block's alternatives, one of a part of it
  // makes it ambiguous.
  Written w{u.len, gen, false, false, false, false};
  w.seq = gen_counter_;
  std::vector<uint64_t> alts;
  for (const SlotState& o : slot_) {
    if (!o.writing || o.write_key >= k + u.len || k >= o.write_key + o.write_len) continue;
    if (o.write_key == k && o.write_len == u.len) alts.push_back(o.write_gen);
    else w.ambiguous = true;
  }
  w.alts_pending = uint32_t(alts.size());
  written_.emplace(k, w);
  if (!alts.empty()) alt_gens_.emplace(k, std::move(alts));
  SlotState& s = slot_[slot];
  s.writing = true;
  s.write_key = k;
  s.write_len = u.len;
  s.write_gen = gen;
}

void VerifyTracker::note_unwritten(const IoUnit& u) {
  const uint64_t g = next_gen();
  const uint64_t k = keys_.key(u);
  erase_written(k, u.len);
  Written w{u.len, g, /*done=*/true, false, false, false};
  w.seq = gen_counter_;
  written_.emplace(k, w);
  if (o_.state_log) {
    o_.state_log->issued();
    o_.state_log->completed(u.file, u.offset);
  }
}

void VerifyTracker::close_pass(bool ran) {
  if (ran) closed_unverified_ += unchecked();
  written_.clear();
  alt_gens_.clear();
  backlog_.clear();
  hist_len_ = 0;
  verify_phase_ = false;
}

uint64_t VerifyTracker::not_verified() const { return closed_unverified_ + unchecked(); }

uint64_t VerifyTracker::unchecked() const {
  uint64_t n = 0;
  for (const auto& [key, w] : written_)
    if (!w.checked) n++;
  return n;
}

bool VerifyTracker::pop_backlog(IoUnit* u) {
  while (!backlog_.empty()) {
    auto it = written_.find(backlog_.front());
    backlog_.pop_front();
    if (hist_len_) hist_len_--;
    if (it == written_.end() || !it->second.readable() || it->second.checked) continue;
    *u = keys_.read_at(it->first, it->second.len);
    return true;
  }
  return false;
}

bool VerifyTracker::trimmable(uint64_t key, uint64_t gen) const {
  auto it = written_.find(key);
  return it != written_.end() && it->second.gen == gen && !it->second.checked &&
         !it->second.trimmed;
}

bool VerifyTracker::trim(uint64_t key, uint64_t gen, bool keep, IoUnit* u) {
  if (!trimmable(key, gen)) return false;
  auto it = written_.find(key);
  if (!it->second.readable()) return false;  // the write failed, or raced
  *u = keys_.read_at(it->first, it->second.len);
  u->dir = Dir::kTrim;
  if (keep) {
    it->second.trimmed = true;
    return true;
  }
  // fio drops the block from its verify list: not read back.
  alt_gens_.erase(it->first);
  written_.erase(it);
  auto b = std::find(backlog_.begin(), backlog_.end(), key);
  if (b != backlog_.end()) backlog_.erase(b);
  if (hist_len_) hist_len_--;
  return true;
}

}  // namespace blk::bench
