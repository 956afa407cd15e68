// The outside world as the job parser sees it, and fio's text substitutions.
//
// ParseEnvironment bundles everything the parser would otherwise take from
// the process: environment variables (for ${VAR}), file contents (job files
// and their includes) and the values of fio's reserved keywords $pagesize,
// $mb_memory and $ncpus.  Tests substitute fakes; FromSystem() gives the
// real ones.
//
// Substitution, as in fio: every "${NAME}" in an option value is replaced by
// the variable's value, or by nothing when it is unset ("${" without a
// closing "}" stays as is); then every "$pagesize", "$mb_memory" and
// "$ncpus" is replaced by its number.  If a keyword was replaced and the
// value contains + - * or /, fio evaluates it as arithmetic ("size=8*$mb_memory");
// ExpandValue reports that so the option layer can do the same.
//
// Thread-safety: a ParseEnvironment is used read-only by the parser; the
// callbacks of FromSystem() call ::getenv and read files, so they race only
// with concurrent setenv().
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <blkstack/util/result.h>

namespace blk::bench {

// The largest job file (or include) read: job files are a few KB; the
// bound keeps `block-bench /dev/stdin < /dev/urandom` from filling memory.
inline constexpr uint64_t kJobFileMaxBytes = uint64_t(64) << 20;

struct ParseEnvironment {
  // Value of an environment variable, nullopt if unset.
  std::function<std::optional<std::string>(const std::string& name)> getenv;
  // Whole contents of a file; the Error message is a short reason such as
  // "No such file or directory".  FromSystem's reads at most
  // kJobFileMaxBytes and refuses devices (util/input_file.h).
  std::function<Expected<std::string>(const std::string& path)> read_file;
  uint64_t pagesize = 4096;  // $pagesize
  uint64_t mb_memory = 0;    // $mb_memory: total memory in MiB
  uint64_t ncpus = 1;        // $ncpus: online CPUs

  // The running process's environment, file system and machine.
  static ParseEnvironment FromSystem();
};

// Adds block-bench's rank variables to `env`: ${RANK} (this process's MPI
// rank), ${NRANKS} (how many) and ${HOSTNAME} (this host's name), so that
// each rank of an MPI run gets its own target (filename=/data/f.${RANK}).
// Under MPI (`mpi`) they always take these values; otherwise an environment
// variable of the same name wins, else they are 0, 1 and gethostname().
ParseEnvironment WithRankVariables(ParseEnvironment env, int rank, int nranks,
                                   const std::string& hostname, bool mpi);

struct ExpandedValue {
  std::string text;
  // A reserved keyword was replaced and the result contains an arithmetic
  // operator, so a numeric option should evaluate it as "(text)".
  bool wants_arithmetic = false;
};

// Applies ${VAR} expansion (unless `expand_env` is false: on the command
// line the shell has already done it, and only ${RANK}, ${NRANKS} and
// ${HOSTNAME} are expanded, which the shell cannot know for each rank) and
// then keyword replacement to `value`.
ExpandedValue ExpandValue(std::string_view value, const ParseEnvironment& env,
                          bool expand_env = true);

// ${VAR} expansion only (used for include file names).
std::string ExpandEnvironment(std::string_view text, const ParseEnvironment& env);

}  // namespace blk::bench
