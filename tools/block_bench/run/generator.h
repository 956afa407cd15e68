// IoGenerator: the sequence of I/Os one job clone issues, with fio's meaning
// of rw=, bs/bsrange/bssplit, offset/size/io_size/number_ios, blockalign,
// random_distribution, norandommap, rwmixread and the ":N" suffixes.
//
// The region is [region_start, region_start + region_size) of the target;
// * sequential modes walk it from the start, per direction, and end (or,
//   time based, wrap) at its end; rw=write:4k skips 4k after every I/O and
//   goes back to the region's start once the next offset would lie past the
//   target's end, and ends when it lies past the region's end or the I/O
//   past the target's (fio's get_next_seq_offset: size=32k of write:4k on a
//   32k target is 0, 8k, 16k, 24k twice; at offset=1m of a larger one only
//   once); a negative skip goes
//   backwards as fio's (rw=read:-8k, bs=4k, size=32k: 0, 24k, 20k, ..., 4k,
//   then again; with an offset the first I/O is at the wrap point, end-8k);
// * random modes pick block numbers in [0, last) with fio's last_block
//   (the region, or zonerange, less what a block size above the alignment
//   needs at its end, over align = blockalign, else the direction's
//   minimum block size) and issue at region_start + block * align;
// * lengths are FioBlockSizes' (fio's get_next_buflen): a range or split
//   is drawn after the offset, again until it fits before the region's end;
//   the last I/O is whole;
//   randread:N draws a random offset for the job's 1st, (N+1)th, ... I/O
//   (one counter for all directions, as fio's) and, in between, goes on
//   sequentially (rw_sequencer=sequential) or repeats the direction's last
//   offset (rw_sequencer=identical);
// * a random job's sequential I/O (randread:N, percentage_random) that
//   reaches the target's end takes a random block instead (not counted as
//   visited); one that reaches the region's end short of the target's ends
//   the pass unless the job is time based (then it wraps to the region's
//   start) -- fio's get_next_seq_offset;
// * zonemode=strided confines the I/O to [zone, zone + zonerange): a new
//   zone zonerange + zoneskip further on once zonesize bytes went to this
//   one (back to offset= when it would start past the target's end), the
//   random map and the positions reset at the zone's start and after every
//   zonerange bytes in it, a sequential position wrapped to the zone's start
//   at its end; an I/O past the target's end ends the job (fio's
//   setup_strided_zone_mode, get_next_offset and fill_io_u);
// * without norandommap, uniform random I/O draws its blocks as fio's
//   get_next_rand_offset (FioRand seeded as fio's FIO_RAND_BLOCK_OFF,
//   last x r / 2^32) under fio's random map (BlockMap, one bit per
//   rw_min_bs bytes, the smallest block size of the three directions): a
//   pick whose bit is set moves on to the next clear one, a random I/O
//   marks its bits in its direction's smallest block size and is cut to
//   the clear run it starts; sequential I/O of a random job marks nothing;
//   a full map fails the draw and ends the pass, or, time based, empties
//   map and positions and draws again (fio's get_next_rand_block); a
//   blockalign other than a direction's smallest block size turns the map
//   off (as norandommap), as fio's; random_generator=lfsr draws from fio's
//   LFSR instead (FioLfsr, one per file for every direction: each block of
//   rw_min_bs once per pass without a map, a block number then taken in the
//   direction's alignment, the draw failing after the last one), also for
//   zoned distributions, whose zone bounds it ignores as fio's does;
// * other random_distributions are fio's and use no map, as fio's: zipf,
//   pareto and normal a range from FioSkew (run/fio_skew.h; an offset past
//   size= ends the pass), zoned and zoned_abs a zone from fio's zone state
//   (FIO_RAND_ZONE_OFF, re-seeded with each pass) and a block in it from
//   the uniform draw;
// * rw/randrw take each I/O's direction from RwMix, fio's rule and random
//   numbers (the same reads and writes in the same order as fio 3.33); with
//   a DirChooser (rate pacing) and both directions in the mix, the chooser
//   may turn the mix's choice into the other direction (fio's rate_ddir).
// * the I/O runs in fio's passes (FioPasses, run/passes.h: loops=,
//   io_size=, number_ios=, and whether the engine queues); each pass after
//   the first starts over from the region's start with an empty map, and
//   from the seeds when randrepeat (fio's clear_io_state).
// Everything is drawn from generators seeded by Seed(), so the same job and
// seed give the same sequence (randrepeat=1 default, randseed=N) -- but for
// a rate-paced mix, whose directions follow the clock as fio's do.
//
// Thread-safety: one generator per clone, used on its worker thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/block_map.h"
#include "tools/block_bench/run/block_size.h"
#include "tools/block_bench/run/fio_lfsr.h"
#include "tools/block_bench/run/fio_skew.h"
#include "tools/block_bench/run/passes.h"
#include "tools/block_bench/run/rng.h"
#include "tools/block_bench/run/rwmix.h"
#include "tools/block_bench/run/source.h"
#include <blkstack/util/result.h>

namespace blk::bench {


// The seed of clone `clone` (0-based) of job number `job_index`: randseed if
// given, a fixed constant when randrepeat (the default), else random.
uint64_t JobSeed(const JobOptions& job, uint32_t job_index, uint32_t clone);

// The rw mix of a clone: fio's rule, seeded as fio's for `thread_number`
// (randrepeat, randseed, allrandrepeat); `seed` (the clone's) when fio's
// would come from the system RNG.
std::shared_ptr<RwMix> NewRwMix(const JobOptions& job, uint64_t seed, uint32_t thread_number);

// fio's per-job random states (its thread_data's): the uniform offsets
// (FIO_RAND_BLOCK_OFF), the block sizes, percentage_random's seq_rand and
// the zoned distributions' zone state.  The files of a clone share one, as
// fio's one thread_data draws for all of a job's files.  With
// random_generator=tausworthe64 the offsets and block sizes are fio's
// 64-bit generator, seq_rand and zone its 32-bit one (as fio 3.33's
// td_fill_rand_seeds_internal).
struct FioJobRand {
  FioRand off;
  uint64_t off_seed = 0;
  FioBlockSizes sizes;  // each I/O's length, as fio's get_next_buflen
  FioRand seq_rand[kNumDirs];
  uint64_t seq_rand_seed = 0;
  FioRand zone;
  uint64_t zone_seed = 0;
  // A pass's start with randrepeat: every state from its seed again.
  void reseed();
};

class IoGenerator final : public IoSource {
 public:
  // `dev_size`: the target's length in bytes.  `thread_number`: fio's
  // (1-based over all clones of all jobs), which seeds the rw mix as fio's.
  // Errors name the option.
  // `file_name`: the name fio gives the file (its jhash seeds zipf, pareto
  // and normal: FioSkew).
  static Expected<IoGenerator> Create(const JobOptions& job, uint64_t dev_size, uint64_t seed,
                                      uint32_t thread_number = 1,
                                      std::string_view file_name = {});

  // Next I/O, with the number of its pass (FioPasses); false once the last
  // pass ended: io_size (else size) x loops bytes or number_ios x loops
  // I/Os handed out, or no pass follows.  `unlimited` (time_based): passes
  // never end by bytes; the source ends only when a pass finds no I/O.
  bool next(IoUnit* io) override;
  // Starts the byte/I/O budget again (after ramp_time).
  void reset_budget() override {
    passes_.restart_budget();
    if (mix_) mix_->ramp_end();
  }
  void note_other_io(uint64_t len) override { passes_.other_io(len); }
  bool resume() override;
  // The files of one clone share their clone's mix, as fio's one per job
  // (then a loop's start does not reset it: the files' passes end apart).
  void share_mix(std::shared_ptr<RwMix> mix) {
    if (mixed_) mix_ = std::move(mix), mix_shared_ = true;
  }
  // One file of several (MultiFileSource): the job's passes are counted
  // there, so next() ends only for want of I/O, and restart_pass() begins
  // the file's next pass (positions, map); restart_shared() re-seeds the
  // states the files share, once per pass.
  void set_external_passes() { external_passes_ = true; }
  void restart_pass() { start_pass(); }
  void restart_shared();
  // The files of one clone draw from one set of fio's job states (file 0's:
  // job_rand()), as fio's; a shared set is not re-seeded by a pass.
  std::shared_ptr<FioJobRand> job_rand() const { return rand_; }
  // random_generator=lfsr: fio's error when its LFSR cannot be set up for
  // the file's blocks with the seed (an XNOR LFSR's locked state).
  std::optional<Error> lfsr_error() const {
    if (!lfsr_ || lfsr_->ready()) return std::nullopt;
    return Error{-EINVAL, "random_generator=lfsr: fio's LFSR cannot be set up for " +
                              std::to_string(lfsr_blocks_) + " blocks with this seed (fio: "
                              "\"failed initializing LFSR\")"};
  }
  // (random_generator=lfsr: the file's LFSR starts again from the shared
  // seed, fio's one rand_seeds[FIO_RAND_BLOCK_OFF] for all files.)
  void share_rand(std::shared_ptr<FioJobRand> r) {
    rand_ = std::move(r);
    rand_shared_ = true;
    if (lfsr_) lfsr_->init(lfsr_blocks_, rand_->off_seed);
  }
  void set_unlimited(bool u) {
    unlimited_ = u;
    passes_.set_unlimited(u);
  }
  bool unlimited() const { return unlimited_; }
  void set_dir_chooser(DirChooser* c) override { chooser_ = c; }

  uint64_t region_start() const { return start_; }
  uint64_t region_size() const { return size_; }
  uint64_t io_limit() const override { return passes_.budget(); }
  uint64_t max_bs() const override { return max_bs_; }
  bool has_dir(Dir d) const override;

 private:
  struct DirState {
    uint64_t align = 4096;
    uint64_t blocks = 1;
    // plain_seq_offset's next offset; else fio's last_pos: the end of the
    // direction's last I/O (a skip is added when the next offset is made).
    uint64_t pos = 0;
    std::optional<uint64_t> last_start;  // offset of the direction's last I/O
  };
  // fio's zone_split_index entry: a zone's start and end, in percent of the
  // region (zoned) or bytes (zoned_abs).
  struct ZoneSpan {
    uint64_t start = 0, end = 0;
    bool set = false;
  };
  bool next_unit(IoUnit* io);
  // Where a backwards sequential job (negative rw skip) wraps to.
  uint64_t backward_wrap() const {
    const uint64_t back = uint64_t(0) - uint64_t(job_.rw_offset_skip);
    return size_ >= back ? start_ + size_ - back : start_;
  }
  // fio's last_block for direction `d`.
  uint64_t fio_last_block(Dir d) const;
  // fio's __get_next_rand_offset draw (before its random map): a block in
  // [0, last) from rand_->off.
  uint64_t fio_rand_in(uint64_t last);
  // __get_next_rand_offset: the draw under the random map, if any;
  // nullopt: the map is full.
  std::optional<uint64_t> draw_in(uint64_t last);
  // fio's get_next_rand_offset: by the job's random_distribution.
  std::optional<uint64_t> draw_block(Dir d);
  // fio's get_next_rand_block: draw_block, drawn again after a reset when
  // time based.
  std::optional<uint64_t> rand_block(Dir d);
  // zoned/zoned_abs (fio's __get_next_rand_offset_zoned[_abs]); nullopt: a
  // full map, or zoned_abs zones past the region.
  std::optional<uint64_t> zoned_block(Dir d);
  void build_zone_index();
  // The offset of a random job's sequential I/O or of any I/O in a zone,
  // as fio's get_next_seq_offset; nullopt: no room left before the target's
  // end.
  std::optional<uint64_t> fio_seq_offset(Dir d);
  // Whether a sequential position at the region's end goes back to its
  // start within a pass: time based (else the pass ends there).
  bool wraps() const { return unlimited_; }
  // Where a direction's sequential position starts a pass.
  uint64_t first_pos() const {
    return job_.rw_offset_skip < 0 && start_ > 0 ? backward_wrap() : start_;
  }
  // fio's clear_io_state before every pass after the first.
  void start_pass();
  // fio's setup_strided_zone_mode, before each I/O of direction `d`.
  void enter_zone(Dir d);
  // fio_file_reset: positions to the zone's start, a new random pass.
  void reset_positions();
  // A sequential job without zones or holes (rw=read, rw=read:-8k): the
  // next offset for an I/O of `len` bytes (a range's minimum when not
  // `fixed_len`); false: the pass ended.
  // plain_seq_advance moves on past the I/O issued there.
  bool plain_seq_offset(DirState& s, uint64_t len, bool fixed_len, uint64_t* off);
  void plain_seq_advance(DirState& s, uint64_t off, uint64_t len);

  // The random map (map_unit_ != 0): the marking of a random I/O's bits,
  // which cuts it to the unvisited run it starts.
  void claim(Dir d, uint64_t off, uint64_t* len);

  JobOptions job_;
  BlockMap map_;           // fio's random map, when map_unit_ != 0
  std::optional<FioLfsr> lfsr_;  // random_generator=lfsr's, of the file
  uint64_t lfsr_blocks_ = 0;     // its values: the file's rw_min_bs blocks
  uint64_t map_unit_ = 0;  // its bytes per bit (fio's rw_min_bs)
  uint64_t start_ = 0, size_ = 0, max_bs_ = 4096;
  uint64_t dev_size_ = 0;
  bool random_ = false, unlimited_ = false;
  uint32_t wraps_ = 0;  // time based: offsets wrapped to the start (IoUnit::wrap)
  uint64_t seq_count_ = 1;  // fio's ddir_seq_nr: a random offset when it hits 0
  bool zoned_ = false;
  uint64_t zone_start_ = 0;  // fio's file_offset: the zone's start (else start_)
  uint64_t zone_range_ = 0;
  uint64_t zone_bytes_ = 0;  // bytes issued in the zone
  Dir only_ = Dir::kRead;
  bool mixed_ = false;
  bool trim_write_ = false;                 // rw=trimwrite / randtrimwrite
  std::optional<IoUnit> write_after_trim_;  // trimwrite: the write due next
  // fio's job states (offsets, lengths, seq_rand, zone); shared by the
  // files of a clone when rand_shared_.
  std::shared_ptr<FioJobRand> rand_;
  bool rand_shared_ = false;
  std::shared_ptr<RwMix> mix_;  // rw/randrw
  bool mix_shared_ = false;
  FioPasses passes_;  // where a pass ends, whether another begins
  bool external_passes_ = false;  // MultiFileSource counts the passes
  uint32_t opened_pass_ = UINT32_MAX;  // the pass whose first I/O was handed out
  std::optional<FioSkew> skew_;  // zipf, pareto, normal
  // zoned/zoned_abs: fio's index of the zones (its zone_state: rand_).
  std::vector<ZoneSpan> zone_index_[kNumDirs];
  DirChooser* chooser_ = nullptr;
  DirState st_[kNumDirs];
};

}  // namespace blk::bench
