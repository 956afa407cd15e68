// Several files per job, as fio's nrfiles / filename=a:b:c.
//
// A job with N files is N single-file jobs under one clone: FileJob() gives
// file i's own options (its name, its share of size, io_size and
// number_ios), from which the worker opens, lays out and sizes each target
// (JobTarget) and builds one IoGenerator per file.  MultiFileSource then
// picks the file of each I/O with fio's file_service_type:
//  * roundrobin (default): the next file after every N I/Os (":N", 1);
//  * sequential: one file until it is done (its generator ends: fio's
//    file done), then the next; time based, after its region once;
//  * random: a file drawn as fio's (its next_file_state, seeded from the
//    FIO_RAND_FILE_OFF slot; a done file drawn again), again after every
//    N I/Os.
// The passes are the job's, as fio's (FioPasses over the job's size,
// io_size, loops and number_ios): a file whose generator found no more I/O
// (the end of its region, a full map) is done and skipped; when every file
// is done, or the job's bytes end the pass, another may begin with every
// file from its start.  Offsets stay within each file.
//
// Thread-safety: one source per clone, used on its worker thread.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/run/fio_rand.h"
#include "tools/block_bench/run/generator.h"
#include "tools/block_bench/run/passes.h"
#include "tools/block_bench/run/rng.h"
#include "tools/block_bench/run/source.h"

namespace blk::bench {

// The options of clone `clone` (0-based) of `job`: the job with its offset
// moved by clone * offset_increment (fio's), else the job itself.
JobOptions CloneJob(const JobOptions& job, uint32_t clone);

// The options of file `file` (0-based) of clone `clone` of `job`: one file,
// named filenames[file] or by filename_format (FileNameOf, run/target.h:
// fio's default "JOB.CLONE.FILE"); io_size and number_ios shared out.  Its
// size, as fio's:
//  * filesize=LOW[-HIGH]: the file is filesize bytes (a range: drawn in it
//    as fio's, from the clone's file-size state seeded for `rand_thread`,
//    fio's thread number (0: clone + 1), or `clone_seed` when fio's seeds
//    would be random; rounded down to the smallest block size), and the
//    job's I/O region on it runs from the start offset to
//    the file's end, or is N % of the file with size=N%; a size= in bytes
//    caps the I/O, shared out over the files;
//  * else size / nrfiles.
// With one file and no filesize= the job itself.
JobOptions FileJob(const JobOptions& job, uint32_t clone, uint32_t file,
                   uint32_t rand_thread = 0, uint64_t clone_seed = 0);

// The seed of file `file`'s generator (file 0: the clone's seed, so a
// one-file job draws the sequence it always did).
uint64_t FileSeed(uint64_t clone_seed, uint32_t file);

class MultiFileSource final : public IoSource {
 public:
  // REQUIRES: gens.size() >= 1.  `file_seed`: fio's FIO_RAND_FILE_OFF seed
  // (FioSlotSeed), for file_service_type=random; `use64`: tausworthe64.
  // `limits`: the job's passes over all its files (FioPasses, as fio's:
  // the job's bytes and I/Os, a pass ending when every file is done); the
  // files' generators then end only for want of I/O.  `open_cap`:
  // openfiles= (0: every file).  `randrepeat`: the file state is re-seeded
  // with each pass (fio's clear_io_state, as the job's other states).
  //
  // Which file serves the next I/O is fio's choice with at most `open_cap`
  // files open: a file opens when a pick first lands on it, closes when it
  // is done, and every file closes at the end of a pass (clear_io_state);
  // a pick that lands on a closed file while `open_cap` are open is passed
  // over (get_next_file_rr/_rand's EBUSY, after which fio picks again).  A file whose last I/O is still in
  // flight counts as closed (fio closes it when that I/O completes: the same
  // at iodepth=1).  The targets themselves stay open.
  MultiFileSource(std::vector<IoGenerator> gens, FileService service, uint32_t ios_per_pick,
                  uint64_t file_seed, bool use64, const PassLimits& limits,
                  uint32_t open_cap = 0, bool randrepeat = true);

  // Next I/O with its file in u->file; false when every file is done.
  bool next(IoUnit* u) override;
  bool has_dir(Dir d) const override;
  uint64_t max_bs() const override;
  uint64_t io_limit() const override;
  void reset_budget() override;
  void note_other_io(uint64_t len) override { passes_.other_io(len); }
  bool resume() override;
  void set_unlimited(bool u);
  void set_dir_chooser(DirChooser* c) override;

  uint32_t files() const { return uint32_t(gens_.size()); }

 private:
  void advance();  // to the next file by the service type (and open it)
  // Whether a pick may land on file `f`: not done, and open or openable.
  bool usable(uint32_t f) const { return !done_[f] && (open_[f] || open_count_ < open_cap_); }
  void set_open(uint32_t f, bool open);
  // The job's pass ended (for want of I/O when every file is done); true:
  // another began, every file from its start again (begin_pass).
  bool end_pass(bool out_of_io);
  void begin_pass();
  // The next I/O of the current pass from the files not done; false: every
  // file is done.
  bool next_in_pass(IoUnit* u);

  std::vector<IoGenerator> gens_;
  std::vector<bool> done_;
  FileService service_;
  uint32_t per_pick_;
  uint64_t file_seed_;
  bool randrepeat_;
  bool pick_due_ = false;       // the next I/O picks a file first
  FioRand file_rand_;  // fio's next_file_state
  FioPasses passes_;   // the job's passes
  uint32_t cur_ = 0;
  uint32_t left_ = 0;           // I/Os before the next pick (roundrobin, random)
  uint64_t bytes_on_cur_ = 0;   // sequential: bytes issued to cur_ since it was picked
  uint32_t live_ = 0;           // files not done
  std::vector<bool> open_;      // fio's open files
  std::vector<bool> opening_;   // opened, its first I/O not handed out yet (IoUnit::opens)
  uint32_t open_count_ = 0;
  uint32_t open_cap_ = 0;       // openfiles=, at most the number of files
};

}  // namespace blk::bench
