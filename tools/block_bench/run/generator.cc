#include "tools/block_bench/run/generator.h"

#include <algorithm>
#include <random>
#include <string>

namespace blk::bench {
namespace {

constexpr uint64_t kFixedSeed = 0x5EEDB10CB3AC4ull;  // randrepeat=1

}  // namespace

uint64_t JobSeed(const JobOptions& job, uint32_t job_index, uint32_t clone) {
  uint64_t base;
  if (job.randseed) base = *job.randseed;
  else if (job.randrepeat || job.allrandrepeat) base = kFixedSeed;
  else base = (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  return Mix64(base ^ Mix64((uint64_t(job_index) << 32) | clone));
}

// fio's rand_seeds[FIO_RAND_BLOCK_OFF]: FIO_RANDSEED x thread_number when
// randrepeat (td_fill_rand_seeds), else from randseed or allrandrepeat as
// the other slots, else the system's (here: the clone's random seed).
uint64_t FioBlockSeed(const JobOptions& job, uint32_t thread_number, uint64_t random_seed) {
  constexpr int kBlockOff = 6;
  if (job.randrepeat) return kFioRandSeedConst * thread_number;
  if (job.allrandrepeat) return FioAllRepeatSeeds(thread_number)[kBlockOff];
  if (job.randseed) return FioSeeds(*job.randseed, thread_number)[kBlockOff];
  return random_seed;
}

std::shared_ptr<RwMix> NewRwMix(const JobOptions& job, uint64_t seed, uint32_t thread_number) {
  const uint64_t* rs = job.randseed ? &*job.randseed : nullptr;
  return std::make_shared<RwMix>(
      job.rwmixread,
      RwMixSeed(job.randrepeat, job.allrandrepeat, rs, thread_number, seed ^ 0x2222),
      job.randrepeat);
}

void FioJobRand::reseed() {
  off.seed_with(off_seed);
  sizes.reseed();
  for (FioRand& r : seq_rand) r.seed_with(seq_rand_seed);
  zone.seed_with(zone_seed);
}

bool IoGenerator::has_dir(Dir d) const {
  if (trim_write_) return d == Dir::kTrim || d == Dir::kWrite;
  return mixed_ ? d != Dir::kTrim : d == only_;
}

Expected<IoGenerator> IoGenerator::Create(const JobOptions& job, uint64_t dev_size,
                                          uint64_t seed, uint32_t thread_number,
                                          std::string_view file_name) {
  IoGenerator g;
  g.job_ = job;
  switch (job.rw) {
    case RwMode::kRead: case RwMode::kRandRead: g.only_ = Dir::kRead; break;
    case RwMode::kWrite: case RwMode::kRandWrite: g.only_ = Dir::kWrite; break;
    case RwMode::kTrim: case RwMode::kRandTrim: g.only_ = Dir::kTrim; break;
    case RwMode::kTrimWrite: case RwMode::kRandTrimWrite:
      g.only_ = Dir::kTrim;
      g.trim_write_ = true;
      break;
    case RwMode::kReadWrite: case RwMode::kRandReadWrite: g.mixed_ = true; break;
  }
  g.random_ = IsRandom(job.rw);
  g.start_ = FioStartOffset(job, dev_size);
  // filesize= (run/files.h FileJob): the region ends at the file's size,
  // whatever the target holds beyond it.
  if (job.filesize && g.start_ >= job.filesize)
    return MakeError(-EINVAL, "offset=" + std::to_string(g.start_) +
                                  " is at or beyond the end of the file (filesize=" +
                                  std::to_string(job.filesize) + ")");
  if (g.start_ >= dev_size)
    return MakeError(-EINVAL, "offset=" + std::to_string(g.start_) +
                                  " is at or beyond the end of the target (" +
                                  std::to_string(dev_size) + " bytes)");
  uint64_t avail = dev_size - g.start_;
  g.size_ = job.size ? ResolveSize(*job.size, dev_size) : avail;
  if (g.size_ == 0) g.size_ = avail;
  if (g.size_ > avail)
    return MakeError(-EINVAL, "offset+size (" + std::to_string(g.start_) + "+" +
                                  std::to_string(g.size_) + ") is beyond the end of the target (" +
                                  std::to_string(dev_size) + " bytes)");
  const uint64_t io_size = job.io_size ? ResolveSize(*job.io_size, g.size_) : 0;
  g.unlimited_ = job.time_based;
  g.passes_ = FioPasses(PassLimits::Of(job, g.size_, io_size));
  g.dev_size_ = dev_size;
  g.zoned_ = job.zonemode_strided && job.zonesize > 0;
  g.zone_start_ = g.start_;
  g.zone_range_ = job.zonerange ? job.zonerange : job.zonesize;
  if (g.mixed_) g.mix_ = NewRwMix(job, seed, thread_number);
  g.rand_ = std::make_shared<FioJobRand>();
  FioJobRand& jr = *g.rand_;
  jr.off_seed = FioBlockSeed(job, thread_number, seed ^ 0x1111);
  jr.off.seed_with(jr.off_seed, job.tausworthe64);
  jr.sizes = FioBlockSizes(job, FioBsSeeds(job, thread_number, seed ^ 0x3333));
  {
    // fio seeds every direction's seq_rand_state from one slot,
    // FIO_RAND_SEQ_RAND_READ_OFF.
    const uint64_t* rs = job.randseed ? &*job.randseed : nullptr;
    jr.seq_rand_seed = FioSlotSeed(job.randrepeat, job.allrandrepeat, rs, thread_number,
                                   kFioRandSeqRandReadOff, seed ^ 0x4444);
    for (FioRand& r : jr.seq_rand) r.seed_with(jr.seq_rand_seed, false);
  }
  g.max_bs_ = 0;
  if (job.bs_is_seq_rand && job.verify != VerifyMethod::kNone)
    return MakeError(-EINVAL, "bs_is_seq_rand=1 with verify= is not implemented (verify keeps "
                              "its blocks by the write block size)");
  for (int d = 0; d < kNumDirs; d++) {
    if (!g.has_dir(Dir(d))) continue;
    uint64_t minbs = FioMinBs(job, d), maxbs = FioMaxBs(job, d);
    // bs_is_seq_rand: any direction's I/O has the read (sequential) or the
    // write (random) block size.
    if (job.bs_is_seq_rand) maxbs = std::max(FioMaxBs(job, 0), FioMaxBs(job, 1));
    if (minbs == 0) return MakeError(-EINVAL, "block size 0");
    g.max_bs_ = std::max(g.max_bs_, maxbs);
    if (maxbs > g.size_)
      return MakeError(-EINVAL, "block size " + std::to_string(maxbs) +
                                    " is larger than the I/O region (" + std::to_string(g.size_) +
                                    " bytes)");
    DirState& s = g.st_[d];
    s.align = job.blockalign[d].value_or(minbs);
    if (s.align == 0) s.align = minbs;
    s.blocks = std::max<uint64_t>(1, g.size_ / s.align);
    // In a zone, random blocks are drawn within zonerange, less what a
    // block larger than the alignment needs at its end (fio's last_block).
    if (g.zoned_) {
      const uint64_t tail = minbs > s.align ? minbs - s.align : 0;
      s.blocks = std::max<uint64_t>(1, (g.zone_range_ > tail ? g.zone_range_ - tail : 0) / s.align);
    }
    s.pos = g.first_pos();
  }
  // fio's random map (one axmap per file; in zones, of zonerange and
  // cleared with each zone), for uniform draws only (fio keeps none for
  // another random_distribution: init_random_map): one bit per rw_min_bs
  // bytes (the smallest block size of the three directions).  fio then
  // mixes units as it does: a pick is a block of the direction's alignment
  // checked against the map's bit of that number, and an I/O marks bits
  // counted in its direction's smallest block size (draw_in, claim).
  const Distribution kind = job.random_distribution.kind;
  const bool skewed = kind == Distribution::kZipf || kind == Distribution::kPareto ||
                      kind == Distribution::kNormal;
  const uint64_t rw_min_bs = FioRwMinBs(job);
  if (FioKeepsRandomMap(job)) {
    g.map_unit_ = rw_min_bs;
    g.map_.reset(std::max<uint64_t>(1, (g.zoned_ ? g.zone_range_ : g.size_) / g.map_unit_));
  }
  if (g.random_ && job.lfsr && !skewed) {
    // fio's init_random_map: an LFSR over min(file, size) (strided:
    // zonerange) in rw_min_bs blocks, from the FIO_RAND_BLOCK_OFF seed.
    const uint64_t fsize = g.zoned_ ? g.zone_range_ : std::min(dev_size, g.size_);
    // (Several files take file 0's seed: share_rand.  The caller asks
    // lfsr_error() once the seed is final.)
    g.lfsr_.emplace();
    g.lfsr_blocks_ = fsize / rw_min_bs;
    g.lfsr_->init(g.lfsr_blocks_, jr.off_seed);
  }
  if (g.random_ && skewed) {
    // fio's __init_rand_distribution: ranges of the smaller of the read and
    // write minimum block sizes over min(file, size).
    const uint64_t range = std::max<uint64_t>(1, std::min(FioMinBs(job, 0), FioMinBs(job, 1)));
    const uint64_t fsize = std::min(dev_size, g.size_);
    const uint32_t seed32 =
        FioSkewSeed(job.randrepeat, job.randseed.has_value(), file_name, thread_number,
                    uint32_t(jr.off_seed));
    g.skew_.emplace(kind, (fsize + range - 1) / range, job.random_distribution.parameter,
                    job.random_distribution.center, seed32);
  }
  if (g.random_ && (kind == Distribution::kZoned || kind == Distribution::kZonedAbs)) {
    const uint64_t* rs = job.randseed ? &*job.randseed : nullptr;
    jr.zone_seed = FioSlotSeed(job.randrepeat, job.allrandrepeat, rs, thread_number,
                               kFioRandZoneOff, seed ^ 0x7777);
    jr.zone.seed_with(jr.zone_seed, false);
    g.build_zone_index();
  }
  return g;
}

void IoGenerator::build_zone_index() {
  // fio's __td_zone_gen_index: access percent v (1..100) of a direction
  // maps to the zone it falls in, as its start and end (percent of the
  // region for zoned, bytes for zoned_abs), zones in the order written.
  const auto& rd = job_.random_distribution;
  for (int d = 0; d < kNumDirs; d++) {
    zone_index_[d].clear();
    if (rd.zones[d].empty()) continue;
    zone_index_[d].assign(100, ZoneSpan{});
    uint64_t prev = 0;
    uint32_t aprev = 0;
    for (const ZoneSplit& z : rd.zones[d]) {
      for (uint32_t j = aprev; j < aprev + z.access_percent && j < 100; j++)
        zone_index_[d][j] = ZoneSpan{prev, prev + z.size, true};
      aprev += z.access_percent;
      prev += z.size;
    }
  }
}

std::optional<uint64_t> IoGenerator::zoned_block(Dir d) {
  const uint64_t lastb = fio_last_block(d);
  const std::vector<ZoneSpan>& index = zone_index_[int(d)];
  if (index.empty()) return draw_in(lastb);
  const uint32_t v = rand_->zone.between(1, 100);
  const ZoneSpan& z = index[v - 1];
  if (!z.set) return draw_in(lastb);  // fio's "bug in zoned generation": uniform
  if (job_.random_distribution.kind == Distribution::kZoned) {
    // fio's __get_next_rand_offset_zoned: percent of last_block.
    const uint64_t offset = z.start * lastb / 100;
    const std::optional<uint64_t> b = draw_in(lastb * (z.end - z.start) / 100);
    if (!b) return std::nullopt;
    return *b + offset;
  }
  // zoned_abs: byte ranges in the direction's alignment.
  const uint64_t align = st_[int(d)].align;
  const uint64_t stotal = z.start / align, send = z.end / align;
  if (send > lastb) return std::nullopt;  // fio: "zoned_abs sizes exceed file size"
  const std::optional<uint64_t> b = draw_in(send - stotal);
  if (!b) return std::nullopt;
  return *b + stotal;
}

uint64_t IoGenerator::fio_last_block(Dir d) const {
  const DirState& s = st_[int(d)];
  // fio's last_block: the blocks a block size larger than the alignment
  // can start at.
  const uint64_t minbs = FioMinBs(job_, int(d));
  const uint64_t max_size = zoned_ ? zone_range_ : size_;
  const uint64_t span = max_size - (minbs > s.align ? std::min(max_size, minbs - s.align) : 0);
  return std::max<uint64_t>(1, span / s.align);
}

uint64_t IoGenerator::fio_rand_in(uint64_t last) {
  const uint64_t r = rand_->off.next();
  return uint64_t(double(last) * (double(r) / rand_->off.max_plus_one()));
}

std::optional<uint64_t> IoGenerator::draw_block(Dir d) {
  switch (job_.random_distribution.kind) {
    case Distribution::kZipf:
    case Distribution::kPareto:
    case Distribution::kNormal:
      return skew_->next();
    case Distribution::kZoned:
    case Distribution::kZonedAbs:
      return zoned_block(d);
    case Distribution::kRandom:
      break;
  }
  return draw_in(fio_last_block(d));
}

std::optional<uint64_t> IoGenerator::draw_in(uint64_t last) {
  // fio's __get_next_rand_offset: the LFSR's next block (whatever `last`
  // is), or the drawn block if its bit is clear (a block past the map's end
  // counts as clear), else the next clear bit; a full map fails after its
  // draw.
  if (lfsr_) return lfsr_->next();
  const uint64_t b = fio_rand_in(last);
  if (!map_unit_ || b >= map_.blocks() || !map_.is_visited(b)) return b;
  if (map_.full()) return std::nullopt;
  return map_.next_free(b);
}

std::optional<uint64_t> IoGenerator::rand_block(Dir d) {
  // fio's get_next_rand_block: a failed draw (a full map), time based,
  // resets the file (positions and map: fio_file_reset) and draws again;
  // else the pass ends.
  std::optional<uint64_t> b = draw_block(d);
  if (b || !unlimited_) return b;
  reset_positions();
  wraps_++;
  return draw_block(d);
}

void IoGenerator::claim(Dir d, uint64_t off, uint64_t* len) {
  // fio's mark_random_map: bits from (off - file offset) / min_bs[ddir]
  // (in zones fio's file offset is the zone's start).
  const uint64_t unit = FioMinBs(job_, int(d));
  const uint64_t b = (off - zone_start_) / unit;
  if (b >= map_.blocks()) return;
  const uint64_t want = (*len + unit - 1) / unit;
  const uint64_t got = map_.claim(b, want);
  if (got > 0 && got * unit < *len) *len = got * unit;
}

std::optional<uint64_t> IoGenerator::fio_seq_offset(Dir d) {
  DirState& s = st_[int(d)];
  if (wraps() && s.pos >= start_ + size_) {
    s.pos = zone_start_;
    wraps_++;
  }
  if (s.pos >= dev_size_) return std::nullopt;
  uint64_t rel = s.pos - zone_start_;
  if (rel > 0 && job_.rw_offset_skip > 0) {
    rel += uint64_t(job_.rw_offset_skip);
    // fio compares the zone-relative position with the target's size.
    if (rel >= dev_size_) rel = zone_start_;
  }
  return zone_start_ + rel;
}

void IoGenerator::reset_positions() {
  if (map_unit_) map_.reset();
  // fio_file_reset's lfsr_reset, from the FIO_RAND_BLOCK_OFF seed (as it
  // is now: a pass may have re-seeded it).
  if (lfsr_) lfsr_->reset(rand_->off_seed);
  for (DirState& s : st_) {
    s.pos = zone_start_;
    s.last_start.reset();
  }
}

void IoGenerator::enter_zone(Dir d) {
  DirState& s = st_[int(d)];
  if (zone_bytes_ >= job_.zonesize) {
    zone_bytes_ = 0;
    zone_start_ += zone_range_ + job_.zoneskip;
    if (zone_start_ >= dev_size_) zone_start_ = start_;
    s.pos = zone_start_;
  }
  // zonesize > zonerange: the zone again from its start.
  if (s.pos >= zone_start_ + zone_range_) s.pos = zone_start_;
  if (zone_bytes_ % zone_range_ == 0) reset_positions();
}

bool IoGenerator::plain_seq_offset(DirState& s, uint64_t len, bool fixed_len,
                                   uint64_t* off_out) {
  uint64_t off = s.pos;
  // fio's get_next_offset: a fixed size may start anywhere before the
  // region's end (and run past it, within the target); a range needs room
  // for its minimum (io_u_fits).
  if (fixed_len ? off >= start_ + size_ : off + len > start_ + size_) {
    // End of the region: fio ends the pass here (FioPasses decides whether
    // another follows) unless the job is time based.
    if (!unlimited_) return false;
    off = start_;
    wraps_++;
  }
  *off_out = off;
  return true;
}

void IoGenerator::plain_seq_advance(DirState& s, uint64_t off, uint64_t len) {
  if (job_.rw_offset_skip == 0) {
    s.pos = off + len;
  } else {
    // Backwards: below the region's start wraps to its end minus the skip,
    // as fio's (rw=read:-8k, bs=4k, size=32k: 0, 24k, 20k, ... 4k, 0).
    const uint64_t back = uint64_t(0) - uint64_t(job_.rw_offset_skip);
    s.pos = off + len >= start_ + back ? off + len - back : backward_wrap();
  }
}

void IoGenerator::start_pass() {
  // fio's clear_io_state: rwmix_issues and zone_bytes 0, the file's offset
  // and positions from the start, its map empty, and when randrepeat every
  // generator re-seeded.  States shared by the files of a clone are
  // MultiFileSource's to re-seed, once per pass (restart_shared).
  if (job_.randrepeat && !rand_shared_) rand_->reseed();
  if (mixed_ && !mix_shared_) mix_->new_loop();
  zone_bytes_ = 0;
  zone_start_ = start_;
  reset_positions();
  for (DirState& s : st_) s.pos = first_pos();
}

void IoGenerator::restart_shared() {
  if (job_.randrepeat) rand_->reseed();
  if (mix_) mix_->new_loop();
}

bool IoGenerator::next(IoUnit* io) {
  if (external_passes_) {
    if (!next_unit(io)) return false;
    if (mixed_ && !io->flush) mix_->issued(io->dir);
    io->wrap = wraps_;
    io->opens = false;  // MultiFileSource knows when the file opens
    return true;
  }
  for (;;) {
    const bool may = passes_.may_issue();
    if (may && next_unit(io)) {
      passes_.issued(io->dir, io->len);
      if (mixed_ && !io->flush) mix_->issued(io->dir);
      io->pass = passes_.pass();
      io->wrap = wraps_;
      // The one file opens for each pass (fio closes it at a pass's end).
      io->opens = io->pass != opened_pass_;
      opened_pass_ = io->pass;
      return true;
    }
    if (!passes_.next_pass(/*out_of_io=*/may)) return false;
    start_pass();
  }
}

bool IoGenerator::resume() {
  if (external_passes_ || !passes_.resume()) return false;
  start_pass();
  return true;
}

bool IoGenerator::next_unit(IoUnit* io) {
  // trimwrite: the write of the block trimmed last, outside the budget (fio
  // issues size= bytes of trims and as many of writes).
  if (write_after_trim_) {
    *io = *write_after_trim_;
    write_after_trim_.reset();
    return true;
  }
  Dir d = only_;
  if (mixed_) {
    d = mix_->next();
    // fio switches only to a direction the mix issues (rwmix[odir] != 0).
    if (chooser_ && job_.rwmixread > 0 && job_.rwmixread < 100) d = chooser_->choose(d);
  }
  DirState& s = st_[int(d)];
  if (zoned_) enter_zone(d);
  const bool plain_seq = !random_ && !zoned_ && job_.rw_offset_skip <= 0;
  // randread:N: a random offset is due for the job's 1st, (N+1)th, ...
  // I/O; the others follow rw_sequencer.
  bool due = true, draw = false;
  if (!plain_seq) {
    if (random_ && job_.rw_sequential_ios > 1) {
      due = --seq_count_ == 0;
      if (due) seq_count_ = job_.rw_sequential_ios;
    }
    // percentage_random: some of the due ones go on from the last I/O.
    const uint32_t pct = job_.percentage_random[int(d)];
    draw = random_ && due;
    // fio's should_do_random: 1..100 from the direction's seq_rand_state.
    if (draw && pct < 100 && rand_->seq_rand[int(d)].between(1, 100) > pct) draw = false;
  }
  // bs_is_seq_rand: fio's get_next_buflen takes the write block size for
  // a random offset, the read one for a sequential one.  A fixed size is
  // known now; a range or split is drawn once the offset is (fio's order),
  // and the offset is found with its minimum.
  const Dir len_dir = !job_.bs_is_seq_rand ? d : draw ? Dir::kWrite : Dir::kRead;
  const bool fixed_len = rand_->sizes.fixed(len_dir);
  uint64_t len = rand_->sizes.min(len_dir);
  const uint64_t end = start_ + size_;
  uint64_t off;
  if (plain_seq) {
    if (!plain_seq_offset(s, len, fixed_len, &off)) return false;
    if (!fixed_len && !(len = rand_->sizes.next(len_dir, off, end))) return false;
    if (off >= dev_size_ || len > dev_size_ - off) return false;
    plain_seq_advance(s, off, len);
  } else {
    const bool repeat = random_ && !due && job_.rw_sequencer == JobOptions::RwSequencer::kIdentical;
    if (repeat) {
      off = s.last_start.value_or(zone_start_);
    } else {
      std::optional<uint64_t> seq;
      if (!draw) seq = fio_seq_offset(d);
      if (seq) {
        off = *seq;
        // A block that does not fit before the region's end.
        if (!zoned_ && wraps() && off + len > end) off = start_;
      } else if (random_) {
        // A random offset, or for a sequential I/O that found no room fio's
        // fallback to get_next_rand_block (not marked visited: claim below
        // is for draws).
        std::optional<uint64_t> block = rand_block(d);
        if (!block) return false;
        off = zone_start_ + *block * s.align;
        if (fixed_len && !map_unit_ && !lfsr_ && !zoned_ && !skew_ && off + len > end) {
          // Pulled back to fit when the block exceeds the alignment at the end.
          const uint64_t last = end - len;
          off = start_ + ((last - start_) / s.align) * s.align;
        }
        // A fixed size past the target's end ends the job (below).
      } else {
        return false;
      }
    }
    if (!fixed_len && !(len = rand_->sizes.next(len_dir, off, end))) return false;
    // fio's get_next_offset and fill_io_u: the zone-relative offset within
    // size=, the I/O within the target, else the job ends.
    if (off < zone_start_ || off - zone_start_ >= size_ || off >= dev_size_ ||
        len > dev_size_ - off)
      return false;
    // fio's mark_random_map: a random I/O marks its blocks and is cut to
    // the unvisited run it starts; a sequential one (randread:N,
    // percentage_random, a fallback) marks nothing (fio's IO_U_F_BUSY_OK).
    if (map_unit_ && draw) claim(d, off, &len);
    s.pos = off + len;
  }
  s.last_start = off;
  // The last I/O of the budget is whole, as fio's: the job issues I/Os
  // while fewer than io_size bytes went out (FioPasses).
  zone_bytes_ += len;
  io->dir = d;
  io->offset = off;
  io->len = len;
  if (trim_write_) {
    write_after_trim_ = *io;
    write_after_trim_->dir = Dir::kWrite;
  }
  return true;
}

}  // namespace blk::bench
