// fio's verify state (verify_state_save / verify_state_load): how far a
// write job got, in fio 3.33's file, so that a later verify pass checks
// only the writes that completed.
//
// The file, "local-JOBNAME-INDEX-verify.state" (INDEX: the clone's thread
// number - 1, over all clones of the run, as fio's td index), in the
// --aux-path directory, else the working directory.  Little-endian:
//   header (24 bytes):  u64 version 3, u64 size (of the list below),
//                       u64 crc32c of the list (fio_crc32c: init ~0, no
//                       final inversion)
//   list (fio's struct thread_io_list, 152 bytes + 16 per entry):
//     0 u64 no_comps   8 u32 depth (iodepth=)   12 u32 nofiles
//    16 u64 numberio (writes issued)            24 u64 index
//    32 u64 use64, 48 bytes of random state     88 char name[64]
//   152 no_comps x { u64 fileno, u64 offset }
// The entries: per file, min(writes completed, depth) offsets of that
// file's last completed writes, the latest first, from a ring of `depth`
// per file (fio's last_write_comp; a file with fewer completions than that
// repeats fio's zero entries).  block-bench's offsets are not drawn by
// fio's generator, so it writes use64 = 0 and a zero random state: fio
// saves it and never reads it back (its sequential jobs save zeros too).
//
// Loading (fio's verify_state_should_stop): with R verify reads issued so
// far, a read of (file, offset) goes ahead while the state's numberio >
// depth and R < depth or numberio - R > depth (unsigned, as fio); inside
// that last window it goes ahead only when (file, offset) is an entry;
// the first that is not ends the verify pass.  fio 3.33 counts reads
// completed where block-bench counts reads issued: the same at iodepth=1.
// Only the verify pass (do_verify, verify_only) stops: fio also stops a
// read-only job with verify= by the state; block-bench does not yet.
//
// Thread-safety: VerifyStateLog on the clone's loop thread; the functions
// are reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <blkstack/util/result.h>

namespace blk::bench {

inline constexpr uint64_t kVerifyStateVersion = 3;  // fio 3.33's VSTATE_HDR_VERSION

struct VerifyStateEntry {
  uint64_t file = 0;
  uint64_t offset = 0;
  bool operator==(const VerifyStateEntry&) const = default;
};

struct VerifyState {
  uint32_t depth = 1;
  uint32_t nofiles = 1;
  uint64_t numberio = 0;
  uint64_t index = 0;
  std::string name;  // at most 63 bytes are kept
  std::vector<VerifyStateEntry> comps;
};

// "DIR/local-NAME-INDEX-verify.state"; DIR empty: no directory part.
std::string VerifyStatePath(const std::string& dir, const std::string& name, uint64_t index);

// The file's bytes for `s`.
std::vector<uint8_t> EncodeVerifyState(const VerifyState& s);
// Parses fio's file; the error says what is wrong (version, size, crc).
Expected<VerifyState> DecodeVerifyState(const std::vector<uint8_t>& bytes);

// Writes / reads `path` (created 0644, replaced).  Errors name the path.
Expected<void> SaveVerifyState(const std::string& path, const VerifyState& s);
Expected<VerifyState> LoadVerifyState(const std::string& path);

// fio's verify_state_should_stop for the read of (file, offset) after
// `reads` verify reads were issued (see above).
bool VerifyStateShouldStop(const VerifyState& s, uint64_t reads, uint64_t file, uint64_t offset);

// What a write job records for its state: fed by the verify tracker.
class VerifyStateLog {
 public:
  // `depth`: the job's iodepth (>= 1); `nofiles`: its files.
  VerifyStateLog(uint32_t depth, uint32_t nofiles);
  void issued() { numberio_++; }
  void completed(uint32_t file, uint64_t offset);
  // The state as fio would save it now.
  VerifyState snapshot(const std::string& name, uint64_t index) const;

 private:
  uint32_t depth_;
  uint64_t numberio_ = 0;
  uint64_t completed_ = 0;
  std::vector<std::vector<uint64_t>> ring_;  // per file, `depth` offsets
  std::vector<uint32_t> next_;               // per file, the ring's next slot
};

}  // namespace blk::bench
