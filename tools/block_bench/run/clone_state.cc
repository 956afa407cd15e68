#include "tools/block_bench/run/clone_state.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace blk::bench {

bool ContinuesPast(ContinueOnError c, Dir d, int err) {
  if (err != EIO && err != EILSEQ) return false;
  switch (c) {
    case ContinueOnError::kNone: return false;
    case ContinueOnError::kRead: return d == Dir::kRead;
    case ContinueOnError::kWrite: return d == Dir::kWrite;
    case ContinueOnError::kIo: return true;
    case ContinueOnError::kVerify: return false;
    case ContinueOnError::kAll: return true;
  }
  return false;
}

bool ContinuesPastVerify(ContinueOnError c) {
  return c == ContinueOnError::kVerify || c == ContinueOnError::kAll;
}

bool IgnoresError(ContinueOnError c, const std::array<std::vector<int>, 3>& lists, Dir d,
                  int err) {
  const int type = err == EILSEQ ? 2 : d == Dir::kRead ? 0 : 1;
  // fio's continue_on_error bits: read 1, write 2, verify 4.
  unsigned mask = 0;
  switch (c) {
    case ContinueOnError::kNone: mask = 0; break;
    case ContinueOnError::kRead: mask = 1; break;
    case ContinueOnError::kWrite: mask = 2; break;
    case ContinueOnError::kIo: mask = 3; break;
    case ContinueOnError::kVerify: mask = 4; break;
    case ContinueOnError::kAll: mask = 7; break;
  }
  for (int t = 0; t < 3; t++)
    if (!lists[t].empty()) mask |= 1u << t;
  if (!(mask & (1u << type))) return false;
  if (lists[type].empty()) return err == EIO || err == EILSEQ;
  return std::find(lists[type].begin(), lists[type].end(), err) != lists[type].end();
}

void CloneErrors::fail(int err, const std::string& msg) {
  if (!res_->error) {
    res_->error = err;
    res_->error_message = msg;
  }
  stop_ = true;
}

void CloneErrors::count(int err, const std::string& msg) {
  res_->total_errors++;
  if (!res_->first_error) {
    res_->first_error = err;
    res_->first_error_message = msg;
  }
}

void CloneErrors::io_error(Dir d, int err, const std::string& msg) {
  count(err, msg);
  const bool past = use_ignore_ ? IgnoresError(continue_, ignore_, d, err)
                                : ContinuesPast(continue_, d, err);
  if (!past) fail(err, msg);
}

std::string IoErrorLine(const FailedIo& io, int err) {
  // fio's io_ddir_name: a flush is an io_u of direction "sync".
  const char* dir = io.flush ? "sync" : OpName(io.dir);
  return "io_u error on file " + std::string(io.file) + ": " + std::strerror(err) + ": " + dir +
         " offset=" + std::to_string(io.flush ? 0 : io.offset) +
         ", buflen=" + std::to_string(io.flush ? 0 : io.len);
}

void CloneErrors::io_error(const FailedIo& io, int err, const std::string& msg) {
  if (dump_) dump_(IoErrorLine(io, err));
  io_error(io.dir, err, msg);
}

void CloneErrors::verify_error(const std::string& msg, bool fatal) {
  res_->verify_errors++;
  count(EILSEQ, msg);
  // A bad block does not stop the job (all blocks are checked: fio's
  // HOWTO) unless verify_fatal, also when continue_on_error covers verify
  // (fio 3.33 then stops at the first bad block too); it is the job's
  // error unless continue_on_error covers verify.
  if (fatal) stop_ = true;
  if (use_ignore_ ? IgnoresError(continue_, ignore_, Dir::kRead, EILSEQ)
                  : ContinuesPastVerify(continue_))
    return;
  if (!res_->error) {
    res_->error = EILSEQ;
    res_->error_message = msg;
  }
  if (fatal) stop_ = true;
}

void CloneErrors::set(int err, std::string msg) {
  res_->error = err;
  res_->error_message = std::move(msg);
}

}  // namespace blk::bench
