#include "tools/block_bench/run/passes.h"

#include <algorithm>
#include <utility>

namespace blk::bench {
namespace {

constexpr unsigned Bit(Dir d) { return 1u << int(d); }

uint64_t SatMul(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

}  // namespace

bool CountsPassBytes(const JobOptions& job) {
  if (job.offload()) return false;  // fio's workqueue path counts nothing
  switch (job.ioengine) {
    case IoEngine::kLibaio:
    case IoEngine::kIoUring:
    case IoEngine::kPosixaio:
    case IoEngine::kRbd:
    case IoEngine::kRados:
    case IoEngine::kNbd:
      return true;
    case IoEngine::kNull:
      return job.iodepth > 1;  // fio's null is FIO_SYNCIO at iodepth 1
    case IoEngine::kPsync:
    case IoEngine::kSync:
    case IoEngine::kPvsync:
    case IoEngine::kPvsync2:
    case IoEngine::kMmap:
    case IoEngine::kFalloc:
    case IoEngine::kFtruncate:
    case IoEngine::kCpuio:
    case IoEngine::kExec:
    case IoEngine::kFilecreate:
    case IoEngine::kFilestat:
    case IoEngine::kFiledelete:
    case IoEngine::kNet:
    case IoEngine::kNetsplice:
    case IoEngine::kSplice:
    case IoEngine::kE4defrag:
      return false;
  }
  return false;
}

PassLimits PassLimits::Of(const JobOptions& job, uint64_t size, uint64_t io_size) {
  PassLimits l;
  l.size = size;
  l.io_size = io_size;
  l.loops = std::max<uint32_t>(1, job.loops);
  l.number_ios = job.number_ios;
  l.max_bs = std::max({FioMaxBs(job, 0), FioMaxBs(job, 1), FioMaxBs(job, 2)});
  l.unlimited = job.time_based;
  l.verify = job.verify != VerifyMethod::kNone;
  // fio's thread_main: do_verify unless !do_verify, verify=none or
  // FIO_UNIDIR (the net engines).
  l.read_back = l.verify && job.do_verify && !IsNet(job.ioengine);
  // fio's io_bytes_exceeded: td_rw, else td_write, else td_read, else trim.
  switch (job.rw) {
    case RwMode::kReadWrite: case RwMode::kRandReadWrite:
      l.counted = Bit(Dir::kRead) | Bit(Dir::kWrite);
      break;
    case RwMode::kWrite: case RwMode::kRandWrite:
    case RwMode::kTrimWrite: case RwMode::kRandTrimWrite:
      l.counted = Bit(Dir::kWrite);
      break;
    case RwMode::kRead: case RwMode::kRandRead:
      l.counted = Bit(Dir::kRead);
      break;
    case RwMode::kTrim: case RwMode::kRandTrim:
      l.counted = Bit(Dir::kTrim);
      break;
  }
  if (CountsPassBytes(job)) {
    // fio's do_io total_bytes.
    uint64_t cut = size;
    const bool writes = l.counted & Bit(Dir::kWrite);
    if (writes && IsRandom(job.rw) && job.norandommap) cut = std::max(cut, io_size);
    if (job.rw == RwMode::kTrimWrite || job.rw == RwMode::kRandTrimWrite)
      cut += SatMul(io_size ? io_size : size, l.loops);
    l.pass_cut = cut;
  }
  return l;
}

FioPasses::FioPasses(const PassLimits& l) : l_(l), loops_left_(l.loops - 1) {}

uint64_t FioPasses::byte_limit() const { return SatMul(l_.io_size ? l_.io_size : l_.size, l_.loops); }

bool FioPasses::may_issue() const {
  if (l_.unlimited) return !(l_.verify && l_.pass_cut && pass_bytes_ >= l_.pass_cut);
  if (counted_bytes_ >= byte_limit()) return false;
  if (l_.number_ios && ios_ >= SatMul(l_.number_ios, l_.loops)) return false;
  return !(l_.pass_cut && pass_bytes_ >= l_.pass_cut);
}

void FioPasses::issued(Dir d, uint64_t len) {
  if (l_.counted & Bit(d)) counted_bytes_ += len;
  all_bytes_ += len;
  pass_bytes_ += len;
  ios_++;
}

bool FioPasses::next_pass(bool out_of_io) {
  // fio's thread_main: a pass without I/O ends the job.
  if (pass_bytes_ == 0) return false;
  bool again;
  if (l_.unlimited) {
    again = true;
  } else if (loops_left_ > 0) {
    loops_left_--;
    again = true;
  } else if (l_.number_ios && ios_ >= SatMul(l_.number_ios, l_.loops)) {
    again = false;
  } else if (l_.read_back) {
    deferred_ = true;
    return false;
  } else {
    again = below_limit() && (l_.io_size || !out_of_io);
  }
  if (!again) return false;
  begin_pass();
  return true;
}

bool FioPasses::resume() {
  if (!std::exchange(deferred_, false) || !below_limit()) return false;
  begin_pass();
  return true;
}

bool FioPasses::below_limit() const {
  const uint64_t limit = l_.io_size ? l_.io_size : l_.size;
  return all_bytes_ < limit && limit - all_bytes_ >= l_.max_bs;
}

void FioPasses::begin_pass() {
  pass_bytes_ = 0;
  pass_++;
}

uint64_t FioPasses::budget() const { return byte_limit(); }

void FioPasses::restart_budget() {
  counted_bytes_ = all_bytes_ = ios_ = 0;
}

}  // namespace blk::bench
