#include "tools/block_bench/run/files.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>
#include <vector>

#include "tools/block_bench/run/clone_source.h"
#include "tools/block_bench/run/target.h"

namespace blk::bench {

JobOptions CloneJob(const JobOptions& job, uint32_t clone) {
  JobOptions c = job;
  if (job.offset_increment && clone > 0 && !job.offset.percent)
    c.offset.value += uint64_t(clone) * job.offset_increment;
  return c;
}

namespace {

// The smallest block either direction issues (fio's rw_min_bs), to which
// file sizes are rounded down.
uint64_t SmallestBlock(const JobOptions& job) {
  return std::min(MinBlockSize(job, Dir::kRead), MinBlockSize(job, Dir::kWrite));
}

// This file's size when filesize= is given: the value, or for a range one
// drawn in it as fio's get_rand_file_size: the clone's file-size state
// (FIO_RAND_FILE_SIZE_OFF) drawn once per file in file order, low + (high
// - low) x r / 2^32 (2^64 with tausworthe64), rounded down to rw_min_bs.
// The draws of a clone's files are made once (the callers ask file by
// file, more than once each): the last clone's are kept per thread.
uint64_t FileSizeOf(const JobOptions& job, uint32_t file, uint32_t rand_thread,
                    uint64_t clone_seed) {
  if (job.filesize_max <= job.filesize) return job.filesize;
  const uint64_t* rs = job.randseed ? &*job.randseed : nullptr;
  const uint64_t seed = FioSlotSeed(job.randrepeat, job.allrandrepeat, rs, rand_thread,
                                    kFioRandFileSizeOff, clone_seed ^ 0x7777);
  const uint64_t unit = FioRwMinBs(job);
  const uint32_t n = std::max<uint32_t>({1, job.nrfiles, file + 1});
  struct Draws {
    std::array<uint64_t, 5> key{};
    bool use64 = false;
    std::vector<uint64_t> sizes;
  };
  thread_local Draws last;
  const std::array<uint64_t, 5> key = {seed, job.filesize, job.filesize_max, unit, n};
  if (last.key != key || last.use64 != job.tausworthe64 || last.sizes.size() != n) {
    FioRand r(seed, job.tausworthe64);
    last.key = key;
    last.use64 = job.tausworthe64;
    last.sizes.resize(n);
    for (uint64_t& v : last.sizes) {
      const double x = double(r.next()) / r.max_plus_one();
      v = job.filesize + uint64_t(double(job.filesize_max - job.filesize) * x);
      if (unit > 1) v -= v % unit;
    }
  }
  return last.sizes[file];
}

}  // namespace

JobOptions FileJob(const JobOptions& job, uint32_t clone, uint32_t file, uint32_t rand_thread,
                   uint64_t clone_seed) {
  const uint32_t n = std::max<uint32_t>(1, job.nrfiles);
  if (n == 1 && !job.filesize) return job;
  JobOptions f = job;
  f.nrfiles = 1;
  if (file < job.filenames.size()) f.filenames = {job.filenames[file]};
  else f.filenames = {FileNameOf(job, clone, file)};
  auto share = [&](uint64_t total) { return total / n + (file < total % n ? 1 : 0); };
  if (job.filesize) {
    // fio: each file is filesize bytes, and its I/O region runs from the
    // start offset to its end (setup_files: io_size = file size -
    // file_offset); size= then caps the job's I/O over all of them
    // (size=N%: N % of each file, within the region).  An offset at or
    // past the end leaves no region: the generator refuses it.
    const uint64_t fsize =
        FileSizeOf(job, file, rand_thread ? rand_thread : clone + 1, clone_seed);
    const uint64_t start = FioStartOffset(job, fsize);
    const uint64_t region = start < fsize ? fsize - start : 0;
    f.filesize = fsize;
    f.filesize_max = fsize;
    f.size = region ? std::optional<SizeSpec>(SizeSpec{region, false}) : std::nullopt;
    if (job.size && job.size->percent) {
      const uint64_t unit = SmallestBlock(job);
      uint64_t part = uint64_t((unsigned __int128)fsize * job.size->value / 100);
      if (unit > 1 && part >= unit) part -= part % unit;
      if (region) part = std::min(part, region);  // from the offset, within the file
      f.size = SizeSpec{std::max<uint64_t>(1, part), false};
      f.filesize = f.filesize_max = start + f.size->value;  // fio lays out only that much
    } else if (job.size && !job.io_size) {
      const uint64_t cap = std::max<uint64_t>(region, 1);
      f.io_size = SizeSpec{std::clamp<uint64_t>(share(job.size->value), 1, cap), false};
    }
  } else if (job.size && !job.size->percent) {
    f.size = SizeSpec{std::max<uint64_t>(1, job.size->value / n), false};
  }
  if (job.io_size && !job.io_size->percent) f.io_size = SizeSpec{std::max<uint64_t>(1, share(job.io_size->value)), false};
  if (job.number_ios) f.number_ios = std::max<uint64_t>(1, share(job.number_ios));
  return f;
}

uint64_t FileSeed(uint64_t clone_seed, uint32_t file) {
  if (file == 0) return clone_seed;
  Rng r(clone_seed ^ (uint64_t(file) * 0x9E3779B97F4A7C15ull));
  return r.next();
}

MultiFileSource::MultiFileSource(std::vector<IoGenerator> gens, FileService service,
                                 uint32_t ios_per_pick, uint64_t file_seed, bool use64,
                                 const PassLimits& limits, uint32_t open_cap,
                                 bool randrepeat)
    : gens_(std::move(gens)),
      done_(gens_.size(), false),
      service_(service),
      per_pick_(std::max<uint32_t>(1, ios_per_pick)),
      file_seed_(file_seed),
      randrepeat_(randrepeat),
      file_rand_(file_seed, use64),
      passes_(limits),
      live_(uint32_t(gens_.size())),
      open_(gens_.size(), false),
      opening_(gens_.size(), false) {
  const uint32_t n = uint32_t(gens_.size());
  open_cap_ = open_cap && open_cap < n ? open_cap : n;
  for (IoGenerator& g : gens_) g.set_external_passes();
  passes_.set_unlimited(gens_[0].unlimited());
  // fio opens a file when a pick first lands on it; roundrobin and
  // sequential begin with the first file.
  cur_ = n - 1;
  advance();
}

void MultiFileSource::set_open(uint32_t f, bool open) {
  if (open_[f] == open) return;
  open_[f] = open;
  if (open) open_count_++;
  else open_count_--;
}

void MultiFileSource::advance() {
  const uint32_t n = uint32_t(gens_.size());
  if (live_ == 0) return;
  // One file not done is always usable: a done file is closed.
  if (service_ == FileService::kRandom) {
    // fio's get_next_file_rand: nr_files x r / 2^32 from its
    // next_file_state, drawn again while the file is done (or closed with
    // openfiles= open).
    do {
      cur_ = uint32_t(double(n) * (double(file_rand_.next()) / file_rand_.max_plus_one()));
    } while (!usable(cur_));
  } else {
    do {
      cur_ = (cur_ + 1) % n;
    } while (!usable(cur_));
  }
  if (!open_[cur_]) opening_[cur_] = true;
  set_open(cur_, true);
  left_ = per_pick_;
  bytes_on_cur_ = 0;
}

bool MultiFileSource::end_pass(bool out_of_io) {
  if (!passes_.next_pass(out_of_io)) return false;
  begin_pass();
  return true;
}

bool MultiFileSource::resume() {
  if (!passes_.resume()) return false;
  begin_pass();
  return true;
}

void MultiFileSource::begin_pass() {
  // fio's clear_io_state: every file from its start, the shared states
  // re-seeded once (randrepeat).
  gens_[0].restart_shared();
  if (randrepeat_) file_rand_.seed_with(file_seed_);  // td_fill_rand_seeds: next_file_state too
  for (IoGenerator& g : gens_) g.restart_pass();
  std::fill(done_.begin(), done_.end(), false);
  live_ = uint32_t(gens_.size());
  // clear_io_state closes every file: the next I/O picks a file anew (the
  // one after the last, or a new draw) and opens it.
  for (uint32_t f = 0; f < gens_.size(); f++) set_open(f, false);
}

bool MultiFileSource::next(IoUnit* u) {
  for (;;) {
    if (!passes_.may_issue()) {
      if (!end_pass(false)) return false;
      continue;
    }
    if (live_ == 0) {
      if (!end_pass(true)) return false;
      continue;
    }
    if (!next_in_pass(u)) continue;
    passes_.issued(u->dir, u->len);
    u->pass = passes_.pass();
    return true;
  }
}

bool MultiFileSource::next_in_pass(IoUnit* u) {
  while (live_ > 0) {
    // The next file is picked when the next I/O is wanted, as fio's
    // get_next_file: a pass the job's bytes end picks none.
    if (pick_due_ || done_[cur_] || !open_[cur_]) {
      pick_due_ = false;
      advance();
      continue;
    }
    if (!gens_[cur_].next(u)) {
      done_[cur_] = true;
      set_open(cur_, false);
      live_--;
      pick_due_ = true;
      continue;
    }
    u->file = cur_;
    u->opens = opening_[cur_];
    opening_[cur_] = false;
    if (service_ == FileService::kSequential) {
      // fio stays on the file until it is done (its pass found no more
      // I/O: the next file then, after the draw that failed); a time based
      // job's never is, so it moves on (closing it) after the file's region.
      bytes_on_cur_ += u->len;
      if (gens_[cur_].unlimited() && bytes_on_cur_ >= gens_[cur_].region_size() && live_ > 1) {
        set_open(cur_, false);
        pick_due_ = true;
      }
    } else if (--left_ == 0) {
      pick_due_ = true;
    }
    return true;
  }
  return false;
}

void MultiFileSource::set_dir_chooser(DirChooser* c) {
  for (IoGenerator& g : gens_) g.set_dir_chooser(c);
}

bool MultiFileSource::has_dir(Dir d) const { return gens_[0].has_dir(d); }

uint64_t MultiFileSource::max_bs() const {
  uint64_t m = 0;
  for (const IoGenerator& g : gens_) m = std::max(m, g.max_bs());
  return m;
}

uint64_t MultiFileSource::io_limit() const { return passes_.budget(); }

void MultiFileSource::reset_budget() {
  for (IoGenerator& g : gens_) g.reset_budget();
  passes_.restart_budget();
}

void MultiFileSource::set_unlimited(bool u) {
  passes_.set_unlimited(u);
  for (IoGenerator& g : gens_) g.set_unlimited(u);
}

}  // namespace blk::bench
